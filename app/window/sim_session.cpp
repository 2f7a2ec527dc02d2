#include "sim_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <utility>

#include "backends/registry.hpp"
#include "sim/collide/radius.hpp"
#include "sim/error.hpp"
#include "sim/gravity/backend_force_error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/local_density.hpp"
#include "sim/platform/memory.hpp"
#include "sim/potential_estimate.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

constexpr double kStatsWindow = 0.5;
constexpr double kMinCheckpointInterval = 0.5;

std::string what_of(const std::exception& e) {
    return dynamic_cast<const std::bad_alloc*>(&e) ? std::string("out of memory") : std::string(e.what());
}

}  // namespace

SimSession::SimSession(const HostState& s, const Params& p, const std::string& backend, Precision precision)
    : params_(p) {
    check_host_memory(s.size(), precision);
    backend_ = create_backend(backend, precision);
    backend_->set_state(s);
    radii_checked_ = false;
    gpu_ = backend_->residency() == Residency::device;
    checkpoint_ = s;
    start();
}

SimSession::SimSession(std::unique_ptr<Backend> backend, const HostState& s, const Params& p,
                       bool draw_from_backend, const SessionTuning& tuning)
    : tuning_(tuning), backend_(std::move(backend)), draw_from_backend_by_residency_(false), params_(p) {
    gpu_ = draw_from_backend;
    checkpoint_ = s;
    start();
}

void SimSession::start() {
    backend_->set_interrupt(&quitting_);
    backend_->set_progress(&max_step_progress_);
    diagnostics_locked(true);
    last_ckpt_wall_ = now_s();
    stats_.sim_time = checkpoint_.t;
    publish_locked();
    window_start_ = last_draw_wall_ = now_s();
    thread_ = std::thread([this] { run(); });
}

SimSession::~SimSession() {
    quitting_.store(true);  // a hermite max step under way stops at its next block
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    {
        std::lock_guard<std::mutex> s(snap_mutex_);
        stopping_ = true;
    }
    drawn_.notify_all();
    // A fixed step cannot be interrupted: quitting during a long one (a 1M-body GPU step, ~0.5 s) still
    // waits for it to end; a hermite max step stops at its next block (quitting_). Requests still queued
    // are dropped.
    if (thread_.joinable()) thread_.join();
}

void SimSession::set_params(const Params& p) {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    // G and softening change what "energy" means: measure drift from the new definition.
    if (p.G != params_.G || p.softening != params_.softening) params_changed_energy_ = true;
    if (p.collisions != params_.collisions || p.density != params_.density) radii_checked_ = false;
    params_ = p;
}

void SimSession::set_paused(bool paused) {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        paused_ = paused;
        stats_.steps_per_s = paused ? 0 : stats_.steps_per_s;
        restart_rate_window_locked();
    }
    wake_.notify_all();
    steps_done_.notify_all();  // a recording waiting for its frame's steps goes on
}

void SimSession::request_steps(int k) {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        step_budget_ += std::max(0, k);
    }
    wake_.notify_all();
}

void SimSession::wait_for_steps() {
    std::unique_lock<std::mutex> lk(ctl_mutex_);
    steps_done_.wait(lk, [&] { return quit_ || step_budget_ == 0; });
}

namespace {

// Waits for a field request's answer; a request dropped by a stopping session reads as an error.
std::vector<double> wait_for_answer(std::future<std::vector<double>>& f) {
    try {
        return f.get();
    } catch (const std::future_error&) {
        throw Error("the simulation stopped before the potential was evaluated");
    }
}

}  // namespace

std::vector<double> SimSession::potentials_at(const std::vector<Vec4<double>>& targets) {
    if (targets.empty()) return {};
    Request r;
    r.points = targets;
    r.answer = std::make_shared<std::promise<std::vector<double>>>();
    std::future<std::vector<double>> f = r.answer->get_future();
    enqueue(std::move(r));
    return wait_for_answer(f);
}

std::optional<double> SimSession::body_potential_energy(std::size_t i) {
    Request r;
    r.body = i;
    r.answer = std::make_shared<std::promise<std::vector<double>>>();
    std::future<std::vector<double>> f = r.answer->get_future();
    enqueue(std::move(r));
    std::vector<double> e = wait_for_answer(f);
    if (e.empty()) return std::nullopt;
    return e.front();
}

std::vector<double> SimSession::body_densities() {
    Request r;
    r.densities = true;
    r.answer = std::make_shared<std::promise<std::vector<double>>>();
    std::future<std::vector<double>> f = r.answer->get_future();
    enqueue(std::move(r));
    return wait_for_answer(f);
}

