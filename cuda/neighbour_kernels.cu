// The neighbour scheme's list and irregular kernels (neighbour_kernels.hpp).
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "irregular_sum.cuh"
#include "launch.cuh"
#include "list_tile.cuh"
#include "neighbour_kernels.hpp"
#include "predict_on_the_fly.cuh"
#include "sim/error.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "split_search.cuh"

namespace nbody {
namespace {

constexpr unsigned kWarps = 8;  // warps per block of the split search, join and irregular kernels
constexpr unsigned kListBlock = kWarps * 32;
// Grids: fixed (the launches replay in graphs for any count). The irregular sums' small grid (about two
// blocks of threads an SM on an H100, for blocks of a few due bodies) unless the caller asks for more
// (irregular_full_grid: five an SM in float).
constexpr unsigned kMaxGrid = 2048;
constexpr unsigned kIrregularGrid = 256;
// The split search (split_search.cuh), for a device count m <= kSplitMax.
constexpr std::uint32_t kSplitMax = kNeighbourSplitMax;
// The lane search (many targets): targets per block (one a thread, and sources per shared tile), the
// threads it aims to run at once (about what the device holds: one thread a target left 65,536 targets on
// a quarter of an H100), and its scratch (entries of every range's list together, 128 MiB).
constexpr unsigned kLaneBlock = 128;
constexpr std::size_t kLaneThreads = std::size_t(1) << 18;
constexpr std::size_t kLaneScratch = std::size_t(1) << 25;
constexpr unsigned kLaneGrid = 2048;  // blocks of the lane search (a fixed grid, as kMaxGrid)

// The list search for many targets (a device count above kSplitMax, or a start's fixed m): one target per
// thread, each tile of sources staged in shared memory and read by every thread at once (a broadcast),
// the sources split into S ranges (lane_splits_for) where the targets alone would not fill the device.
// One range (S = 1): straight into the target's list; more: into the range's scratch list, joined in range
// order by split_join_kernel (the same list). Not kBuild: counted only (a start's rounds for the radius),
// the ranges' counts added by split_join_kernel where S > 1.
__device__ __forceinline__ std::uint32_t lane_splits_for(std::size_t m, std::uint32_t capacity) {
    const std::size_t items = kLaneScratch / capacity;
    std::uint32_t s = 1;
    while (s < kMaxSplits && m * s < kLaneThreads && m * 2 * s <= items) s *= 2;
    return s;
}

template <typename T, bool kBuild>
__global__ void __launch_bounds__(kLaneBlock)
    neighbour_lanes_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, std::size_t n,
                           const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                           std::size_t m_fixed, DeviceNeighbourLists lists, double dt, double factor,
                           const std::uint32_t* __restrict__ live) {
    if (live && !*live) return;
    const std::size_t m = count ? *count : m_fixed;
    if (count && m <= kSplitMax) return;  // the split search's
    __shared__ Vec4<T> sx[kLaneBlock], sv[kLaneBlock];
    __shared__ T warp_fastest[kLaneBlock / 32];
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    const std::uint32_t S = lane_splits_for(m, cap);
    const std::size_t groups = (m + kLaneBlock - 1) / kLaneBlock;
    const std::size_t per = ((n + S - 1) / S + kLaneBlock - 1) / kLaneBlock * kLaneBlock;
    for (std::size_t item = blockIdx.x; item < groups * S; item += gridDim.x) {
        const std::size_t q = (item % groups) * kLaneBlock + threadIdx.x;
        const std::uint32_t r = std::uint32_t(item / groups);
        const bool has = q < m;
        const std::uint32_t i = has ? (targets ? targets[q] : std::uint32_t(q)) : 0;
        ListTarget<T> g;
        double radius = 0;
        if (has) {
            radius = lists.radius[i];
            g = list_target(xp[i], vp[i], radius, lists.regular_level[i], dt);
        }
        std::uint32_t* out =
            S == 1 ? lists.list + std::size_t(i) * cap : lists.split_list + (q * S + r) * cap;
        std::uint32_t found = 0;
        const std::size_t first = std::size_t(r) * per, last = min(n, first + per);
        for (std::size_t t0 = first; t0 < last; t0 += kLaneBlock) {
            const unsigned tile_n = unsigned(min(std::size_t(kLaneBlock), last - t0));
            __syncthreads();
            T speed = T(0);  // past the tile's end: none
            if (threadIdx.x < tile_n) {
                sx[threadIdx.x] = xp[t0 + threadIdx.x];
                sv[threadIdx.x] = with_speed(vp[t0 + threadIdx.x]);
                speed = sv[threadIdx.x].w;
            }
            publish_warp_fastest(speed, warp_fastest);
            __syncthreads();
            const T fastest = tile_fastest(warp_fastest, kLaneBlock / 32);
            if (has) {
                list_tile<T, kLaneBlock, kBuild>(sx, sv, tile_n, std::uint32_t(t0), i, g, fastest, out, cap,
                                                 found);
            }
        }
        if (!has) continue;
        if (S > 1) {
            lists.split_count[q * S + r] = found;
        } else {
            if (kBuild) lists.listed[i] = min(found, cap);
            lists.radius[i] = next_neighbour_radius(radius, found, lists.k, factor);
        }
    }
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
    const std::uint32_t S = split_search_ranges(m);
    const unsigned lane = threadIdx.x % 32;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    for (std::size_t w = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w < std::size_t(m) * S;
         w += warps) {
        const std::uint32_t found = search_item(w, S, xp, vp, n, targets, lists, dt);
        if (lane == 0) lists.split_count[w] = found;
    }
}

// Each target's ranges of the split searches joined (join_ranges; not `build`: counted only).
__global__ void __launch_bounds__(kListBlock)
    split_join_kernel(const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                      std::size_t m_fixed, DeviceNeighbourLists lists, double factor,
                      const std::uint32_t* __restrict__ live, bool build) {
    if (live && !*live) return;
    const std::uint32_t m = count ? *count : std::uint32_t(m_fixed);
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    const bool few = count && m <= kSplitMax;
    const std::uint32_t S = few ? split_search_ranges(m) : lane_splits_for(m, cap);
    if (S == 1) return;  // the lane search wrote the lists
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    for (std::size_t q = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; q < m; q += warps)
        join_ranges(q, targets ? targets[q] : std::uint32_t(q), S, lists.split_list, lists.split_count, lists,
                    factor, build);
}

// The ranges the planned force+jerk kernel searched (*splits of them a target) joined (join_ranges).
__global__ void __launch_bounds__(kListBlock)
    ranges_join_kernel(const std::uint32_t* __restrict__ targets, const std::uint32_t* __restrict__ count,
                       const std::uint32_t* __restrict__ splits, const std::uint32_t* __restrict__ ranges,
                       const std::uint32_t* __restrict__ counts, DeviceNeighbourLists lists, double factor,
                       const std::uint32_t* __restrict__ run) {
    if (!*run) return;
    const std::uint32_t m = *count, S = *splits;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    for (std::size_t q = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; q < m; q += warps)
        join_ranges(q, targets[q], S, ranges, counts, lists, factor);
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
    for (std::size_t q = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; q < m; q += warps) {
        const std::uint32_t i = targets ? targets[q] : std::uint32_t(q);
        Vec4<T> xi, vi;
        predicted(xp, vp, fly, i, xi, vi);
        Vec4<T> aq, jq;
        irregular_sum(
            i, xi, vi, lists, G, eps2,
            [&](std::uint32_t b, Vec4<T>& x, Vec4<T>& v) { predicted(xp, vp, fly, b, x, v); }, aq, jq);
        if (lane == 0) a[q] = aq, j[q] = jq;
    }
}

unsigned grid_for(std::size_t m, unsigned per_block) {
    return std::max(1u, std::min(kMaxGrid, blocks_for(m, per_block)));
}

}  // namespace

