#include "force_solver.hpp"

#include "interaction.hpp"
#include "kernels_cpu.hpp"
#include "sim/error.hpp"
#include "tree_solver.hpp"

namespace nbody {
namespace {

// Direct summation on the host: each pair once on one thread, or a full row per body on every thread.
template <typename T>
class HostDirectSolver final : public HostForceSolver<T> {
  public:
    explicit HostDirectSolver(HostParallelism par) : par_(par) {}

    void accelerations(const Vec4<T>* bodies, std::size_t n, const Params& p, Vec4<T>* acc) override {
        const T G = static_cast<T>(p.G), eps2 = softening2<T>(p);
        if (par_ == HostParallelism::serial) {
            accelerations_pairwise(bodies, acc, n, G, eps2, scratch_);
        } else {
            accelerations_rows(bodies, acc, n, G, eps2, scratch_);
        }
    }

    // Whole rows, as the OpenMP path computes them, on one thread for the serial backend.
    void accelerations_slice(const Vec4<T>* bodies, std::size_t n, std::size_t first, std::size_t count,
                             const Params& p, Vec4<T>* acc) override {
        accelerations_row_range(bodies, acc, n, first, count, static_cast<T>(p.G), softening2<T>(p),
                                par_ == HostParallelism::openmp, scratch_);
    }

    void evaluate_at(const Vec4<T>* bodies, std::size_t n, const Vec4<T>* targets, std::size_t m,
                     const Params& p, Vec4<T>* acc, T* potential) override {
        field_at_targets(bodies, n, targets, m, static_cast<T>(p.G), softening2<T>(p), acc, potential,
                         par_ == HostParallelism::openmp, scratch_);
    }

  private:
    HostParallelism par_;
    ForceScratch<T> scratch_;
};

}  // namespace

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