std::vector<double> SimSession::body_potentials() {
    Request r;
    r.all_bodies = true;
    r.answer = std::make_shared<std::promise<std::vector<double>>>();
    std::future<std::vector<double>> f = r.answer->get_future();
    enqueue(std::move(r));
    return wait_for_answer(f);
}

void SimSession::set_draw_accelerations(bool on) {
    if (want_acc_.exchange(on) == on || !on) return;
    // The snapshot has none yet: publish again between steps (also while paused).
    Request r;
    r.republish = true;
    enqueue(std::move(r));
}

Params SimSession::params() const {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    return params_;
}

void SimSession::set_steps_per_frame(int k) {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    steps_per_frame_ = std::max(1, k);
}

void SimSession::wait_for_frame_steps() {
    std::unique_lock<std::mutex> lk(ctl_mutex_);
    steps_done_.wait(lk, [&] { return quit_ || paused_ || granted_ == 0; });
}

void SimSession::frame_tick() {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        // No backlog: a slow simulation just runs continuously, it does not owe frames.
        granted_ = steps_per_frame_;
    }
    wake_.notify_all();
}

std::uint64_t SimSession::enqueue(Request r) {
    std::uint64_t id;
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        id = r.id = next_id_++;
        requests_.push_back(std::move(r));
    }
    wake_.notify_all();
    return id;
}

void SimSession::set_timeline(std::int64_t every, std::size_t budget_bytes) {
    std::lock_guard<std::mutex> lk(timeline_mutex_);
    timeline_every_ = budget_bytes > 0 ? std::max<std::int64_t>(1, every) : 0;
    timeline_.set_budget(budget_bytes);
    if (budget_bytes == 0) timeline_.clear();
}

StateTimeline SimSession::timeline() const {
    std::lock_guard<std::mutex> lk(timeline_mutex_);
    return timeline_;
}

std::uint64_t SimSession::resume_from_timeline(std::size_t i) {
    Request r;
    r.kind = SessionResult::Kind::load;
    {
        std::lock_guard<std::mutex> lk(timeline_mutex_);
        if (i >= timeline_.size()) return 0;
        r.kept = timeline_.at(i).state;  // restored where it is kept: on the device for cuda
        r.step = timeline_.at(i).step;
    }
    r.resume_entry = i;
    return enqueue(std::move(r));
}

std::uint64_t SimSession::load_state(HostState s, std::int64_t step, std::optional<Params> params,
                                     std::optional<BlockState> block) {
    Request r;
    r.params = std::move(params);
    if (r.params) r.block = std::move(block);
    r.kind = SessionResult::Kind::load;
    r.state = std::move(s);
    r.step = step;
    return enqueue(std::move(r));
}

std::uint64_t SimSession::switch_backend(const std::string& name, Precision precision) {
    Request r;
    r.kind = SessionResult::Kind::switch_backend;
    r.name = name;
    r.precision = precision;
    return enqueue(std::move(r));
}

std::uint64_t SimSession::capture_state() {
    Request r;
    r.kind = SessionResult::Kind::capture;
    return enqueue(std::move(r));
}

std::uint64_t SimSession::reverse() {
    Request r;
    r.kind = SessionResult::Kind::reverse;
    return enqueue(std::move(r));
}

std::uint64_t SimSession::add_body(const Vec4<double>& pos_mass, const Vec4<double>& vel) {
    Request r;
    r.kind = SessionResult::Kind::add_body;
    r.state.pos_mass.push_back(pos_mass);
    r.state.vel.push_back(vel);
    return enqueue(std::move(r));
}

std::vector<SessionResult> SimSession::take_results() {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    std::vector<SessionResult> out;
    out.swap(results_);
    return out;
}

int SimSession::pending_requests() const {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    return int(requests_.size()) + (applying_ ? 1 : 0);
}

void SimSession::wait_for_requests() {
    std::unique_lock<std::mutex> lk(ctl_mutex_);
    requests_done_.wait(lk, [&] { return quit_ || (requests_.empty() && !applying_); });
}

