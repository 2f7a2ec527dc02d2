// The neighbour scheme's list and irregular kernels (neighbour_kernels.hpp).
#include <cuda_runtime.h>

#include <algorithm>

#include "launch.cuh"
#include "neighbour_kernels.hpp"
#include "predict_on_the_fly.cuh"
#include "sim/integrate/neighbour_scheme.hpp"

namespace nbody {
namespace {

constexpr unsigned kWarps = 8;  // targets per block of the list kernel
constexpr unsigned kListBlock = kWarps * 32;
constexpr unsigned kTile = 256;  // sources staged per tile
// Grid of the grid-stride launches: fixed (the launches replay in graphs for any count), enough blocks to
// fill the device several times over.
constexpr unsigned kMaxGrid = 2048;
constexpr unsigned kIrregularGrid = 256;
// The split search, for a device count m <= kSplitMax: m targets times splits(m) source ranges, at most
// kSplitItems items, one warp each.
constexpr std::uint32_t kSplitMax = 2048;
constexpr std::uint32_t kSplitItems = 8192;
constexpr std::uint32_t kMaxSplits = 64;

template <typename T, bool kBuild>
__global__ void __launch_bounds__(kListBlock)
    neighbour_list_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, std::size_t n,
                          const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                          std::size_t m_fixed, DeviceNeighbourLists lists, double dt, double factor,
                          const std::uint32_t* __restrict__ live) {
    if (live && !*live) return;
    const std::size_t m = count ? *count : m_fixed;
    if (count && m <= kSplitMax) return;  // the split search's
    __shared__ Vec4<T> sx[kTile], sv[kTile];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    for (std::size_t base = std::size_t(blockIdx.x) * kWarps; base < m;
         base += std::size_t(gridDim.x) * kWarps) {
        const std::size_t q = base + warp;
        const bool has = q < m;  // the same for the whole warp
        const std::uint32_t i = has ? (targets ? targets[q] : std::uint32_t(q)) : 0;
        Vec4<T> xi{}, vi{};
        T r2 = 0, ahead = 0;
        if (has) {
            xi = xp[i], vi = vp[i];
            const double r = lists.radius[i];
            r2 = static_cast<T>(r * r);
            ahead = static_cast<T>(neighbour_lookahead(lists.regular_level[i], dt));
        }
        std::uint32_t found = 0;
        for (std::size_t t0 = 0; t0 < n; t0 += kTile) {
            const unsigned tile_n = unsigned(min(std::size_t(kTile), n - t0));
            __syncthreads();
            for (unsigned s = threadIdx.x; s < tile_n; s += blockDim.x)
                sx[s] = xp[t0 + s], sv[s] = vp[t0 + s];
            __syncthreads();
            if (!has) continue;
            for (unsigned c = 0; c < tile_n; c += 32) {
                const unsigned s = c + lane;
                const std::size_t j = t0 + s;
                const bool in = s < tile_n && j != i && within_radius(xi, vi, sx[s], sv[s], r2, ahead);
                const unsigned mask = __ballot_sync(0xffffffffu, in);
                if (kBuild && in) {
                    const std::uint32_t slot = found + __popc(mask & ((1u << lane) - 1));
                    if (slot < cap) lists.list[std::size_t(i) * cap + slot] = std::uint32_t(j);
                }
                found += __popc(mask);
            }
        }
        if (has && lane == 0) {
            if (kBuild) lists.listed[i] = min(found, cap);
            lists.radius[i] = next_neighbour_radius(lists.radius[i], found, lists.k, factor);
        }
    }
}

__device__ __forceinline__ std::uint32_t splits_for(std::uint32_t m) {
    std::uint32_t s = 1;
    while (s < kMaxSplits && 2 * s * m <= kSplitItems) s *= 2;
    return s;
}

// Item w = (target q = w / S, range r = w % S): the bodies of range r within q's radius, in index order,
// the first `capacity` into its scratch list, all of them counted.
template <typename T>
__global__ void __launch_bounds__(kListBlock)
    split_search_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, std::size_t n,
                        const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                        DeviceNeighbourLists lists, double dt, const std::uint32_t* __restrict__ live) {
    if (live && !*live) return;
    const std::uint32_t m = *count;
    if (m > kSplitMax) return;
    const std::uint32_t S = splits_for(m);
    const std::size_t per = ((n + S - 1) / S + 31) / 32 * 32;
    const unsigned lane = threadIdx.x % 32;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    for (std::size_t w = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w < std::size_t(m) * S;
         w += warps) {
        const std::uint32_t i = targets[w / S];
        const std::size_t first = (w % S) * per, last = min(n, first + per);
        const Vec4<T> xi = xp[i], vi = vp[i];
        const double r = lists.radius[i];
        const T r2 = static_cast<T>(r * r);
        const T ahead = static_cast<T>(neighbour_lookahead(lists.regular_level[i], dt));
        std::uint32_t found = 0;
        std::uint32_t* out = lists.split_list + w * cap;
        for (std::size_t c = first; c < last; c += 32) {
            const std::size_t j = c + lane;
            const bool in = j < last && j != i && within_radius(xi, vi, xp[j], vp[j], r2, ahead);
            const unsigned mask = __ballot_sync(0xffffffffu, in);
            if (in) {
                const std::uint32_t slot = found + __popc(mask & ((1u << lane) - 1));
                if (slot < cap) out[slot] = std::uint32_t(j);
            }
            found += __popc(mask);
        }
        if (lane == 0) lists.split_count[w] = found;
    }
}

