// The CUDA backend's block time steps (hermite_steps.hpp): the O(N) kernels of a block (the earliest due
// time, the prediction and the active list, the correction), the start and the end of a max step, and the
// batches of blocks replayed as CUDA graphs with one read-back of the block clock per batch.
// Built without -ftz (as step_kernels.cu): float denormals behave as on the host, and the finiteness check
// of the corrected bodies sees real NaN/Inf bits.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "block_clock.cuh"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "finite_bits.cuh"
#include "hermite_steps.hpp"
#include "irregular_blocks.cuh"
#include "launch.cuh"
#include "neighbour_kernels.hpp"
#include "pinned_buffer.hpp"
#include "predict_on_the_fly.cuh"
#include "sim/error.hpp"
#include "sim/integrate/hermite.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "step_kernels.hpp"

namespace nbody {
namespace {

// A new max step: every body's clock at tick 0 (init, finish_max_step and set_levels put them there).
__global__ void begin_kernel(BlockClock* __restrict__ c, unsigned long long gate, std::uint32_t hold_last,
                             std::uint32_t hold_regular) {
    c->tick = 0;
    c->min_due = ~0ull;
    c->active = 0;
    c->live = 1;
    c->hold_last = hold_last;
    c->held = 0;
    c->gate = gate;
    c->bad_seen = kNoBadBody;
    c->min_regular_due = ~0ull;
    c->hold_regular = hold_regular;
    c->first_block = c->blocks;
}

// A start: every body active (the list is 0..n-1), the block's count n.
__global__ void all_active_kernel(BlockClock* __restrict__ c, std::uint32_t* __restrict__ active,
                                  std::size_t n) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) active[i] = std::uint32_t(i);
    if (i == 0) c->active = std::uint32_t(n);
}

// The earliest due tick of all bodies, into c->min_due: for the first block of a max step.
__global__ void __launch_bounds__(kBlock)
    due_min_kernel(BlockClock* __restrict__ c, const std::int64_t* __restrict__ due, std::size_t n) {
    unsigned long long v = ~0ull;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        v = min(v, static_cast<unsigned long long>(due[i]));
    block_min_into(v, &c->min_due);
}

// One thread: the next block's tick, or the end of the max step (its last block ran, or an earlier step
// of this call failed: the bodies then stay as that step left them), or a stop before the last block
// (hold_last). The last block's count is n (select_predict_kernel lists every body in order there).
__global__ void schedule_kernel(BlockClock* __restrict__ c, const unsigned long long* __restrict__ bad,
                                std::size_t n) {
    c->active = 0;
    c->regular = 0;
    if (!c->live) return;
    if (bad) c->bad_seen = *bad;
    if (c->tick == kTicksPerMaxStep || (bad && stops_step(*bad, c->gate))) {
        c->live = 0;
        return;
    }
    const std::int64_t next = static_cast<std::int64_t>(c->min_due);
    if ((next == kTicksPerMaxStep && c->hold_last) ||
        (c->hold_regular && static_cast<unsigned long long>(next) >= c->min_regular_due)) {
        c->live = 0;
        c->held = 1;
        return;
    }
    c->tick = next;
    c->min_due = ~0ull;
    ++c->blocks;
    if (next == kTicksPerMaxStep) c->active = c->regular = std::uint32_t(n);
}

// The host takes over a held clock: the next schedule_kernel runs the held block. `regular_only`: only a
// block with regular steps that is not the max step's last (the graph the host queues behind each
// persistent run before it knows why the run stopped; a last block stays held, a finished clock stopped).
__global__ void release_kernel(BlockClock* __restrict__ c, bool regular_only) {
    if (!c->held || (regular_only && c->min_due == static_cast<unsigned long long>(kTicksPerMaxStep))) return;
    c->held = 0;
    c->hold_last = 0;
    c->hold_regular = 0;
    c->live = 1;
}

// The neighbour scheme, after a block with regular steps (and at a max step's start): the earliest regular
// due tick of all bodies, and the batches' hold before it again. One block of threads per grid-stride
// chunk; reset_regular_min_kernel first.
__global__ void reset_regular_min_kernel(BlockClock* __restrict__ c) {
    c->min_regular_due = ~0ull;
    c->hold_regular = 1;
}
__global__ void __launch_bounds__(kBlock)
    regular_min_kernel(BlockClock* __restrict__ c, const std::int64_t* __restrict__ t_regular,
                       const int* __restrict__ regular_level, std::size_t n) {
    unsigned long long v = ~0ull;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        v = min(v, static_cast<unsigned long long>(t_regular[i] + level_ticks(regular_level[i])));
    block_min_into(v, &c->min_regular_due);
}

// What select_predict_kernel needs for the neighbour scheme (all null when it is off): each body's regular
// time and level, and the regular list it appends the due bodies at a regular step to, with each due
// body's slot in it (-1: not at a regular step).
struct NeighbourSelect {
    const std::int64_t* t_regular;
    const int* regular_level;
    std::uint32_t* regular;
    std::int32_t* slot;
};

// Every body predicted to the block's tick from its own time (its due tick minus its step), and the due
// ones appended to the active list (one atomic per warp; the list's order does not matter: each active
// body's force, jerk and correction depend on its index alone). The last block of the max step lists
// every body in order (schedule_kernel counted them), as the pairwise evaluation's results come.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    select_predict_kernel(BlockClock* __restrict__ c, const Vec4<T>* __restrict__ pos,
                          const Vec4<T>* __restrict__ vel, const Vec4<T>* __restrict__ acc,
                          const Vec4<T>* __restrict__ jerk, const int* __restrict__ level,
                          const std::int64_t* __restrict__ due, std::size_t n, double dt,
                          Vec4<T>* __restrict__ xp, Vec4<T>* __restrict__ vp,
                          std::uint32_t* __restrict__ active, NeighbourSelect nb, bool predict) {
    if (!c->live) return;  // the same for every thread: the ballots below see whole warps
    const std::int64_t tick = c->tick;
    unsigned long long stays =
        ~0ull;  // bodies not due now: their due ticks are candidates for the next block
    // Grid-stride in whole blocks of threads: every warp takes each pass together (the ballots).
    for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x; base < n;
         base += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t i = base + threadIdx.x;
        const bool is_due = due_now(due, i, n, tick, stays);
        if (i < n && predict) {
            Vec4<T> x, v;
            predict_body(pos, vel, acc, jerk, level, due, i, tick, dt, x, v);
            xp[i] = x;
            vp[i] = v;
        }
        if (tick == kTicksPerMaxStep) {
            if (i < n) {
                active[i] = std::uint32_t(i);
                if (nb.regular) nb.regular[i] = std::uint32_t(i), nb.slot[i] = std::int32_t(i);
            }
            continue;
        }
        const unsigned slot = append_lanes(is_due, &c->active);
        if (is_due) active[slot] = std::uint32_t(i);
        if (!nb.regular) continue;
        const bool is_regular = is_due && regular_due(tick, nb.t_regular[i], nb.regular_level[i]);
        const unsigned r = append_lanes(is_regular, &c->regular);
        if (is_regular) nb.regular[r] = std::uint32_t(i);
        if (is_due) nb.slot[i] = is_regular ? std::int32_t(r) : -1;
    }
    block_min_into(stays, &c->min_due);
}

