#pragma once
// The irregular force and jerk of one target from its neighbour list, summed by one warp: the one sum of
// irregular_kernel (neighbour_kernels.cu) and of the persistent irregular blocks (irregular_blocks.cu),
// so both give the same bits.
#include <cuda_runtime.h>

#include <cstdint>

#include "neighbour_kernels.hpp"
#include "sim/integrate/hermite.hpp"

namespace nbody {

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (unsigned o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// G times the force and jerk on target i from the bodies in its list (add_interaction_jerk at the
// states predict(j, x, v) gives, xi, vi the target's), in list order within each lane, lanes added in a
// fixed tree; every lane of the warp calls it and gets the sums.
template <typename T, typename Predict>
__device__ __forceinline__ void irregular_sum(std::uint32_t i, const Vec4<T>& xi, const Vec4<T>& vi,
                                              const DeviceNeighbourLists& lists, T G, T eps2,
                                              const Predict& predict, Vec4<T>& a, Vec4<T>& j) {
    const unsigned lane = threadIdx.x % 32;
    T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    const std::uint32_t* list = lists.list + std::size_t(i) * cap;
    // Each entry is loaded before the count says whether it is used (every entry up to the capacity is
    // there to read), so the count and the entry, then the next entry and the body, arrive together.
    std::uint32_t next = lane < cap ? list[lane] : 0u;
    const std::uint32_t listed = lists.listed[i];
    for (std::uint32_t s = lane; s < listed; s += 32) {
        const std::uint32_t b = next;
        if (s + 32 < cap) next = list[s + 32];
        Vec4<T> xj, vj;
        predict(b, xj, vj);
        add_interaction_jerk(xj.x - xi.x, xj.y - xi.y, xj.z - xi.z, vj.x - vi.x, vj.y - vi.y, vj.z - vi.z,
                             xj.w, eps2, ax, ay, az, jx, jy, jz);
    }
    ax = warp_sum(ax), ay = warp_sum(ay), az = warp_sum(az);
    jx = warp_sum(jx), jy = warp_sum(jy), jz = warp_sum(jz);
    a = Vec4<T>{G * ax, G * ay, G * az, T(0)};
    j = Vec4<T>{G * jx, G * jy, G * jz, T(0)};
}

}  // namespace nbody
