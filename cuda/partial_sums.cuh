#pragma once
// The fixed-order reduction of partial force sums shared by the split tuned kernel and the pairwise grid
// schedule: acc[i] = sum over s of partial[s][i], s ascending, so the result never depends on which block
// finished first.
#include <cuda_runtime.h>

#include <cstddef>

#include "sim/state.hpp"

namespace nbody {

template <typename T>
__global__ void sum_partials(const Vec4<T>* __restrict__ partial, Vec4<T>* __restrict__ acc, std::size_t n,
                             unsigned parts, const unsigned long long* __restrict__ bad,
                             unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    T x = 0, y = 0, z = 0;
    for (unsigned s = 0; s < parts; ++s) {
        const Vec4<T> p = partial[std::size_t(s) * n + i];
        x += p.x, y += p.y, z += p.z;
    }
    acc[i] = Vec4<T>{x, y, z, T(0)};
}

}  // namespace nbody