void SimSession::run() {
    for (;;) {
        Request req;
        bool have_request = false;
        {
            std::unique_lock<std::mutex> lk(ctl_mutex_);
            wake_.wait(lk, [&] {
                return quit_ || !requests_.empty() || step_budget_ > 0 || (!paused_ && granted_ > 0);
            });
            if (quit_) {
                requests_.clear();
                requests_done_.notify_all();
                steps_done_.notify_all();
                return;
            }
            if (!requests_.empty()) {
                req = std::move(requests_.front());
                requests_.pop_front();
                applying_ = true;
                have_request = true;
            }
        }
        if (have_request && (req.answer || req.republish)) {
            apply_field(req);
            {
                std::lock_guard<std::mutex> lk(ctl_mutex_);
                applying_ = false;
            }
            requests_done_.notify_all();
            continue;
        }
        if (have_request) {
            // Between steps: requests never wait behind more than the step() call already running.
            SessionResult res;
            res.kind = req.kind;
            res.id = req.id;
            switch (req.kind) {
                case SessionResult::Kind::load:
                    res.error = apply_load(req.state, req.step, req.params, req.resume_entry, req.kept.get(),
                                           req.block);
                    break;
                case SessionResult::Kind::switch_backend:
                    res.error = apply_switch(req.name, req.precision);
                    break;
                case SessionResult::Kind::capture:
                    res.error = apply_capture(res);
                    break;
                default:
                    res.error = apply_edit(req);
                    break;
            }
            {
                std::lock_guard<std::mutex> lk(ctl_mutex_);
                results_.push_back(std::move(res));
                applying_ = false;
            }
            requests_done_.notify_all();
            continue;
        }
        do_steps();
        wait_for_draw();
    }
}

void SimSession::wait_for_draw() {
    if (!gpu_) return;
    // The draw found the backend busy: let it take these bodies before the next step takes the lock
    // again, or a step longer than a frame would starve drawing. Bounded, so a closed or hidden window
    // costs at most draw_wait_seconds per step.
    std::unique_lock<std::mutex> s(snap_mutex_);
    if (!draw_waiting_ || now_s() - last_draw_wall_ < tuning_.draw_starved_seconds) return;
    drawn_.wait_for(s, std::chrono::duration<double>(tuning_.draw_wait_seconds),
                    [&] { return !draw_waiting_ || stopping_; });
    draw_waiting_ = false;
}

