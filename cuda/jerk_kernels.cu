// The Hermite force+jerk kernel and its launch shape (jerk_kernels.hpp). Built with -ftz=true (see
// CMakeLists), as force_kernels.cu: rsqrtf is then one MUFU.RSQ. No NaN/Inf checks live in this file.
//
// Cost per pair in float (sim/gravity/interaction.hpp's add_interaction_jerk, 42 FLOPs by its convention):
// 26 FP32 instructions (6 FADD for r and v, 3 FFMA for r^2 + eps^2, 3 FMUL for inv^2 and m inv^3, 5 for
// r.v and alpha, 3 FFMA for a, 6 FFMA for j) and one MUFU.RSQ, plus 2 / K shared-memory loads (the
// source's position and velocity, each feeding K targets) and the loop: ~27.75 issue slots per pair at
// K = 4, so 132 SMs x 128 lanes x 1.98 GHz / 27.75 = 1.2e12 pairs/s at best (docs/CUDA_NOTES.md, h1).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda_check.hpp"
#include "jerk_kernels.hpp"
#include "launch.cuh"
#include "list_tile.cuh"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"
#include "split_sums.cuh"

namespace nbody {
namespace {

constexpr int kMaxJerkBlock = 128;
// The split count never makes more than this many waves of blocks: beyond it the last wave's idle part
// is small anyway, and every split adds 2 m Vec4 of partial sums to write and read.
constexpr double kMaxWaves = 4;
// Below this many waves of blocks at one source tile per block, the automatic K halves (more blocks).
constexpr double kMinWaves = 4;
// The planned launch's split count gives at least this many waves of items (make_jerk_plans).
constexpr double kPlannedWaves = 4;

// One tile of B predicted sources, t0 = the first one's index, count = how many are real (B but in the
// last tile). kCareful: a target of this thread is among them (skip j == i by index) or the tile is short.
template <typename T, int K, bool kCareful>
__device__ __forceinline__ void sum_tile(const Vec4<T>* __restrict__ sx, const Vec4<T>* __restrict__ sv,
                                         unsigned count, std::uint32_t t0, const std::uint32_t (&self)[K],
                                         const T (&xi)[K], const T (&yi)[K], const T (&zi)[K],
                                         const T (&vxi)[K], const T (&vyi)[K], const T (&vzi)[K], T eps2,
                                         T (&ax)[K], T (&ay)[K], T (&az)[K], T (&jx)[K], T (&jy)[K],
                                         T (&jz)[K]) {
    constexpr int kUnroll = K >= 4 ? 4 : 8;
#pragma unroll kUnroll
    for (unsigned jj = 0; jj < count; ++jj) {
        const Vec4<T> pj = sx[jj], vj = sv[jj];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (kCareful && t0 + jj == self[k]) continue;
            add_interaction_jerk(pj.x - xi[k], pj.y - yi[k], pj.z - zi[k], vj.x - vxi[k], vj.y - vyi[k],
                                 vj.z - vzi[k], pj.w, eps2, ax[k], ay[k], az[k], jx[k], jy[k], jz[k]);
        }
    }
}

// sum_tile for one target (K = 1) that also marks the sources within the list's reach (list_tile.cuh):
// bit b of within[w] for source w 32 + b, from the softened distance the sum computes anyway, against
// `marked` = reach^2 + eps^2 for the tile's fastest source (a reach at least each source's own: the marks
// a superset of list_tile's, which the full test then sorts out; one compare a pair instead of a reach
// and a square too). The same sums in the same order as sum_tile<T, 1, kCareful>: the same bits.
// The marks go into a byte of eight sources whose bit positions are constants, then into the word once a
// byte: with a shift by the running position a source, the marks and the loop took ~5 of the ~34 SASS
// instructions a pair; this form made the large blocks' sums ~5% faster (PERFORMANCE.md "Fourteenth pass").
template <typename T, bool kCareful>
__device__ __forceinline__ void sum_tile_marks(const Vec4<T>* __restrict__ sx, const Vec4<T>* __restrict__ sv,
                                               unsigned count, std::uint32_t t0, std::uint32_t self, T xi,
                                               T yi, T zi, T vxi, T vyi, T vzi, T eps2, T marked, T& ax,
                                               T& ay, T& az, T& jx, T& jy, T& jz,
                                               std::uint32_t (&within)[kJerkListBlock / 32]) {
#pragma unroll
    for (unsigned w = 0; w < kJerkListBlock / 32; ++w) {
        std::uint32_t word = 0;
#pragma unroll 1
        for (unsigned b8 = 0; b8 < 32; b8 += 8) {
            std::uint32_t byte = 0;
#pragma unroll
            for (unsigned b = 0; b < 8; ++b) {
                const unsigned jj = w * 32 + b8 + b;
                if (kCareful && (jj >= count || t0 + jj == self)) continue;
                const Vec4<T> pj = sx[jj], vj = sv[jj];
                const T dx = pj.x - xi, dy = pj.y - yi, dz = pj.z - zi;
                if (!(softened_distance2(dx, dy, dz, eps2) > marked)) byte |= 1u << b;
                add_interaction_jerk(dx, dy, dz, vj.x - vxi, vj.y - vyi, vj.z - vzi, pj.w, eps2, ax, ay, az,
                                     jx, jy, jz);
            }
            word |= byte << b8;
        }
        within[w] = word;
    }
}

// Streams the predicted sources [begin, end) through shared memory (sx, sv) in tiles of blockDim.x, the
// next tile loaded into registers while `sum(t0, count)` sums the current one (t0: its first source's
// index, count: how many are real). Every thread of the block calls it; the barriers are inside.
// kSpeed: each source's speed staged in its velocity's w (list_tile's reach test; no sum reads it), and
// the tile's greatest speed given to `sum(t0, count, fastest)`.
template <typename T, bool kSpeed = false, typename SumTile>
__device__ __forceinline__ void for_each_source_tile(const Vec4<T>* __restrict__ xp,
                                                     const Vec4<T>* __restrict__ vp, std::size_t begin,
                                                     std::size_t end, Vec4<T>* sx, Vec4<T>* sv, SumTile sum) {
    __shared__ T warp_fastest[kMaxJerkBlock / 32];
    const unsigned B = blockDim.x;
    Vec4<T> next_x{}, next_v{};
    auto load = [&](std::size_t t) {
        const std::size_t j = t + threadIdx.x;
        if (j < end) {
            next_x = xp[j], next_v = kSpeed ? with_speed(vp[j]) : vp[j];
        } else {
            next_x = next_v = Vec4<T>{T(0), T(0), T(0), T(0)};
        }
    };
    load(begin);
    for (std::size_t t = begin; t < end; t += B) {
        sx[threadIdx.x] = next_x;
        sv[threadIdx.x] = next_v;
        if constexpr (kSpeed) publish_warp_fastest(next_v.w, warp_fastest);  // 0 past the end
        __syncthreads();
        if (t + B < end) load(t + B);
        // Source indices fit 32 bits (the backend refuses N >= 2^32).
        const unsigned count = end - t < B ? unsigned(end - t) : B;
        if constexpr (kSpeed) {
            sum(std::uint32_t(t), count, tile_fastest(warp_fastest, B / 32));
        } else {
            sum(std::uint32_t(t), count);
        }
        __syncthreads();
    }
}

// Item (bx, by) of an evaluation: targets [bx B K, (bx + 1) B K) of the list (thread t owns entries
// bx B K + t + k B, so the gathers and stores stay coalesced), against the sources [by per_split,
// (by + 1) per_split) in tiles of B = blockDim.x, each staged in `smem` (position+mass, then velocity).
// The next tile is loaded into registers while the current one is summed. Out-of-range targets compute
// on a copy of the last one and store nothing. Outputs: G-scaled sums (`scaled`: one split) or raw
// partial sums at [by][m]. Ends with a barrier, so a block may run another item on the same `smem`.
//
// kList (K = 1, B = kJerkListBlock): each target's sources of the split also searched for its neighbour
// list (list_tile, after the sums of each tile), into range by of the target's S (JerkLists).
template <typename T, int K, bool kList = false>
__device__ __forceinline__ void jerk_item(std::size_t bx, std::size_t by, bool scaled,
                                          const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                          std::size_t n, std::size_t per_split,
                                          const std::uint32_t* __restrict__ targets, std::size_t m, T G,
                                          T eps2, Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                                          unsigned char* smem_raw, const JerkLists& jl = {},
                                          std::uint32_t S = 1) {
    static_assert(!kList || K == 1, "lists with one target a thread");
    const unsigned B = blockDim.x;
    Vec4<T>* sx = reinterpret_cast<Vec4<T>*>(smem_raw);
    Vec4<T>* sv = sx + B;

    const std::size_t base = bx * B * K + threadIdx.x;
    std::uint32_t self[K];
    T xi[K], yi[K], zi[K], vxi[K], vyi[K], vzi[K];
    T ax[K], ay[K], az[K], jx[K], jy[K], jz[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t e = base + std::size_t(k) * B;
        self[k] = targets[e < m ? e : m - 1];
        const Vec4<T> x = xp[self[k]], v = vp[self[k]];
        xi[k] = x.x, yi[k] = x.y, zi[k] = x.z;
        vxi[k] = v.x, vyi[k] = v.y, vzi[k] = v.z;
        ax[k] = ay[k] = az[k] = jx[k] = jy[k] = jz[k] = T(0);
    }

    // The list's target (kList): this thread's, where it has one.
    const bool listing = kList && base < m;
    ListTarget<T> g;
    std::uint32_t found = 0, cap = 0;
    std::uint32_t* out = nullptr;
    T reach_eps0 = T(0);  // the reach's r + ahead |v_i| term (no target: nothing is marked)
    if (listing) {
        const DeviceNeighbourLists& l = jl.lists;
        g = list_target(xp[self[0]], vp[self[0]], l.radius[self[0]], l.regular_level[self[0]], jl.dt);
        cap = std::uint32_t(l.capacity);
        out = jl.ranges + (base * S + by) * cap;
        // The marks compare d^2 + eps^2 with reach^2 + eps^2: rounding of about 1e-7 of eps^2 against a
        // margin of about 2e-2 of reach^2 (kReachMargin). Where eps^2 could swamp that, every source is
        // marked.
        reach_eps0 = eps2 <= T(1e4) * g.r2 ? g.reach0 : static_cast<T>(HUGE_VAL);
    }

    const std::size_t begin = by * per_split;
    const std::size_t end = n - begin < per_split ? n : begin + per_split;
    for_each_source_tile<T, kList>(
        xp, vp, begin, end, sx, sv, [&](std::uint32_t t0, unsigned count, T fastest = T(0)) {
            bool careful = count < B;
#pragma unroll
            for (int k = 0; k < K; ++k) careful = careful || self[k] - t0 < B;
            // Only the tiles that hold one of this thread's own bodies (or the short last one) pay for the
            // index test; with eps = 0 the self-term would be 0/0, with eps > 0 it adds exactly 0 anyway.
            if (kList) {
                // The list's marks from the sum's own distances, then the full test of the marked
                // (list_marked).
                std::uint32_t within[kJerkListBlock / 32];
                const T reach = fma(g.reach_ahead, fastest, reach_eps0);
                const T marked = fma(reach, reach, eps2);
                if (careful) {
                    sum_tile_marks<T, true>(sx, sv, count, t0, self[0], xi[0], yi[0], zi[0], vxi[0], vyi[0],
                                            vzi[0], eps2, marked, ax[0], ay[0], az[0], jx[0], jy[0], jz[0],
                                            within);
                } else {
                    sum_tile_marks<T, false>(sx, sv, B, t0, self[0], xi[0], yi[0], zi[0], vxi[0], vyi[0],
                                             vzi[0], eps2, marked, ax[0], ay[0], az[0], jx[0], jy[0], jz[0],
                                             within);
                }
                if (listing) list_marked<T, kJerkListBlock, true>(sx, sv, t0, g, within, out, cap, found);
            } else if (careful) {
                sum_tile<T, K, true>(sx, sv, count, t0, self, xi, yi, zi, vxi, vyi, vzi, eps2, ax, ay, az, jx,
                                     jy, jz);
            } else {
                sum_tile<T, K, false>(sx, sv, B, t0, self, xi, yi, zi, vxi, vyi, vzi, eps2, ax, ay, az, jx,
                                      jy, jz);
            }
        });
    if (listing) jl.counts[base * S + by] = found;

    const T scale = scaled ? G : T(1);
    const std::size_t slot = by * m;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t e = base + std::size_t(k) * B;
        if (e < m) {
            acc[slot + e] = Vec4<T>{scale * ax[k], scale * ay[k], scale * az[k], T(0)};
            jerk[slot + e] = Vec4<T>{scale * jx[k], scale * jy[k], scale * jz[k], T(0)};
        }
    }
}