std::size_t neighbour_split_items(std::size_t n, int capacity) {
    const std::size_t lanes = std::min(kLaneScratch / std::size_t(capacity), 2 * kLaneThreads);
    return std::max(std::size_t(kSplitItems), std::min(lanes, n * kMaxSplits));
}

template <typename T>
void launch_neighbour_lists(bool build, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
                            const std::uint32_t* targets, const std::uint32_t* count, std::size_t m,
                            const DeviceNeighbourLists& lists, double dt, double factor,
                            const std::uint32_t* live, void* stream) {
    const auto s = static_cast<cudaStream_t>(stream);
    const dim3 block(kListBlock), lanes_grid(kLaneGrid), lanes_block(kLaneBlock);
    if (build && count) {
        launch_kernel(split_search_kernel<T>, dim3(kSplitItems / kWarps), block, 0, s, xp, vp, n, targets,
                      count, lists, dt, live);
    }
    if (build) {
        launch_kernel(neighbour_lanes_kernel<T, true>, lanes_grid, lanes_block, 0, s, xp, vp, n, targets,
                      count, m, lists, dt, factor, live);
    } else {
        launch_kernel(neighbour_lanes_kernel<T, false>, lanes_grid, lanes_block, 0, s, xp, vp, n, targets,
                      count, m, lists, dt, factor, live);
    }
    launch_kernel(split_join_kernel, dim3(kSplitMax / kWarps), block, 0, s, targets, count, m, lists, factor,
                  live, build);
}

