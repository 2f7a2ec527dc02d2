#pragma once
// Force solvers: the algorithm that sums gravity (Params::force, force_algorithms.hpp), chosen apart
// from the backend that runs it. Each execution space has its own solvers: the host ones live here (serial
// pairs, OpenMP rows), the CUDA ones in cuda/ (one-sided tiled, pairwise). A solver evaluates accelerations,
// and optionally potentials, of arbitrary target points from the source bodies: the bodies themselves (a
// step), a grid (the potential view) or a sample (force-error measurement).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "force_algorithms.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

// How a host solver may use the CPU.
enum class HostParallelism {
    serial,  // one thread; the direct sum then evaluates each pair once (Newton's third law)
    openmp,  // all OpenMP threads
};

// A force solver on host memory, for float or double bodies.
template <typename T>
class HostForceSolver {
  public:
    virtual ~HostForceSolver() = default;
    // acc[i] = G sum_{j != i} m_j r_ij / (|r_ij|^2 + eps^2)^{3/2} for every body (the self-term is
    // excluded, also at eps = 0).
    virtual void accelerations(const Vec4<T>* bodies, std::size_t n, const Params& p, Vec4<T>* acc) = 0;
    // acc[k] for the bodies first + k, k < count, of the n bodies (a distributed run's own slice against
    // every source), self-term excluded. The direct sum gives each of them exactly the bits
    // accelerations() would; the default evaluates the slice as targets (a body exactly at a target
    // adds nothing, which for the slice's own bodies is the self-term).
    virtual void accelerations_slice(const Vec4<T>* bodies, std::size_t n, std::size_t first,
                                     std::size_t count, const Params& p, Vec4<T>* acc) {
        evaluate_at(bodies, n, bodies + first, count, p, acc, nullptr);
    }
    // Acceleration (acc, may be null) and potential phi = -G sum_j m_j / sqrt(r^2 + eps^2) (potential,
    // may be null) at m arbitrary targets (w ignored). A body exactly at a target adds nothing to it.
    virtual void evaluate_at(const Vec4<T>* bodies, std::size_t n, const Vec4<T>* targets, std::size_t m,
                             const Params& p, Vec4<T>* acc, T* potential) = 0;
    // Interactions the last call actually evaluated (a tree: body-body plus body-cell), or nullopt where
    // that is every source for every target by construction (the direct sum).
    virtual std::optional<std::uint64_t> last_interactions() const { return std::nullopt; }
};

// The host solver for algorithm a. Throws nbody::Error if a has no host solver.
template <typename T>
std::unique_ptr<HostForceSolver<T>> make_host_force_solver(ForceAlgorithm a, HostParallelism par);

}  // namespace nbody
