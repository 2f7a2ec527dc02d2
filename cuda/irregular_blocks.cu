// The neighbour scheme's irregular blocks in one persistent kernel (irregular_blocks.cuh). Built without
// -ftz (as hermite_steps.cu): the corrections and their finiteness checks are the per-kernel path's.
#include <cooperative_groups.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "irregular_blocks.cuh"
#include "irregular_sum.cuh"
#include "launch.cuh"
#include "predict_on_the_fly.cuh"
#include "sim/error.hpp"
#include "split_search.cuh"
#include "split_sums.cuh"
#include "step_kernels.hpp"

namespace nbody {
namespace {

__device__ __forceinline__ void prefetch_l1(const void* p) {
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

template <typename T>
__device__ __forceinline__ Vec4<T> shfl_vec4(const Vec4<T>& v, unsigned from) {
    return Vec4<T>{__shfl_sync(0xffffffffu, v.x, from), __shfl_sync(0xffffffffu, v.y, from),
                   __shfl_sync(0xffffffffu, v.z, from), __shfl_sync(0xffffffffu, v.w, from)};
}

// The plan of the planned evaluation (jerk_kernels.hpp) for m targets: the first entry whose m_max is at
// least m (choose_plan_kernel's choice), by bisection; every thread takes it.
__device__ __forceinline__ JerkPlan plan_for(const JerkPlan* plans, unsigned count, std::uint32_t m) {
    unsigned lo = 0, hi = count - 1;
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        if (plans[mid].m_max >= m) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return plans[lo];
}

// Whether the kernel runs a block with m regular steps of plan e itself: threads sharing each target
// (lane_sums_item's shape) and few enough targets for the split search.
__device__ __forceinline__ bool regular_fits(const JerkPlan& e, unsigned block, std::uint32_t m) {
    const unsigned L = unsigned(e.lanes);
    return e.bodies_per_thread == 1 && L > 1 && 32 % L == 0 && block % L == 0 && m <= kNeighbourSplitMax;
}

// Whether the kernel runs blocks with a few regular steps itself (RegularInRun): in float; in double their
// phases took the kernel past its 128 registers (352 bytes spilled), so the host runs them there.
template <typename T>
constexpr bool kRegularInRun = sizeof(T) == 4;

// Every thread of the grid takes the same decisions from the same values: what it reads of the clock
// and the counters was written before the last grid barrier and is not written again before the next
// one. Thread 0 of block 0 alone writes the clock. The next block's earliest due tick is gathered into
// one of three words: block b (from 1) gathers into word b % 3 the due ticks of the bodies not due and the
// new ones of the corrected, which every thread reads after the barrier, and resets word (b + 1) % 3, the
// gathers of block b - 2, which every thread read before the last barrier.
//
// Why the slots are safe without a barrier between the sums and the corrections: during block b the
// warp that corrects body i alone writes it, into the slot i is not in, then sets version[i] to
// (b << 1) | that slot. A reader of i takes the slot i was in when the block began: the other one where
// version[i] names block b, else the one it names. It reads that slot whether or not it sees the new
// version, and nothing writes that slot before the next barrier.
//
// kOwned: every body has a thread of its own (n <= the grid's threads), and that thread keeps its body's
// due tick, slot, level and state in registers for the whole run (loaded once at the start, where every
// body is in slot 0). Only that thread corrects the body, so its copy is always what memory holds: a
// block then needs no load to find the due bodies, nor to predict them (two of the round trips a block's
// chain of dependent loads had). The same values into the same functions, so the same bits. The launch
// bound caps a thread at 128 registers, so that two blocks of threads fit a multiprocessor as
// irregular_run_grid launches them: the float kernel with its body in registers takes about 110, without
// 92, the double kernel 128 (none spills).
//
// A block with a few regular steps (RegularInRun) runs here as five phases, each ended by a grid barrier:
// select's pass (and the decision whether the block is this kernel's); the old lists' irregular sums, the
// full sums and the split list searches; the splits' sums and the joins; the new lists' irregular sums; the
// corrections. Nothing a phase writes is read before its barrier but by the warp that wrote it. The earliest
// regular due tick, fixed between such blocks, is gathered anew in their last phase, into three rotating
// words as the due ticks are.
template <typename T, bool kOwned>
__global__ void __launch_bounds__(kBlock, 2) irregular_run_kernel(IrregularRun<T> r) {
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    BlockClock* c = r.clock;
    if (!c->live) return;  // the same for every thread: nothing writes the clock before the first barrier
    if (kOwned && r.n > std::size_t(gridDim.x) * blockDim.x) __trap();  // launch_irregular_run's choice
    unsigned long long* min_due = r.scratch;                            // [3]
    // The earliest regular due tick after a block with regular steps, gathered as min_due is ([3]), and
    // such a block's count of regular steps.
    unsigned long long* regular_min = r.scratch + 3;
    unsigned* regular_count = reinterpret_cast<unsigned*>(r.scratch + 6);
    __shared__ unsigned long long corrected;  // this block of threads' due bodies in the current block
    const bool first = blockIdx.x == 0 && threadIdx.x == 0;
    const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    const std::size_t warp = thread / 32, warps = threads / 32;
    const unsigned lane = threadIdx.x % 32;
    // Fixed for the whole run: the max step's gate and holds. The earliest regular due tick changes only
    // with a block with regular steps.
    const unsigned long long gate = c->gate;
    // Stalls are judged from this run's block judge_from on (kStallBlocks counts the max step's blocks).
    const std::int64_t judge_from = kStallBlocks - static_cast<std::int64_t>(c->blocks - c->first_block);
    unsigned long long min_regular_due = c->min_regular_due;
    const bool hold_last = c->hold_last != 0;
    std::int64_t tick = c->tick;
    unsigned long long next = c->min_due;
    bool after_regular = false;  // the last block had regular steps: min_regular_due is gathered anew
    // kOwned: this thread's body (none past n), and its place in a regular block's list (-1: none).
    Vec4<T> own_pos{}, own_vel{}, own_acc{}, own_jerk{};
    int own_level = 0;
    std::int64_t own_due = 0;
    unsigned own_from = 0;
    std::int32_t own_place = -1;
    if (kOwned && thread < r.n) {
        own_pos = r.pos[thread], own_vel = r.vel[thread], own_acc = r.acc[thread], own_jerk = r.jerk[thread];
        own_level = r.level[thread], own_due = r.due[thread];
    }
    if (threadIdx.x == 0) corrected = 0;
    if (first) min_due[1] = regular_min[1] = ~0ull, *regular_count = 0;  // block 1's (nothing reads them yet)
    grid.sync();
    std::uint32_t block =
        0;  // the run's block number, from 1 (versions hold 31 bits of it: 2^31 blocks a run)
    // Body b as it was when the block began. Both slots are loaded with the version that chooses between
    // them: one round trip to memory, not two.
    auto predict = [&](std::uint32_t b, Vec4<T>& x, Vec4<T>& v) {
        // Another warp may write it meanwhile: either value read selects the same slot, and it is read
        // once (the stores between here and its use may alias it, so the compiler cannot load it again).
        // A volatile load cost 13 ms of the first max step's 35 (H100, N = 65,536).
        const std::uint32_t ver = r.version[b];
        const Vec4<T> p0 = r.pos[b], v0 = r.vel[b], a0 = r.acc[b], j0 = r.jerk[b];
        const Vec4<T> p1 = r.pos1[b], v1 = r.vel1[b], a1 = r.acc1[b], j1 = r.jerk1[b];
        const int l0 = r.level[b], l1 = r.level1[b];
        const std::int64_t d0 = r.due[b], d1 = r.due1[b];
        if (((ver & 1u) != 0) != ((ver >> 1) == block)) {
            predict_state(p1, v1, a1, j1, l1, d1, tick, r.dt, x, v);
        } else {
            predict_state(p0, v0, a0, j0, l0, d0, tick, r.dt, x, v);
        }
    };
    // Body i (< n) of this warp's share: the slot it is in (only this warp changes it now) and its due tick
    // there, both slots' loaded with the version.
    auto own_clock = [&](std::size_t i, unsigned& from, std::int64_t& due) {
        if constexpr (kOwned) {
            from = own_from, due = own_due;
        } else {
            const std::uint32_t ver = r.version[i];
            const std::int64_t d0 = r.due[i], d1 = r.due1[i];
            from = ver & 1u;
            due = from ? d1 : d0;
        }
    };
    // Body i of this warp's share, in slot `from`, predicted to tick t.
    auto predict_own = [&](std::size_t i, unsigned from, std::int64_t t, Vec4<T>& x, Vec4<T>& v) {
        if constexpr (kOwned) {
            predict_state(own_pos, own_vel, own_acc, own_jerk, own_level, own_due, t, r.dt, x, v);
        } else {
            predict_body(from ? r.pos1 : r.pos, from ? r.vel1 : r.vel, from ? r.acc1 : r.acc,
                         from ? r.jerk1 : r.jerk, from ? r.level1 : r.level, from ? r.due1 : r.due, i, t,
                         r.dt, x, v);
        }
    };
    // Due body i of this warp's share, in slot `from`, corrected at the block's tick into the other slot
    // (correct_neighbours_kernel's steps), its new due tick into `gathered`.
    auto correct = [&](std::size_t i, unsigned from, const Vec4<T>& xi, const Vec4<T>& vi,
                       const NeighbourForces<T>& f, unsigned long long& gathered) {
        // Two calls on the kernel's own pointers rather than one on pointers chosen by `from`: twelve
        // chosen pointers held in registers made the float kernel spill (tried).
        // One correction for both paths, the slot's state loaded into the registers' place first,
        // made the double kernel 4% slower (1.201 -> 1.269 s on the H100, 3 rounds; tried).
        const bool judge = std::int64_t(block) > judge_from;  // stalls (kStallBlocks)
        if constexpr (kOwned) {
            // correct_neighbour_due_into's steps on the registers' copy, then stored the same way.
            Vec4<T> x, v;
            const bool stalled =
                correct_neighbour_state(std::uint32_t(i), tick, r.dt, r.eta, r.eta_regular, r.s, xi, vi, f,
                                        own_acc, own_jerk, own_level, own_due, x, v, judge);
            own_pos = x, own_vel = v;
            if (from) {
                store_corrected(std::uint32_t(i), x, v, own_acc, own_jerk, own_level, tick, stalled, r.pos,
                                r.vel, r.acc, r.jerk, r.level, r.due, r.bad, gate, gathered);
            } else {
                store_corrected(std::uint32_t(i), x, v, own_acc, own_jerk, own_level, tick, stalled, r.pos1,
                                r.vel1, r.acc1, r.jerk1, r.level1, r.due1, r.bad, gate, gathered);
            }
            own_from = from ^ 1u;
        } else if (from) {
            correct_neighbour_due_into(std::uint32_t(i), tick, r.dt, r.eta, r.eta_regular, r.s, xi, vi, f,
                                       r.acc1, r.jerk1, r.level1, r.due1, r.pos, r.vel, r.acc, r.jerk,
                                       r.level, r.due, r.bad, gate, judge, gathered);
        } else {
            correct_neighbour_due_into(std::uint32_t(i), tick, r.dt, r.eta, r.eta_regular, r.s, xi, vi, f,
                                       r.acc, r.jerk, r.level, r.due, r.pos1, r.vel1, r.acc1, r.jerk1,
                                       r.level1, r.due1, r.bad, gate, judge, gathered);
        }
        r.version[i] = (block << 1) | (from ^ 1u);
    };
    const RegularInRun<T>& g = r.reg;
    // A block with regular steps reads every body predicted (select's xp, vp).
    auto predicted_xp = [&](std::uint32_t b, Vec4<T>& x, Vec4<T>& v) { x = g.xp[b], v = g.vp[b]; };
    for (;;) {
        if (block > 0) {
            next = min_due[block % 3];
            if (after_regular) min_regular_due = regular_min[block % 3];
        }
        // schedule_kernel's decision. A block with regular steps is the host's (the run stops before it,
        // whether or not the clock's hold_regular is on: it always is when max_step launches a run, as
        // restart_clock and enqueue_regular_min set it) unless it has few of them and the plans allow
        // (RegularInRun); so is the held last block.
        const unsigned long long seen = r.bad ? *r.bad : kNoBadBody;
        const bool failed = r.bad && stops_step(seen, gate);
        const bool last = next == static_cast<unsigned long long>(kTicksPerMaxStep);
        bool held = !failed && tick != kTicksPerMaxStep && ((last && hold_last) || next >= min_regular_due);
        unsigned long long gathered = ~0ull;  // the next block's candidates (due_at, store_corrected)
        bool regular = false;  // a block with regular steps that this kernel runs: its plan and count
        JerkPlan plan{};
        std::uint32_t m = 0;
        if (kRegularInRun<T> && held && !last && g.plans) {
            // Select's pass: every body predicted to the block's tick, the due ones at a regular step
            // listed; then whether the block is this kernel's after all.
            const std::int64_t at = static_cast<std::int64_t>(next);
            for (std::size_t base = warp * 32; base < r.n; base += threads) {
                const std::size_t i = base + lane;
                bool is_due = false, is_regular = false;
                if (i < r.n) {
                    unsigned from = 0;
                    std::int64_t due = 0;
                    own_clock(i, from, due);
                    is_due = due_at(due, at, gathered);
                    Vec4<T> x, v;
                    predict_own(i, from, at, x, v);
                    g.xp[i] = x, g.vp[i] = v;
                    is_regular = is_due && regular_due(at, r.s.t_regular[i], r.s.regular_level[i]);
                }
                const unsigned q = append_lanes(is_regular, regular_count);
                if (is_regular) g.regular[q] = std::uint32_t(i);
                const std::int32_t place = is_regular ? std::int32_t(q) : -1;
                if constexpr (kOwned) {
                    own_place = place;
                } else if (is_due) {
                    g.slot[i] = place;
                }
            }
            grid.sync();
            m = *regular_count;
            plan = plan_for(g.plans, g.plan_count, m);
            regular = regular_fits(plan, g.block, m);
            held = !regular;
        }
        if (failed || held || tick == kTicksPerMaxStep) {
            // The bodies in slot 1 back into their arrays, every version to 0.
            for (std::size_t i = thread; i < r.n; i += threads) {
                const std::uint32_t ver = r.version[i];
                if (ver == 0) continue;
                if (ver & 1u) {
                    r.pos[i] = r.pos1[i], r.vel[i] = r.vel1[i], r.acc[i] = r.acc1[i], r.jerk[i] = r.jerk1[i];
                    r.level[i] = r.level1[i], r.due[i] = r.due1[i];
                }
                r.version[i] = 0;
            }
            if (first) {
                c->bad_seen = seen;
                c->live = 0;
                c->held = held ? 1 : 0;
                c->min_due = next;
                c->min_regular_due = min_regular_due;
                c->active = 0;
                c->regular = 0;
            }
            return;
        }
        tick = static_cast<std::int64_t>(next);
        ++block;
        if (first) {
            c->tick = tick, ++c->blocks, ++c->run_blocks;
            min_due[(block + 1) % 3] = regular_min[(block + 1) % 3] = ~0ull;
            if (regular) ++c->run_regular_blocks, c->updates += m;
        }
        after_regular = regular;

        if (regular) {
            // The irregular sums of the due bodies from their old lists (by body; each warp its share), then
            // warp-sized items taken in turn by the warps: the full sums of the regular bodies (the plan's
            // items) and their split list searches.
            const Vec4<T>* xp = g.xp;
            const Vec4<T>* vp = g.vp;
            for (std::size_t base = warp * 32; base < r.n; base += threads) {
                const std::size_t i = base + lane;
                unsigned from = 0;
                std::int64_t due = 0;
                if (i < r.n) own_clock(i, from, due);
                for (unsigned lanes = __ballot_sync(0xffffffffu, i < r.n && due == tick); lanes != 0;
                     lanes &= lanes - 1) {
                    const std::uint32_t b = std::uint32_t(base) + unsigned(__ffs(lanes) - 1);
                    Vec4<T> a, j;
                    irregular_sum(b, xp[b], vp[b], r.lists, r.G, r.eps2, predicted_xp, a, j);
                    if (lane == 0) g.ai_old[b] = a, g.ji_old[b] = j;
                }
            }
            const unsigned L = unsigned(plan.lanes), S = plan.splits;
            const std::size_t groups = (m + 32 / L - 1) / (32 / L);
            Vec4<T>* part_acc = S > 1 ? g.partial : g.a1;
            Vec4<T>* part_jerk = S > 1 ? g.partial + std::size_t(S) * m : g.j1;
            for (std::size_t item = warp; item < groups * S; item += warps)
                lane_sums_item(item % groups, item / groups, S == 1, L, g.block, xp, vp, r.n, plan.per_split,
                               g.regular, m, r.G, r.eps2, part_acc, part_jerk);
            const std::uint32_t ranges = split_search_ranges(m);
            for (std::size_t w = warp; w < std::size_t(m) * ranges; w += warps) {
                const std::uint32_t found = search_item(w, ranges, xp, vp, r.n, g.regular, r.lists, r.dt);
                if (lane == 0) r.lists.split_count[w] = found;
            }
            grid.sync();
            // The full sums' splits added, the ranges joined into the new lists.
            if (first) *regular_count = 0;  // every thread read it before the last barrier
            for (std::size_t q = warp; q < m; q += warps) {
                if (S > 1) sum_splits_of(q, S, m, r.G, part_acc, part_jerk, g.a1, g.j1);
                join_ranges(q, g.regular[q], ranges, r.lists.split_list, r.lists.split_count, r.lists,
                            kRadiusFactor);
            }
            grid.sync();
            // The irregular sums from the new lists.
            for (std::size_t q = warp; q < m; q += warps) {
                const std::uint32_t i = g.regular[q];
                Vec4<T> a, j;
                irregular_sum(i, xp[i], vp[i], r.lists, r.G, r.eps2, predicted_xp, a, j);
                if (lane == 0) g.ai_new[q] = a, g.ji_new[q] = j;
            }
            grid.sync();
            // The corrections, and every body's regular due tick gathered for the next blocks.
            unsigned long long regular_next = ~0ull;
            for (std::size_t base = warp * 32; base < r.n; base += threads) {
                const std::size_t i = base + lane;
                unsigned from = 0;
                std::int64_t due = 0;
                if (i < r.n) own_clock(i, from, due);
                const bool is_due = i < r.n && due == tick;
                if (is_due) {
                    std::int32_t place = -1;
                    if constexpr (kOwned) {
                        place = own_place;
                    } else {
                        place = g.slot[i];
                    }
                    NeighbourForces<T> f{g.ai_old[i], g.ji_old[i], nullptr, nullptr, nullptr, nullptr};
                    if (place >= 0)
                        f.af = &g.a1[place], f.jf = &g.j1[place], f.ai_new = &g.ai_new[place],
                        f.ji_new = &g.ji_new[place];
                    correct(i, from, xp[i], vp[i], f, gathered);
                }
                if (i < r.n) {
                    regular_next =
                        min(regular_next, static_cast<unsigned long long>(r.s.t_regular[i] +
                                                                          level_ticks(r.s.regular_level[i])));
                }
                const unsigned due_lanes = __ballot_sync(0xffffffffu, is_due);
                if (lane == 0) atomicAdd(&corrected, static_cast<unsigned long long>(__popc(due_lanes)));
            }
            block_min_into(regular_next, &regular_min[block % 3]);
            __syncthreads();  // block_min_into's shared words, used again below
        } else {
            // Each warp's share of the bodies, 32 at a time: the due ones (select_predict_kernel's rule) get
            // their irregular sums (irregular_kernel's, a warp each) and then their corrections
            // (correct_neighbours_kernel's, a lane each); the others give their due ticks to the next
            // block's.
            for (std::size_t base = warp * 32; base < r.n; base += threads) {
                const std::size_t i = base + lane;
                unsigned from = 0;
                bool is_due = false;
                if (i < r.n) {
                    std::int64_t due = 0;
                    own_clock(i, from, due);
                    is_due = due_at(due, tick, gathered);
                }
                const unsigned due_lanes = __ballot_sync(0xffffffffu, is_due);
                if (due_lanes == 0) continue;
                Vec4<T> xi{}, vi{}, ai{}, ji{};
                if (is_due) {
                    // What the correction below reads of this body, on its way into L1 while the warp sums.
                    for (const void* p :
                         {static_cast<const void*>(r.s.ai + i), static_cast<const void*>(r.s.ji + i),
                          static_cast<const void*>(r.s.ar + i), static_cast<const void*>(r.s.jr + i),
                          static_cast<const void*>(r.s.d2 + i), static_cast<const void*>(r.s.d3 + i),
                          static_cast<const void*>(r.s.t_regular + i),
                          static_cast<const void*>(r.s.regular_level + i)})
                        prefetch_l1(p);
                    predict_own(i, from, tick, xi, vi);
                }
                for (unsigned lanes = due_lanes; lanes != 0; lanes &= lanes - 1) {
                    const unsigned l = unsigned(__ffs(lanes) - 1);
                    const Vec4<T> xl = shfl_vec4(xi, l), vl = shfl_vec4(vi, l);
                    Vec4<T> a, j;
                    irregular_sum(std::uint32_t(base + l), xl, vl, r.lists, r.G, r.eps2, predict, a, j);
                    if (lane == l) ai = a, ji = j;
                }
                if (is_due)
                    correct(i, from, xi, vi, NeighbourForces<T>{ai, ji, nullptr, nullptr, nullptr, nullptr},
                            gathered);
                if (lane == 0) atomicAdd(&corrected, static_cast<unsigned long long>(__popc(due_lanes)));
            }
        }
        block_min_into(gathered, &min_due[block % 3]);
        // block_min_into's barrier is behind every warp's count.
        if (threadIdx.x == 0) {
            if (corrected) atomicAdd(&c->irregular_updates, corrected);
            corrected = 0;
        }
        grid.sync();
    }
}

// Whether the kernel keeps each thread's body in registers where every body has a thread (kOwned): in
// float; in double the copy (140 bytes a body) took the kernel past 128 registers (220 bytes spilled).
template <typename T>
constexpr bool kOwnedPath = sizeof(T) == 4;

}  // namespace

bool irregular_run_supported() {
    int dev = 0, cooperative = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev));
    return cooperative != 0;
}

