#pragma once
// The neighbour scheme's irregular blocks in one persistent kernel (irregular_blocks.cu): from the block
// clock's next block on, every block whose due bodies take irregular steps alone (no full sum, no new
// list) runs inside one cooperative launch, and so does a block with a few regular steps (RegularInRun),
// until the clock holds before a block with many regular steps or the max step's last block, or a step
// failed. An irregular block is one pass and one grid-wide barrier: each warp looks at its share of the
// bodies, and for those due at the block's tick takes their irregular sums and corrects them at once. A
// corrected body is stored into the other of two slots of its state, so that the warps still summing read
// every body as it was when the block began; the run ends by folding the second slots back into the bodies'
// arrays. In float, where every body has a thread of its own (n up to 67,584 on an H100), each thread keeps
// its body's clock and state in registers for the whole run and loads neither to find who is due or to
// predict them. The same device functions as the per-kernel path (hermite_steps.cu's select, irregular and
// correct kernels) on the same inputs, so the same bits.
#include <cuda_runtime.h>

#include <cstdint>

#include "block_clock.cuh"
#include "jerk_kernels.hpp"
#include "neighbour_kernels.hpp"
#include "sim/integrate/neighbour_scheme.hpp"

namespace nbody {

// A block with regular steps runs inside the kernel where the planned evaluation (jerk_kernels.hpp) has
// threads sharing each of its regular bodies (a few: up to 1,024 on the automatic plans): as the per-kernel
// path runs it (hermite_steps.cu: select, the irregular sums from the old lists, the full sums and the
// split list search, their sums and joins, the irregular sums from the new lists, the corrections) with the
// same device functions or their mirror (split_sums.cuh, split_search.cuh), so the same bits (but where a
// float term is subnormal: split_sums.cuh), in five phases with a grid-wide barrier each instead of ~17
// launches and two host round trips. Null `plans`: every block with a regular step is the host's. Device
// pointers, n entries each but `partial` (the plans' scratch) and `plans` (plan_count entries, threads per
// block `block`); xp ... slot: what the per-kernel path's select fills, ai_old/ji_old by body, a1 ...
// ji_new by place in the regular list.
template <typename T>
struct RegularInRun {
    const JerkPlan* plans = nullptr;
    unsigned plan_count = 0, block = 0;
    Vec4<T>*xp = nullptr, *vp = nullptr;
    std::uint32_t* regular = nullptr;
    std::int32_t* slot = nullptr;
    Vec4<T>*ai_old = nullptr, *ji_old = nullptr;
    Vec4<T>*a1 = nullptr, *j1 = nullptr, *ai_new = nullptr, *ji_new = nullptr;
    Vec4<T>* partial = nullptr;
};

// Everything the run reads and writes (device pointers; the clock's fields as hermite_steps.cu keeps
// them). pos ... due: the bodies' state (slot 0); pos1 ... due1 a second copy of it (slot 1), and
// version[i] which slot body i is in: (block << 1) | slot, the run's block number (from 1) that last
// corrected it; all 0 between runs. `scratch`: kIrregularRunScratch words of the run's own.
template <typename T>
struct IrregularRun {
    BlockClock* clock = nullptr;
    Vec4<T>*pos = nullptr, *vel = nullptr, *acc = nullptr, *jerk = nullptr;
    int* level = nullptr;
    std::int64_t* due = nullptr;
    Vec4<T>*pos1 = nullptr, *vel1 = nullptr, *acc1 = nullptr, *jerk1 = nullptr;
    int* level1 = nullptr;
    std::int64_t* due1 = nullptr;
    std::uint32_t* version = nullptr;
    std::size_t n = 0;
    NeighbourArrays<T> s{};
    DeviceNeighbourLists lists{};       // the lists and their counts, and the split search's scratch
    unsigned long long* bad = nullptr;  // may be null
    unsigned long long* scratch = nullptr;
    double dt = 0, eta = 0, eta_regular = 0;
    T G = 0, eps2 = 0;
    RegularInRun<T> reg{};
};
// The run's scratch words: the next block's earliest due tick and the earliest regular due tick, three
// rotating words each, and a block's count of regular steps.
inline constexpr std::size_t kIrregularRunScratch = 7;

// Whether this device runs cooperative launches (else the caller keeps its graphs of blocks).
bool irregular_run_supported();

// The grid a run takes on the current device (two blocks of threads per multiprocessor where they fit);
// throws where the kernel cannot be resident at all.
template <typename T>
unsigned irregular_run_grid();

// Runs the irregular blocks from the clock's state on `stream` on `grid` blocks of threads,
// irregular_run_grid<T>()'s or fewer (tests), with the kernel that keeps each body in its thread's
// registers where n <= grid * kBlock (float); returns at once where the clock is not live. The clock is
// left as the per-kernel path leaves it at the same block, but for its counts of blocks run here
// (BlockClock::run_blocks, run_regular_blocks).
template <typename T>
void launch_irregular_run(const IrregularRun<T>& run, unsigned grid, cudaStream_t stream);

}  // namespace nbody
