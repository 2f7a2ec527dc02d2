#pragma once
// What the Hermite tests (test_hermite.cpp, test_hermite_neighbours.cpp) share: their Params, a backend
// holding given bodies, the two-body energy, and how two runs' bodies are compared.
#include <cmath>
#include <cstring>
#include <memory>

#include "backends/registry.hpp"
#include "sim/backend.hpp"
#include "sim/integrate/hermite.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody::test {

// Hermite with max step dt and accuracy eta, softening 0, the rest Params' defaults.
inline Params hermite_params(double dt, double eta) {
    Params p;
    p.integrator = Integrator::hermite;
    p.dt = dt;
    p.eta = eta;
    p.softening = 0;
    return p;
}

inline std::unique_ptr<Backend> backend_with(const char* name, Precision precision, const HostState& s) {
    auto b = create_backend(name, precision);
    b->set_state(s);
    return b;
}

inline double dist(const Vec4<double>& a, const Vec4<double>& b) {
    return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

// The energy of two bodies (G = 1) from the backend's state, without the diagnostics' thread team.
inline double two_body_energy(const Backend& b) {
    const HostState s = b.get_state();
    double kinetic = 0;
    for (std::size_t i = 0; i < 2; ++i) {
        const Vec4<double>& v = s.vel[i];
        kinetic += 0.5 * s.pos_mass[i].w * (v.x * v.x + v.y * v.y + v.z * v.z);
    }
    return kinetic - s.pos_mass[0].w * s.pos_mass[1].w / dist(s.pos_mass[0], s.pos_mass[1]);
}

// Positions and velocities of a against b, relative RMS over the bodies.
inline double relative_rms_difference(const HostState& a, const HostState& b) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num += std::pow(dist(a.pos_mass[i], b.pos_mass[i]), 2) + std::pow(dist(a.vel[i], b.vel[i]), 2);
        den += std::pow(norm3(b.pos_mass[i]), 2) + std::pow(norm3(b.vel[i]), 2);
    }
    return std::sqrt(num / den);
}

// Two bodies of mass 1e-6 on a circular mutual orbit 3e-7 apart at x = 1, where floats are 1.2e-7 apart:
// float cannot resolve the pair, and its steps stall (block_step_stalls: the steps the criterion asks for
// cannot move a body); double resolves it (an orbit of 7.3e-7 in ~100 blocks). At max step 1e-3 a float
// max step would take far more than kStallBlocks blocks, so the stall is judged in the first.
inline HostState unresolved_pair() {
    HostState s;
    s.resize(2);
    const double m = 1e-6, d = 3e-7, v = 0.5 * std::sqrt(2 * m / d);
    s.pos_mass[0] = {1.0, 0, 0, m};
    s.pos_mass[1] = {1.0 + d, 0, 0, m};
    s.vel[0] = {0, -v, 0, 0};
    s.vel[1] = {0, v, 0, 0};
    return s;
}

// The same time and the same bodies bit for bit.
inline bool same_bits(const HostState& a, const HostState& b) {
    return a.size() == b.size() && a.t == b.t &&
           std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4<double>)) == 0 &&
           std::memcmp(a.vel.data(), b.vel.data(), a.size() * sizeof(Vec4<double>)) == 0;
}

}  // namespace nbody::test