// After the start's force+jerk evaluation of every body (a1, j1 in body order; vp its velocity): the
// body's first level from hermite_start_step, its clock at tick 0 (due one step later).
template <typename T>
__global__ void start_kernel(const Vec4<T>* __restrict__ vp, const Vec4<T>* __restrict__ a1,
                             const Vec4<T>* __restrict__ j1, std::size_t n, double eta, double dt,
                             Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk, int* __restrict__ level,
                             std::int64_t* __restrict__ due, const unsigned long long* __restrict__ bad,
                             unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    const Vec4<T> a = a1[i], j = j1[i];
    acc[i] = a;
    jerk[i] = j;
    const int l = level_for_step(hermite_start_step(eta, vp[i], a, j), dt);
    level[i] = l;
    due[i] = level_ticks(l);
}

// Each active body k (index active[k]) corrected to the block's tick with its new force and jerk
// (a1[k], j1[k]): new position and velocity, its acceleration and jerk kept, its clock at the tick, its
// next level; a non-finite result is recorded in *bad as bad_code(step, body).
template <typename T>
__global__ void __launch_bounds__(kBlock)
    correct_kernel(BlockClock* __restrict__ c, const std::uint32_t* __restrict__ active, double dt,
                   double eta, const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                   const Vec4<T>* __restrict__ a1, const Vec4<T>* __restrict__ j1, Vec4<T>* __restrict__ pos,
                   Vec4<T>* __restrict__ vel, Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                   int* __restrict__ level, std::int64_t* __restrict__ due,
                   unsigned long long* __restrict__ bad) {
    if (!c->live) return;
    const std::size_t m = c->active;
    const std::int64_t tick = c->tick;
    const unsigned long long step_code = c->gate;
    const bool judge = judging_stalls(c);
    if (blockIdx.x == 0 && threadIdx.x == 0) c->updates += m;
    unsigned long long next_due =
        ~0ull;  // the corrected bodies' new due ticks: candidates for the next block
    for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < m;
         k += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t i = active[k];
        const int l = level[i];
        const std::int64_t own = due[i] - level_ticks(l);
        const T h = static_cast<T>(ticks_to_time(tick - own, dt));
        const Vec4<T> a = a1[k], j = j1[k];
        Vec4<T> x, v;
        const double wanted = hermite_correct(xp[i], vp[i], acc[i], jerk[i], a, j, h, eta, x, v);
        store_corrected(i, x, v, a, j, next_level(l, level_for_step(wanted, dt), tick), tick,
                        judge && block_step_stalls(x, v, a, wanted, dt), pos, vel, acc, jerk, level, due, bad,
                        step_code, next_due);
    }
    block_min_into(next_due, &c->min_due);
}

// The neighbour scheme's correction of each active body k (index active[k]): neighbour_correct_body with
// the irregular force from its old list (ai_old[k]) and, at a regular step (slot[i] = r >= 0), the full
// sum (a1[r], j1[r]) and the irregular from its new list (ai_new[r]); then as correct_kernel.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    correct_neighbours_kernel(BlockClock* __restrict__ c, const std::uint32_t* __restrict__ active, double dt,
                              double eta, double eta_regular, NeighbourArrays<T> s,
                              const std::int32_t* __restrict__ slot, const Vec4<T>* __restrict__ xp,
                              const Vec4<T>* __restrict__ vp, PredictOnTheFly<T> fly,
                              const Vec4<T>* __restrict__ ai_old, const Vec4<T>* __restrict__ ji_old,
                              const Vec4<T>* __restrict__ a1, const Vec4<T>* __restrict__ j1,
                              const Vec4<T>* __restrict__ ai_new, const Vec4<T>* __restrict__ ji_new,
                              Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ vel, Vec4<T>* __restrict__ acc,
                              Vec4<T>* __restrict__ jerk, int* __restrict__ level,
                              std::int64_t* __restrict__ due, unsigned long long* __restrict__ bad) {
    if (!c->live) return;
    const std::size_t m = c->active;
    const std::int64_t tick = c->tick;
    const unsigned long long step_code = c->gate;
    const bool judge = judging_stalls(c);
    if (blockIdx.x == 0 && threadIdx.x == 0) c->updates += c->regular, c->irregular_updates += m;
    unsigned long long next_due = ~0ull;
    for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < m;
         k += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t i = active[k];
        Vec4<T> xpi, vpi;
        predicted(xp, vp, fly, i, xpi, vpi);  // before this body's own state changes below
        NeighbourForces<T> f{ai_old[k], ji_old[k], nullptr, nullptr, nullptr, nullptr};
        if (const std::int32_t r = slot[i]; r >= 0)
            f.af = &a1[r], f.jf = &j1[r], f.ai_new = &ai_new[r], f.ji_new = &ji_new[r];
        correct_neighbour_due(i, tick, dt, eta, eta_regular, s, xpi, vpi, f, pos, vel, acc, jerk, level, due,
                              bad, step_code, judge, next_due);
    }
    block_min_into(next_due, &c->min_due);
}

// The neighbour scheme's start, after the full evaluation of every body (a1, j1) and the irregular from
// the new lists (ai, ji), all in body order (vp the velocities): the split, both levels, the clock at tick 0.
template <typename T>
__global__ void start_neighbours_kernel(const Vec4<T>* __restrict__ vp, const Vec4<T>* __restrict__ a1,
                                        const Vec4<T>* __restrict__ j1, const Vec4<T>* __restrict__ ai,
                                        const Vec4<T>* __restrict__ ji, std::size_t n, double eta,
                                        double eta_regular, double dt, NeighbourArrays<T> s,
                                        Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                                        int* __restrict__ level, std::int64_t* __restrict__ due,
                                        const unsigned long long* __restrict__ bad,
                                        unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    acc[i] = a1[i];
    jerk[i] = j1[i];
    const int l = neighbour_start_body(s, i, eta, eta_regular, dt, vp[i], a1[i], j1[i], ai[i], ji[i]);
    level[i] = l;
    due[i] = level_ticks(l);
}

// The end of a max step: every body is at kTicksPerMaxStep, which becomes tick 0 of the next one (its
// regular time too, where the neighbour scheme keeps one: t_regular may be null).
__global__ void finish_kernel(const int* __restrict__ level, std::int64_t* __restrict__ due, std::size_t n,
                              const unsigned long long* __restrict__ bad, unsigned long long bad_before,
                              std::int64_t* __restrict__ t_regular) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    due[i] = level_ticks(level[i]);
    if (t_regular) t_regular[i] = 0;
}

// Another max step between max steps (change_max_step): every level moved by `shift` (shifted_level), the
// regular ones too where the neighbour scheme keeps them, every clock still at tick 0.
__global__ void shift_levels_kernel(int* __restrict__ level, std::int64_t* __restrict__ due,
                                    int* __restrict__ regular_level, std::size_t n, int shift) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    level[i] = shifted_level(level[i], shift);
    due[i] = level_ticks(level[i]);
    if (regular_level) regular_level[i] = shifted_level(regular_level[i], shift);
}

// Levels set from outside, every clock at tick 0 (the benchmark's block of a chosen size).
__global__ void set_levels_kernel(const int* __restrict__ wanted, std::size_t n, int* __restrict__ level,
                                  std::int64_t* __restrict__ due) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    level[i] = wanted[i];
    due[i] = level_ticks(wanted[i]);
}

// A CUDA graph of `blocks` blocks' launches (0: the held last block of a max step, run_last_block's
// launches), and what it was captured with: the launches' arguments are fixed in it, so it is captured
// again whenever one of them changes.
struct BatchGraph {
    const int blocks;
    cudaGraphExec_t exec = nullptr;
    std::vector<const void*> key;
    explicit BatchGraph(int blocks) : blocks(blocks) {}
    BatchGraph(const BatchGraph&) = delete;
    BatchGraph& operator=(const BatchGraph&) = delete;
    ~BatchGraph() { reset(); }
    void reset() {
        if (exec) CUDA_CHECK_LOG(cudaGraphExecDestroy(exec));
        exec = nullptr;
        key.clear();
    }
};

