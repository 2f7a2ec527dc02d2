// The neighbour scheme of the host block steps (sim/integrate/neighbour_scheme.hpp says the physics):
// the start's lists and split, each block's irregular sums, full sums and new lists, and its two
// correctors. Each body's sums depend on its index alone, so serial and openmp give the same bits.
#include <cmath>

#include "hermite_host.hpp"
#include "neighbour_scheme.hpp"

namespace nbody {

template <typename T>
double HostBlockSteps<T>::lookahead(std::size_t i) const {
    return neighbour_lookahead(nb_.regular_level[i], params_->dt);
}

template <typename T>
void HostBlockSteps<T>::search_lists(const std::vector<std::size_t>& bodies, bool build, double factor) {
    const std::size_t n = xp_.size(), m = bodies.size(), cap = std::size_t(nb_.capacity);
#pragma omp parallel for schedule(dynamic, 16) if (parallel_ && m * n >= 65536)
    for (std::size_t q = 0; q < m; ++q) {
        const std::size_t i = bodies[q];
        const T r2 = static_cast<T>(nb_.radius[i] * nb_.radius[i]);
        const T ahead = static_cast<T>(lookahead(i));
        std::uint32_t* list = nb_.list.data() + i * cap;
        std::uint32_t found = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i || !within_radius(xp_[i], vp_[i], xp_[j], vp_[j], r2, ahead)) continue;
            if (build && found < cap) list[found] = std::uint32_t(j);
            ++found;
        }
        if (build) nb_.listed[i] = found < cap ? found : std::uint32_t(cap);
        nb_.radius[i] = next_neighbour_radius(nb_.radius[i], found, nb_.k, factor);
    }
}

template <typename T>
void HostBlockSteps<T>::irregular(const std::vector<std::size_t>& bodies, std::vector<Vec4<T>>& a,
                                  std::vector<Vec4<T>>& j) {
    const std::size_t m = bodies.size(), cap = std::size_t(nb_.capacity);
    const T G = static_cast<T>(params_->G), eps2 = softening2<T>(*params_);
    a.resize(m);
    j.resize(m);
#pragma omp parallel for schedule(static) if (parallel_ && m * cap >= 65536)
    for (std::size_t q = 0; q < m; ++q) {
        const std::size_t i = bodies[q];
        const Vec4<T> xi = xp_[i], vi = vp_[i];
        T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
        const std::uint32_t* list = nb_.list.data() + i * cap;
        for (std::uint32_t s = 0; s < nb_.listed[i]; ++s) {
            const Vec4<T>&xj = xp_[list[s]], &vj = vp_[list[s]];
            add_interaction_jerk(xj.x - xi.x, xj.y - xi.y, xj.z - xi.z, vj.x - vi.x, vj.y - vi.y, vj.z - vi.z,
                                 xj.w, eps2, ax, ay, az, jx, jy, jz);
        }
        a[q] = Vec4<T>{G * ax, G * ay, G * az, T(0)};
        j[q] = Vec4<T>{G * jx, G * jy, G * jz, T(0)};
    }
}

template <typename T>
void HostBlockSteps<T>::start_neighbours(const Params& p) {
    const std::size_t n = bodies_.size();
    nb_.k = int(std::lround(p.neighbours));
    nb_.capacity = neighbour_capacity(nb_.k);
    nb_.list.assign(n * std::size_t(nb_.capacity), 0);
    nb_.listed.assign(n, 0);
    nb_.t_regular.assign(n, 0);
    nb_.regular_level.assign(n, 0);
    nb_.ai.resize(n), nb_.ji.resize(n), nb_.ar.resize(n), nb_.jr.resize(n);
    nb_.d2.resize(n), nb_.d3.resize(n);
    // Every body's radius from one guess, counted and rescaled a few times, then its list.
    nb_.radius.assign(n, start_neighbour_radius(xp_.data(), n, nb_.k));
    for (int round = 0; round < kStartRadiusRounds; ++round) search_lists(active_, false, kStartRadiusFactor);
    search_lists(active_, true, kRadiusFactor);
    std::vector<Vec4<T>> ai, ji;
    irregular(active_, ai, ji);
    const NeighbourArrays<T> s = neighbour_arrays();
    for (std::size_t i = 0; i < n; ++i) {
        acc_[i] = a1_[i];
        jerk_[i] = j1_[i];
        level_[i] =
            neighbour_start_body(s, i, p.eta, regular_eta(p), p.dt, vp_[i], a1_[i], j1_[i], ai[i], ji[i]);
    }
}

