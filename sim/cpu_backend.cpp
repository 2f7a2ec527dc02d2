#include "cpu_backend.hpp"

#include <algorithm>
#include <limits>

#include "integrator.hpp"
#include "kernels_cpu.hpp"
#include "validate.hpp"

namespace nbody {
namespace {

// Lowest index of a body with a non-finite position or velocity, or n if all are finite. O(N), next to
// an O(N^2) step, so it runs after every step.
template <typename T>
std::size_t first_nonfinite(const State<T>& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto& x = s.pos_mass[i];
        const auto& v = s.vel[i];
        const bool ok = is_finite_bits(x.x) && is_finite_bits(x.y) && is_finite_bits(x.z) &&
                        is_finite_bits(v.x) && is_finite_bits(v.y) && is_finite_bits(v.z);
        if (!ok) return i;
    }
    return s.size();
}

template <typename T>
class CpuBackend final : public Backend {
public:
    explicit CpuBackend(CpuKind kind) : kind_(kind) {}

    std::string name() const override { return kind_ == CpuKind::serial ? "serial" : "openmp"; }
    Precision precision() const override { return precision_of<T>(); }
    std::size_t size() const override { return state_.size(); }

    void set_state(const HostState& s) override {
        state_ = convert_state<T>(s);
        cache_.valid = false;
    }
    HostState get_state() const override { return convert_state<double>(state_); }

    StepReport step(const Params& p, std::int64_t steps) override {
        StepReport r;
        for (std::int64_t k = 0; k < steps; ++k) {
            integrate_step(state_, cache_, p,
                           [&](const Vec4<T>* pm, Vec4<T>* acc) { compute_forces(p, pm, acc); });
            ++r.steps_done;
            const std::size_t bad = first_nonfinite(state_);
            if (bad < state_.size()) {
                r.finite = false, r.bad_step = k + 1, r.bad_body = bad;
                break;
            }
        }
        return r;
    }

    std::vector<Vec4<double>> accelerations(const Params& p) override {
        std::vector<Vec4<T>> acc(state_.size());
        compute_forces(p, state_.pos_mass.data(), acc.data());
        std::vector<Vec4<double>> out(acc.size());
        std::transform(acc.begin(), acc.end(), out.begin(),
                       [](const Vec4<T>& a) { return Vec4<double>{a.x, a.y, a.z, 0}; });
        return out;
    }

    Diagnostics diagnostics(const Params& p, bool with_potential) override {
        return compute_diagnostics(state_, p, with_potential);
    }

    void copy_positions(Vec4<float>* out) const override { to_float4(state_.pos_mass, out); }
    void copy_velocities(Vec4<float>* out) const override { to_float4(state_.vel, out); }

private:
    void compute_forces(const Params& p, const Vec4<T>* pm, Vec4<T>* acc) {
        const T G = static_cast<T>(p.G);
        const T eps2 = static_cast<T>(p.softening * p.softening);
        if (kind_ == CpuKind::serial) {
            accelerations_pairwise(pm, acc, state_.size(), G, eps2, scratch_);
        } else {
            accelerations_rows(pm, acc, state_.size(), G, eps2, scratch_);
        }
    }

    static void to_float4(const std::vector<Vec4<T>>& in, Vec4<float>* out) {
        for (std::size_t i = 0; i < in.size(); ++i) {
            out[i] = {float(in[i].x), float(in[i].y), float(in[i].z), float(in[i].w)};
        }
    }

    CpuKind kind_;
    State<T> state_;
    AccelCache<T> cache_;
    ForceScratch<T> scratch_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(CpuKind kind, Precision p) {
    if (p == Precision::f32) return std::make_unique<CpuBackend<float>>(kind);
    return std::make_unique<CpuBackend<double>>(kind);
}

}  // namespace nbody