// Two blocks of threads per multiprocessor where they fit (every one resident at once: the barriers need
// it). Measured on the H100 at N = 65,536 (Plummer, t = 1): float 0.930 -> 0.865 s for the whole run
// against one a multiprocessor, double 1.245 -> 1.230 s: with twice the warps each looks at one group of
// 32 bodies a block instead of two, and a block with many due bodies has half as many a warp. (The
// three-barrier kernel before it was fastest with one: 10.9 us a block against 11.2 and 11.7 with two and
// four.)
template <typename T>
unsigned irregular_run_grid() {
    const int sms = current_device_sms();
    int per_sm = 0, per_sm_owned = 0;
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, irregular_run_kernel<T, false>, kBlock, 0));
    if constexpr (kOwnedPath<T>) {
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_owned, irregular_run_kernel<T, true>,
                                                                 kBlock, 0));
        per_sm = std::min(per_sm, per_sm_owned);
    }
    if (per_sm < 1) throw Error("block steps: the irregular blocks' kernel does not fit on this device");
    return unsigned(sms) * unsigned(std::min(per_sm, 2));
}

template <typename T>
void launch_irregular_run(const IrregularRun<T>& run, unsigned grid, cudaStream_t stream) {
    IrregularRun<T> copy = run;
    void* args[] = {&copy};
    const void* kernel = reinterpret_cast<const void*>(&irregular_run_kernel<T, false>);
    if constexpr (kOwnedPath<T>) {
        if (run.n <= std::size_t(grid) * kBlock)  // a thread for every body
            kernel = reinterpret_cast<const void*>(&irregular_run_kernel<T, true>);
    }
    CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, dim3(grid), dim3(kBlock), args, 0, stream));
}

template unsigned irregular_run_grid<float>();
template unsigned irregular_run_grid<double>();
template void launch_irregular_run<float>(const IrregularRun<float>&, unsigned, cudaStream_t);
template void launch_irregular_run<double>(const IrregularRun<double>&, unsigned, cudaStream_t);

}  // namespace nbody