void SimSession::do_steps() {
    Params p;
    int k = 0;
    bool single = false, reset_e0 = false;
    double per_step = 0;
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        p = params_;
        // Time reversed: the same integrator with -dt (bit for bit what negating every velocity would do,
        // but the clock runs back and the velocities stay the bodies' own).
        if (reversed_ && integrator_info(p.integrator).adaptive) {
            // Switched to an adaptive integrator while reversed: it only goes forward.
            reversed_ = stats_.reversed = false;
            message_ = std::string(to_string(p.integrator)) + " runs forward only: time runs forward again";
        }
        if (reversed_) p.dt = -p.dt;
        single = step_budget_ > 0;
        k = single ? step_budget_ : granted_;
        reset_e0 = params_changed_energy_;
        params_changed_energy_ = false;
        per_step = stats_.ms_per_step * 1e-3;
    }
    if (k <= 0) return;
    // One step() call holds the backend for about chunk_seconds; while the step time is unknown (just
    // loaded or switched: a 1M-body GPU step takes ~0.5 s) only one step, so requests never wait long.
    k = per_step > 0 ? std::min(k, std::max(1, int(tuning_.chunk_seconds / per_step))) : 1;

    std::lock_guard<std::mutex> lk(backend_mutex_);
    if (p.collisions != CollisionMode::off && !radii_checked_) {
        // Points (a preset without radii, a dropped body) get the default radius, once.
        HostState s = backend_->get_state();
        if (assign_default_radii(s, p.density) > 0) backend_->set_state(s);
        radii_checked_ = true;
    }
    double t0 = now_s();
    StepReport r;
    std::string failure;
    try {
        validate_clock_step(backend_->time(), p.dt);  // else the clock would stand while the bodies move
        max_step_progress_.begin();
        step_began_.store(t0);
        r = backend_->step(p, k);
    } catch (const std::exception& e) {
        failure = what_of(e);
    }
    step_began_.store(0);
    double t1 = now_s();
    if (!failure.empty() || !r.ok()) {
        // Keep the last good state on screen and stop; the user decides what to change.
        std::int64_t steps_before = 0;
        {
            std::lock_guard<std::mutex> c(ctl_mutex_);
            steps_before = stats_.steps_total;
        }
        // The step counts from the session's start, as the panel shows it (r.bad_step is 1-based).
        std::string what = !failure.empty() ? "step failed: " + failure
                           : r.stalled      ? "stalled at step " + std::to_string(steps_before + r.bad_step) +
                                             ": " + stall_reason(r.bad_body, p, backend_->precision(), false)
                                       : "NaN/Inf in body " + std::to_string(r.bad_body) + " at step " +
                                             std::to_string(steps_before + r.bad_step) +
                                             " (try a smaller dt or more softening)";
        double t_restored = 0;
        std::int64_t step_restored = 0;
        {
            std::lock_guard<std::mutex> c(checkpoint_mutex_);
            t_restored = checkpoint_.t;
            step_restored = checkpoint_step_;
            try {
                backend_->set_state(checkpoint_);
            } catch (const std::exception&) {
            }
        }
        {
            // The states kept after the checkpoint belong to the steps just undone: a future that will not
            // happen (their steps past the restored one, in the direction time ran when they were kept).
            std::lock_guard<std::mutex> tl(timeline_mutex_);
            while (timeline_.size() > 0) {
                const TimelineEntry& e = timeline_.at(timeline_.size() - 1);
                if (e.reversed ? e.step >= step_restored : e.step <= step_restored) break;
                if (timeline_.size() == 1) {
                    timeline_.clear();
                } else {
                    timeline_.truncate_after(timeline_.size() - 2);
                }
            }
        }
        publish_locked();
        std::lock_guard<std::mutex> c(ctl_mutex_);
        paused_ = true;
        step_budget_ = 0;
        steps_done_.notify_all();
        stats_.steps_per_s = 0;
        stats_.sim_time = t_restored;
        stats_.steps_total = step_restored;  // the steps since the checkpoint are undone with it
        message_ = what + ": paused, restored the state of t = " + format_g(t_restored) + " (step " +
                   std::to_string(step_restored) + ")";
        return;
    }
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        if (single) {
            step_budget_ = std::max(0, step_budget_ - int(r.steps_done));
            if (step_budget_ == 0) steps_done_.notify_all();
        } else {
            granted_ = std::max(0, granted_ - int(r.steps_done));
            if (granted_ == 0) steps_done_.notify_all();
        }
        stats_.steps_total += reversed_ ? -r.steps_done : r.steps_done;
        stats_.merges_total += r.collisions.merges;
        stats_.bounces_total += r.collisions.bounces;
        stats_.energy_lost += r.collisions.energy_lost;
        for (const CollisionEvent& e : r.collisions.events)
            if (e.merged) merges_.push_back(e);
        stats_.blocks_total += r.blocks;
        stats_.body_updates_total += r.body_updates;
        stats_.neighbour_updates_total += r.neighbour_updates;
        stats_.sim_time = backend_->time();  // the integrator's clock (we hold the backend's lock)
        window_steps_ += r.steps_done;
        window_busy_ += t1 - t0;
        if (t1 - window_start_ >= kStatsWindow) {
            stats_.steps_per_s = double(window_steps_) / (t1 - window_start_);
            stats_.ms_per_step = window_steps_ ? 1e3 * window_busy_ / double(window_steps_) : 0;
            window_start_ = t1;
            window_steps_ = 0;
            window_busy_ = 0;
        } else if (stats_.ms_per_step == 0 && r.steps_done > 0) {
            stats_.ms_per_step = 1e3 * (t1 - t0) / double(r.steps_done);
        }
    }
    {
        const auto counted = backend_->last_force_interactions();
        double inter = counted ? double(*counted) * double(integrator_info(p.integrator).force_evaluations)
                               : interactions_per_step(p, backend_->size());
        // An adaptive integrator: each body it evaluated against all N, averaged over these (max) steps.
        // The neighbour scheme's irregular steps: each against about K neighbours (as nbody run counts).
        if (integrator_info(p.integrator).adaptive && r.steps_done > 0)
            inter = (double(r.body_updates) * double(backend_->size()) +
                     double(r.neighbour_updates) * counted_list_length(p.neighbours, backend_->size())) /
                    double(r.steps_done);
        std::lock_guard<std::mutex> c(ctl_mutex_);
        stats_.interactions_per_step = inter;
    }
    // Energy needs the O(N^2) potential: keep it under ~10% of the time, and at most twice a second.
    if (reset_e0 || t1 - last_diag_wall_ > std::max(0.5, 10.0 * diag_cost_)) diagnostics_locked(reset_e0);
    // An approximate solver's live error: a direct sum on a small sample, under ~10% of the time, at most
    // twice a second, and right away when a setting changed (the number beside the slider must be the
    // slider's).
    if (force_algorithm_info(p.force).approximate &&
        (!last_error_params_ || !same_force_model(p, *last_error_params_) ||
         t1 - last_error_wall_ > std::max(0.5, 10.0 * error_cost_))) {
        force_error_locked(p);
    }
    // The checkpoint is a full copy (device -> host on a GPU): at most checkpoint_share of the time.
    double ckpt_interval =
        std::max(kMinCheckpointInterval, 1e-3 * stats().checkpoint_ms / tuning_.checkpoint_share);
    if (t1 - last_ckpt_wall_ > ckpt_interval) checkpoint_locked();
    keep_in_timeline_locked();
    publish_locked();
}