// The most scratch the planned evaluation's lists may take: the ranges of every count up to N = 65,536 need
// about 160 MiB at K = 32 and 170 MiB at K = 64 (double; make_jerk_plans' splits keep targets x splits
// near 4 waves of items), then N x capacity entries (one split) for the count of N; a count whose ranges do
// not fit is left to the list search.
constexpr std::size_t kInlineListBytes = std::size_t(384) << 20;

// Blocks per graph launch: the large batch while the last max step says that many blocks are still to
// come, the small one near its end (each launch ends with one read-back of the clock; blocks launched
// after the last one return at once, each costing a few microseconds of empty launches).
constexpr int kSmallBatch = 2;
constexpr int kLargeBatch = 16;

template <typename T>
class CudaBlockSteps final : public DeviceBlockSteps {
  public:
    CudaBlockSteps(std::function<DeviceBodies<T>()> bodies, std::function<void()> on_move,
                   const PairJerkLaunch& pair = {})
        : bodies_(std::move(bodies)), on_move_(std::move(on_move)), requested_pair_(pair) {
        clock_.resize(1);
        clock_host_.reserve(1);
        run_end_.reserve(1);
        bad_host_.reserve(1);
        // What counters() reports before the first read-back (the stepper asks before the first init).
        *clock_host_.data() = BlockClock{};
        *bad_host_.data() = kNoBadBody;
        CUDA_CHECK(cudaStreamCreate(&stream_));
        CUDA_CHECK(cudaEventCreateWithFlags(&run_end_event_, cudaEventDisableTiming));
        CUDA_CHECK(cudaMemsetAsync(clock_.data(), 0, sizeof(BlockClock), stream_));
        CUDA_CHECK(cudaMemsetAsync(chosen_.data(), 0, sizeof(JerkChosen), stream_));
    }
    ~CudaBlockSteps() override {
        drop_graphs();
        CUDA_CHECK_LOG(cudaEventDestroy(run_end_event_));
        CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
    }

    bool ready(const Params& p) override {
        return params_ && same_block_model(*params_, p) && bodies_().n == n_;
    }

    void init(const Params& p) override {
        const DeviceBodies<T> b = bodies_();
        params_.reset();
        nb_k_ = int(std::lround(p.neighbours));
        allocate(b.n);
        stopped_ = false;
        mid_max_step_ = false;
        params_ = p;
        if (n_ > 0) {
            // Every body is active at the start, at its own position: force and jerk, then its level.
            CUDA_CHECK(
                cudaMemcpyAsync(xp_.data(), b.pos, n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice, stream_));
            CUDA_CHECK(
                cudaMemcpyAsync(vp_.data(), b.vel, n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice, stream_));
            launch_kernel(all_active_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                          clock_.data(), active_.data(), n_);
            if (pair_.off) {
                evaluate_active();
            } else {
                evaluate_all(nullptr);
            }
            if (nb_k_ > 0) {
                start_neighbours(b, p);
            } else {
                launch_kernel(start_kernel<T>, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                              vp_.data(), a1_.data(), j1_.data(), n_, p.eta, p.dt, acc_.data(), jerk_.data(),
                              level_.data(), due_.data(), b.bad, gate(b));
            }
            restart_clock(gate(b));
        }
        ++starts_;
        init_updates_ += n_;
        // The graphs hold the old parameters (dt, eta, eta_regular, G, softening) in their launches.
        drop_graphs();
        read_clock();
    }

    bool change_max_step(const Params& p) override {
        // A failed or stalled max step left the bodies mid-way: only a restart goes on from there.
        if (!params_ || stopped_ || seen_bad_ != kNoBadBody || bodies_().n != n_ ||
            !same_block_model_but_dt(*params_, p))
            return false;
        const int shift = max_step_level_shift(params_->dt, p.dt);
        if (shift != 0 && n_ > 0) {
            launch_kernel(shift_levels_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                          level_.data(), due_.data(), nb_k_ > 0 ? regular_level_.data() : nullptr, n_, shift);
        }
        params_ = p;
        // The clock's earliest due ticks were found with the old levels (finish_max_step), and the graphs
        // hold the old dt in their launches.
        restart_clock(gate(bodies_()));
        drop_graphs();
        return true;
    }

    // One max step with no host round trip per block: batches of blocks replayed as CUDA graphs (with the
    // neighbour scheme: runs of irregular blocks and of blocks with a few regular steps in one persistent
    // kernel, each block with more regular steps a graph of its own), the clock read back after each batch
    // or run.
    void max_step(const Params& p) override {
        if (p.collisions != CollisionMode::off) {  // not reached: Backend::block_steps_for
            BlockSteps::max_step(p);
            return;
        }
        stopped_ = false;
        if (n_ == 0) {
            finish_max_step();
            return;
        }
        const DeviceBodies<T> b = bodies_();
        restart_clock(gate(b));
        const unsigned long long blocks_before = clock_host_.data()->blocks;
        if (nb_k_ > 0 && persistent_) {
            run_persistent(b);
        } else {
            for (std::int64_t done = 0;;) {
                // Batches of graphs, as plain block steps run them; the neighbour scheme's blocks with
                // regular steps each a graph of its own.
                launch_batch(last_max_step_blocks_ - done >= kLargeBatch ? large_ : small_, b);
                const BlockClock& c = read_clock();
                report_tick(c.tick, std::int64_t(c.blocks - c.first_block));
                if (interrupt_requested()) break;  // Backend::step puts the bodies back
                done = std::int64_t(c.blocks - blocks_before);
                if (c.held && nb_k_ > 0 && c.min_due != static_cast<unsigned long long>(kTicksPerMaxStep)) {
                    // A block with regular steps, not the last; the next batch follows it with no
                    // read-back between (its kernels return at once where the clock stopped).
                    launch_batch(regular_block_, b);
                    continue;
                }
                if (c.held) {
                    run_last_block(b);
                    read_clock();
                    break;
                }
                if (!c.live || c.tick == kTicksPerMaxStep) break;
            }
        }
        const BlockClock& c = *clock_host_.data();
        last_max_step_blocks_ = std::int64_t(c.blocks - blocks_before);
        if (on_move_ && last_max_step_blocks_ > 0) on_move_();
        seen_bad_ = b.bad ? read_bad(b) : kNoBadBody;
        // An earlier step of this call failed (the bodies stay as that step left them), or a body of this one
        // stalled (they stay where the stall left them).
        stopped_ = b.bad && stops_step(seen_bad_, bad_code(b.step, 0));
        finish_max_step();
    }

    // The per-block calls (the benchmark's, and sim/integrate/block_steps.hpp's generic order): the same
    // kernels, launched one block at a time. next_block also predicts every body to the block (predict
    // has nothing left to do) and reads back the clock.
    NextBlock next_block() override {
        const DeviceBodies<T> b = bodies_();
        stopped_ = false;
        if (n_ == 0) return {kTicksPerMaxStep, 0};
        mid_max_step_ = true;
        enqueue_select(b);
        if (read_clock().held) {
            launch_kernel(release_kernel, dim3(1), dim3(1), 0, stream_, clock_.data(), false);
            enqueue_select(b);
            read_clock();
        }
        const BlockClock& c = *clock_host_.data();
        seen_bad_ = c.bad_seen;
        if (!c.live) {
            stopped_ = true;
            return {kTicksPerMaxStep, 0};
        }
        return {c.tick, c.active};
    }
    void predict(std::int64_t /*tick*/) override {}
    // The block next_block listed (its clock as read back then): the max step's last, every body in order,
    // goes to the pairwise kernel where it serves N.
    void evaluate() override {
        if (stopped_ || n_ == 0) return;
        if (nb_k_ > 0) {
            evaluate_neighbours(!pair_.off && clock_host_.data()->tick == kTicksPerMaxStep);
        } else if (!pair_.off && clock_host_.data()->tick == kTicksPerMaxStep) {
            evaluate_all(&clock_.data()->live);
        } else {
            evaluate_active();
        }
    }
    void correct(std::int64_t /*tick*/) override {
        if (stopped_ || n_ == 0) return;
        enqueue_correct_any(bodies_());
        // The counters (counters()) come from the last read-back: this block's evaluations with them.
        read_clock();
        if (on_move_) on_move_();
    }

