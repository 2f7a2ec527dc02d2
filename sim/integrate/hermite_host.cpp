#include "hermite_host.hpp"

#include <algorithm>
#include <cstring>

#include "hermite.hpp"
#include "sim/backend.hpp"

namespace nbody {

template <typename T>
void HostBlockSteps<T>::init(const Params& p) {
    const std::size_t n = bodies_.size();
    params_ = p;
    acc_.assign(n, Vec4<T>{0, 0, 0, 0});
    jerk_.assign(n, Vec4<T>{0, 0, 0, 0});
    xp_ = bodies_.pos_mass;
    vp_ = bodies_.vel;
    t_.assign(n, 0);
    level_.assign(n, 0);
    // Every body is active at the start: its force and jerk at its own position, then its first level.
    active_.resize(n);
    for (std::size_t i = 0; i < n; ++i) active_[i] = i;
    evaluate_active();
    for (std::size_t i = 0; i < n; ++i) {
        acc_[i] = a1_[i];
        jerk_[i] = j1_[i];
        level_[i] = level_for_step(hermite_start_step(p.eta, acc_[i], jerk_[i]), p.dt);
    }
    ++counters_.starts;
    const std::uint64_t mine = n;
    counters_.body_updates += exchange_ ? exchange_->sum_over_slices(mine) : mine;
}

template <typename T>
NextBlock HostBlockSteps<T>::next_block() {
    const std::size_t n = bodies_.size();
    std::int64_t tick = kTicksPerMaxStep;
    for (std::size_t i = 0; i < n; ++i) tick = std::min(tick, t_[i] + level_ticks(level_[i]));
    if (exchange_) tick = exchange_->min_over_slices(tick);
    active_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        if (t_[i] + level_ticks(level_[i]) == tick) active_.push_back(i);
    }
    return {tick, active_.size()};
}

template <typename T>
void HostBlockSteps<T>::predict(std::int64_t tick) {
    const double dt_max = params_->dt;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const T h = static_cast<T>(ticks_to_time(tick - t_[i], dt_max));
        hermite_predict(bodies_.pos_mass[i], bodies_.vel[i], acc_[i], jerk_[i], h, xp_[i], vp_[i]);
    }
}

template <typename T>
void HostBlockSteps<T>::evaluate() {
    evaluate_active();
}

template <typename T>
void HostBlockSteps<T>::evaluate_active() {
    const Params& p = *params_;
    const Vec4<T>* x = xp_.data();
    const Vec4<T>* v = vp_.data();
    std::size_t n = xp_.size(), first = 0;
    if (exchange_) {
        // Every slice's predicted bodies in global order: the same sources, in the same order, as one
        // process holds, so each active body's sum has the bits it has there.
        all_x_.resize(exchange_->total());
        all_v_.resize(exchange_->total());
        exchange_->gather(xp_.data(), xp_.size(), all_x_.data());
        exchange_->gather(vp_.data(), vp_.size(), all_v_.data());
        x = all_x_.data(), v = all_v_.data(), n = all_x_.size(), first = exchange_->first();
    }
    active_global_.resize(active_.size());
    for (std::size_t k = 0; k < active_.size(); ++k) active_global_[k] = first + active_[k];
    a1_.resize(active_.size());
    j1_.resize(active_.size());
    const T eps2 = softening2<T>(p);
    accelerations_jerks_of(x, v, n, active_global_.data(), active_global_.size(), static_cast<T>(p.G), eps2,
                           a1_.data(), j1_.data(), parallel_, scratch_);
}

template <typename T>
void HostBlockSteps<T>::correct(std::int64_t tick) {
    const Params& p = *params_;
    for (std::size_t k = 0; k < active_.size(); ++k) {
        const std::size_t i = active_[k];
        const T h = static_cast<T>(ticks_to_time(tick - t_[i], p.dt));
        const double wanted = hermite_correct(xp_[i], vp_[i], acc_[i], jerk_[i], a1_[k], j1_[k], h, p.eta,
                                              bodies_.pos_mass[i], bodies_.vel[i]);
        acc_[i] = a1_[k];
        jerk_[i] = j1_[k];
        t_[i] = tick;
        level_[i] = next_level(level_[i], level_for_step(wanted, p.dt), tick);
    }
    ++counters_.blocks;
    pending_updates_ += active_.size();
    if (on_move_ && !active_.empty()) on_move_();
}

template <typename T>
void HostBlockSteps<T>::finish_max_step() {
    std::fill(t_.begin(), t_.end(), std::int64_t(0));
    counters_.body_updates += exchange_ ? exchange_->sum_over_slices(pending_updates_) : pending_updates_;
    pending_updates_ = 0;
}

template class HostBlockSteps<float>;
template class HostBlockSteps<double>;

namespace {

bool same_bits(const std::vector<Vec4<double>>& a, const std::vector<Vec4<double>>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
}

template <typename T>
class HostCopyBlockSteps final : public BlockSteps {
  public:
    explicit HostCopyBlockSteps(Backend& backend) : backend_(backend) {}

    bool ready(const Params& p) override {
        HostState s = backend_.get_state();
        t_ = s.t;
        if (have_last_ && engine_.ready(p) && same_bits(s.pos_mass, last_.pos_mass) &&
            same_bits(s.vel, last_.vel))
            return true;
        // Changed from outside (or never seen): restart from these bodies.
        bodies_ = convert_state<T>(s);
        engine_.invalidate();
        have_last_ = false;
        return false;
    }
    void init(const Params& p) override { engine_.init(p); }
    NextBlock next_block() override { return engine_.next_block(); }
    void predict(std::int64_t tick) override { engine_.predict(tick); }
    void evaluate() override { engine_.evaluate(); }
    void correct(std::int64_t tick) override { engine_.correct(tick); }
    void finish_max_step() override {
        engine_.finish_max_step();
        HostState out = convert_state<double>(bodies_);
        out.t = t_;
        backend_.set_state(out);
        last_ = std::move(out);
        have_last_ = true;
    }
    void invalidate() override {
        engine_.invalidate();
        have_last_ = false;
    }
    BlockCounters counters() const override { return engine_.counters(); }
    std::vector<int> levels() const override { return engine_.levels(); }
    bool host_copy() const override { return true; }

  private:
    Backend& backend_;
    State<T> bodies_;
    HostBlockSteps<T> engine_{bodies_, true};
    HostState last_;  // the bodies as put back last (what get_state must still return to go on)
    bool have_last_ = false;
    double t_ = 0;
};

}  // namespace

std::unique_ptr<BlockSteps> make_host_copy_block_steps(Backend& backend) {
    if (backend.precision() == Precision::f32) return std::make_unique<HostCopyBlockSteps<float>>(backend);
    return std::make_unique<HostCopyBlockSteps<double>>(backend);
}

}  // namespace nbody
