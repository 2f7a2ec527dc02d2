#include "cpu_backend.hpp"

#include <algorithm>
#include <map>

#include "sim/collide/resolve.hpp"
#include "sim/gravity/force_solver.hpp"
#include "sim/integrate/hermite_host.hpp"
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

// The O(N) updates run on one thread even for the OpenMP backend: next to the O(N^2) force sum they cost
// nothing, while each extra parallel region costs a scheduler time slice when the cores are shared.
template <typename T>
class CpuBackend final : public Backend {
  public:
    explicit CpuBackend(CpuKind kind) : kind_(kind) {
        // (Also after a block's merges: acc_ follows N.)
        blocks_.set_on_move([this] {
            acc_for_.reset();
            acc_.resize(state_.size());
        });
    }

    std::string name() const override { return kind_ == CpuKind::serial ? "serial" : "openmp"; }
    Precision precision() const override { return precision_of<T>(); }
    std::size_t size() const override { return state_.size(); }
    Residency residency() const override { return Residency::host; }

    void set_state(const HostState& s) override {
        state_ = convert_state<T>(s);
        time_ = s.t;
        acc_.assign(state_.size(), Vec4<T>{0, 0, 0, 0});
        acc_for_.reset();
        blocks_.invalidate();
    }
    HostState get_state() const override {
        HostState s = convert_state<double>(state_);
        s.t = time_;
        return s;
    }

    void kick(double h) override {
        const T ht = static_cast<T>(h);
        for (std::size_t i = 0; i < state_.size(); ++i) {
            auto& v = state_.vel[i];
            v.x += ht * acc_[i].x, v.y += ht * acc_[i].y, v.z += ht * acc_[i].z;
        }
        blocks_.invalidate();
    }
    void drift(double h) override {
        const T ht = static_cast<T>(h);
        for (std::size_t i = 0; i < state_.size(); ++i) {
            auto& x = state_.pos_mass[i];
            const auto& v = state_.vel[i];
            x.x += ht * v.x, x.y += ht * v.y, x.z += ht * v.z;
        }
        acc_for_.reset();
        blocks_.invalidate();
    }
    void update_forces(const Params& p) override {
        if (acc_for_ && same_force_model(*acc_for_, p)) return;
        compute_accelerations(p, acc_.data());
        acc_for_ = p;
        last_solver_ = &solver(p.force);
    }
    void damp(double factor) override {
        const T f = static_cast<T>(factor);
        for (auto& v : state_.vel) v.x *= f, v.y *= f, v.z *= f;
        blocks_.invalidate();
    }
    std::optional<std::size_t> end_step() override {
        const std::size_t bad = first_nonfinite(state_);
        if (bad < state_.size()) {
            acc_for_.reset();
            return bad;
        }
        return std::nullopt;
    }

    CollisionTally collide(const Params& p, double dt, double t_end) override {
        CollisionTally tally = collide_bodies(state_, p, dt, t_end);
        if (!tally.events.empty()) {
            acc_.resize(state_.size());
            acc_for_.reset();
            blocks_.invalidate();
        }
        return tally;
    }

    std::vector<Vec4<double>> accelerations(const Params& p) override {
        std::vector<Vec4<T>> acc(state_.size());
        compute_accelerations(p, acc.data());
        last_solver_ = &solver(p.force);
        return widen(acc);
    }

    std::vector<Vec4<double>> accelerations_of(const Params& p,
                                               const std::vector<std::size_t>& bodies) override {
        update_forces(p);
        std::vector<Vec4<double>> out(bodies.size());
        for (std::size_t k = 0; k < bodies.size(); ++k) {
            const Vec4<T>& a = acc_[bodies[k]];
            out[k] = {a.x, a.y, a.z, 0};
        }
        return out;
    }

    std::optional<std::uint64_t> last_force_interactions() const override {
        return last_solver_ ? last_solver_->last_interactions() : std::nullopt;
    }