    void finish_max_step() override {
        mid_max_step_ = false;
        if (!stopped_ && n_ > 0) {
            const DeviceBodies<T> b = bodies_();
            launch_kernel(finish_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                          level_.data(), due_.data(), n_, b.bad, gate(b),
                          nb_k_ > 0 ? t_regular_.data() : nullptr);
            restart_clock(gate(b));
        }
    }

    void invalidate() override { params_.reset(); }

    // Between max steps (every clock at tick 0: due = level_ticks(level), t_regular 0) the state is the
    // arrays below; the predicted bodies, the clock and the persistent kernel's second slot (every body in
    // slot 0 between runs) are made again by every block.
    std::optional<BlockState> export_state() override {
        if (!params_ || stopped_ || seen_bad_ != kNoBadBody || mid_max_step_) return std::nullopt;
        BlockState s;
        s.model = *params_;
        s.precision = precision_of<T>();
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        s.level.resize(n_);
        level_.copy_to_host(s.level.data(), n_);
        s.acc = widened_copy(acc_);
        s.jerk = widened_copy(jerk_);
        if (nb_k_ > 0) {
            s.irregular_acc = widened_copy(nb_ai_), s.irregular_jerk = widened_copy(nb_ji_);
            s.regular_acc = widened_copy(nb_ar_), s.regular_jerk = widened_copy(nb_jr_);
            s.regular_snap = widened_copy(nb_d2_), s.regular_crackle = widened_copy(nb_d3_);
            s.regular_level.resize(n_);
            regular_level_.copy_to_host(s.regular_level.data(), n_);
            s.radius.resize(n_);
            radius_.copy_to_host(s.radius.data(), n_);
            s.listed.resize(n_);
            listed_.copy_to_host(s.listed.data(), n_);
            std::vector<std::uint32_t> lists(list_.size());
            list_.copy_to_host(lists.data(), lists.size());
            s.lists = used_lists(lists, s.listed, std::size_t(neighbour_capacity(nb_k_)));
        }
        return s;
    }

    bool import_state(const BlockState& s) override {
        const DeviceBodies<T> b = bodies_();
        params_.reset();  // refused or taken, nothing of the old state is left
        if (s.precision != precision_of<T>() || s.size() != b.n || !block_state_problem(s, b.n).empty())
            return false;
        nb_k_ = s.has_neighbours() ? int(std::lround(s.model.neighbours)) : 0;
        allocate(b.n);  // as init: the lists zeroed, every body in the persistent kernel's slot 0
        stopped_ = false;
        mid_max_step_ = false;
        seen_bad_ = kNoBadBody;
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (n_ > 0) {
            level_.copy_from_host(s.level.data(), n_);
            copy_narrowed(s.acc, acc_);
            copy_narrowed(s.jerk, jerk_);
            if (nb_k_ > 0) {
                copy_narrowed(s.irregular_acc, nb_ai_), copy_narrowed(s.irregular_jerk, nb_ji_);
                copy_narrowed(s.regular_acc, nb_ar_), copy_narrowed(s.regular_jerk, nb_jr_);
                copy_narrowed(s.regular_snap, nb_d2_), copy_narrowed(s.regular_crackle, nb_d3_);
                regular_level_.copy_from_host(s.regular_level.data(), n_);
                radius_.copy_from_host(s.radius.data(), n_);
                listed_.copy_from_host(s.listed.data(), n_);
                list_.copy_from_host(s.lists.data(), s.lists.size());
            }
            // Every clock at tick 0: each body due one step of its level on, its regular time 0.
            launch_kernel(finish_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                          level_.data(), due_.data(), n_, nullptr, 0ull,
                          nb_k_ > 0 ? t_regular_.data() : nullptr);
            restart_clock(gate(b));
        }
        params_ = s.model;
        drop_graphs();  // they hold the old parameters in their launches
        read_clock();
        return true;
    }

    BlockCounters counters() const override {
        BlockCounters out;
        out.starts = starts_;
        out.blocks = std::int64_t(clock_host_.data()->blocks);
        out.body_updates = init_updates_ + clock_host_.data()->updates;
        out.neighbour_updates = clock_host_.data()->irregular_updates;
        return out;
    }

