#pragma once
// One target's neighbour search over one tile of staged sources (sim/integrate/neighbour_scheme.hpp's
// within_radius): the list search of many targets (neighbour_kernels.cu) and the planned force+jerk
// kernel that builds the lists as it sums (jerk_kernels.cu) share it, so both give the same lists.
#include <cuda_runtime.h>

#include <cstdint>

#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/state.hpp"

namespace nbody {

// The reach test is conservative by this factor: within_radius's rounding in float, where the closest
// approach comes after the look-ahead and d^2 + ahead (2 r.v + ahead u^2) cancels, can reach ~1e-3 of the
// reach (a review's bound; ~1e-7 elsewhere), so 1e-2 leaves a margin; a slightly larger reach costs
// only a few more full tests.
template <typename T>
constexpr T kReachMargin = T(1.01);

// |v|, as both the target's reach and the staged sources' speeds take it.
template <typename T>
__device__ __forceinline__ T speed(const Vec4<T>& v) {
    return sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

// What a target brings to list_tile: its predicted state, its radius squared, its look-ahead, and the
// reach r + ahead |v_i| and ahead, each times kReachMargin (see list_tile).
template <typename T>
struct ListTarget {
    Vec4<T> x{}, v{};
    T r2 = 0, ahead = 0, reach0 = 0, reach_ahead = 0;
};

template <typename T>
__device__ __forceinline__ ListTarget<T> list_target(const Vec4<T>& x, const Vec4<T>& v, double radius,
                                                     int regular_level, double dt) {
    ListTarget<T> t;
    t.x = x, t.v = v;
    t.r2 = static_cast<T>(radius * radius);
    t.ahead = static_cast<T>(neighbour_lookahead(regular_level, dt));
    t.reach0 = (static_cast<T>(radius) + t.ahead * speed(v)) * kReachMargin<T>;
    t.reach_ahead = t.ahead * kReachMargin<T>;
    return t;
}

// The full test (within_radius) of the sources marked in `within` (bit b of word w: source w 32 + b of
// the tile), in ascending order: the list stays in index order.
template <typename T, unsigned kTile, bool kBuild>
__device__ __forceinline__ void list_marked(const Vec4<T>* sx, const Vec4<T>* sv, std::uint32_t t0,
                                            const ListTarget<T>& g, const std::uint32_t (&within)[kTile / 32],
                                            std::uint32_t* out, std::uint32_t cap, std::uint32_t& found) {
#pragma unroll
    for (unsigned w = 0; w < kTile / 32; ++w) {
        for (std::uint32_t bits = within[w]; bits != 0; bits &= bits - 1) {
            const unsigned c = w * 32 + unsigned(__ffs(bits) - 1);
            if (!within_radius(g.x, g.v, sx[c], sv[c], g.r2, g.ahead)) continue;
            if (kBuild && found < cap) out[found] = t0 + c;
            ++found;
        }
    }
}

// The staged sources sx[0, tile_n) (positions) and sv (velocities, each source's speed in .w), the first
// of index t0, `fastest` the greatest of their speeds, searched for target i: every one within its radius
// (not i itself), in ascending index, the first `cap` written to out[found...], all counted in `found`. At
// most kTile sources; sx and sv must hold kTile entries (past tile_n they are read, never used).
//
// within_radius holds only where the closest approach over the look-ahead is inside the radius, and that
// is at least d - ahead |v_j - v_i| >= d - ahead (|v_i| + |v_j|): a source farther than
// r + ahead (|v_i| + fastest) is out of reach, which three differences, a square and one compare a source
// tell (a NaN position is within reach; the tile's fastest source stands in for each one's own speed, as
// the planned force+jerk kernel's marks do: a superset of the marks, which the full test sorts out, for
// two instructions a pair less). The sources within reach are marked in a mask first and given the full
// test (~30 instructions) after the whole tile: a branch to it per source would run it for the warp
// whenever any one of its 32 targets had a source within reach.
template <typename T, unsigned kTile, bool kBuild>
__device__ __forceinline__ void list_tile(const Vec4<T>* sx, const Vec4<T>* sv, unsigned tile_n,
                                          std::uint32_t t0, std::uint32_t i, const ListTarget<T>& g,
                                          T fastest, std::uint32_t* out, std::uint32_t cap,
                                          std::uint32_t& found) {
    const T reach = g.reach0 + g.reach_ahead * fastest;
    const T reach2 = reach * reach;
    std::uint32_t within[kTile / 32];
#pragma unroll
    for (unsigned w = 0; w < kTile / 32; ++w) {
        std::uint32_t bits = 0;
#pragma unroll
        for (unsigned b = 0; b < 32; ++b) {
            const Vec4<T> xj = sx[w * 32 + b];
            const T dx = xj.x - g.x.x, dy = xj.y - g.x.y, dz = xj.z - g.x.z;
            if (!(dx * dx + dy * dy + dz * dz > reach2)) bits |= 1u << b;
        }
        // Not past the tile's end, not the target itself.
        const unsigned first = w * 32;
        if (tile_n < first + 32) bits &= tile_n > first ? (1u << (tile_n - first)) - 1u : 0u;
        const std::uint32_t self = i - t0 - first;  // wraps past when i is elsewhere
        if (self < 32) bits &= ~(1u << self);
        within[w] = bits;
    }
    list_marked<T, kTile, kBuild>(sx, sv, t0, g, within, out, cap, found);
}

// The staged tile's fastest source, in two halves around the barrier that publishes the tile: each warp's
// greatest `speed` (this thread's source's, 0 past the tile's end) into its word of warp_fastest (every
// thread of the block calls it), then, after the barrier, the greatest of the block's `warps` words.
template <typename T>
__device__ __forceinline__ void publish_warp_fastest(T speed, T* warp_fastest) {
#pragma unroll
    for (unsigned o = 16; o > 0; o /= 2) speed = max(speed, __shfl_xor_sync(0xffffffffu, speed, o));
    if (threadIdx.x % 32 == 0) warp_fastest[threadIdx.x / 32] = speed;
}
template <typename T>
__device__ __forceinline__ T tile_fastest(const T* warp_fastest, unsigned warps) {
    T fastest = warp_fastest[0];
    for (unsigned w = 1; w < warps; ++w) fastest = max(fastest, warp_fastest[w]);
    return fastest;
}

// A source's speed, staged in place of its velocity's w (which no sum reads).
template <typename T>
__device__ __forceinline__ Vec4<T> with_speed(Vec4<T> v) {
    v.w = speed(v);
    return v;
}

}  // namespace nbody
