#include "hermite_host.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "hermite.hpp"
#include "neighbour_scheme.hpp"
#include "sim/backend.hpp"
#include "sim/collide/contact.hpp"
#include "sim/collide/resolve.hpp"
#include "sim/error.hpp"

namespace nbody {

template <typename T>
void HostBlockSteps<T>::init(const Params& p) {
    const std::size_t n = bodies_.size();
    params_ = p;
    stalled_here_.reset();
    stalled_.reset();
    max_step_blocks_ = 0;
    tally_ = {};
    acc_.assign(n, Vec4<T>{0, 0, 0, 0});
    jerk_.assign(n, Vec4<T>{0, 0, 0, 0});
    xp_ = bodies_.pos_mass;
    vp_ = bodies_.vel;
    t_.assign(n, 0);
    level_.assign(n, 0);
    last_h_.assign(n, 0.0);
    start_index_.resize(n);
    for (std::size_t i = 0; i < n; ++i) start_index_[i] = i;
    // Every body is active at the start: its force and jerk at its own position, then its first level.
    active_.resize(n);
    for (std::size_t i = 0; i < n; ++i) active_[i] = i;
    if (p.neighbours > 0 && exchange_)
        throw Error(
            "the neighbour scheme (--neighbours) does not run distributed: use --neighbours 0 under "
            "mpirun");
    evaluate_active();
    nb_.k = 0;
    if (p.neighbours > 0) {
        start_neighbours(p);
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            acc_[i] = a1_[i];
            jerk_[i] = j1_[i];
            level_[i] = level_for_step(hermite_start_step(p.eta, vp_[i], acc_[i], jerk_[i]), p.dt);
        }
    }
    ++counters_.starts;
    const std::uint64_t mine = n;
    counters_.body_updates += exchange_ ? exchange_->sum_over_slices(mine) : mine;
}

template <typename T>
bool HostBlockSteps<T>::change_max_step(const Params& p) {
    // A stalled max step left the bodies mid-way (their clocks apart): only a restart goes on from there.
    if (!params_ || stalled_ || max_step_blocks_ != 0 || !same_block_model_but_dt(*params_, p)) return false;
    const int shift = max_step_level_shift(params_->dt, p.dt);
    for (int& l : level_) l = shifted_level(l, shift);
    for (int& l : nb_.regular_level) l = shifted_level(l, shift);  // the irregular stays no coarser
    params_ = p;
    return true;
}