void SimSession::keep_in_timeline_locked() {
    std::int64_t steps = 0;
    bool reversed = false;
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        steps = stats_.steps_total;
        reversed = reversed_;
    }
    {
        // Every `every` steps from the last state kept, in either direction: reversed, the step count goes
        // down and the states kept on the way back are the newest, as the run goes.
        std::lock_guard<std::mutex> tl(timeline_mutex_);
        if (timeline_every_ == 0) return;
        if (timeline_.size() > 0 &&
            std::abs(steps - timeline_.at(timeline_.size() - 1).step) < timeline_every_)
            return;
    }
    // The exact bodies where the backend keeps them (cuda: a device-to-device copy). Out of memory, the
    // oldest states make room (the budget may exceed what the device has free); none left: not kept.
    std::shared_ptr<const KeptState> state;
    for (;;) {
        try {
            state = backend_->keep_state();
            break;
        } catch (const std::exception&) {
            std::lock_guard<std::mutex> tl(timeline_mutex_);
            if (!timeline_.drop_oldest()) return;
        }
    }
    std::lock_guard<std::mutex> tl(timeline_mutex_);
    timeline_.push(steps, std::move(state), reversed);
}

void SimSession::diagnostics_locked(bool reset_e0) {
    Params p;
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        p = params_;
    }
    double t0 = now_s();
    // Large states on a host backend: the tree's or a sample's potential, as `nbody run` (a device backend
    // sums its own exactly).
    Diagnostics d = backend_diagnostics(*backend_, p, true);
    double t1 = now_s();
    const std::size_t n = backend_->size();
    // Drifts compare like with like: another method (or the tree at another theta) starts a new reference.
    const std::string basis = d.potential_method == PotentialMethod::sampled
                                  ? std::string("sampled")
                                  : potential_method_text(d.potential_method, n, p);
    diag_cost_ = t1 - t0;
    last_diag_wall_ = t1;
    std::vector<std::size_t> counts;
    if (integrator_info(p.integrator).adaptive) {
        if (BlockSteps* blocks = backend_->block_steps_for(p)) {
            for (int level : blocks->levels()) {
                if (level < 0) continue;
                if (std::size_t(level) >= counts.size()) counts.resize(std::size_t(level) + 1, 0);
                ++counts[std::size_t(level)];
            }
        }
    }
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.level_counts = std::move(counts);
    stats_.diag = d;
    stats_.potential_note = potential_method_note(d, n, p);
    if (reset_e0 || !stats_.have_diag || basis != energy0_basis_) {
        stats_.energy0 = d.total();
        stats_.energy_lost = 0;  // counted from the new reference
        energy0_basis_ = basis;
    }
    stats_.have_diag = true;
    stats_.energy_drift = relative_energy_drift(stats_.energy0, d.total() + stats_.energy_lost);
    ++stats_.diag_serial;
}

void SimSession::force_error_locked(const Params& p) {
    constexpr std::size_t kSample = 64;  // enough for a median and a rough p99; O(64 N) host work
    const double t0 = now_s();
    ForceErrorStats e;
    try {
        e = backend_force_error(*backend_, p, kSample);
    } catch (const std::exception&) {
        return;  // a failed measurement shows nothing new; the step itself reports real failures
    }
    const double t1 = now_s();
    error_cost_ = t1 - t0;
    last_error_wall_ = t1;
    last_error_params_ = p;
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.have_force_error = true;
    stats_.force_error = e;
    stats_.force_error_settings = describe_settings(p);
    stats_.force_error_step = stats_.steps_total;
}

void SimSession::checkpoint_locked() {
    double t0 = now_s();
    HostState s = backend_->get_state();
    double t1 = now_s();
    set_checkpoint(std::move(s));
    last_ckpt_wall_ = t1;
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.checkpoint_ms = 1e3 * (t1 - t0);
    stats_.sim_time = checkpoint_.t;
}

void SimSession::set_checkpoint(HostState s, std::optional<std::int64_t> step) {
    if (!step) {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        step = stats_.steps_total;
    }
    std::lock_guard<std::mutex> c(checkpoint_mutex_);
    checkpoint_ = std::move(s);
    checkpoint_step_ = *step;
}

