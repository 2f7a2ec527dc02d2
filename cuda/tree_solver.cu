// The CUDA Barnes-Hut force solver: DeviceForceSolver over cuda/device_tree.hpp (rebuilt every
// evaluation, all on the backend's stream). The GPU tree is float only.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "device_buffer.hpp"
#include "device_force_solver.hpp"
#include "device_tree.hpp"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"

namespace nbody {
namespace {

class DeviceTreeSolver final : public DeviceForceSolver<float> {
  public:
    double device_bytes(std::size_t n) const override { return double(DeviceTree::device_bytes_for(n)); }

    // A tree already sized for at least n bodies is kept (collisions' merges shrink n every few steps:
    // rebuilding it would free and allocate all its buffers each time); a larger n gets a new one.
    void prepare(std::size_t n, double /*max_mass*/) override {
        if (tree_ && n <= reserved_) return;
        tree_.reset();  // free the old buffers before sizing the new ones
        tree_ = std::make_unique<DeviceTree>(n);
        reserved_ = n;
    }

    void accelerations(const Vec4<float>* pos, std::size_t n, const Params& p, Vec4<float>* acc,
                       FailureGate gate, void* stream) override {
        tree().reset_interactions(stream);
        tree().accelerations(pos, n, acc, nullptr, float(p.G), softening2<float>(p), float(p.theta), stream,
                             gate.bad, gate.before);
    }

    void evaluate_at(const Vec4<float>* pos, std::size_t n, const Vec4<float>* targets, std::size_t m,
                     const Params& p, Vec4<float>* acc, float* potential, void* stream) override {
        if (!acc) {  // the tree writes both; a caller that wants only the potential gets a scratch array
            scratch_.resize(m);
            acc = scratch_.data();
        }
        tree().at_points(pos, n, targets, m, acc, potential, float(p.G), softening2<float>(p), float(p.theta),
                         stream);
    }

    std::optional<std::uint64_t> last_interactions(void* stream) override {
        if (!tree_) return std::uint64_t(0);
        return std::uint64_t(tree_->stats(stream).interactions);
    }

  private:
    DeviceTree& tree() {
        if (!tree_) tree_ = std::make_unique<DeviceTree>(0), reserved_ = 0;
        return *tree_;
    }

    std::unique_ptr<DeviceTree> tree_;
    std::size_t reserved_ = 0;  // the bodies tree_ was made for
    DeviceBuffer<Vec4<float>> scratch_;
};

}  // namespace

template <>
std::unique_ptr<DeviceForceSolver<float>> make_device_tree_solver<float>() {
    return std::make_unique<DeviceTreeSolver>();
}

template <>
std::unique_ptr<DeviceForceSolver<double>> make_device_tree_solver<double>() {
    throw Error(
        "the GPU tree is float only: use --precision float with --force tree on the cuda backend "
        "(or a CPU backend for double)");
}

}  // namespace nbody