template <typename T>
NextBlock HostBlockSteps<T>::next_block() {
    const std::size_t n = bodies_.size();
    std::int64_t tick = kTicksPerMaxStep;
    for (std::size_t i = 0; i < n; ++i) tick = std::min(tick, t_[i] + level_ticks(level_[i]));
    // A stall on any slice stops every slice here: it rides the block time's reduction as its body's
    // index below every tick (ticks are at most 2^40), the lowest such body winning.
    constexpr std::int64_t kStallBelow = std::int64_t(1) << 62;
    if (exchange_) {
        tick = exchange_->min_over_slices(stalled_here_ ? std::int64_t(*stalled_here_) - kStallBelow : tick);
        if (tick < 0) stalled_ = std::size_t(tick + kStallBelow);
    } else {
        stalled_ = stalled_here_;
    }
    active_.clear();
    if (stalled_) {
        // The max step ends here, not in finish_max_step: its blocks' updates counted now, as its blocks
        // were (every slice comes here together, having agreed on the stall).
        counters_.body_updates += exchange_ ? exchange_->sum_over_slices(pending_updates_) : pending_updates_;
        pending_updates_ = 0;
        return {kTicksPerMaxStep, 0};
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (t_[i] + level_ticks(level_[i]) == tick) active_.push_back(i);
    }
    if (nb_.k > 0) {
        nb_.regular.clear();
        nb_.regular_slot.assign(active_.size(), -1);
        for (std::size_t k = 0; k < active_.size(); ++k) {
            const std::size_t i = active_[k];
            if (!regular_due(tick, nb_.t_regular[i], nb_.regular_level[i])) continue;
            nb_.regular_slot[k] = std::int32_t(nb_.regular.size());
            nb_.regular.push_back(i);
        }
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
    if (nb_.k > 0) {
        evaluate_neighbours();
    } else {
        evaluate_active();
    }
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
    if (nb_.k > 0) {
        correct_neighbours(tick);
        return;
    }
    const Params& p = *params_;
    ++max_step_blocks_;  // this block counted, as the device's clock counts it before its corrections
    for (std::size_t k = 0; k < active_.size(); ++k) {
        const std::size_t i = active_[k];
        const T h = static_cast<T>(ticks_to_time(tick - t_[i], p.dt));
        const double wanted = hermite_correct(xp_[i], vp_[i], acc_[i], jerk_[i], a1_[k], j1_[k], h, p.eta,
                                              bodies_.pos_mass[i], bodies_.vel[i]);
        acc_[i] = a1_[k];
        jerk_[i] = j1_[k];
        note_stall(i,
                   judging() && block_step_stalls(bodies_.pos_mass[i], bodies_.vel[i], acc_[i], wanted, p.dt),
                   tick);
        t_[i] = tick;
        level_[i] = next_level(level_[i], level_for_step(wanted, p.dt), tick);
        if (!last_h_.empty()) last_h_[i] = double(h);
    }
    ++counters_.blocks;
    pending_updates_ += active_.size();
    if (on_move_ && !active_.empty()) on_move_();
}

template <typename T>
void HostBlockSteps<T>::collide(const Params& p, std::int64_t tick) {
    const std::size_t n = bodies_.size();
    if (n < 2 || p.collisions == CollisionMode::off) return;
    // Every body at the block time in xp_/vp_: the active ones as corrected (the next block predicts all
    // of them again), the others as predicted.
    std::vector<char> active(n, 0);
    for (const std::size_t i : active_) {
        active[i] = 1;
        xp_[i] = bodies_.pos_mass[i];
        vp_[i] = bodies_.vel[i];
    }
    // Each active body against all (a pair of active bodies once, from the lower index), over the active
    // body's last step (the shorter of the two where both are active): O(active x N), as the force.
    struct Found {
        Contact c;
        double h;
    };
    std::vector<Found> found;
    for (const std::size_t i : active_) {
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i || (active[j] && j < i)) continue;
            const double h = active[j] ? std::min(last_h_[i], last_h_[j]) : last_h_[i];
            const std::size_t lo = std::min(i, j), hi = std::max(i, j);
            const Vec4<T>&xl = xp_[lo], &xh = xp_[hi], &vl = vp_[lo], &vh = vp_[hi];
            const double s = swept_contact_time(double(xl.x) - double(xh.x), double(xl.y) - double(xh.y),
                                                double(xl.z) - double(xh.z), double(vl.x) - double(vh.x),
                                                double(vl.y) - double(vh.y), double(vl.z) - double(vh.z),
                                                double(vl.w) + double(vh.w), h);
            if (s >= 0) found.push_back({{lo, hi, s}, h});
        }
    }
    if (found.empty()) return;
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.c < b.c; });

    // Each pair resolved by the shared code on a two-body copy at the block time, a body once per block.
    const double t_block = t_start_ + ticks_to_time(tick, params_->dt);
    std::vector<char> touched(n, 0), removed(n, 0);
    for (const Found& f : found) {
        const std::size_t i = f.c.i, j = f.c.j;
        if (touched[i] || touched[j]) continue;
        State<T> pair;
        pair.pos_mass = {xp_[i], xp_[j]};
        pair.vel = {vp_[i], vp_[j]};
        std::vector<char> gone;
        CollisionTally t = resolve_contacts_in_place(pair, {Contact{0, 1, f.c.s}}, p, f.h, t_block, gone);
        if (t.events.empty()) continue;
        touched[i] = touched[j] = 1;
        for (std::size_t k : {std::size_t(0), std::size_t(1)}) {
            const std::size_t b = k == 0 ? i : j;
            bodies_.pos_mass[b] = xp_[b] = pair.pos_mass[k];
            bodies_.vel[b] = vp_[b] = pair.vel[k];
            t_[b] = tick;
            if (gone[k]) removed[b] = 1;
        }
        for (CollisionEvent& e : t.events) e.i = start_index_[i], e.j = start_index_[j];
        tally_.add(t);
    }

    // The merged-away bodies leave every per-body array, keeping the order.
    std::size_t w = 0;
    std::vector<std::size_t> restart;
    for (std::size_t k = 0; k < n; ++k) {
        if (removed[k]) continue;
        bodies_.pos_mass[w] = bodies_.pos_mass[k], bodies_.vel[w] = bodies_.vel[k];
        acc_[w] = acc_[k], jerk_[w] = jerk_[k], xp_[w] = xp_[k], vp_[w] = vp_[k];
        t_[w] = t_[k], level_[w] = level_[k], last_h_[w] = last_h_[k], start_index_[w] = start_index_[k];
        if (touched[k]) restart.push_back(w);
        ++w;
    }
    for (auto* a : {&bodies_.pos_mass, &bodies_.vel, &acc_, &jerk_, &xp_, &vp_}) a->resize(w);
    t_.resize(w), level_.resize(w), last_h_.resize(w), start_index_.resize(w);

    // The bodies touched start again at the block time, as at init: force and jerk against every body
    // there, a start level, made fine enough that the block time lies on its grid.
    active_ = restart;
    evaluate_active();
    for (std::size_t k = 0; k < restart.size(); ++k) {
        const std::size_t b = restart[k];
        acc_[b] = a1_[k];
        jerk_[b] = j1_[k];
        int level = level_for_step(hermite_start_step(p.eta, bodies_.vel[b], acc_[b], jerk_[b]), p.dt);
        while (level < kMaxBlockLevel && tick % level_ticks(level) != 0) ++level;
        level_[b] = level;
        last_h_[b] = 0;
    }
    pending_updates_ += restart.size();
    if (on_move_) on_move_();
}

