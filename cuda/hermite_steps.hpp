#pragma once
// The CUDA backend's own block time steps (sim/integrate/block_steps.hpp) for --integrator hermite: every
// body's level, clock, acceleration and jerk at its last correction, and the bodies predicted to the
// current block, live in device memory beside the backend's bodies; the physics is
// sim/integrate/hermite.hpp's, called from the kernels in hermite_steps.cu. No CUDA headers here.
//
// No host round trip per block: each block's kernels read its time and active count from a block clock
// in device memory (the earliest due tick by a min-reduction, the active list appended by the bodies
// due), the force+jerk launch is planned for every active count in advance (jerk_kernels.hpp), so a batch
// of blocks is one fixed sequence of launches, captured once as a CUDA graph and replayed; the host reads
// the clock back once per batch (16 blocks while many remain in the max step, 2 near its end). Where N is
// large, the max step's last block (every body due, listed in order) is held back and run by the host as
// a graph of its own with the pairwise evaluation (jerk_kernels.hpp): one more launch and read-back per
// max step.
//
// With the neighbour scheme (Params::neighbours > 0; sim/integrate/neighbour_scheme.hpp) each body also
// keeps its split, regular level, radius and list here (neighbour_kernels.hpp builds the lists and takes
// the irregular sums). The clock then also holds the batch before any block with a regular step: a batch
// runs irregular steps alone (no prediction of every body, no full sum; each body predicted where it is
// needed), and the host runs each block with regular steps as a graph of its own. Where the device runs
// cooperative launches, the irregular blocks up to that hold run in one persistent kernel instead of
// batches of graphs (irregular_blocks.cuh; the same device functions, the same bits).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "jerk_kernels.hpp"
#include "sim/integrate/block_steps.hpp"
#include "sim/state.hpp"

namespace nbody {

// What the owning backend lends the block steps at each call (device pointers).
template <typename T>
struct DeviceBodies {
    Vec4<T>* pos = nullptr;  // (x, y, z, m)
    Vec4<T>* vel = nullptr;  // (vx, vy, vz, 0)
    std::size_t n = 0;
    // The failure flag (step_kernels.hpp) and the step being run (1-based) inside a step() call; null and
    // 0 outside one (no failure tracking then).
    unsigned long long* bad = nullptr;
    std::uint64_t step = 0;
};

class DeviceBlockSteps : public BlockSteps {
  public:
    // The lowest body found non-finite in this step() call, as read back at the end of the last max step
    // (or by next_block): the backend's end_step stops the call there, instead of running the rest of its
    // steps for nothing.
    virtual std::optional<std::size_t> failed_body() const = 0;
    // A new step() call: forget what the last one saw (the backend resets the device flag itself).
    virtual void clear_failure() = 0;
    // The neighbour scheme's irregular blocks in one persistent kernel (irregular_blocks.cuh; the default
    // where the device runs cooperative launches) or, off, as graphs of a few kernels per block: the same
    // bits either way (tests compare them).
    virtual void set_persistent_irregular(bool on) = 0;
    // Tests: the persistent kernel on at most this many blocks of threads (0: the device's grid), so that
    // a small system runs with several bodies a thread (the path of systems larger than the grid; with a
    // thread for every body, the float kernel keeps each body in its thread's registers instead); and the
    // grid it runs on.
    virtual void set_persistent_grid(unsigned blocks) = 0;
    virtual unsigned persistent_grid() const = 0;
    // Blocks the persistent kernel ran so far (of BlockCounters::blocks), as of the last read-back.
    virtual std::int64_t persistent_blocks() const = 0;
    // Of those, the blocks with regular steps (a few of them: irregular_blocks.cuh's RegularInRun).
    virtual std::int64_t persistent_regular_blocks() const = 0;
    // The neighbour scheme's new lists at a regular step of many bodies (one thread a target in the
    // planned force+jerk evaluation) built by that evaluation as it sums (the default where its scratch
    // fits, JerkLists in jerk_kernels.hpp) or, off, by the list search after it: the same lists (tests
    // compare the runs' bits).
    virtual void set_inline_lists(bool on) = 0;
    // Evaluations that built their lists so far (waits for the device).
    virtual std::int64_t inline_list_evaluations() const = 0;
};

// Block steps over the bodies `bodies()` returns (called at every operation, so the backend may
// reallocate them between max steps); `on_move` runs whenever correct() changed them. `pair`: the
// evaluation of every body at once (a start, the last block of each max step); automatic but in tests and
// the benchmark.
template <typename T>
std::unique_ptr<DeviceBlockSteps> make_device_block_steps(std::function<DeviceBodies<T>()> bodies,
                                                          std::function<void()> on_move,
                                                          const PairJerkLaunch& pair = {});

// The timing of one block for the benchmark: `active` of n random bodies due (spread evenly over the
// indices), the rest not, every body's state on the device. block_ms: the median wall time of a whole
// block as a max step runs it (a graph of one block's kernels, then the clock's read-back; for a held
// all-active block with the pairwise evaluation, two of each); evaluate_ms:
// the median of the force+jerk evaluation alone (CUDA events). interactions/s = active n / (ms / 1000).
// `launch` shapes the one-sided evaluation, `pair` the all-active one (off: the one-sided there too).
struct HermiteBlockTiming {
    double block_ms = 0, evaluate_ms = 0;
    std::string launch;  // the force+jerk plan used, e.g. "K=2 block=128 splits=911"
};
HermiteBlockTiming time_hermite_block(std::size_t n, std::size_t active, Precision p, int repeats,
                                      const JerkLaunch& launch = {}, const PairJerkLaunch& pair = {});

}  // namespace nbody
