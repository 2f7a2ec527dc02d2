#pragma once
// Force solvers on the GPU: the device-side counterpart of sim/gravity/force_solver.hpp. All pointers are
// device pointers, `stream` is a cudaStream_t; no CUDA headers here.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "force_kernels.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

// The CUDA backend's failure flag as the force kernels see it: they return at once when
// *bad < before, i.e. when an earlier step of the same call already failed (see step_kernels.hpp).
struct FailureGate {
    const unsigned long long* bad = nullptr;
    unsigned long long before = 0;
};

template <typename T>
class DeviceForceSolver {
  public:
    virtual ~DeviceForceSolver() = default;
    // Device bytes the solver's own buffers need for n bodies (checked against free memory before any
    // allocation, so a too-large N fails with a clear message and the old state intact).
    virtual double device_bytes(std::size_t n) const = 0;
    // Sizes the buffers for n bodies whose largest |mass| is max_mass; called when the state is replaced.
    virtual void prepare(std::size_t n, double max_mass) = 0;
    // acc[i] = G sum_{j != i} m_j r_ij / (|r_ij|^2 + eps^2)^{3/2} for the n bodies at pos (self excluded).
    virtual void accelerations(const Vec4<T>* pos, std::size_t n, const Params& p, Vec4<T>* acc,
                               FailureGate gate, void* stream) = 0;
    // Acceleration (may be null) and potential (may be null) at m arbitrary targets; a body exactly at a
    // target adds nothing to it.
    virtual void evaluate_at(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m,
                             const Params& p, Vec4<T>* acc, T* potential, void* stream) = 0;
    // Whether accelerations_share can split an evaluation of n bodies (the same answer on every process
    // of a distributed run). Where it cannot, a process evaluates its own bodies against all (evaluate_at).
    virtual bool can_share(std::size_t /*n*/) const { return false; }
    // One process's share (`share` of `shares`) of accelerations() for processes that each hold all n
    // bodies (a distributed run, one GPU per process): acc[0, n) gets the partial sums over this share's
    // pairs, and the shares' acc added up are the accelerations. `max_mass`: the largest |mass| of all n
    // bodies. Only where can_share(n).
    virtual void accelerations_share(const Vec4<T>* /*pos*/, std::size_t /*n*/, const Params& /*p*/,
                                     double /*max_mass*/, int /*share*/, int /*shares*/, Vec4<T>* /*acc*/,
                                     void* /*stream*/) {}
    // Interactions the last accelerations() evaluated, read from the device (synchronises the stream);
    // nullopt where that is N^2 by construction (the direct sum).
    virtual std::optional<std::uint64_t> last_interactions(void* /*stream*/) { return std::nullopt; }
};

// The direct sum: the tuned one-sided tiled kernel or the pairwise kernel, picked per N (`launch` zero
// fields are automatic; see force_kernels.hpp).
template <typename T>
std::unique_ptr<DeviceForceSolver<T>> make_device_direct_solver(const ForceLaunch& launch);

// The Barnes-Hut tree (cuda/device_tree.hpp), rebuilt at every evaluation. Float only: the double
// instantiation throws nbody::Error saying so.
template <typename T>
std::unique_ptr<DeviceForceSolver<T>> make_device_tree_solver();

}  // namespace nbody