    std::vector<int> levels() const override {
        if (!params_) return {};
        std::vector<int> out(n_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        level_.copy_to_host(out.data(), n_);
        return out;
    }

    std::optional<std::size_t> failed_body() const override {
        if (seen_bad_ == kNoBadBody) return std::nullopt;
        return std::size_t(flagged_body(seen_bad_));
    }
    void clear_failure() override { seen_bad_ = kNoBadBody; }
    void set_persistent_irregular(bool on) override { persistent_ = on && irregular_run_supported(); }
    void set_persistent_grid(unsigned blocks) override {
        if (!irregular_run_supported()) return;
        const unsigned device = irregular_run_grid<T>();
        run_grid_ = blocks > 0 ? std::min(blocks, device) : device;
    }
    unsigned persistent_grid() const override { return run_grid_; }
    void set_inline_lists(bool on) override {
        want_inline_lists_ = on;
        if (n_ > 0) allocate_inline_lists();
    }
    std::int64_t inline_list_evaluations() const override {
        JerkChosen c{};
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        chosen_.copy_to_host(&c, 1);
        return std::int64_t(c.inline_count);
    }
    std::int64_t persistent_blocks() const override { return std::int64_t(clock_host_.data()->run_blocks); }
    std::int64_t persistent_regular_blocks() const override {
        return std::int64_t(clock_host_.data()->run_regular_blocks);
    }

    // The benchmark's hook: levels chosen from outside (host copy, one per body), every clock at 0.
    void set_levels(const std::vector<int>& levels) {
        if (!params_ || levels.size() != n_)
            throw Error("block steps: set_levels needs a started state of N");
        DeviceBuffer<int> wanted(n_);
        wanted.copy_from_host(levels.data(), n_);
        launch_kernel(set_levels_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                      wanted.data(), n_, level_.data(), due_.data());
        restart_clock(0ull);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    // The benchmark's: evaluations from now on with plans made from these requests (zero fields
    // automatic).
    void set_launch(const JerkLaunch& requested, const PairJerkLaunch& pair) {
        requested_ = requested;
        requested_pair_ = pair;
        make_plans();
        // The clock's hold_last follows the new pairwise launch.
        if (params_) restart_clock(0ull);
    }
    // The plan a block of m active bodies is evaluated with.
    std::string plan_for(std::size_t m) const {
        if (m == n_ && !pair_.off) return to_string(pair_);
        for (const JerkPlan& e : plans_.entries) {
            if (e.m_max >= m) return to_string(e, plans_.block);
        }
        return "none";
    }
    // The benchmark's: one whole block as max_step runs it (a graph of one block), then a read-back.
    NextBlock graph_block() {
        const DeviceBodies<T> b = bodies_();
        launch_batch(single_, b);
        if (read_clock().held) {
            run_last_block(b);
            read_clock();
        }
        const BlockClock& c = *clock_host_.data();
        return {c.tick, c.active};
    }
    // The benchmark's: the evaluation alone, on the block the last next_block listed.
    void evaluate_again() { evaluate(); }
    cudaStream_t stream() const { return stream_; }

  private:
    // A device array of n_ vectors as a host copy in double (exact), and back (the values were T's).
    std::vector<Vec4<double>> widened_copy(const DeviceBuffer<Vec4<T>>& d) const {
        std::vector<Vec4<T>> h(n_);
        d.copy_to_host(h.data(), n_);
        return widened(h);
    }
    void copy_narrowed(const std::vector<Vec4<double>>& v, DeviceBuffer<Vec4<T>>& d) {
        d.copy_from_host(narrowed<T>(v, 0, n_).data(), n_);
    }

    // The kernels of step s return at once when an earlier step failed (*bad < bad_code(s, 0)).
    static unsigned long long gate(const DeviceBodies<T>& b) { return b.bad ? bad_code(b.step, 0) : 0; }

    void allocate(std::size_t n) {
        const bool same = n == n_ && !plans_.entries.empty();
        n_ = n;
        for (DeviceBuffer<Vec4<T>>* v : {&acc_, &jerk_, &xp_, &vp_, &a1_, &j1_}) v->resize(n);
        due_.resize(n);
        level_.resize(n);
        active_.resize(n);
        if (nb_k_ > 0) {
            for (DeviceBuffer<Vec4<T>>* v : {&nb_ai_, &nb_ji_, &nb_ar_, &nb_jr_, &nb_d2_, &nb_d3_, &ai_old_,
                                             &ji_old_, &ai_new_, &ji_new_})
                v->resize(n);
            t_regular_.resize(n);
            regular_level_.resize(n);
            radius_.resize(n);
            list_.resize(n * std::size_t(neighbour_capacity(nb_k_)));
            // Entries past a list's count are read (irregular_sum loads before it knows the count), never
            // used.
            CUDA_CHECK(cudaMemsetAsync(list_.data(), 0, list_.size() * sizeof(std::uint32_t), stream_));
            listed_.resize(n);
            const std::size_t items = neighbour_split_items(n, neighbour_capacity(nb_k_));
            split_list_.resize(items * std::size_t(neighbour_capacity(nb_k_)));
            split_count_.resize(items);
            regular_.resize(n);
            slot_.resize(n);
            for (DeviceBuffer<Vec4<T>>* v : {&pos1_, &vel1_, &acc1_, &jerk1_}) v->resize(n);
            level1_.resize(n);
            due1_.resize(n);
            version_.resize(n);
            // Every body in slot 0 (the persistent kernel leaves them so at the end of each run).
            CUDA_CHECK(cudaMemsetAsync(version_.data(), 0, n * sizeof(std::uint32_t), stream_));
        }
        if (same) {
            allocate_inline_lists();  // make_plans does it otherwise
        } else {
            make_plans();
        }
    }

    void make_plans() {
        plans_ = {};
        pair_ = PairJerkLaunch{0, 0, true};
        if (n_ == 0) return;
        plans_ = make_jerk_plans(requested_, n_, precision_of<T>());
        pair_ = plan_pair_jerks(requested_pair_, n_, precision_of<T>());
        plans_dev_.resize(plans_.entries.size());
        plans_dev_.copy_from_host(plans_.entries.data(), plans_.entries.size());
        scratch_.resize(std::max<std::size_t>({plans_.scratch, pair_jerk_scratch_count(pair_, n_), 1}));
        irregular_grid_ = irregular_full_grid<T>();
        stride_grid_ = unsigned(2 * current_device_sms());
        allocate_inline_lists();
        // The device-side grids are fixed per plan table: the graphs hold the old ones.
        drop_graphs();
    }

    // The planned evaluation's lists (JerkLists) where wanted, with scratch for every count's ranges or
    // kInlineListBytes, whichever is less (a count whose ranges do not fit is left to the list search); the
    // graphs hold the old choice.
    void allocate_inline_lists() {
        const std::size_t cap = std::size_t(neighbour_capacity(nb_k_));
        const std::size_t items =
            nb_k_ > 0 ? std::min(jerk_list_items(plans_), kInlineListBytes / (cap * sizeof(std::uint32_t)))
                      : 0;
        inline_lists_ = want_inline_lists_ && items > 0 && plans_.block == kJerkListBlock;
        list_ranges_.resize(inline_lists_ ? items * cap : 0);
        list_counts_.resize(inline_lists_ ? items : 0);
        drop_graphs();
    }

    // Blocks of the grid-stride kernels: two an SM (enough to fill the device at their light work), no more
    // than the bodies need.
    unsigned stride_blocks(std::size_t items) const {
        return std::max(1u, std::min(blocks_for(items, kBlock), stride_grid_));
    }

    // A new max step's clock (begin_kernel) and the earliest due tick of all bodies, for its first block.
    void restart_clock(unsigned long long gate) {
        launch_kernel(begin_kernel, dim3(1), dim3(1), 0, stream_, clock_.data(), gate,
                      std::uint32_t(pair_.off ? 0 : 1), std::uint32_t(nb_k_ > 0 ? 1 : 0));
        launch_kernel(due_min_kernel, dim3(stride_blocks(n_)), dim3(kBlock), 0, stream_, clock_.data(),
                      due_.data(), n_);
        if (nb_k_ > 0) enqueue_regular_min(false);
    }

    // The earliest regular due tick (regular_min_kernel), after a reset that also turns the batches' hold
    // before it back on.
    void enqueue_regular_min(bool reset) {
        if (reset) launch_kernel(reset_regular_min_kernel, dim3(1), dim3(1), 0, stream_, clock_.data());
        launch_kernel(regular_min_kernel, dim3(stride_blocks(n_)), dim3(kBlock), 0, stream_, clock_.data(),
                      t_regular_.data(), regular_level_.data(), n_);
    }
    void enqueue_select(const DeviceBodies<T>& b, bool predict = true) {
        launch_kernel(schedule_kernel, dim3(1), dim3(1), 0, stream_, clock_.data(),
                      static_cast<const unsigned long long*>(b.bad), n_);
        launch_kernel(select_predict_kernel<T>, dim3(stride_blocks(n_)), dim3(kBlock), 0, stream_,
                      clock_.data(), b.pos, b.vel, acc_.data(), jerk_.data(), level_.data(), due_.data(), n_,
                      params_->dt, xp_.data(), vp_.data(), active_.data(), neighbour_select(), predict);
    }
    void enqueue_correct_any(const DeviceBodies<T>& b) {
        if (nb_k_ > 0) {
            enqueue_correct_neighbours(b, {});
            enqueue_regular_min(true);
        } else {
            enqueue_correct(b);
        }
    }

    // ---- The neighbour scheme (nb_k_ > 0; sim/integrate/neighbour_scheme.hpp).
    NeighbourArrays<T> neighbour_arrays() {
        return {nb_ai_.data(), nb_ji_.data(),     nb_ar_.data(),         nb_jr_.data(),  nb_d2_.data(),
                nb_d3_.data(), t_regular_.data(), regular_level_.data(), listed_.data(), n_};
    }
    NeighbourSelect neighbour_select() {
        if (nb_k_ == 0) return {nullptr, nullptr, nullptr, nullptr};
        return {t_regular_.data(), regular_level_.data(), regular_.data(), slot_.data()};
    }
    DeviceNeighbourLists lists() {
        DeviceNeighbourLists l;
        l.list = list_.data(), l.listed = listed_.data(), l.radius = radius_.data();
        l.regular_level = regular_level_.data();
        l.k = nb_k_, l.capacity = neighbour_capacity(nb_k_);
        l.split_list = split_list_.data(), l.split_count = split_count_.data();
        return l;
    }
    // A start after every body's full evaluation (a1_, j1_ in body order, xp_ the bodies): one radius for
    // all from a host copy (start_neighbour_radius, as the host's start), kStartRadiusRounds counts, the
    // lists, the irregular sums, the split and the levels.
    void start_neighbours(const DeviceBodies<T>& b, const Params& p) {
        std::vector<Vec4<T>> host(n_);
        CUDA_CHECK(
            cudaMemcpyAsync(host.data(), xp_.data(), n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        const std::vector<double> r(n_, start_neighbour_radius(host.data(), n_, nb_k_));
        radius_.copy_from_host(r.data(), n_);
        CUDA_CHECK(cudaMemsetAsync(regular_level_.data(), 0, n_ * sizeof(int), stream_));
        for (int round = 0; round < kStartRadiusRounds; ++round)
            launch_neighbour_lists<T>(false, xp_.data(), vp_.data(), n_, nullptr, nullptr, n_, lists(), p.dt,
                                      kStartRadiusFactor, nullptr, stream_);
        launch_neighbour_lists<T>(true, xp_.data(), vp_.data(), n_, nullptr, nullptr, n_, lists(), p.dt,
                                  kRadiusFactor, nullptr, stream_);
        launch_irregular<T>(xp_.data(), vp_.data(), {}, n_, nullptr, nullptr, n_, lists(), T(p.G),
                            softening2<T>(p), ai_new_.data(), ji_new_.data(), nullptr, stream_,
                            irregular_grid_);
        launch_kernel(start_neighbours_kernel<T>, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, stream_,
                      vp_.data(), a1_.data(), j1_.data(), ai_new_.data(), ji_new_.data(), n_, p.eta,
                      regular_eta(p), p.dt, neighbour_arrays(), acc_.data(), jerk_.data(), level_.data(),
                      due_.data(), b.bad, gate(b));
    }
    // A block's evaluations: the irregular sums of the active bodies from their old lists; the full sums
    // of those at a regular step (planned, or pairwise for the held last block where every body is); their
    // new lists; the irregular sums from those. Each launch reads its count from the clock.
    void evaluate_neighbours(bool pairwise) {
        const std::uint32_t* live = &clock_.data()->live;
        const T G = T(params_->G), eps2 = softening2<T>(*params_);
        launch_irregular<T>(xp_.data(), vp_.data(), {}, n_, active_.data(), &clock_.data()->active, n_,
                            lists(), G, eps2, ai_old_.data(), ji_old_.data(), live, stream_, irregular_grid_);
        // With inline lists the planned evaluation builds the lists where its plan has one thread a target
        // (the list search then returns at once: lists_separate is 0) and the ranges are joined after it.
        const bool inline_lists = !pairwise && inline_lists_;
        if (pairwise) {
            evaluate_all(live);
        } else {
            JerkLists jl;
            jl.lists = lists(), jl.dt = params_->dt;
            jl.ranges = list_ranges_.data(), jl.counts = list_counts_.data(), jl.items = list_counts_.size();
            launch_planned_jerks<T>(plans_, plans_dev_.data(), chosen_.data(), xp_.data(), vp_.data(), n_,
                                    regular_.data(), &clock_.data()->regular, G, eps2, a1_.data(), j1_.data(),
                                    scratch_.data(), stream_, inline_lists ? &jl : nullptr);
        }
        launch_neighbour_lists<T>(true, xp_.data(), vp_.data(), n_, regular_.data(), &clock_.data()->regular,
                                  n_, lists(), params_->dt, kRadiusFactor,
                                  inline_lists ? &chosen_.data()->lists_separate : live, stream_);
        if (inline_lists) {
            launch_join_ranges(regular_.data(), &clock_.data()->regular, &chosen_.data()->splits,
                               list_ranges_.data(), list_counts_.data(), lists(), kRadiusFactor,
                               &chosen_.data()->lists_inline, stream_);
        }
        launch_irregular<T>(xp_.data(), vp_.data(), {}, n_, regular_.data(), &clock_.data()->regular, n_,
                            lists(), G, eps2, ai_new_.data(), ji_new_.data(), live, stream_, irregular_grid_);
    }
    // The bodies predicted on the fly to the clock's tick (a block with no regular step: select predicted
    // none).
    PredictOnTheFly<T> on_the_fly(const DeviceBodies<T>& b) {
        PredictOnTheFly<T> f;
        f.pos = b.pos, f.vel = b.vel, f.acc = acc_.data(), f.jerk = jerk_.data();
        f.level = level_.data(), f.due = due_.data(), f.tick = &clock_.data()->tick, f.dt = params_->dt;
        return f;
    }
    // What the persistent kernel of irregular blocks works on.
    IrregularRun<T> irregular_run(const DeviceBodies<T>& b) {
        IrregularRun<T> r;
        r.clock = clock_.data();
        r.pos = b.pos, r.vel = b.vel, r.acc = acc_.data(), r.jerk = jerk_.data();
        r.level = level_.data(), r.due = due_.data(), r.n = n_;
        r.pos1 = pos1_.data(), r.vel1 = vel1_.data(), r.acc1 = acc1_.data(), r.jerk1 = jerk1_.data();
        r.level1 = level1_.data(), r.due1 = due1_.data(), r.version = version_.data();
        r.s = neighbour_arrays(), r.lists = lists();
        r.bad = b.bad, r.scratch = run_scratch_.data();
        r.dt = params_->dt, r.eta = params_->eta, r.eta_regular = regular_eta(*params_);
        r.G = T(params_->G), r.eps2 = softening2<T>(*params_);
        RegularInRun<T>& g = r.reg;
        g.plans = plans_dev_.data(), g.plan_count = unsigned(plans_.entries.size()),
        g.block = unsigned(plans_.block);
        g.xp = xp_.data(), g.vp = vp_.data(), g.regular = regular_.data(), g.slot = slot_.data();
        g.ai_old = ai_old_.data(), g.ji_old = ji_old_.data();
        g.a1 = a1_.data(), g.j1 = j1_.data(), g.ai_new = ai_new_.data(), g.ji_new = ji_new_.data();
        g.partial = scratch_.data();
        return r;
    }
    // A block of a batch, which holds before any block with a regular step: the due bodies listed, their
    // irregular sums and corrections, each body predicted where it is needed.
    void enqueue_irregular_block(const DeviceBodies<T>& b) {
        enqueue_select(b, false);
        launch_irregular<T>(xp_.data(), vp_.data(), on_the_fly(b), n_, active_.data(), &clock_.data()->active,
                            n_, lists(), T(params_->G), softening2<T>(*params_), ai_old_.data(),
                            ji_old_.data(), &clock_.data()->live, stream_);
        enqueue_correct_neighbours(b, on_the_fly(b));
    }
    void enqueue_correct_neighbours(const DeviceBodies<T>& b, const PredictOnTheFly<T>& fly) {
        launch_kernel(correct_neighbours_kernel<T>, dim3(stride_blocks(n_)), dim3(kBlock), 0, stream_,
                      clock_.data(), active_.data(), params_->dt, params_->eta, regular_eta(*params_),
                      neighbour_arrays(), slot_.data(), xp_.data(), vp_.data(), fly, ai_old_.data(),
                      ji_old_.data(), a1_.data(), j1_.data(), ai_new_.data(), ji_new_.data(), b.pos, b.vel,
                      acc_.data(), jerk_.data(), level_.data(), due_.data(), b.bad);
    }
    void enqueue_correct(const DeviceBodies<T>& b) {
        launch_kernel(correct_kernel<T>, dim3(stride_blocks(n_)), dim3(kBlock), 0, stream_, clock_.data(),
                      active_.data(), params_->dt, params_->eta, xp_.data(), vp_.data(), a1_.data(),
                      j1_.data(), b.pos, b.vel, acc_.data(), jerk_.data(), level_.data(), due_.data(), b.bad);
    }
    // Force and jerk of the clock's active count of bodies in active_ against all n_ predicted bodies,
    // into a1_, j1_.
    void evaluate_active() {
        launch_planned_jerks<T>(plans_, plans_dev_.data(), chosen_.data(), xp_.data(), vp_.data(), n_,
                                active_.data(), &clock_.data()->active, T(params_->G),
                                softening2<T>(*params_), a1_.data(), j1_.data(), scratch_.data(), stream_);
    }
    // Force and jerk of every body, each pair once, into a1_, j1_ in body order (the order of the start's
    // and the last block's active lists); nothing when *live is 0 (live may be null).
    void evaluate_all(const std::uint32_t* live) {
        launch_pair_jerks<T>(pair_, xp_.data(), vp_.data(), n_, T(params_->G), softening2<T>(*params_),
                             a1_.data(), j1_.data(), scratch_.data(), live, stream_);
    }
    // The max step's last block, held back by the batch: every body, with the pairwise evaluation (one
    // graph: its six launches cost less so).
    void run_last_block(const DeviceBodies<T>& b) { launch_batch(last_, b); }
    // The neighbour scheme's max step with the persistent kernel (irregular_blocks.cuh): runs of irregular
    // blocks, each stopping before a block with more regular steps than it runs itself, which the host
    // runs as a graph. The graph and the next run are queued behind each run before the host knows why it
    // stopped (its clock copied out right after it): the device goes from run to graph to run without
    // waiting for the host's round trip (~15 us each, ~250 a run of the issue-21 figure). Where the run
    // stopped for another reason, both change nothing that counts: the graph releases only a held block
    // with regular steps (release_kernel's regular_only), so its kernels find a dead clock and return but
    // the earliest regular due tick's, which gather the same tick again; a run starts only on a live clock.
    // The max step's last block then runs as its own graph (pairwise, where it serves N).
    void run_persistent(const DeviceBodies<T>& b) {
        launch_irregular_run(irregular_run(b), run_grid_, stream_);
        for (;;) {
            CUDA_CHECK(cudaMemcpyAsync(run_end_.data(), clock_.data(), sizeof(BlockClock),
                                       cudaMemcpyDeviceToHost, stream_));
            CUDA_CHECK(cudaEventRecord(run_end_event_, stream_));
            launch_batch(regular_block_, b);
            launch_irregular_run(irregular_run(b), run_grid_, stream_);
            CUDA_CHECK(cudaEventSynchronize(run_end_event_));
            report_tick(run_end_.data()->tick,
                        std::int64_t(run_end_.data()->blocks - run_end_.data()->first_block));
            if (interrupt_requested()) {
                // The queued graph and run go as far as the next held block; Backend::step then puts the
                // bodies back.
                CUDA_CHECK(cudaStreamSynchronize(stream_));
                read_clock();
                return;
            }
            const BlockClock& c = *run_end_.data();
            if (c.held && c.min_due != static_cast<unsigned long long>(kTicksPerMaxStep)) continue;
            if (c.held) run_last_block(b);
            read_clock();
            return;
        }
    }
    // A held block (the last of the max step: pairwise where it serves n; with the neighbour scheme also a
    // block with regular steps: `pairwise` false), released and run as a graph of its own.
    void enqueue_last_block(const DeviceBodies<T>& b, bool pairwise = true) {
        launch_kernel(release_kernel, dim3(1), dim3(1), 0, stream_, clock_.data(), nb_k_ > 0 && !pairwise);
        enqueue_select(b);
        if (nb_k_ > 0) {
            evaluate_neighbours(pairwise && !pair_.off);
        } else {
            evaluate_all(&clock_.data()->live);
        }
        enqueue_correct_any(b);
    }

    // Every graph, captured again at its next launch: what init, a new max step and new plans change
    // (parameters, buffers, grids) is in their launches.
    void drop_graphs() {
        small_.reset(), large_.reset(), single_.reset(), last_.reset(), regular_block_.reset();
    }

    // Runs g (capturing it first if it is missing or was captured with other bodies; init and new plans
    // drop the graphs, since their parameters and buffers are in the launches too).
    void launch_batch(BatchGraph& g, const DeviceBodies<T>& b) {
        const std::vector<const void*> key{b.pos, b.vel, b.bad, reinterpret_cast<const void*>(n_)};
        if (!g.exec || g.key != key) {
            g.reset();
            CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
            try {
                if (g.blocks <= 0) enqueue_last_block(b, g.blocks == 0);
                for (int k = 0; k < g.blocks; ++k) {
                    if (nb_k_ > 0) {
                        enqueue_irregular_block(b);
                    } else {
                        enqueue_select(b);
                        evaluate_active();
                        enqueue_correct(b);
                    }
                }
            } catch (...) {
                cudaGraph_t dropped = nullptr;
                (void)cudaStreamEndCapture(stream_, &dropped);
                if (dropped) (void)cudaGraphDestroy(dropped);
                throw;
            }
            cudaGraph_t graph = nullptr;
            CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
            const cudaError_t made = cudaGraphInstantiate(&g.exec, graph, 0);
            CUDA_CHECK_LOG(cudaGraphDestroy(graph));
            CUDA_CHECK(made);
            g.key = key;
        }
        CUDA_CHECK(cudaGraphLaunch(g.exec, stream_));
    }

    // The clock as the device left it (waits for everything queued before).
    const BlockClock& read_clock() {
        CUDA_CHECK(cudaMemcpyAsync(clock_host_.data(), clock_.data(), sizeof(BlockClock),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return *clock_host_.data();
    }
    unsigned long long read_bad(const DeviceBodies<T>& b) {
        CUDA_CHECK(cudaMemcpyAsync(bad_host_.data(), b.bad, sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return *bad_host_.data();
    }

    std::function<DeviceBodies<T>()> bodies_;
    std::function<void()> on_move_;
    std::optional<Params> params_;  // what init was given; empty: no valid state
    std::size_t n_ = 0;
    DeviceBuffer<Vec4<T>> acc_, jerk_;    // at each body's own time (its last correction)
    DeviceBuffer<Vec4<T>> xp_, vp_;       // every body predicted to the current block
    DeviceBuffer<Vec4<T>> a1_, j1_;       // the active bodies' new force and jerk, in active-list order
    DeviceBuffer<std::int64_t> due_;      // each body's next time, ticks since the max step began
    DeviceBuffer<int> level_;             // its step is dt / 2^level; its own time is due - level_ticks
    DeviceBuffer<std::uint32_t> active_;  // the active list: indices of the bodies due (in no set order but
                                          // in the max step's last block: every body, in order)
    DeviceBuffer<Vec4<T>> scratch_;       // the force+jerk kernels' partial sums
    DeviceBuffer<BlockClock> clock_;
    PinnedBuffer<BlockClock> clock_host_;  // the last read-back
    unsigned irregular_grid_ = 0;          // the irregular sums of a block with regular steps: one full wave
    unsigned stride_grid_ = 1;             // the grid-stride kernels' blocks at most (stride_blocks)
    PinnedBuffer<BlockClock> run_end_;     // run_persistent's copy at the end of a run, and its event
    cudaEvent_t run_end_event_{};
    PinnedBuffer<unsigned long long> bad_host_;
    JerkLaunch requested_;  // all automatic but in the benchmark
    JerkPlans plans_;       // the force+jerk plan of every active count
    PairJerkLaunch requested_pair_;
    PairJerkLaunch pair_{0, 0, true};  // every body at once (off: the plans above serve it too)
    DeviceBuffer<JerkPlan> plans_dev_;
    DeviceBuffer<JerkChosen> chosen_{1};  // the plan of the block being evaluated
    cudaStream_t stream_ = nullptr;       // blocking: ordered with the backend's work on the legacy stream
    BatchGraph small_{kSmallBatch}, large_{kLargeBatch}, single_{1}, last_{0};
    BatchGraph regular_block_{-1};  // the neighbour scheme's held block with regular steps (not the last)
    std::int64_t last_max_step_blocks_ = 0;  // blocks of the last max step: how large a batch to launch
    bool stopped_ = false;  // an earlier step of this step() call failed: this max step does nothing
    // The per-block calls (next_block .. correct) are inside a max step until finish_max_step: no state to
    // export there.
    bool mid_max_step_ = false;
    unsigned long long seen_bad_ = kNoBadBody;
    // The neighbour scheme (Params::neighbours > 0, else nb_k_ 0 and these empty): each body's state
    // (neighbour_arrays), radius and list; per block the regular list, each due body's slot in it (-1:
    // none), the irregular sums from the old lists (active order) and from the new ones (regular order).
    int nb_k_ = 0;
    DeviceBuffer<Vec4<T>> nb_ai_, nb_ji_, nb_ar_, nb_jr_, nb_d2_, nb_d3_, ai_old_, ji_old_, ai_new_, ji_new_;
    DeviceBuffer<std::int64_t> t_regular_;
    DeviceBuffer<int> regular_level_;
    DeviceBuffer<double> radius_;
    DeviceBuffer<std::uint32_t> list_, listed_, regular_, split_list_, split_count_;
    DeviceBuffer<std::int32_t> slot_;
    bool persistent_ = irregular_run_supported();  // irregular blocks: one persistent kernel, or graphs
    unsigned run_grid_ = persistent_ ? irregular_run_grid<T>() : 0;  // its grid on this device
    DeviceBuffer<unsigned long long> run_scratch_{kIrregularRunScratch};
    // The persistent kernel's second slot of each body's state and which slot it is in (IrregularRun).
    DeviceBuffer<Vec4<T>> pos1_, vel1_, acc1_, jerk1_;
    DeviceBuffer<int> level1_;
    DeviceBuffer<std::int64_t> due1_;
    DeviceBuffer<std::uint32_t> version_;
    // The planned evaluation's lists (set_inline_lists): whether on, and its ranges and their counts.
    bool want_inline_lists_ = true, inline_lists_ = false;
    DeviceBuffer<std::uint32_t> list_ranges_, list_counts_;
    std::int64_t starts_ = 0;         // init calls (the device clock counts blocks and evaluations)
    std::uint64_t init_updates_ = 0;  // the starts' all-body evaluations
};

// Random bodies uniform in [-1, 1]^3, masses around 1/n, small velocities (force_timing.cu's bodies, with
// velocities for the jerk).
State<double> random_bench_bodies(std::size_t n) {
    std::mt19937_64 g(12345);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    State<double> s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.pos_mass[i] = {u(g), u(g), u(g), (1.0 + 0.5 * u(g)) / double(n)};
        s.vel[i] = {0.1 * u(g), 0.1 * u(g), 0.1 * u(g), 0.0};
    }
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size();
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

template <typename T>
HermiteBlockTiming time_block(std::size_t n, std::size_t active, int repeats, const JerkLaunch& requested,
                              const PairJerkLaunch& pair) {
    const State<T> host = convert_state<T>(random_bench_bodies(n));
    DeviceBuffer<Vec4<T>> pos(n), vel(n);
    pos.copy_from_host(host.pos_mass.data(), n);
    vel.copy_from_host(host.vel.data(), n);
    CudaBlockSteps<T> steps([&] { return DeviceBodies<T>{pos.data(), vel.data(), n, nullptr, 0}; }, nullptr);
    Params p;
    p.integrator = Integrator::hermite;
    p.softening = 0.01;
    p.dt = 1.0 / 64;
    p.eta = 1e30;  // every body's start step is the max step: level 0
    steps.init(p);
    // `active` bodies spread evenly over the indices at level 1 (due at half the max step), the rest at 0;
    // all at level 0 when every body is active.
    std::vector<int> levels(n, 0);
    if (active < n) {
        for (std::size_t k = 0; k < active; ++k) levels[k * n / active] = 1;
    }
    steps.set_launch(requested, pair);
    HermiteBlockTiming t;
    t.launch = steps.plan_for(active);
    std::vector<double> block_ms, eval_ms;
    cudaEvent_t start{}, stop{};
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    try {
        for (int r = -2; r < std::max(1, repeats); ++r) {  // two warm-up rounds
            steps.set_levels(levels);
            // As a max step runs it: the block's kernels replayed as a graph, then the clock read back.
            const auto t0 = std::chrono::steady_clock::now();
            const NextBlock b = steps.graph_block();
            const auto t1 = std::chrono::steady_clock::now();
            if (b.active != active)
                throw Error("benchmark block: " + std::to_string(b.active) + " bodies due");
            if (r >= 0) block_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
        // The evaluation alone, again and again on the same active list and predicted bodies.
        steps.set_levels(levels);
        steps.next_block();
        for (int r = -2; r < std::max(1, repeats); ++r) {
            CUDA_CHECK(cudaEventRecord(start, steps.stream()));
            steps.evaluate_again();
            CUDA_CHECK(cudaEventRecord(stop, steps.stream()));
            CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (r >= 0) eval_ms.push_back(ms);
        }
    } catch (...) {
        CUDA_CHECK_LOG(cudaEventDestroy(start));
        CUDA_CHECK_LOG(cudaEventDestroy(stop));
        throw;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    t.block_ms = median(block_ms);
    t.evaluate_ms = median(eval_ms);
    return t;
}

}  // namespace

template <typename T>
std::unique_ptr<DeviceBlockSteps> make_device_block_steps(std::function<DeviceBodies<T>()> bodies,
                                                          std::function<void()> on_move,
                                                          const PairJerkLaunch& pair) {
    return std::make_unique<CudaBlockSteps<T>>(std::move(bodies), std::move(on_move), pair);
}

template std::unique_ptr<DeviceBlockSteps> make_device_block_steps<float>(
    std::function<DeviceBodies<float>()>, std::function<void()>, const PairJerkLaunch&);
template std::unique_ptr<DeviceBlockSteps> make_device_block_steps<double>(
    std::function<DeviceBodies<double>()>, std::function<void()>, const PairJerkLaunch&);

HermiteBlockTiming time_hermite_block(std::size_t n, std::size_t active, Precision p, int repeats,
                                      const JerkLaunch& launch, const PairJerkLaunch& pair) {
    if (!cuda_device_info()) throw Error("no CUDA device: cannot time the Hermite block");
    if (n == 0 || active == 0 || active > n) throw Error("benchmark block: need 0 < active <= N");
    if (n >= (std::size_t(1) << 32)) throw Error("benchmark block: N must be below 2^32");
    if (p == Precision::f32) return time_block<float>(n, active, repeats, launch, pair);
    return time_block<double>(n, active, repeats, launch, pair);
}

}  // namespace nbody
