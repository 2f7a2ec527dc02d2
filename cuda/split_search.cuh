#pragma once
// The neighbour list search of a few targets, split into source ranges searched by a warp each, and the
// join of a target's ranges into its list: the device pieces the list kernels (neighbour_kernels.cu) and
// the persistent kernel's blocks with a few regular steps (irregular_blocks.cu) share, so that every path
// builds the same lists.
#include <cuda_runtime.h>

#include <cstdint>

#include "list_tile.cuh"
#include "neighbour_kernels.hpp"
#include "sim/integrate/neighbour_scheme.hpp"

namespace nbody {

// The split search of m targets: m times split_search_ranges(m) items (target, source range), at most
// kSplitItems of them, each range at most kMaxSplits of the sources. Any split gives the same lists (a
// target's ranges are joined in order); this one keeps ~8,192 warps busy.
inline constexpr std::uint32_t kSplitItems = 8192;
inline constexpr std::uint32_t kMaxSplits = 64;
__host__ __device__ inline std::uint32_t split_search_ranges(std::uint32_t m) {
    std::uint32_t s = 1;
    while (s < kMaxSplits && 2 * s * m <= kSplitItems) s *= 2;
    return s;
}

// Item w of the split search of the targets (target q = w / S, source range r = w % S of S), searched by
// one warp: the bodies of the range within q's radius (predicted xp, vp; look-ahead from its regular level
// and the max step dt), in index order, the first `capacity` into its scratch list, all counted (returned
// to every lane). The sources are loaded kBatch chunks of 32 at a time (fewer in double, for registers), so
// that their loads overlap instead of each chunk waiting for its own (a range of 1,024 sources is 32
// chunks), and only those within reach get the full test: the same lists as testing every source. Plain
// pointers: the persistent kernel searches bodies its other blocks of threads have just predicted.
template <typename T>
__device__ __forceinline__ std::uint32_t search_item(std::size_t w, std::uint32_t S, const Vec4<T>* xp,
                                                     const Vec4<T>* vp, std::size_t n,
                                                     const std::uint32_t* targets,
                                                     const DeviceNeighbourLists& lists, double dt) {
    constexpr unsigned kBatch = sizeof(T) == 4 ? 4 : 2;
    const unsigned lane = threadIdx.x % 32;
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    const std::uint32_t i = targets[w / S];
    const std::size_t per = ((n + S - 1) / S + 31) / 32 * 32;
    const std::size_t first = (w % S) * per, last = min(n, first + per);
    const ListTarget<T> g = list_target(xp[i], vp[i], lists.radius[i], lists.regular_level[i], dt);
    std::uint32_t* out = lists.split_list + w * cap;
    std::uint32_t found = 0;
    for (std::size_t c = first; c < last; c += 32 * kBatch) {
        Vec4<T> xj[kBatch], vj[kBatch];
#pragma unroll
        for (unsigned b = 0; b < kBatch; ++b) {
            const std::size_t j = c + b * 32 + lane;
            xj[b] = j < last ? xp[j] : Vec4<T>{};
            vj[b] = j < last ? vp[j] : Vec4<T>{};
        }
#pragma unroll
        for (unsigned b = 0; b < kBatch; ++b) {
            const std::size_t j = c + b * 32 + lane;
            // Out of reach (list_tile's test, with |v_j| bounded by the sum of its components' sizes: no
            // square root) cannot pass; the full test runs where a lane of the warp has a source in reach.
            const T dx = xj[b].x - g.x.x, dy = xj[b].y - g.x.y, dz = xj[b].z - g.x.z;
            const T reach = g.reach0 + g.reach_ahead * (abs(vj[b].x) + abs(vj[b].y) + abs(vj[b].z));
            bool in = j < last && j != i && !(dx * dx + dy * dy + dz * dz > reach * reach);
            if (__any_sync(0xffffffffu, in)) in = in && within_radius(g.x, g.v, xj[b], vj[b], g.r2, g.ahead);
            const unsigned mask = __ballot_sync(0xffffffffu, in);
            if (in) {
                const std::uint32_t slot = found + __popc(mask & ((1u << lane) - 1));
                if (slot < cap) out[slot] = std::uint32_t(j);
            }
            found += __popc(mask);
        }
    }
    return found;
}

// Target q's (body i's) S ranges joined in order into its list, up to the capacity (range r's entries at
// ranges[(q S + r) capacity], its count at counts[q S + r]); the radius from the total. One warp: 32
// ranges' counts at a time, their offsets by a scan, then their entries copied a lane each. Not `build`:
// the counts alone (the list is left as it is).
__device__ __forceinline__ void join_ranges(std::size_t q, std::uint32_t i, std::uint32_t S,
                                            const std::uint32_t* ranges, const std::uint32_t* counts,
                                            const DeviceNeighbourLists& lists, double factor,
                                            bool build = true) {
    const unsigned lane = threadIdx.x % 32;
    const std::uint32_t cap = std::uint32_t(lists.capacity);
    std::uint32_t* list = lists.list + std::size_t(i) * cap;
    std::uint32_t total = 0;  // the entries of the ranges before this chunk of 32
    for (std::uint32_t r0 = 0; r0 < S; r0 += 32) {
        const std::uint32_t r = r0 + lane;
        const std::uint32_t c = r < S ? counts[q * S + r] : 0u;
        std::uint32_t upto = c;  // the entries of this chunk's ranges up to this lane's, inclusive
#pragma unroll
        for (unsigned o = 1; o < 32; o *= 2) {
            const std::uint32_t below = __shfl_up_sync(0xffffffffu, upto, o);
            if (lane >= o) upto += below;
        }
        const std::uint32_t before = total + upto - c;  // where this lane's range begins in the list
        const std::uint32_t chunk = __shfl_sync(0xffffffffu, upto, 31);
        if (build) {
            // Each lane copies list entries x, x + 32, ... of this chunk (below the capacity), each from the
            // range that holds it: the last lane whose range begins at or before x (an empty range begins
            // where the next one does, so the one found holds x).
            const std::uint32_t end = min(total + chunk, cap);
            for (std::uint32_t x0 = total; x0 < end; x0 += 32) {
                const std::uint32_t x = x0 + lane;
                unsigned k = 0;
#pragma unroll
                for (unsigned o = 16; o > 0; o /= 2) {
                    if (__shfl_sync(0xffffffffu, before, k + o) <= x) k += o;
                }
                const std::uint32_t at = __shfl_sync(0xffffffffu, before, k);
                if (x < end) list[x] = ranges[(q * S + r0 + k) * cap + (x - at)];
            }
        }
        total += chunk;
    }
    if (lane == 0) {
        if (build) lists.listed[i] = min(total, cap);
        lists.radius[i] = next_neighbour_radius(lists.radius[i], total, lists.k, factor);
    }
}

}  // namespace nbody
