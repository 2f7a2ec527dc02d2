#include "tree_solver.hpp"

#include <vector>

#include "octree.hpp"
#include "tree_walk.hpp"

namespace nbody {
namespace {

template <typename T>
class HostTreeSolver final : public HostForceSolver<T> {
  public:
    explicit HostTreeSolver(HostParallelism par) : parallel_(par == HostParallelism::openmp) {}

    void accelerations(const Vec4<T>* bodies, std::size_t n, const Params& p, Vec4<T>* acc) override {
        tree_.build(bodies, n, kDefaultLeafSize, parallel_);
        last_ = tree_accelerations(tree_, walk_params(p), acc, static_cast<T*>(nullptr)).total();
    }

    void evaluate_at(const Vec4<T>* bodies, std::size_t n, const Vec4<T>* targets, std::size_t m,
                     const Params& p, Vec4<T>* acc, T* potential) override {
        tree_.build(bodies, n, kDefaultLeafSize, parallel_);
        if (!acc) acc_scratch_.resize(m);  // the walk always sums accelerations
        last_ = tree_accelerations_at(tree_, targets, m, walk_params(p), acc ? acc : acc_scratch_.data(),
                                      potential, scratch_)
                    .total();
    }

    std::optional<std::uint64_t> last_interactions() const override { return last_; }

  private:
    TreeWalkParams walk_params(const Params& p) const {
        TreeWalkParams w;
        w.theta = p.theta, w.G = p.G, w.softening = p.softening, w.parallel = parallel_;
        return w;
    }

    bool parallel_;
    Octree<T> tree_;
    TreeWalkScratch<T> scratch_;
    std::vector<Vec4<T>> acc_scratch_;
    std::uint64_t last_ = 0;
};

}  // namespace

template <typename T>
std::unique_ptr<HostForceSolver<T>> make_host_tree_solver(HostParallelism par) {
    return std::make_unique<HostTreeSolver<T>>(par);
}

template std::unique_ptr<HostForceSolver<float>> make_host_tree_solver<float>(HostParallelism);
template std::unique_ptr<HostForceSolver<double>> make_host_tree_solver<double>(HostParallelism);

}  // namespace nbody
