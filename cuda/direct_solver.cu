// The CUDA direct-sum force solver: the launch shape resolved per N, its scratch, the self-term guard.
#include <cmath>

#include "device_buffer.hpp"
#include "device_force_solver.hpp"
#include "field_kernel.hpp"
#include "force_kernels.hpp"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"

namespace nbody {
namespace {

// From here on the tuned kernel has 256 or more blocks of 512 (float) targets: two per SM of an H100/H200.
constexpr std::size_t kTunedTargetsFrom = 131072;

template <typename T>
class DeviceDirectSolver final : public DeviceForceSolver<T> {
  public:
    explicit DeviceDirectSolver(const ForceLaunch& requested) : requested_(requested) {}

    double device_bytes(std::size_t n) const override {
        return double(force_scratch_count(resolve_force_launch(requested_, n, precision_of<T>()), n)) *
               sizeof(Vec4<T>);
    }

    void prepare(std::size_t n, double max_mass) override {
        launch_ = resolve_force_launch(requested_, n, precision_of<T>());
        // Grown only: a merge shrinks n by a few bodies, and reallocating every time costs more than the
        // step.
        const std::size_t need = force_scratch_count(launch_, n);
        if (scratch_.size() < need) scratch_.resize(need);
        prepared_n_ = n;
        max_mass_ = max_mass;
    }

    void accelerations(const Vec4<T>* pos, std::size_t n, const Params& p, Vec4<T>* acc, FailureGate gate,
                       void* stream) override {
        const double eps2 = softening2<double>(p);
        launch_forces<T>(launch_, pos, acc, scratch_.data(), n, T(p.G), softening2<T>(p),
                         force_needs_guard(eps2, max_mass_, precision_of<T>()), gate.bad, gate.before,
                         stream);
    }

    // The pairwise grid's passes shared out (force_kernels.hpp); the other kernels evaluate each body's
    // sum whole, so a process's own bodies against all (evaluate_at) is their split. The kernel comes from
    // the table (N and precision alone), so every process answers alike.
    bool can_share(std::size_t n) const override {
        return launch_.kernel == ForceKernel::pairwise_grid && n == prepared_n_;
    }

    void accelerations_share(const Vec4<T>* pos, std::size_t n, const Params& p, double max_mass, int share,
                             int shares, Vec4<T>* acc, void* stream) override {
        if (!can_share(n)) throw Error("direct solver: this launch cannot share out its work");
        // The shares' bands are cut alike on every device, so their scratch may differ from the
        // single-process one (the bands are usually smaller).
        const std::size_t need = pairwise_share_scratch_count(launch_, n, shares, precision_of<T>());
        if (scratch_.size() < need) scratch_.resize(need);
        const double eps2 = softening2<double>(p);
        launch_pairwise_forces_share<T>(launch_, pos, acc, scratch_.data(), n, T(p.G), softening2<T>(p),
                                        force_needs_guard(eps2, max_mass, precision_of<T>()), share, shares,
                                        stream);
    }

    void evaluate_at(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m,
                     const Params& p, Vec4<T>* acc, T* potential, void* stream) override {
        const T eps2 = softening2<T>(p);
        // Accelerations alone at many targets (a rank's slice under MPI) take the tuned tiled kernel;
        // potentials, or few targets (a pick, a view's grid), the field kernel, which splits the sources.
        if (potential == nullptr && m >= kTunedTargetsFrom) {
            launch_forces_at_targets<T>(pos, n, targets, m, acc, T(p.G), eps2, stream);
        } else {
            launch_field<T>(pos, n, targets, m, T(p.G), eps2, acc, potential, stream);
        }
    }

  private:
    ForceLaunch requested_, launch_;
    DeviceBuffer<Vec4<T>> scratch_;
    double max_mass_ = 0;
    std::size_t prepared_n_ = 0;  // the n launch_ and scratch_ are for
};

}  // namespace

template <typename T>
std::unique_ptr<DeviceForceSolver<T>> make_device_direct_solver(const ForceLaunch& launch) {
    return std::make_unique<DeviceDirectSolver<T>>(launch);
}

template std::unique_ptr<DeviceForceSolver<float>> make_device_direct_solver<float>(const ForceLaunch&);
template std::unique_ptr<DeviceForceSolver<double>> make_device_direct_solver<double>(const ForceLaunch&);

}  // namespace nbody