void SimSession::publish_locked() {
    std::size_t n = backend_->size();
    size_ = n;
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        backend_name_ = backend_->name();
        precision_ = backend_->precision();
        // What one checkpoint reads: positions+mass and velocities in the backend's precision.
        stats_.checkpoint_bytes = 2 * n * (precision_ == Precision::f64 ? 32 : 16);
        stats_.checkpoint_from_device = gpu_;
        double per_step = stats_.ms_per_step * 1e-3;
        stats_.checkpoint_interval_s = std::max(
            {kMinCheckpointInterval, 1e-3 * stats_.checkpoint_ms / tuning_.checkpoint_share, per_step});
    }
    // Computed outside the snapshot lock: it may be a force evaluation.
    std::vector<Vec4<float>> acc;
    if (!gpu_ && want_acc_) {
        acc.resize(n);
        try {
            backend_->copy_accelerations(params(), acc.data());
        } catch (const std::exception&) {
            acc.clear();  // no arrows this time; a failing force evaluation stops the next step anyway
        }
    }
    std::lock_guard<std::mutex> s(snap_mutex_);
    if (!gpu_) {
        snap_pos_.resize(n);
        snap_vel_.resize(n);
        backend_->copy_positions(snap_pos_.data());
        backend_->copy_velocities(snap_vel_.data());
        snap_acc_ = std::move(acc);
    }
    ++snap_version_;
}

bool SimSession::with_newest_bodies(bool force,
                                    const std::function<void(Backend*, const Vec4<float>*, const Vec4<float>*,
                                                             const Vec4<float>*, std::size_t)>& fn) {
    if (gpu_) {
        // Try the lock even with nothing new: a busy backend is what tells the sim thread a draw waits.
        std::unique_lock<std::mutex> lk(backend_mutex_, std::try_to_lock);
        if (!lk.owns_lock()) {
            std::lock_guard<std::mutex> s(snap_mutex_);
            draw_waiting_ = true;  // the sim thread lets the next call in after this step
            return false;
        }
        {
            // Publishing needs the backend lock we hold, so the version cannot move under us.
            std::lock_guard<std::mutex> s(snap_mutex_);
            draw_waiting_ = false;
            if (!force && snap_version_ == drawn_version_) return false;
        }
        fn(backend_.get(), nullptr, nullptr, nullptr, backend_->size());
        {
            std::lock_guard<std::mutex> s(snap_mutex_);
            drawn_version_ = snap_version_;
            last_draw_wall_ = now_s();
        }
        drawn_.notify_all();
        return true;
    }
    std::lock_guard<std::mutex> s(snap_mutex_);
    if (!force && snap_version_ == drawn_version_) return false;
    const bool have_acc = want_acc_ && snap_acc_.size() == snap_pos_.size();
    fn(nullptr, snap_pos_.data(), snap_vel_.data(), have_acc ? snap_acc_.data() : nullptr, snap_pos_.size());
    drawn_version_ = snap_version_;
    return true;
}

std::vector<Vec4<float>> SimSession::positions_for_fit() {
    std::vector<Vec4<float>> pos;
    if (!gpu_) {
        std::lock_guard<std::mutex> s(snap_mutex_);
        return snap_pos_;
    }
    {
        std::unique_lock<std::mutex> lk(backend_mutex_, std::try_to_lock);
        if (lk.owns_lock()) {
            pos.resize(backend_->size());
            backend_->copy_positions(pos.data());
            return pos;
        }
    }
    // A step holds the GPU: the last checkpoint is at most a few seconds old, close enough to frame.
    std::lock_guard<std::mutex> c(checkpoint_mutex_);
    pos.resize(checkpoint_.size());
    for (std::size_t i = 0; i < pos.size(); ++i) {
        const auto& q = checkpoint_.pos_mass[i];
        pos[i] = {float(q.x), float(q.y), float(q.z), float(q.w)};
    }
    return pos;
}