// An item for a few targets (K = 1) with L threads per target: B / L targets per block, thread t owning
// target bx B / L + t % (B / L) and the (t / (B / L))-th part of every tile. The L partial sums of a target
// are added in part order at the end (the same bits on every run; not the same order as jerk_item, so not
// its bits). Lanes of a small block that would idle in jerk_item share the tiles' pairs instead, so a
// block of 16 targets runs 8x shorter chains per tile.
template <typename T>
__device__ __forceinline__ void jerk_item_lanes(std::size_t bx, std::size_t by, bool scaled, unsigned L,
                                                const Vec4<T>* __restrict__ xp,
                                                const Vec4<T>* __restrict__ vp, std::size_t n,
                                                std::size_t per_split,
                                                const std::uint32_t* __restrict__ targets, std::size_t m, T G,
                                                T eps2, Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                                                unsigned char* smem_raw) {
    const unsigned B = blockDim.x, per_block = B / L, part = B / L;
    const unsigned q = threadIdx.x / per_block;
    const std::size_t e = bx * per_block + threadIdx.x % per_block;
    Vec4<T>* sx = reinterpret_cast<Vec4<T>*>(smem_raw);
    Vec4<T>* sv = sx + B;
    const std::uint32_t self[1] = {targets[e < m ? e : m - 1]};
    T xi[1], yi[1], zi[1], vxi[1], vyi[1], vzi[1];
    T ax[1] = {T(0)}, ay[1] = {T(0)}, az[1] = {T(0)}, jx[1] = {T(0)}, jy[1] = {T(0)}, jz[1] = {T(0)};
    {
        const Vec4<T> x = xp[self[0]], v = vp[self[0]];
        xi[0] = x.x, yi[0] = x.y, zi[0] = x.z;
        vxi[0] = v.x, vyi[0] = v.y, vzi[0] = v.z;
    }
    const std::size_t begin = by * per_split;
    const std::size_t end = n - begin < per_split ? n : begin + per_split;
    for_each_source_tile(xp, vp, begin, end, sx, sv, [&](std::uint32_t tile0, unsigned count) {
        const auto t0 = tile0 + q * part;
        const unsigned mine = count > q * part ? min(part, count - q * part) : 0u;
        if (mine < part || self[0] - t0 < part) {
            sum_tile<T, 1, true>(sx + q * part, sv + q * part, mine, t0, self, xi, yi, zi, vxi, vyi, vzi,
                                 eps2, ax, ay, az, jx, jy, jz);
        } else {
            sum_tile<T, 1, false>(sx + q * part, sv + q * part, part, t0, self, xi, yi, zi, vxi, vyi, vzi,
                                  eps2, ax, ay, az, jx, jy, jz);
        }
    });
    // The parts' sums through shared memory (the tiles are done with it), added in part order.
    T* sums = reinterpret_cast<T*>(smem_raw);
    const T mine[6] = {ax[0], ay[0], az[0], jx[0], jy[0], jz[0]};
#pragma unroll
    for (int c = 0; c < 6; ++c) sums[c * B + threadIdx.x] = mine[c];
    __syncthreads();
    if (q == 0 && e < m) {
        T total[6];
#pragma unroll
        for (int c = 0; c < 6; ++c) {
            total[c] = sums[c * B + threadIdx.x];
            for (unsigned r = 1; r < L; ++r) total[c] += sums[c * B + r * per_block + threadIdx.x];
        }
        const T scale = scaled ? G : T(1);
        const std::size_t slot = by * m;
        acc[slot + e] = Vec4<T>{scale * total[0], scale * total[1], scale * total[2], T(0)};
        jerk[slot + e] = Vec4<T>{scale * total[3], scale * total[4], scale * total[5], T(0)};
    }
    __syncthreads();
}

