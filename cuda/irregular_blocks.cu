// The neighbour scheme's irregular blocks in one persistent kernel (irregular_blocks.cuh). Built without
// -ftz (as hermite_steps.cu): the corrections and their finiteness checks are the per-kernel path's.
#include <cooperative_groups.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "irregular_blocks.cuh"
#include "irregular_sum.cuh"
#include "predict_on_the_fly.cuh"
#include "sim/error.hpp"
#include "step_kernels.hpp"

namespace nbody {
namespace {

// Every thread of the grid takes the same decisions from the same values: what it reads of the clock
// and the counters was written before the last grid barrier and is not written again before the next
// one. Thread 0 of block 0 alone writes the clock. The next block's earliest due tick is gathered into
// one of two words (the select phase takes the bodies not due, the correct phase the corrected ones' new
// due ticks) while the other is read; the active count likewise: each word is reset one phase after its
// last reader has passed a barrier.
template <typename T>
__global__ void __launch_bounds__(kBlock) irregular_run_kernel(IrregularRun<T> r) {
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    BlockClock* c = r.clock;
    if (!c->live) return;  // the same for every thread: nothing writes the clock before the first barrier
    unsigned long long* min_due = r.scratch;                                 // [2]
    std::uint32_t* count = reinterpret_cast<std::uint32_t*>(r.scratch + 2);  // [2]
    const bool first = blockIdx.x == 0 && threadIdx.x == 0;
    const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    const unsigned lane = threadIdx.x % 32;
    // Fixed for the whole run: the max step's gate and holds.
    const unsigned long long gate = c->gate, min_regular_due = c->min_regular_due;
    const bool hold_last = c->hold_last != 0;
    std::int64_t tick = c->tick;
    unsigned long long next = c->min_due;
    if (first) min_due[1] = ~0ull, count[0] = 0;  // block 0's gathers (nothing reads them before the barrier)
    grid.sync();
    auto predict = [&](std::uint32_t b, Vec4<T>& x, Vec4<T>& v) {
        predict_body(r.pos, r.vel, r.acc, r.jerk, r.level, r.due, b, tick, r.dt, x, v);
    };
    for (unsigned b = 0;; ++b) {
        const unsigned cur = b & 1, nxt = cur ^ 1;
        if (b > 0) next = min_due[cur];
        // schedule_kernel's decision. A block with a regular step or the held last block is the host's:
        // the run stops before it whether or not the clock's hold_regular is on (it always is when
        // max_step launches a run: restart_clock and enqueue_regular_min set it), since it has no full sums.
        const unsigned long long seen = r.bad ? *r.bad : kNoBadBody;
        const bool failed = r.bad && seen < gate;
        const bool held = !failed && tick != kTicksPerMaxStep &&
                          ((next == static_cast<unsigned long long>(kTicksPerMaxStep) && hold_last) ||
                           next >= min_regular_due);
        if (failed || held || tick == kTicksPerMaxStep) {
            if (first) {
                c->bad_seen = seen;
                c->live = 0;
                c->held = held ? 1 : 0;
                c->min_due = next;
                c->active = 0;
                c->regular = 0;
            }
            return;
        }
        tick = static_cast<std::int64_t>(next);
        if (first) c->tick = tick, ++c->blocks, ++c->run_blocks;

        // The due bodies listed (select_predict_kernel without the prediction).
        unsigned long long stays = ~0ull;
        for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x; base < r.n; base += threads) {
            const std::size_t i = base + threadIdx.x;
            const bool is_due = due_now(r.due, i, r.n, tick, stays);
            const unsigned slot = append_lanes(is_due, &count[cur]);
            if (is_due) r.active[slot] = std::uint32_t(i);
        }
        block_min_into(stays, &min_due[nxt]);
        grid.sync();

        // Their irregular sums, a warp each (irregular_kernel).
        const std::uint32_t m = count[cur];
        if (first) {
            c->irregular_updates += m;
            min_due[cur] = ~0ull;
            count[nxt] = 0;
        }
        for (std::size_t q = thread / 32; q < m; q += threads / 32) {
            const std::uint32_t i = r.active[q];
            Vec4<T> xi, vi, a, j;
            predict(i, xi, vi);
            irregular_sum(i, xi, vi, r.lists, r.G, r.eps2, predict, a, j);
            if (lane == 0) r.ai[q] = a, r.ji[q] = j;
        }
        grid.sync();

        // Their corrections (correct_neighbours_kernel), the new due ticks gathered.
        unsigned long long next_due = ~0ull;
        for (std::size_t k = thread; k < m; k += threads) {
            const std::uint32_t i = r.active[k];
            Vec4<T> xpi, vpi;
            predict(i, xpi, vpi);  // before this body's own state changes below
            const NeighbourForces<T> f{r.ai[k], r.ji[k], nullptr, nullptr, nullptr, nullptr};
            correct_neighbour_due(i, tick, r.dt, r.eta, r.s, xpi, vpi, f, r.pos, r.vel, r.acc, r.jerk,
                                  r.level, r.due, r.bad, gate, next_due);
        }
        block_min_into(next_due, &min_due[nxt]);
        grid.sync();
    }
}

// Blocks of the cooperative grid: every one resident at once (the barriers need it), one per
// multiprocessor (measured on the H100 at N = 65,536: 10.9 us a block, against 11.2 with two and 11.7 with
// four; the work of a block is a few bodies, the barriers cost little either way).
}  // namespace

bool irregular_run_supported() {
    int dev = 0, cooperative = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev));
    return cooperative != 0;
}

// One block of threads per multiprocessor: every one resident at once (the barriers need it). Measured on
// the H100 at N = 65,536: 10.9 us a block, against 11.2 with two per multiprocessor and 11.7 with four (a
// block's work is a few bodies; the barriers cost little either way).
template <typename T>
unsigned irregular_run_grid() {
    int dev = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, irregular_run_kernel<T>, kBlock, 0));
    if (per_sm < 1) throw Error("block steps: the irregular blocks' kernel does not fit on this device");
    return unsigned(sms);
}

template <typename T>
void launch_irregular_run(const IrregularRun<T>& run, unsigned grid, cudaStream_t stream) {
    IrregularRun<T> copy = run;
    void* args[] = {&copy};
    CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&irregular_run_kernel<T>),
                                           dim3(grid), dim3(kBlock), args, 0, stream));
}

template unsigned irregular_run_grid<float>();
template unsigned irregular_run_grid<double>();
template void launch_irregular_run<float>(const IrregularRun<float>&, unsigned, cudaStream_t);
template void launch_irregular_run<double>(const IrregularRun<double>&, unsigned, cudaStream_t);

}  // namespace nbody