std::string SimSession::apply_load(HostState& s, std::int64_t step, const std::optional<Params>& params,
                                   std::optional<std::size_t> resume_entry, const KeptState* kept,
                                   const std::optional<BlockState>& block) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    std::string why;
    const std::size_t n = kept ? kept->size() : s.size();
    try {
        check_host_memory(n, backend_->precision());
    } catch (const std::exception& e) {
        why = what_of(e);
    }
    if (why.empty()) {
        try {
            if (kept) {
                backend_->restore_state(*kept);
                s = kept->to_host();  // the NaN-recovery checkpoint below (a device copy is read back once)
            } else {
                backend_->set_state(s);
                // A snapshot's levels and jerks: its run goes on as it would have (where the backend and
                // precision can take them; otherwise its levels start again from the bodies).
                if (block && params) backend_->import_block_state(*params, *block);
            }
            radii_checked_ = false;
        } catch (const std::exception& e) {
            why = what_of(e);
            std::lock_guard<std::mutex> c(checkpoint_mutex_);
            try {
                backend_->set_state(checkpoint_);  // the old bodies, as last checkpointed
            } catch (const std::exception&) {
            }
        }
    }
    if (!why.empty()) {
        publish_locked();
        return "cannot load " + std::to_string(n) + " bodies: " + why + " (kept the previous state)";
    }
    double t = s.t;
    set_checkpoint(std::move(s), step);  // the loaded step (a timeline entry's below)
    last_ckpt_wall_ = now_s();
    if (params) {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        params_ = *params;
    }
    reset_step_stats(t, step);
    diagnostics_locked(true);
    {
        std::lock_guard<std::mutex> tl(timeline_mutex_);
        if (resume_entry && *resume_entry < timeline_.size()) {
            // Back in the run: its step count and direction of time, and the states after it are a future
            // that will not happen.
            const TimelineEntry entry = timeline_.at(*resume_entry);
            timeline_.truncate_after(*resume_entry);
            {
                std::lock_guard<std::mutex> c(ctl_mutex_);
                stats_.steps_total = entry.step;
                reversed_ = stats_.reversed = entry.reversed;
            }
            std::lock_guard<std::mutex> c(checkpoint_mutex_);
            checkpoint_step_ = entry.step;
        } else {
            timeline_.clear();
        }
    }
    keep_in_timeline_locked();
    publish_locked();
    return {};
}

// New bodies or another backend step at another speed: what was measured of the old steps goes.
void SimSession::reset_step_stats(std::optional<double> loaded_t, std::int64_t loaded_step) {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.ms_per_step = 0;  // unknown: the next steps go one call each until measured
    if (loaded_t) {
        // New bodies bring their own step and clock, and run forward. The energy reference goes with the
        // old bodies (set by the caller's diagnostics), and so does a pending "parameters changed".
        stats_.steps_total = loaded_step;
        reversed_ = stats_.reversed = false;
        stats_.blocks_total = 0;
        stats_.body_updates_total = 0;
        stats_.neighbour_updates_total = 0;
        stats_.sim_time = *loaded_t;
        stats_.steps_per_s = 0;
    } else {
        // The bodies go on; a checkpoint from the other backend costs something else.
        stats_.checkpoint_ms = 0;
    }
    restart_rate_window_locked();
}

void SimSession::restart_rate_window_locked() {
    window_start_ = now_s();
    window_steps_ = 0;
    window_busy_ = 0;
}

std::string SimSession::apply_capture(SessionResult& res) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    try {
        res.state = std::make_shared<const HostState>(backend_->get_state());
    } catch (const std::exception& e) {
        return "cannot copy the bodies: " + what_of(e);
    }
    res.precision = backend_->precision();
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        res.params = params_;
        res.steps_total = stats_.steps_total;
    }
    // Outside ctl_mutex_: a device's copy of the state must not hold up the panel (backend_mutex_ keeps the
    // steps away meanwhile).
    try {
        if (std::optional<BlockState> block = backend_->export_block_state(res.params))
            res.block = std::make_shared<const BlockState>(std::move(*block));
    } catch (const std::exception& e) {
        return "cannot copy the integrator's state: " + what_of(e);
    }
    return {};
}

std::string SimSession::apply_switch(const std::string& name, Precision precision) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    if (backend_->name() == name && backend_->precision() == precision) return {};
    try {
        HostState cur = backend_->get_state();  // exact: float -> double -> float is lossless
        check_host_memory(cur.size(), precision);
        auto next = create_backend(name, precision);
        // An adaptive integrator's levels and jerks go along (in the same precision), so the run goes on
        // as it would have on the old backend.
        const Params p = params();
        const std::optional<BlockState> block = backend_->export_block_state(p);
        next->set_state(cur);
        if (block) next->import_block_state(p, *block);
        radii_checked_ = false;
        next->set_interrupt(&quitting_);
        next->set_progress(&max_step_progress_);
        backend_ = std::move(next);
        set_checkpoint(std::move(cur));
    } catch (const std::exception& e) {
        return "cannot switch to " + name + ": " + what_of(e) + " (kept " + backend_->name() + ")";
    }
    last_ckpt_wall_ = now_s();
    if (draw_from_backend_by_residency_) gpu_ = backend_->residency() == Residency::device;
    reset_step_stats(std::nullopt);
    publish_locked();
    return {};
}