template <typename T>
void HostBlockSteps<T>::note_stall(std::size_t i, bool stalled, std::int64_t tick) {
    // Its index at the start of the max step: a collision in an earlier block may have moved it since.
    if (stalled && !stalled_here_ && tick != kTicksPerMaxStep)
        stalled_here_ = (exchange_ ? exchange_->first() : 0) + start_index_[i];
}

template <typename T>
std::optional<BlockState> HostBlockSteps<T>::export_state() {
    // Every slice agrees on all three (init, the blocks and a stall are collective), so all gather or none.
    if (!params_ || stalled_ || max_step_blocks_ != 0) return std::nullopt;
    BlockState s;
    s.model = *params_;
    s.precision = precision_of<T>();
    if (exchange_) {
        // Each slice's part in global order; the levels ride as the x of a vector (exact: at most 40).
        const std::size_t total = exchange_->total(), n = bodies_.size();
        std::vector<Vec4<T>> mine(n), all(total);
        for (std::size_t i = 0; i < n; ++i) mine[i] = {static_cast<T>(level_[i]), T(0), T(0), T(0)};
        exchange_->gather(mine.data(), n, all.data());
        s.level.resize(total);
        for (std::size_t i = 0; i < total; ++i) s.level[i] = int(all[i].x);
        exchange_->gather(acc_.data(), n, all.data());
        s.acc = widened(all);
        exchange_->gather(jerk_.data(), n, all.data());
        s.jerk = widened(all);
        return s;
    }
    s.level = level_;
    s.acc = widened(acc_);
    s.jerk = widened(jerk_);
    if (nb_.k > 0) {
        s.irregular_acc = widened(nb_.ai), s.irregular_jerk = widened(nb_.ji);
        s.regular_acc = widened(nb_.ar), s.regular_jerk = widened(nb_.jr);
        s.regular_snap = widened(nb_.d2), s.regular_crackle = widened(nb_.d3);
        s.regular_level = nb_.regular_level;
        s.radius = nb_.radius;
        s.listed = nb_.listed;
        s.lists = used_lists(nb_.list, nb_.listed, std::size_t(nb_.capacity));
    }
    return s;
}

