#pragma once
// Direct-summation gravity on the CPU:
//   a_i = G sum_{j != i} m_j r_ij / (|r_ij|^2 + eps^2)^{3/2},   r_ij = x_j - x_i.
// The loops run on structure-of-arrays copies so the compiler can vectorise them; the copies are O(N)
// per evaluation against O(N^2) work.
#include <cstddef>
#include <vector>

#include "state.hpp"

namespace nbody {

template <typename T>
struct ForceScratch {
    std::vector<T> x, y, z, m, ax, ay, az;
};

// Each pair once (i < j, Newton's third law): half the interactions, one thread.
template <typename T>
void accelerations_pairwise(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, T G, T eps2,
                            ForceScratch<T>& scratch);

// A full row per body (no write conflicts, so no atomics), rows split across OpenMP threads.
template <typename T>
void accelerations_rows(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, T G, T eps2,
                        ForceScratch<T>& scratch);

}  // namespace nbody
