#include "force_solver.hpp"

#include "kernels_cpu.hpp"
#include "sim/error.hpp"
#include "tree_solver.hpp"

namespace nbody {
namespace {

const std::vector<ForceAlgorithmInfo> kForceAlgorithms = {
    {ForceAlgorithm::direct, "direct", "direct summation of all N^2 pairs: exact up to rounding"},
    {ForceAlgorithm::tree, "tree",
     "Barnes-Hut octree with quadrupoles, O(N log N); --theta sets the opening angle (median force error "
     "<= 1e-3 at the default 0.6)"},
};

// Direct summation on the host: each pair once on one thread, or a full row per body on every thread.
template <typename T>
class HostDirectSolver final : public HostForceSolver<T> {
  public:
    explicit HostDirectSolver(HostParallelism par) : par_(par) {}

    void accelerations(const Vec4<T>* bodies, std::size_t n, const Params& p, Vec4<T>* acc) override {
        const T G = static_cast<T>(p.G), eps2 = static_cast<T>(p.softening * p.softening);
        if (par_ == HostParallelism::serial) {
            accelerations_pairwise(bodies, acc, n, G, eps2, scratch_);
        } else {
            accelerations_rows(bodies, acc, n, G, eps2, scratch_);
        }
    }

    // Whole rows, as the OpenMP path computes them, on one thread for the serial backend.
    void accelerations_slice(const Vec4<T>* bodies, std::size_t n, std::size_t first, std::size_t count,
                             const Params& p, Vec4<T>* acc) override {
        accelerations_row_range(bodies, acc, n, first, count, static_cast<T>(p.G),
                                static_cast<T>(p.softening * p.softening), par_ == HostParallelism::openmp,
                                scratch_);
    }

    void evaluate_at(const Vec4<T>* bodies, std::size_t n, const Vec4<T>* targets, std::size_t m,
                     const Params& p, Vec4<T>* acc, T* potential) override {
        field_at_targets(bodies, n, targets, m, static_cast<T>(p.G),
                         static_cast<T>(p.softening * p.softening), acc, potential,
                         par_ == HostParallelism::openmp, scratch_);
    }

  private:
    HostParallelism par_;
    ForceScratch<T> scratch_;
};

}  // namespace

const std::vector<ForceAlgorithmInfo>& builtin_force_algorithms() {
    return kForceAlgorithms;
}

const ForceAlgorithmInfo& force_algorithm_info(ForceAlgorithm a) {
    for (const auto& info : kForceAlgorithms) {
        if (info.id == a) return info;
    }
    return kForceAlgorithms.front();  // unreachable: every enumerator has an entry (tested)
}

bool same_force_model(const Params& a, const Params& b) {
    return a.force == b.force && a.G == b.G && a.softening == b.softening &&
           (a.force != ForceAlgorithm::tree || a.theta == b.theta);
}

template <typename T>
std::unique_ptr<HostForceSolver<T>> make_host_force_solver(ForceAlgorithm a, HostParallelism par) {
    switch (a) {
        case ForceAlgorithm::direct:
            return std::make_unique<HostDirectSolver<T>>(par);
        case ForceAlgorithm::tree:
            return make_host_tree_solver<T>(par);
    }
    throw Error(std::string("no host solver for the force algorithm '") + to_string(a) + "'");
}

template std::unique_ptr<HostForceSolver<float>> make_host_force_solver<float>(ForceAlgorithm,
                                                                               HostParallelism);
template std::unique_ptr<HostForceSolver<double>> make_host_force_solver<double>(ForceAlgorithm,
                                                                                 HostParallelism);

}  // namespace nbody