// The host-shaped launch: block (bx, by) runs item (bx, by).
template <typename T, int K>
__global__ void __launch_bounds__(kMaxJerkBlock)
    jerk_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, std::size_t n,
                std::size_t per_split, const std::uint32_t* __restrict__ targets, std::size_t m, T G, T eps2,
                Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    extern __shared__ __align__(32) unsigned char smem_raw[];
    if (bad && *bad < bad_before) return;  // the same for the whole block: no barrier is skipped by half
    jerk_item<T, K>(blockIdx.x, blockIdx.y, gridDim.y == 1, xp, vp, n, per_split, targets, m, G, eps2, acc,
                    jerk, smem_raw);
}

// Resident blocks of 128 threads for the planned kernel, which keeps its item loop's bounds and pointers
// in registers too (and, at K = 1, the code for threads sharing a target): the host-shaped kernel's
// occupancy where that costs no spills (float K = 4: 5 blocks, 96 registers; double K = 2: 4), fewer
// where holding it would spill (float K = 1, 2: 9 and 6 against 10 and 7; double K = 1: 5 against 7;
// double K = 4, which only an explicit request uses: 2).
template <typename T, int K>
constexpr int kPlannedMinBlocks = sizeof(T) == 4 ? (K == 1   ? 9
                                                    : K == 2 ? 6
                                                             : 5)
                                                 : (K == 1   ? 5
                                                    : K == 2 ? 4
                                                             : 2);

