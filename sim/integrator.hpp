#pragma once
// One time step of each integrator on a host State, for any force routine. Device backends implement the
// same sequences in their own kernels; the tests hold both to the same results.
#include <cstddef>
#include <vector>

#include "params.hpp"
#include "state.hpp"

namespace nbody {

// Accelerations cached between steps: leapfrog's closing kick computes a(x_{n+1}), which is the next
// step's opening kick, so a step costs one force evaluation. `valid` is dropped whenever the positions
// or the force parameters change behind the integrator's back.
template <typename T>
struct AccelCache {
    std::vector<Vec4<T>> acc;
    bool valid = false;
    double G = 0, softening = 0;

    bool usable_for(const Params& p) const { return valid && G == p.G && softening == p.softening; }
};

// The O(N) updates run on one thread even for the OpenMP backend: next to the O(N^2) force sum they cost
// nothing, while each extra parallel region costs a scheduler time slice when the cores are shared.
namespace detail {

template <typename T>
void kick(State<T>& s, const std::vector<Vec4<T>>& a, T h) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto& v = s.vel[i];
        v.x += h * a[i].x, v.y += h * a[i].y, v.z += h * a[i].z;
    }
}

template <typename T>
void drift(State<T>& s, T h) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto& x = s.pos_mass[i];
        const auto& v = s.vel[i];
        x.x += h * v.x, x.y += h * v.y, x.z += h * v.z;
    }
}

template <typename T>
void damp(State<T>& s, T factor) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto& v = s.vel[i];
        v.x *= factor, v.y *= factor, v.z *= factor;
    }
}

}  // namespace detail

// Advances s by p.dt with p.integrator. `force(pos_mass, acc)` fills acc for the given positions.
template <typename T, typename Force>
void integrate_step(State<T>& s, AccelCache<T>& cache, const Params& p, Force&& force) {
    const T dt = static_cast<T>(p.dt);
    auto refresh = [&] {
        cache.acc.resize(s.size());
        force(s.pos_mass.data(), cache.acc.data());
        cache.valid = true, cache.G = p.G, cache.softening = p.softening;
    };
    if (!cache.usable_for(p)) refresh();
    switch (p.integrator) {
        case Integrator::leapfrog:  // kick-drift-kick
            detail::kick(s, cache.acc, dt / 2);
            detail::drift(s, dt);
            refresh();
            detail::kick(s, cache.acc, dt / 2);
            break;
        case Integrator::symplectic_euler:  // v += a(x) dt; x += v dt
            detail::kick(s, cache.acc, dt);
            detail::drift(s, dt);
            cache.valid = false;
            break;
        case Integrator::euler:  // x += v dt; v += a(x_old) dt
            detail::drift(s, dt);
            detail::kick(s, cache.acc, dt);
            cache.valid = false;
            break;
    }
    if (p.damping != 1.0) detail::damp(s, static_cast<T>(p.damping));
    s.t += p.dt;
}

}  // namespace nbody
