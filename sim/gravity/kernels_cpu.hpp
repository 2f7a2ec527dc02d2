#pragma once
// Direct-summation gravity on the CPU:
//   a_i = G sum_{j != i} m_j r_ij / (|r_ij|^2 + eps^2)^{3/2},   r_ij = x_j - x_i.
// The loops run on structure-of-arrays copies so the compiler can vectorise them; the copies are O(N)
// per evaluation against O(N^2) work.
#include <cstddef>
#include <vector>

#include "sim/platform/aligned_allocator.hpp"
#include "sim/state.hpp"

namespace nbody {

// Structure-of-arrays copies, 64-byte aligned for the SIMD loops.
template <typename T>
struct ForceScratch {
    using Array = std::vector<T, AlignedAllocator<T>>;
    Array x, y, z, m, ax, ay, az;
};

// Each pair once (i < j, Newton's third law): half the interactions, one thread.
template <typename T>
void accelerations_pairwise(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, T G, T eps2,
                            ForceScratch<T>& scratch);

// A full row per body (no write conflicts, so no atomics), rows split across OpenMP threads.
template <typename T>
void accelerations_rows(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, T G, T eps2,
                        ForceScratch<T>& scratch);

// The rows of bodies first .. first + count - 1 of the n bodies only (acc[0 .. count)), each with the
// same bits accelerations_rows gives it: a distributed run's slice. Rows on every thread when `parallel`.
template <typename T>
void accelerations_row_range(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, std::size_t first,
                             std::size_t count, T G, T eps2, bool parallel, ForceScratch<T>& scratch);

// Acceleration (acc, may be null) and potential (may be null) at m arbitrary targets from n bodies, G
// included; a body exactly at a target is skipped. Targets run in parallel when `parallel`.
template <typename T>
void field_at_targets(const Vec4<T>* bodies, std::size_t n, const Vec4<T>* targets, std::size_t m, T G,
                      T eps2, Vec4<T>* acc, T* potential, bool parallel, ForceScratch<T>& scratch);

// Structure-of-arrays copies of positions, masses and velocities for the force-and-jerk loop.
template <typename T>
struct JerkScratch {
    using Array = std::vector<T, AlignedAllocator<T>>;
    Array x, y, z, m, vx, vy, vz;
};

// Acceleration and jerk (G included) of the m targets, given as indices into the n sources, each against
// every source but itself (sim/gravity/interaction.hpp's add_interaction_jerk): the Hermite integrator's
// active bodies against all predicted bodies. Each target's row is one SIMD sum, whatever the thread, so
// the result does not depend on `parallel` (targets split across OpenMP threads) or on the thread count.
template <typename T>
void accelerations_jerks_of(const Vec4<T>* pos_mass, const Vec4<T>* vel, std::size_t n,
                            const std::size_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc,
                            Vec4<T>* jerk, bool parallel, JerkScratch<T>& scratch);

}  // namespace nbody