// The plan of this evaluation, chosen on the device from the count: one warp looks at the table entries
// in parallel (a lane every 32nd) and takes the first whose m_max >= *active; the item counter restarts.
// With lists (list_items > 0, JerkLists::items): a plan of one thread a target (no lanes) whose ranges fit
// the scratch builds them as it sums.
__global__ void choose_plan_kernel(const JerkPlan* __restrict__ plans, unsigned count,
                                   const std::uint32_t* __restrict__ active, JerkChosen* __restrict__ chosen,
                                   std::uint64_t list_items) {
    const std::uint32_t m = *active;
    unsigned first = count - 1;
    for (unsigned base = 0; base < count; base += 32) {
        const unsigned e = base + threadIdx.x;
        const unsigned hit = __ballot_sync(0xffffffffu, e < count && plans[e].m_max >= m);
        if (hit) {
            first = base + unsigned(__ffs(hit) - 1);
            break;
        }
    }
    if (threadIdx.x == 0) {
        const JerkPlan e = plans[first];
        chosen->m = m;
        chosen->bodies_per_thread = e.bodies_per_thread;
        chosen->splits = e.splits;
        chosen->per_split = e.per_split;
        chosen->lanes = e.lanes;
        chosen->next_item = 0;
        const bool inline_lists =
            m > 0 && e.bodies_per_thread == 1 && e.lanes == 1 && std::uint64_t(m) * e.splits <= list_items;
        chosen->lists_inline = inline_lists ? 1u : 0u;
        chosen->lists_separate = inline_lists ? 0u : 1u;
        if (inline_lists) ++chosen->inline_count;
    }
}