// Each target's ranges joined in order into its list, up to the capacity; the radius from the total.
__global__ void __launch_bounds__(kListBlock)
    split_join_kernel(const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                      DeviceNeighbourLists lists, double factor, const std::uint32_t* __restrict__ live) {
    if (live && !*live) return;
    const std::uint32_t m = *count;
    if (m > kSplitMax) return;
    const std::uint32_t S = splits_for(m);
    const unsigned lane = threadIdx.x % 32;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    for (std::size_t q = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; q < m; q += warps) {
        const std::uint32_t i = targets[q];
        std::uint32_t* list = lists.list + std::size_t(i) * cap;
        std::uint32_t total = 0;
        for (std::uint32_t r = 0; r < S; ++r) {
            const std::size_t w = q * S + r;
            const std::uint32_t c = lists.split_count[w];
            const std::uint32_t take = total >= cap ? 0 : min(c, min(cap, cap - total));
            for (std::uint32_t e = lane; e < take; e += 32) list[total + e] = lists.split_list[w * cap + e];
            total += c;
        }
        if (lane == 0) {
            lists.listed[i] = min(total, cap);
            lists.radius[i] = next_neighbour_radius(lists.radius[i], total, lists.k, factor);
        }
    }
}

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (unsigned o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <typename T>
__global__ void __launch_bounds__(kListBlock)
    irregular_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, PredictOnTheFly<T> fly,
                     const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                     std::size_t m_fixed, DeviceNeighbourLists lists, T G, T eps2, Vec4<T>* __restrict__ a,
                     Vec4<T>* __restrict__ j, const std::uint32_t* __restrict__ live) {
    if (live && !*live) return;
    const std::size_t m = count ? *count : m_fixed;
    const unsigned lane = threadIdx.x % 32;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    const std::size_t cap = std::size_t(lists.capacity);
    for (std::size_t q = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; q < m; q += warps) {
        const std::uint32_t i = targets ? targets[q] : std::uint32_t(q);
        Vec4<T> xi, vi;
        predicted(xp, vp, fly, i, xi, vi);
        T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
        const std::uint32_t* list = lists.list + std::size_t(i) * cap;
        const std::uint32_t listed = lists.listed[i];
        for (std::uint32_t s = lane; s < listed; s += 32) {
            Vec4<T> xj, vj;
            predicted(xp, vp, fly, list[s], xj, vj);
            add_interaction_jerk(xj.x - xi.x, xj.y - xi.y, xj.z - xi.z, vj.x - vi.x, vj.y - vi.y, vj.z - vi.z,
                                 xj.w, eps2, ax, ay, az, jx, jy, jz);
        }
        ax = warp_sum(ax), ay = warp_sum(ay), az = warp_sum(az);
        jx = warp_sum(jx), jy = warp_sum(jy), jz = warp_sum(jz);
        if (lane == 0) {
            a[q] = Vec4<T>{G * ax, G * ay, G * az, T(0)};
            j[q] = Vec4<T>{G * jx, G * jy, G * jz, T(0)};
        }
    }
}

