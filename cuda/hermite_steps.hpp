#pragma once
// The CUDA backend's own block time steps (sim/integrate/block_steps.hpp) for --integrator hermite: every
// body's level, clock, acceleration and jerk at its last correction, and the bodies predicted to the
// current block, live in device memory beside the backend's bodies; the physics is
// sim/integrate/hermite.hpp's, called from the kernels in hermite_steps.cu. No CUDA headers here.
//
// Per block the host reads back one NextBlock (block time, active count, failure flag: 24 bytes) and
// nothing else: the earliest due time is a CUB min-reduction over the bodies' due ticks, the active set a
// CUB DeviceSelect of the due bodies' indices, both left in device memory for the kernels that follow
// (predict all, force+jerk of the active set, correct the active set).
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
    // The lowest body found non-finite in this step() call, as of the last block's read-back: the
    // backend's end_step stops the call there, instead of running the rest of its steps for nothing.
    virtual std::optional<std::size_t> failed_body() const = 0;
    // A new step() call: forget what the last one saw (the backend resets the device flag itself).
    virtual void clear_failure() = 0;
};

// Block steps over the bodies `bodies()` returns (called at every operation, so the backend may
// reallocate them between max steps); `on_move` runs whenever correct() changed them.
template <typename T>
std::unique_ptr<DeviceBlockSteps> make_device_block_steps(std::function<DeviceBodies<T>()> bodies,
                                                          std::function<void()> on_move);

// The timing of one block for the benchmark: `active` of n random bodies due (spread evenly over the
// indices), the rest not, every body's state on the device. block_ms: the median wall time of a whole
// block (next_block with its read-back, predict all, evaluate, correct); evaluate_ms: the median of the
// force+jerk evaluation alone (CUDA events). interactions/s = active n / (ms / 1000).
struct HermiteBlockTiming {
    double block_ms = 0, evaluate_ms = 0;
    std::string launch;  // the force+jerk launch shape used, e.g. "K=2 block=128 splits=911"
};
HermiteBlockTiming time_hermite_block(std::size_t n, std::size_t active, Precision p, int repeats,
                                      const JerkLaunch& launch = {});

}  // namespace nbody