// The device-planned launch: the count and its plan are read on the device, so the launch itself (a
// fixed grid of resident blocks) never changes and can be replayed in a CUDA graph. Each K instantiation
// the table uses is launched; only the one the plan names does anything. Its blocks take the items in
// the order of a shared counter, as the hardware hands out the blocks of a grid (a fixed assignment lost
// 9% on 65,536 bodies: the blocks done early stayed idle); an item's sums do not depend on which block
// runs it.
// kList (K = 1): the launch with lists, which builds them where the plan has no lanes (lists_inline); the
// search's registers on top of the sums' leave fewer blocks resident.
template <typename T, int K, bool kList = false>
__global__ void __launch_bounds__(kMaxJerkBlock, kList ? (sizeof(T) == 4 ? 6 : 4) : kPlannedMinBlocks<T, K>)
    planned_jerk_kernel(JerkChosen* __restrict__ chosen, const Vec4<T>* __restrict__ xp,
                        const Vec4<T>* __restrict__ vp, std::size_t n,
                        const std::uint32_t* __restrict__ targets, T G, T eps2, Vec4<T>* __restrict__ acc,
                        Vec4<T>* __restrict__ jerk, Vec4<T>* __restrict__ scratch, JerkLists jl) {
    extern __shared__ __align__(32) unsigned char smem_raw[];
    __shared__ unsigned item;
    // The fields it uses (a copy of the whole JerkChosen cost registers: a spill in double at K = 1).
    struct {
        std::uint32_t m, splits;
        std::int32_t bodies_per_thread, lanes;
        std::uint64_t per_split;
    } const l{chosen->m, chosen->splits, chosen->bodies_per_thread, chosen->lanes, chosen->per_split};
    const std::size_t m = l.m;
    if (m == 0 || l.bodies_per_thread != K) return;
    // With lists requested, both K = 1 launches run and the one that does not match returns.
    if (K == 1 && bool(chosen->lists_inline) != kList) return;
    // Counts below 2^32 (the backend refuses N >= 2^32), and items fewer than that too.
    const unsigned L = K == 1 ? unsigned(l.lanes) : 1u;
    const std::size_t per_block = std::size_t(blockDim.x) * K / L;
    const unsigned x_blocks = unsigned((m + per_block - 1) / per_block);
    const unsigned items = x_blocks * l.splits;
    Vec4<T>* a = l.splits > 1 ? scratch : acc;
    Vec4<T>* j = l.splits > 1 ? scratch + std::size_t(l.splits) * m : jerk;
#pragma unroll 1
    for (;;) {
        if (threadIdx.x == 0) item = atomicAdd(&chosen->next_item, 1u);
        __syncthreads();
        const unsigned it = item;
        if (it >= items) break;
        if (K == 1 && L > 1) {
            jerk_item_lanes<T>(it % x_blocks, it / x_blocks, l.splits == 1, L, xp, vp, n, l.per_split,
                               targets, m, G, eps2, a, j, smem_raw);
        } else if (kList) {
            jerk_item<T, 1, kList>(it % x_blocks, it / x_blocks, l.splits == 1, xp, vp, n, l.per_split,
                                   targets, m, G, eps2, a, j, smem_raw, jl, l.splits);
        } else {
            jerk_item<T, K>(it % x_blocks, it / x_blocks, l.splits == 1, xp, vp, n, l.per_split, targets, m,
                            G, eps2, a, j, smem_raw);
        }
        __syncthreads();  // every thread has read `item` before thread 0 takes the next
    }
}

// The split sums' blocks of threads (split_sums.cuh: one target a warp).
constexpr unsigned kSumBlock = 256;

// The host-shaped sum: warp w of the grid adds target w.
template <typename T>
__global__ void __launch_bounds__(kSumBlock)
    sum_jerk_splits(const Vec4<T>* __restrict__ part_acc, const Vec4<T>* __restrict__ part_jerk,
                    unsigned splits, std::size_t m, T G, Vec4<T>* __restrict__ acc,
                    Vec4<T>* __restrict__ jerk, const unsigned long long* __restrict__ bad,
                    unsigned long long bad_before) {
    if (bad && *bad < bad_before) return;
    const std::size_t i = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    if (i < m) sum_splits_of(i, splits, m, G, part_acc, part_jerk, acc, jerk);
}

// The device-planned sum: the warps of a fixed grid take the targets in turn (nothing to do with one split).
template <typename T>
__global__ void __launch_bounds__(kSumBlock)
    planned_sum_kernel(const JerkChosen* __restrict__ chosen, const Vec4<T>* __restrict__ scratch, T G,
                       Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk) {
    const std::size_t m = chosen->m;
    const unsigned splits = chosen->splits;
    if (m == 0 || splits <= 1) return;
    const std::size_t warps = std::size_t(gridDim.x) * blockDim.x / 32;
    for (std::size_t i = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < m; i += warps)
        sum_splits_of(i, splits, m, G, scratch, scratch + std::size_t(splits) * m, acc, jerk);
}

template <typename T, int K>
void launch_k(const JerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
              const std::uint32_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
              const unsigned long long* bad, unsigned long long bad_before, cudaStream_t s) {
    const unsigned B = unsigned(l.block);
    const std::size_t tiles = std::max<std::size_t>(1, (n + B - 1) / B);
    const std::size_t per_split = ((tiles + l.splits - 1) / l.splits) * B;
    const unsigned splits = unsigned((n + per_split - 1) / per_split);
    const dim3 grid(unsigned((m + std::size_t(B) * K - 1) / (std::size_t(B) * K)), std::max(1u, splits));
    launch_kernel(jerk_kernel<T, K>, grid, dim3(B), 2 * B * sizeof(Vec4<T>), s, xp, vp, n, per_split, targets,
                  m, G, eps2, acc, jerk, bad, bad_before);
}

