#pragma once
// The force+jerk sums of a few targets split over source ranges, and the sum of the ranges' partial sums:
// the device pieces the planned force+jerk kernel (jerk_kernels.cu) and the persistent kernel's blocks
// with a few regular steps (irregular_blocks.cu) share or mirror, so that both give the same bits: the
// same operations in the same order. One exception, in float only: jerk_kernels.cu is built with
// -ftz=true (rsqrtf as one MUFU.RSQ) and irregular_blocks.cu without (its corrections must be the
// per-kernel path's, hermite_steps.cu's), so where a term, a product or a partial sum is subnormal (below
// 1.2e-38: positions, velocities and masses of order one never give one) the first flushes it to zero and
// the second keeps it. Each path is deterministic; the device always takes the persistent one where it
// can. Plain pointers (no __restrict__): the persistent kernel reads what its other blocks of threads wrote.
#include <cuda_runtime.h>

#include <cstdint>

#include "sim/gravity/interaction.hpp"
#include "sim/state.hpp"

namespace nbody {

// The split sums of one target per warp: lane l adds the splits l, l + 32, ... in order, then a fixed
// butterfly adds the lanes' sums, and the result is scaled by G. The order is fixed by the split count
// alone (no atomics): the same bits on every run, by either launch. A block of 256 targets among a
// million sources has thousands of splits to add; each lane's loads are independent of its sums, so it
// keeps several in flight.
template <typename T>
__device__ __forceinline__ void sum_splits_of(std::size_t i, unsigned splits, std::size_t m, T G,
                                              const Vec4<T>* part_acc, const Vec4<T>* part_jerk, Vec4<T>* acc,
                                              Vec4<T>* jerk) {
    const unsigned lane = threadIdx.x % 32;
    T s[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
#pragma unroll 8
    for (unsigned p = lane; p < splits; p += 32) {
        const Vec4<T> pa = part_acc[std::size_t(p) * m + i], pj = part_jerk[std::size_t(p) * m + i];
        s[0] += pa.x, s[1] += pa.y, s[2] += pa.z;
        s[3] += pj.x, s[4] += pj.y, s[5] += pj.z;
    }
#pragma unroll
    for (unsigned o = 16; o > 0; o /= 2) {
#pragma unroll
        for (int c = 0; c < 6; ++c) s[c] += __shfl_xor_sync(0xffffffffu, s[c], o);
    }
    if (lane == 0) {
        acc[i] = Vec4<T>{G * s[0], G * s[1], G * s[2], T(0)};
        jerk[i] = Vec4<T>{G * s[3], G * s[4], G * s[5], T(0)};
    }
}

// One warp's share of the planned evaluation's item (group g, split by) with L threads a target
// (jerk_kernels.cu's jerk_item_lanes, whose block of B threads holds B / L targets): the warp's 32 / L
// targets g 32 / L ... of the list, lane (part p, target e) summing part p of every tile of B sources of the
// split [by per_split, (by + 1) per_split), the parts then added in part order: the same pairs in the same
// order, so the same bits, read straight from memory instead of from tiles staged in shared memory.
// Outputs as jerk_item_lanes': G-scaled (`scaled`: one split) or raw partial sums at [by][m].
template <typename T>
__device__ __forceinline__ void lane_sums_item(std::size_t g, std::size_t by, bool scaled, unsigned L,
                                               unsigned B, const Vec4<T>* xp, const Vec4<T>* vp,
                                               std::size_t n, std::size_t per_split,
                                               const std::uint32_t* targets, std::size_t m, T G, T eps2,
                                               Vec4<T>* acc, Vec4<T>* jerk) {
    // Sources in flight per lane (their loads overlap): fewer in double, whose kernel then keeps to its
    // registers.
    constexpr int kUnroll = sizeof(T) == 4 ? 8 : 2;
    const unsigned lane = threadIdx.x % 32, per_warp = 32 / L, part = B / L;
    const unsigned p = lane / per_warp;
    const std::size_t e = g * per_warp + lane % per_warp;
    const std::uint32_t self = targets[e < m ? e : m - 1];
    const Vec4<T> xi = xp[self], vi = vp[self];
    T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
    const std::size_t begin = by * per_split;
    const std::size_t end = n - begin < per_split ? n : begin + per_split;
    for (std::size_t t = begin; t < end; t += B) {
        const unsigned count = end - t < B ? unsigned(end - t) : B;
        const unsigned mine = count > p * part ? min(part, count - p * part) : 0u;
        const std::size_t t0 = t + std::size_t(p) * part;
#pragma unroll kUnroll
        for (unsigned jj = 0; jj < mine; ++jj) {
            const std::size_t j = t0 + jj;
            if (j == self) continue;
            const Vec4<T> pj = xp[j], vj = vp[j];
            add_interaction_jerk(pj.x - xi.x, pj.y - xi.y, pj.z - xi.z, vj.x - vi.x, vj.y - vi.y, vj.z - vi.z,
                                 pj.w, eps2, ax, ay, az, jx, jy, jz);
        }
    }
    // Part 0's lane adds the others' sums in part order.
    const T mine[6] = {ax, ay, az, jx, jy, jz};
    T total[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) {
        total[c] = __shfl_sync(0xffffffffu, mine[c], lane % per_warp);
        for (unsigned r = 1; r < L; ++r)
            total[c] += __shfl_sync(0xffffffffu, mine[c], r * per_warp + lane % per_warp);
    }
    if (p == 0 && e < m) {
        const T scale = scaled ? G : T(1);
        const std::size_t slot = by * m;
        acc[slot + e] = Vec4<T>{scale * total[0], scale * total[1], scale * total[2], T(0)};
        jerk[slot + e] = Vec4<T>{scale * total[3], scale * total[4], scale * total[5], T(0)};
    }
}

}  // namespace nbody