template <typename T>
bool HostBlockSteps<T>::import_state(const BlockState& s) {
    const std::size_t n = bodies_.size();
    const std::size_t total = exchange_ ? exchange_->total() : n;
    const std::size_t first = exchange_ ? exchange_->first() : 0;
    invalidate();  // refused or taken, nothing of the old state is left
    if (s.precision != precision_of<T>() || s.size() != total || (exchange_ && s.has_neighbours()) ||
        !block_state_problem(s, total).empty())
        return false;
    // As init leaves it, but for the levels, forces and jerks (and the neighbour scheme's state) taken.
    max_step_blocks_ = 0;
    acc_ = narrowed<T>(s.acc, first, n);
    jerk_ = narrowed<T>(s.jerk, first, n);
    level_.assign(s.level.begin() + std::ptrdiff_t(first), s.level.begin() + std::ptrdiff_t(first + n));
    xp_ = bodies_.pos_mass;
    vp_ = bodies_.vel;
    t_.assign(n, 0);
    last_h_.assign(n, 0.0);
    start_index_.resize(n);
    for (std::size_t i = 0; i < n; ++i) start_index_[i] = i;
    nb_ = Neighbours{};
    if (s.has_neighbours()) {
        nb_.k = int(std::lround(s.model.neighbours));
        nb_.capacity = neighbour_capacity(nb_.k);
        nb_.ai = narrowed<T>(s.irregular_acc, 0, n), nb_.ji = narrowed<T>(s.irregular_jerk, 0, n);
        nb_.ar = narrowed<T>(s.regular_acc, 0, n), nb_.jr = narrowed<T>(s.regular_jerk, 0, n);
        nb_.d2 = narrowed<T>(s.regular_snap, 0, n), nb_.d3 = narrowed<T>(s.regular_crackle, 0, n);
        nb_.t_regular.assign(n, 0);
        nb_.regular_level = s.regular_level;
        nb_.radius = s.radius;
        nb_.listed = s.listed;
        nb_.list = s.lists;
    }
    params_ = s.model;
    return true;
}

template <typename T>
void HostBlockSteps<T>::finish_max_step() {
    max_step_blocks_ = 0;
    std::fill(t_.begin(), t_.end(), std::int64_t(0));
    std::fill(nb_.t_regular.begin(), nb_.t_regular.end(), std::int64_t(0));
    for (std::size_t i = 0; i < start_index_.size(); ++i) start_index_[i] = i;
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
        // Another max step (dt) goes on from the kept state too, where the bodies are still the ones put
        // back (change_max_step: asked here, before a restart drops that state).
        if (have_last_ && same_bits(s.pos_mass, last_.pos_mass) && same_bits(s.vel, last_.vel) &&
            (engine_.ready(p) || engine_.change_max_step(p)))
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
    bool resolves_collisions() const override { return engine_.resolves_collisions(); }
    // A stalled max step puts nothing back: the backend keeps its bodies as the max step began.
    std::optional<std::size_t> stalled_body() const override { return engine_.stalled_body(); }
    void begin_max_step(double t) override { engine_.begin_max_step(t); }
    void collide(const Params& p, std::int64_t tick) override { engine_.collide(p, tick); }
    CollisionTally take_collisions() override { return engine_.take_collisions(); }
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
    // Only while the backend still holds the bodies put back last (ready() would go on from the state).
    std::optional<BlockState> export_state() override {
        if (!have_last_) return std::nullopt;
        const HostState s = backend_.get_state();
        if (!same_bits(s.pos_mass, last_.pos_mass) || !same_bits(s.vel, last_.vel)) return std::nullopt;
        return engine_.export_state();
    }
    // The backend's bodies as they are now become the ones put back last.
    bool import_state(const BlockState& state) override {
        HostState s = backend_.get_state();
        bodies_ = convert_state<T>(s);
        t_ = s.t;
        have_last_ = engine_.import_state(state);
        if (have_last_) last_ = std::move(s);
        return have_last_;
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