// The splits actually launched: whole tiles per split, so some requested counts collapse.
std::size_t used_splits(const JerkLaunch& l, std::size_t n) {
    const std::size_t tiles = std::max<std::size_t>(1, (n + l.block - 1) / l.block);
    const std::size_t per = (tiles + l.splits - 1) / l.splits;
    return (tiles + per - 1) / per;
}

// Resident blocks per SM of kernel<T, K> at `block` threads with its tiles in shared memory.
template <typename T, template <typename, int> class Kernel>
int occupancy(int K, int block) {
    int blocks = 0;
    const std::size_t shared = 2 * std::size_t(block) * sizeof(Vec4<T>);
    switch (K) {
        case 1:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel<T, 1>::get(), block, shared));
            break;
        case 2:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel<T, 2>::get(), block, shared));
            break;
        default:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel<T, 4>::get(), block, shared));
            break;
    }
    return std::max(blocks, 1);
}
template <typename T, int K>
struct HostShaped {
    static auto get() { return jerk_kernel<T, K>; }
};
template <typename T, int K>
struct Planned {
    static auto get() { return planned_jerk_kernel<T, K>; }
};

void check_request(const JerkLaunch& req) {
    const int k = req.bodies_per_thread;
    if (k != 0 && k != 1 && k != 2 && k != 4) throw Error("jerk kernel: bodies per thread must be 1, 2 or 4");
    if (req.block != 0 && req.block != 32 && req.block != 64 && req.block != 128) {
        throw Error("jerk kernel: block size must be 32, 64 or 128");
    }
    if (req.splits < 0) throw Error("jerk kernel: splits must be >= 0");
}