unsigned grid_for(std::size_t m, unsigned per_block) {
    return std::max(1u, std::min(kMaxGrid, blocks_for(m, per_block)));
}

}  // namespace

std::size_t neighbour_split_items() {
    return kSplitItems;
}

template <typename T>
void launch_neighbour_lists(bool build, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
                            const std::uint32_t* targets, const std::uint32_t* count, std::size_t m,
                            const DeviceNeighbourLists& lists, double dt, double factor,
                            const std::uint32_t* live, void* stream) {
    const auto s = static_cast<cudaStream_t>(stream);
    const dim3 grid(grid_for(m, kWarps)), block(kListBlock);
    if (build && count) {
        launch_kernel(split_search_kernel<T>, dim3(kSplitItems / kWarps), block, 0, s, xp, vp, n, targets,
                      count, lists, dt, live);
        launch_kernel(split_join_kernel, dim3(kSplitMax / kWarps), block, 0, s, targets, count, lists, factor,
                      live);
    }
    if (build) {
        launch_kernel(neighbour_list_kernel<T, true>, grid, block, 0, s, xp, vp, n, targets, count, m, lists,
                      dt, factor, live);
    } else {
        launch_kernel(neighbour_list_kernel<T, false>, grid, block, 0, s, xp, vp, n, targets, count, m, lists,
                      dt, factor, live);
    }
}

template <typename T>
void launch_irregular(const Vec4<T>* xp, const Vec4<T>* vp, const PredictOnTheFly<T>& fly, std::size_t /*n*/,
                      const std::uint32_t* targets, const std::uint32_t* count, std::size_t m,
                      const DeviceNeighbourLists& lists, T G, T eps2, Vec4<T>* a, Vec4<T>* j,
                      const std::uint32_t* live, void* stream) {
    // One wave of blocks at most: a block with a few active bodies then costs little more than one launch.
    launch_kernel(irregular_kernel<T>, dim3(std::min(grid_for(m, kWarps), kIrregularGrid)), dim3(kListBlock),
                  0, static_cast<cudaStream_t>(stream), xp, vp, fly, targets, count, m, lists, G, eps2, a, j,
                  live);
}

#define NBODY_NEIGHBOUR_KERNELS(T)                                                                          \
    template void launch_neighbour_lists<T>(                                                                \
        bool, const Vec4<T>*, const Vec4<T>*, std::size_t, const std::uint32_t*, const std::uint32_t*,      \
        std::size_t, const DeviceNeighbourLists&, double, double, const std::uint32_t*, void*);             \
    template void launch_irregular<T>(const Vec4<T>*, const Vec4<T>*, const PredictOnTheFly<T>&,            \
                                      std::size_t, const std::uint32_t*, const std::uint32_t*, std::size_t, \
                                      const DeviceNeighbourLists&, T, T, Vec4<T>*, Vec4<T>*,                \
                                      const std::uint32_t*, void*);
NBODY_NEIGHBOUR_KERNELS(float)
NBODY_NEIGHBOUR_KERNELS(double)
#undef NBODY_NEIGHBOUR_KERNELS

}  // namespace nbody