void launch_join_ranges(const std::uint32_t* targets, const std::uint32_t* count, const std::uint32_t* splits,
                        const std::uint32_t* ranges, const std::uint32_t* counts,
                        const DeviceNeighbourLists& lists, double factor, const std::uint32_t* live,
                        void* stream) {
    launch_kernel(ranges_join_kernel, dim3(kMaxGrid), dim3(kListBlock), 0, static_cast<cudaStream_t>(stream),
                  targets, count, splits, ranges, counts, lists, factor, live);
}

template <typename T>
void launch_irregular(const Vec4<T>* xp, const Vec4<T>* vp, const PredictOnTheFly<T>& fly, std::size_t /*n*/,
                      const std::uint32_t* targets, const std::uint32_t* count, std::size_t m,
                      const DeviceNeighbourLists& lists, T G, T eps2, Vec4<T>* a, Vec4<T>* j,
                      const std::uint32_t* live, void* stream, unsigned grid) {
    const unsigned blocks = std::min(grid_for(m, kWarps), grid != 0 ? grid : kIrregularGrid);
    launch_kernel(irregular_kernel<T>, dim3(blocks), dim3(kListBlock), 0, static_cast<cudaStream_t>(stream),
                  xp, vp, fly, targets, count, m, lists, G, eps2, a, j, live);
}

template <typename T>
unsigned irregular_full_grid() {
    int per_sm = 1;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, irregular_kernel<T>, kListBlock, 0));
    if (per_sm <= 0) throw Error("neighbour irregular sums: no block of this kernel fits on the device");
    return unsigned(current_device_sms() * per_sm);
}

#define NBODY_NEIGHBOUR_KERNELS(T)                                                                          \
    template void launch_neighbour_lists<T>(                                                                \
        bool, const Vec4<T>*, const Vec4<T>*, std::size_t, const std::uint32_t*, const std::uint32_t*,      \
        std::size_t, const DeviceNeighbourLists&, double, double, const std::uint32_t*, void*);             \
    template void launch_irregular<T>(const Vec4<T>*, const Vec4<T>*, const PredictOnTheFly<T>&,            \
                                      std::size_t, const std::uint32_t*, const std::uint32_t*, std::size_t, \
                                      const DeviceNeighbourLists&, T, T, Vec4<T>*, Vec4<T>*,                \
                                      const std::uint32_t*, void*, unsigned);                               \
    template unsigned irregular_full_grid<T>();
NBODY_NEIGHBOUR_KERNELS(float)
NBODY_NEIGHBOUR_KERNELS(double)
#undef NBODY_NEIGHBOUR_KERNELS

}  // namespace nbody