// The active counts the planned tables distinguish: every count up to 32, then steps of about 9%
// (2^(1/8)) with 256, 512 and 1024 among them, then n. A count uses the plan of the first bound at or above
// it: at most 9% more blocks along the targets than its own plan would count, which only the last wave's fill
// feels.
std::vector<std::size_t> plan_bounds(std::size_t n) {
    std::vector<std::size_t> v;
    for (std::size_t m = 1; m <= n;) {
        v.push_back(m);
        m = m < 32 ? m + 1 : std::max(m + 1, std::size_t(std::ceil(double(m) * 1.0905077326652577)));
    }
    if (v.empty() || v.back() != n) v.push_back(n);
    // The counts where the plans' threads per target change (make_jerk_plans) are bounds themselves.
    for (const std::size_t m : {256, 512, 1024}) {
        if (n > m) v.push_back(m);
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

}  // namespace

JerkLaunch resolve_jerk_launch(JerkLaunch req, std::size_t m, std::size_t n, Precision p) {
    check_request(req);
    JerkLaunch l = req;
    // Fewer targets than lanes leave lanes idle: smaller blocks first (a warp computes for its idle lanes
    // too), then fewer targets per thread.
    if (l.block == 0) l.block = m <= 32 ? 32 : m <= 64 ? 64 : 128;
    const int sms = current_device_sms();
    // Blocks the device runs at once with K targets per thread.
    auto slots_for = [&](int K) {
        return double(sms) * (p == Precision::f32 ? occupancy<float, HostShaped>(K, l.block)
                                                  : occupancy<double, HostShaped>(K, l.block));
    };
    const std::size_t tiles = std::max<std::size_t>(1, (n + l.block - 1) / l.block);
    auto x_blocks_for = [&](int K) {
        return std::max<std::size_t>(1, (m + std::size_t(l.block) * K - 1) / (std::size_t(l.block) * K));
    };
    if (l.bodies_per_thread == 0) {
        l.bodies_per_thread = p == Precision::f32 ? 4 : 2;
        while (l.bodies_per_thread > 1 && std::size_t(l.block) * l.bodies_per_thread > m)
            l.bodies_per_thread /= 2;
        // A mid-sized block (hundreds to a few thousand targets among 65,536 sources) cannot fill the
        // device with K = 4 even at one source tile per block: fewer targets per thread give more blocks
        // (and, with fewer registers, more of them resident). Measured on the H200 (docs/PERFORMANCE.md,
        // issue 21): 819 targets among 65,536 in float took 0.145 ms at K=4 and 0.093 ms at K=1.
        while (l.bodies_per_thread > 1 &&
               double(x_blocks_for(l.bodies_per_thread) * tiles) < kMinWaves * slots_for(l.bodies_per_thread))
            l.bodies_per_thread /= 2;
    }
    if (l.splits == 0) {
        // The split count whose blocks fill whole waves of the device best (all blocks do nearly the same
        // work, so a last wave 30% full costs as much as a full one), as resolve_force_launch does.
        const double slots = slots_for(l.bodies_per_thread);
        const std::size_t x_blocks = x_blocks_for(l.bodies_per_thread);
        const std::size_t most =
            std::min(tiles, std::max<std::size_t>(1, std::size_t(kMaxWaves * slots / double(x_blocks))));
        double best = -1;
        l.splits = 1;
        // Each distinct tiles-per-split gives one launched split count.
        for (std::size_t per = (tiles + most - 1) / most; per <= tiles;) {
            const std::size_t used = (tiles + per - 1) / per;
            const double work = double(x_blocks * used);
            const double waves = std::ceil(work / slots);
            // A single wave measured a few percent slower than several at the same fill (force_kernels.cu).
            const double score = work / (waves * slots) - (waves == 1 && used > 1 ? 0.03 : 0.0);
            // From many splits to few: a count within 0.02 of the best so far wins (less scratch).
            if (score > best - 0.02) best = std::max(best, score), l.splits = int(used);
            // The next per that launches fewer splits.
            if (used == 1) break;
            per = (tiles + used - 2) / (used - 1);
        }
    }
    return l;
}

JerkPlans make_jerk_plans(const JerkLaunch& requested, std::size_t n, Precision p) {
    check_request(requested);
    JerkPlans out;
    // One block size for every count: the grid is fixed. Idle lanes of a small block cost little there,
    // since a few targets leave most of the device idle anyway.
    out.block = requested.block != 0 ? requested.block : kMaxJerkBlock;
    // One target per thread unless asked otherwise: with the items handed out by a counter, K = 1 (more
    // warps resident, more and shorter items) was as fast as or faster than K = 4 (float) and K = 2
    // (double) at every count measured on the H200 (PERFORMANCE.md, issue 21): 8,192 among 65,536 in float
    // 0.98 -> 0.67 ms, all 65,536 4.87 -> 4.78 ms; and only one force+jerk kernel is launched per block.
    const int K = requested.bodies_per_thread != 0 ? requested.bodies_per_thread : 1;
    const int sms = current_device_sms();
    const int slots = sms * (p == Precision::f32 ? occupancy<float, Planned>(K, out.block)
                                                 : occupancy<double, Planned>(K, out.block));
    const std::size_t tiles = std::max<std::size_t>(1, (n + out.block - 1) / out.block);
    for (const std::size_t m : plan_bounds(n)) {
        // Up to a thousand targets at K = 1: 8, 4 or 2 threads a target in blocks of 128, each summing its
        // part of every tile (where one thread a target would run long chains on a device with few
        // items). Measured on the H200 (PERFORMANCE.md, issue 21): against lanes only to 64 targets, 256
        // targets 0.059 -> 0.048 ms in float, the user-level Plummer run 2-3% faster; to 64 targets, a
        // 16-target block 0.049 -> 0.027 ms against one thread a target.
        const int lanes = K > 1 || out.block < 128 ? 1 : m <= 256 ? 8 : m <= 512 ? 4 : m <= 1024 ? 2 : 1;
        const std::size_t per_block = K == 1 ? std::size_t(out.block) / lanes : std::size_t(out.block) * K;
        const std::size_t x_blocks = (m + per_block - 1) / per_block;
        // Enough splits for kPlannedWaves waves of items: the counter balances a partial last wave, so
        // more and shorter items beat a closer fill (8,192 targets: 17 splits 0.75 ms, 64 splits 0.67 ms).
        const std::size_t wanted =
            requested.splits != 0
                ? std::size_t(requested.splits)
                : std::max<std::size_t>(1, std::size_t(kPlannedWaves * double(slots) / double(x_blocks)));
        // The splits launched, each of the fewest whole tiles that still gives that many: exactly what
        // launch_jerks launches for a JerkLaunch of this K, block and split count.
        const std::size_t used = used_splits(JerkLaunch{K, out.block, int(std::min(wanted, tiles))}, n);
        const std::size_t per = (tiles + used - 1) / used;
        JerkPlan e;
        e.m_max = std::uint32_t(m);
        e.bodies_per_thread = K;
        e.splits = std::uint32_t(used);
        e.per_split = std::uint64_t(per) * out.block;
        e.lanes = lanes;
        out.entries.push_back(e);
        if (e.splits > 1) {
            out.summed = true;
            out.scratch = std::max(out.scratch, 2 * std::size_t(e.splits) * m);
        }
    }
    out.grid[K == 1 ? 0 : K == 2 ? 1 : 2] = slots;
    // The split sums a full wave: a warp a target, each a few dependent loads (latency-bound; at two blocks
    // an SM a block of 60,000 regular steps took 28 us, its warps ~28 targets each in turn).
    int sum_per_sm = 1;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&sum_per_sm,
                                                             p == Precision::f32
                                                                 ? (const void*)planned_sum_kernel<float>
                                                                 : (const void*)planned_sum_kernel<double>,
                                                             kSumBlock, 0));
    out.sum_grid = sms * std::max(1, sum_per_sm);
    return out;
}

std::size_t jerk_list_items(const JerkPlans& plans) {
    std::size_t items = 0;
    for (const JerkPlan& e : plans.entries) {
        if (e.bodies_per_thread == 1 && e.lanes == 1)
            items = std::max(items, std::size_t(e.m_max) * e.splits);
    }
    return items;
}

std::string to_string(const JerkPlan& e, int block) {
    return "K=" + std::to_string(e.bodies_per_thread) + " block=" + std::to_string(block) +
           " splits=" + std::to_string(e.splits) + (e.lanes > 1 ? " lanes=" + std::to_string(e.lanes) : "");
}