// Edits of the current bodies: out through get_state (exact: float -> double -> float is lossless), back in.
std::string SimSession::apply_edit(const Request& r) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    const bool add = r.kind == SessionResult::Kind::add_body;
    const Integrator integrator = params().integrator;
    if (!add && integrator_info(integrator).adaptive) {
        // The key and the test script reach here too (the panel's button is disabled).
        return std::string("cannot reverse: ") + to_string(integrator) +
               " chooses each body's step going forward, so negating the velocities does not retrace the "
               "motion (choose leapfrog or yoshida4 to reverse)";
    }
    if (!add) {
        // Nothing to copy: the next steps take -dt (do_steps), the bodies stay exactly as they are.
        std::lock_guard<std::mutex> c(ctl_mutex_);
        reversed_ = stats_.reversed = !reversed_;
        return {};
    }
    try {
        HostState cur = backend_->get_state();
        check_host_memory(cur.size() + 1, backend_->precision());
        cur.pos_mass.push_back(r.state.pos_mass.at(0));
        cur.vel.push_back(r.state.vel.at(0));
        backend_->set_state(cur);
        radii_checked_ = false;
        set_checkpoint(std::move(cur));
    } catch (const std::exception& e) {
        return std::string("cannot add a body: ") + what_of(e);
    }
    last_ckpt_wall_ = now_s();
    // A new body changes the energy, so the drift is measured from the new system.
    diagnostics_locked(true);
    publish_locked();
    return {};
}

void SimSession::apply_field(Request& r) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    if (r.republish) {
        publish_locked();
        return;
    }
    const Params p = params();
    try {
        std::vector<double> out;
        if (r.densities) {
            out = local_densities(backend_->get_state());
        } else if (r.body) {
            if (*r.body < backend_->size()) {
                // At the body's exact position the solver leaves the body itself out (Backend::field_at).
                const BodyValues b = backend_->body(*r.body);
                const FieldSample f = backend_->field_at(p, {b.pos_mass}, true);
                out.push_back(b.pos_mass.w * f.potential.at(0));
            }
        } else if (r.all_bodies) {
            // The targets are the bodies themselves (a GPU copies them back once, then evaluates them
            // as it does the potential view's grid, on the device).
            const HostState s = backend_->get_state();
            std::vector<Vec4<double>> points(s.pos_mass.begin(), s.pos_mass.end());
            if (!points.empty()) out = backend_->field_at(p, points, true).potential;
        } else {
            out = backend_->field_at(p, r.points, true).potential;
        }
        r.answer->set_value(std::move(out));
    } catch (const std::exception& e) {
        r.answer->set_exception(
            std::make_exception_ptr(Error("cannot evaluate the potential: " + what_of(e))));
    }
}

SessionStats SimSession::stats() const {
    SessionStats st;
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        st = stats_;
    }
    const double began = step_began_.load();
    if (began > 0 && now_s() - began > kLongStepSeconds) {
        st.max_step_share = max_step_progress_.share();
        st.max_step_blocks = max_step_progress_.blocks.load(std::memory_order_relaxed);
    }
    return st;
}

std::string SimSession::backend_name() const {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    return backend_name_;
}

Precision SimSession::precision() const {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    return precision_;
}

std::vector<CollisionEvent> SimSession::take_merges() {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    return std::exchange(merges_, {});
}

std::size_t remap_after_merges(std::size_t index, const std::vector<CollisionEvent>& events) {
    std::size_t k = 0;
    while (k < events.size()) {
        // One step's merges: removed indices j, each absorbed into its i, all before that step's compaction.
        const std::int64_t step = events[k].step;
        std::size_t end = k;
        while (end < events.size() && events[end].step == step) ++end;
        for (std::size_t e = k; e < end; ++e)
            if (events[e].j == index) index = std::size_t(events[e].i);
        std::size_t below = 0;
        for (std::size_t e = k; e < end; ++e) below += events[e].j < index ? 1 : 0;
        index -= below;
        k = end;
    }
    return index;
}

std::size_t SimSession::size() const {
    return size_;
}

std::string SimSession::take_message() {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    std::string m;
    m.swap(message_);
    return m;
}

}  // namespace nbody