    FieldSample field_at(const Params& p, const std::vector<Vec4<double>>& points,
                         bool with_potential) override {
        std::vector<Vec4<T>> targets(points.size()), acc(points.size());
        std::transform(points.begin(), points.end(), targets.begin(), [](const Vec4<double>& q) {
            return Vec4<T>{T(q.x), T(q.y), T(q.z), T(0)};
        });
        std::vector<T> pot(with_potential ? points.size() : 0);
        solver(p.force).evaluate_at(state_.pos_mass.data(), state_.size(), targets.data(), targets.size(), p,
                                    acc.data(), with_potential ? pot.data() : nullptr);
        FieldSample out;
        out.acc = widen(acc);
        out.potential.assign(pot.begin(), pot.end());
        return out;
    }

    Diagnostics diagnostics(const Params& p, bool with_potential) override {
        if (!exchange_) return compute_diagnostics(state_, p, with_potential);
        Diagnostics d = compute_diagnostics(state_, p, false);
        if (with_potential) {
            gather_sources();
            d.potential = potential_of_slice(sources_.data(), sources_.size(), exchange_->first(), size(), p);
            d.has_potential = true;
        }
        return d;
    }

    bool set_source_exchange(std::shared_ptr<SourceExchange> exchange) override {
        exchange_ = std::move(exchange);
        acc_for_.reset();
        blocks_.set_exchange(exchange_.get());
        return true;
    }

    // The block time steps on this backend's own state (and, in a distributed run, its slice of it).
    BlockSteps* block_steps() override { return &blocks_; }
    void synchronize() override { blocks_.invalidate(); }

    BodyValues body(std::size_t i) const override {
        const Vec4<T>& x = state_.pos_mass.at(i);
        const Vec4<T>& v = state_.vel.at(i);
        return {{x.x, x.y, x.z, x.w}, {v.x, v.y, v.z, v.w}};
    }

    void copy_accelerations(const Params& p, Vec4<float>* out) override {
        update_forces(p);
        to_float4(acc_, out);
    }

    void copy_positions(Vec4<float>* out) const override { to_float4(state_.pos_mass, out); }
    void copy_velocities(Vec4<float>* out) const override { to_float4(state_.vel, out); }

  private:
    // The forces on this backend's bodies: from themselves, or from every slice's bodies in a
    // distributed run.
    void compute_accelerations(const Params& p, Vec4<T>* acc) {
        if (!exchange_) {
            solver(p.force).accelerations(state_.pos_mass.data(), state_.size(), p, acc);
            return;
        }
        gather_sources();
        solver(p.force).accelerations_slice(sources_.data(), sources_.size(), exchange_->first(), size(), p,
                                            acc);
    }

    void gather_sources() {
        sources_.resize(exchange_->total());
        exchange_->gather(state_.pos_mass.data(), state_.size(), sources_.data());
    }

    // One solver per algorithm, made when first asked for (it keeps its scratch memory between steps).
    HostForceSolver<T>& solver(ForceAlgorithm a) {
        auto& s = solvers_[a];
        if (!s) {
            s = make_host_force_solver<T>(
                a, kind_ == CpuKind::serial ? HostParallelism::serial : HostParallelism::openmp);
        }
        return *s;
    }

    static void to_float4(const std::vector<Vec4<T>>& in, Vec4<float>* out) {
        for (std::size_t i = 0; i < in.size(); ++i) {
            out[i] = {float(in[i].x), float(in[i].y), float(in[i].z), float(in[i].w)};
        }
    }

    CpuKind kind_;
    State<T> state_;
    std::vector<Vec4<T>> acc_;
    std::optional<Params> acc_for_;  // the parameters acc_ was computed with; empty: stale
    std::map<ForceAlgorithm, std::unique_ptr<HostForceSolver<T>>> solvers_;
    const HostForceSolver<T>* last_solver_ = nullptr;
    std::shared_ptr<SourceExchange> exchange_;  // set: a distributed run's slice
    std::vector<Vec4<T>> sources_;  // every slice's bodies, gathered for one evaluation  // the one that
                                    // filled acc_ or accelerations() last
    HostBlockSteps<T> blocks_{state_, kind_ == CpuKind::openmp};  // an adaptive integrator's state
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(CpuKind kind, Precision p) {
    if (p == Precision::f32) return std::make_unique<CpuBackend<float>>(kind);
    return std::make_unique<CpuBackend<double>>(kind);
}

}  // namespace nbody