template <typename T>
void HostBlockSteps<T>::evaluate_neighbours() {
    const Params& p = *params_;
    // Every active body's irregular part from the list it had; the regular ones' full sum; then their
    // new lists and the irregular part from those.
    irregular(active_, nb_.ai_old, nb_.ji_old);
    const std::size_t m = nb_.regular.size();
    nb_.af.resize(m), nb_.jf.resize(m);
    if (m == 0) return;
    accelerations_jerks_of(xp_.data(), vp_.data(), xp_.size(), nb_.regular.data(), m, static_cast<T>(p.G),
                           softening2<T>(p), nb_.af.data(), nb_.jf.data(), parallel_, scratch_);
    search_lists(nb_.regular, true, kRadiusFactor);
    irregular(nb_.regular, nb_.ai_new, nb_.ji_new);
}

template <typename T>
NeighbourArrays<T> HostBlockSteps<T>::neighbour_arrays() {
    return {nb_.ai.data(),     nb_.ji.data(), nb_.ar.data(),        nb_.jr.data(),
            nb_.d2.data(),     nb_.d3.data(), nb_.t_regular.data(), nb_.regular_level.data(),
            nb_.listed.data(), bodies_.size()};
}

template <typename T>
void HostBlockSteps<T>::correct_neighbours(std::int64_t tick) {
    const Params& p = *params_;
    const NeighbourArrays<T> s = neighbour_arrays();
    ++max_step_blocks_;  // this block counted, as the device's clock counts it before its corrections
    for (std::size_t k = 0; k < active_.size(); ++k) {
        const std::size_t i = active_[k];
        NeighbourForces<T> f{nb_.ai_old[k], nb_.ji_old[k], nullptr, nullptr, nullptr, nullptr};
        if (const std::int32_t r = nb_.regular_slot[k]; r >= 0) {
            f.af = &nb_.af[r], f.jf = &nb_.jf[r], f.ai_new = &nb_.ai_new[r], f.ji_new = &nb_.ji_new[r];
        }
        const bool stalled =
            neighbour_correct_body(s, i, tick, t_[i], p.dt, p.eta, regular_eta(p), xp_[i], vp_[i], f, acc_[i],
                                   jerk_[i], bodies_.pos_mass[i], bodies_.vel[i], level_[i], judging());
        note_stall(i, stalled, tick);
        t_[i] = tick;
    }
    ++counters_.blocks;
    pending_updates_ += nb_.regular.size();
    counters_.neighbour_updates += active_.size();
    if (on_move_ && !active_.empty()) on_move_();
}

#define NBODY_NEIGHBOUR_MEMBERS(T)                                                                     \
    template double HostBlockSteps<T>::lookahead(std::size_t) const;                                   \
    template void HostBlockSteps<T>::search_lists(const std::vector<std::size_t>&, bool, double);      \
    template void HostBlockSteps<T>::irregular(const std::vector<std::size_t>&, std::vector<Vec4<T>>&, \
                                               std::vector<Vec4<T>>&);                                 \
    template NeighbourArrays<T> HostBlockSteps<T>::neighbour_arrays();                                 \
    template void HostBlockSteps<T>::start_neighbours(const Params&);                                  \
    template void HostBlockSteps<T>::evaluate_neighbours();                                            \
    template void HostBlockSteps<T>::correct_neighbours(std::int64_t);
NBODY_NEIGHBOUR_MEMBERS(float)
NBODY_NEIGHBOUR_MEMBERS(double)
#undef NBODY_NEIGHBOUR_MEMBERS

}  // namespace nbody