std::string to_string(const JerkLaunch& l) {
    return "K=" + std::to_string(l.bodies_per_thread) + " block=" + std::to_string(l.block) +
           " splits=" + std::to_string(l.splits);
}

std::size_t jerk_scratch_count(const JerkLaunch& l, std::size_t m) {
    return l.splits > 1 ? 2 * std::size_t(l.splits) * m : 0;
}

template <typename T>
void launch_jerks(const JerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
                  const std::uint32_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
                  Vec4<T>* scratch, const unsigned long long* bad, unsigned long long bad_before,
                  void* stream) {
    if (m == 0) return;
    const auto s = static_cast<cudaStream_t>(stream);
    const std::size_t splits = n == 0 ? 1 : used_splits(l, n);
    Vec4<T>* a = splits > 1 ? scratch : acc;
    Vec4<T>* j = splits > 1 ? scratch + splits * m : jerk;
    switch (l.bodies_per_thread) {
        case 1:
            launch_k<T, 1>(l, xp, vp, n, targets, m, G, eps2, a, j, bad, bad_before, s);
            break;
        case 2:
            launch_k<T, 2>(l, xp, vp, n, targets, m, G, eps2, a, j, bad, bad_before, s);
            break;
        case 4:
            launch_k<T, 4>(l, xp, vp, n, targets, m, G, eps2, a, j, bad, bad_before, s);
            break;
        default:
            throw Error("jerk kernel: bodies per thread must be 1, 2 or 4");
    }
    if (splits > 1) {
        launch_kernel(sum_jerk_splits<T>, dim3(blocks_for(m * 32, kSumBlock)), dim3(kSumBlock), 0, s, a, j,
                      unsigned(splits), m, G, acc, jerk, bad, bad_before);
    }
}

template <typename T>
void launch_planned_jerks(const JerkPlans& plans, const JerkPlan* device_plans, JerkChosen* chosen,
                          const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n, const std::uint32_t* targets,
                          const std::uint32_t* active, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
                          Vec4<T>* scratch, void* stream, const JerkLists* lists) {
    const auto s = static_cast<cudaStream_t>(stream);
    if (lists && plans.block != kJerkListBlock) throw Error("jerk kernel: lists need blocks of 128");
    launch_kernel(choose_plan_kernel, dim3(1), dim3(32), 0, s, device_plans, unsigned(plans.entries.size()),
                  active, chosen, lists ? lists->items : std::uint64_t(0));
    const std::size_t shared = 2 * std::size_t(plans.block) * sizeof(Vec4<T>);
    const dim3 block(unsigned(plans.block));
    const JerkLists jl = lists ? *lists : JerkLists{};
    // The evaluation without lists (it returns where the plan builds them), then the one with.
    launch_kernel(planned_jerk_kernel<T, 1>, dim3(unsigned(plans.grid[0])), block, shared, s, chosen, xp, vp,
                  n, targets, G, eps2, acc, jerk, scratch, jl);
    if (lists) {
        launch_kernel(planned_jerk_kernel<T, 1, true>, dim3(unsigned(plans.grid[0])), block, shared, s,
                      chosen, xp, vp, n, targets, G, eps2, acc, jerk, scratch, jl);
    }
    launch_kernel(planned_jerk_kernel<T, 2>, dim3(unsigned(plans.grid[1])), block, shared, s, chosen, xp, vp,
                  n, targets, G, eps2, acc, jerk, scratch, jl);
    launch_kernel(planned_jerk_kernel<T, 4>, dim3(unsigned(plans.grid[2])), block, shared, s, chosen, xp, vp,
                  n, targets, G, eps2, acc, jerk, scratch, jl);
    if (plans.summed) {
        launch_kernel(planned_sum_kernel<T>, dim3(unsigned(plans.sum_grid)), dim3(kSumBlock), 0, s, chosen,
                      scratch, G, acc, jerk);
    }
}

template void launch_jerks<float>(const JerkLaunch&, const Vec4<float>*, const Vec4<float>*, std::size_t,
                                  const std::uint32_t*, std::size_t, float, float, Vec4<float>*, Vec4<float>*,
                                  Vec4<float>*, const unsigned long long*, unsigned long long, void*);
template void launch_jerks<double>(const JerkLaunch&, const Vec4<double>*, const Vec4<double>*, std::size_t,
                                   const std::uint32_t*, std::size_t, double, double, Vec4<double>*,
                                   Vec4<double>*, Vec4<double>*, const unsigned long long*,
                                   unsigned long long, void*);

template void launch_planned_jerks<float>(const JerkPlans&, const JerkPlan*, JerkChosen*, const Vec4<float>*,
                                          const Vec4<float>*, std::size_t, const std::uint32_t*,
                                          const std::uint32_t*, float, float, Vec4<float>*, Vec4<float>*,
                                          Vec4<float>*, void*, const JerkLists*);
template void launch_planned_jerks<double>(const JerkPlans&, const JerkPlan*, JerkChosen*,
                                           const Vec4<double>*, const Vec4<double>*, std::size_t,
                                           const std::uint32_t*, const std::uint32_t*, double, double,
                                           Vec4<double>*, Vec4<double>*, Vec4<double>*, void*,
                                           const JerkLists*);

}  // namespace nbody
