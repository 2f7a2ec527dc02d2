#include "sim_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

#include "sim/error.hpp"
#include "sim/memory.hpp"
#include "sim/registry.hpp"

namespace nbody {
namespace {

double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Each hold of the backend lock stays near this, so switching backends and GPU drawing never wait long.
constexpr double kChunkSeconds = 0.010;
constexpr double kStatsWindow = 0.5;

}  // namespace

SimSession::SimSession(const HostState& s, const Params& p, const std::string& backend, Precision precision)
    : params_(p) {
    check_host_memory(s.size(), precision);
    backend_ = create_backend(backend, precision);
    backend_->set_state(s);
    gpu_ = backend_->name() == "cuda";
    checkpoint_ = s;
    checkpoint_and_diagnostics_locked(true);
    publish_locked();
    window_start_ = now_s();
    thread_ = std::thread([this] { run(); });
}

SimSession::~SimSession() {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void SimSession::set_params(const Params& p) {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    // G and softening change what "energy" means: measure drift from the new definition.
    if (p.G != params_.G || p.softening != params_.softening) params_changed_energy_ = true;
    params_ = p;
}

void SimSession::set_paused(bool paused) {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        paused_ = paused;
        stats_.steps_per_s = paused ? 0 : stats_.steps_per_s;
        window_start_ = now_s();
        window_steps_ = 0;
        window_busy_ = 0;
    }
    wake_.notify_all();
}

void SimSession::request_single_step() {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        single_step_ = true;
    }
    wake_.notify_all();
}

void SimSession::set_steps_per_frame(int k) {
    std::lock_guard<std::mutex> lk(ctl_mutex_);
    steps_per_frame_ = std::max(1, k);
}

void SimSession::frame_tick() {
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        // No backlog: a slow simulation just runs continuously, it does not owe frames.
        granted_ = steps_per_frame_;
    }
    wake_.notify_all();
}

void SimSession::run() {
    for (;;) {
        {
            std::unique_lock<std::mutex> lk(ctl_mutex_);
            wake_.wait(lk, [&] { return quit_ || single_step_ || (!paused_ && granted_ > 0); });
            if (quit_) return;
        }
        do_steps();
    }
}

void SimSession::do_steps() {
    Params p;
    int k = 0;
    bool single = false, reset_e0 = false;
    double per_step = 0;
    {
        std::lock_guard<std::mutex> lk(ctl_mutex_);
        p = params_;
        single = single_step_;
        single_step_ = false;
        k = single ? 1 : granted_;
        reset_e0 = params_changed_energy_;
        params_changed_energy_ = false;
        per_step = stats_.ms_per_step * 1e-3;
    }
    if (k <= 0) return;
    if (per_step > 0) k = std::min(k, std::max(1, int(kChunkSeconds / per_step)));

    std::lock_guard<std::mutex> lk(backend_mutex_);
    double t0 = now_s();
    StepReport r;
    std::string failure;
    try {
        r = backend_->step(p, k);
    } catch (const std::bad_alloc&) {
        failure = "out of memory during a step";
    } catch (const std::exception& e) {
        failure = e.what();
    }
    double t1 = now_s();
    if (!failure.empty() || !r.finite) {
        // Keep the last good state on screen and stop; the user decides what to change.
        std::string what = !failure.empty()
                               ? "step failed: " + failure
                               : "NaN/Inf in body " + std::to_string(r.bad_body) +
                                     " (try a smaller dt or more softening)";
        try {
            backend_->set_state(checkpoint_);
        } catch (const std::exception&) {
        }
        publish_locked();
        std::lock_guard<std::mutex> c(ctl_mutex_);
        paused_ = true;
        stats_.steps_per_s = 0;
        stats_.sim_time = checkpoint_.t;
        message_ = what + ": paused, restored the state of t = " + std::to_string(checkpoint_.t);
        return;
    }
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        if (!single) granted_ = std::max(0, granted_ - int(r.steps_done));
        stats_.steps_total += r.steps_done;
        stats_.sim_time += double(r.steps_done) * p.dt;
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
    // Energy needs the O(N^2) potential: keep it under ~10% of the time, and at most twice a second.
    if (reset_e0 || t1 - last_diag_wall_ > std::max(0.5, 10.0 * diag_cost_)) {
        checkpoint_and_diagnostics_locked(reset_e0);
    }
    publish_locked();
}

void SimSession::checkpoint_and_diagnostics_locked(bool reset_e0) {
    Params p;
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        p = params_;
    }
    double t0 = now_s();
    Diagnostics d = backend_->diagnostics(p, true);
    checkpoint_ = backend_->get_state();
    double t1 = now_s();
    diag_cost_ = t1 - t0;
    last_diag_wall_ = t1;
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.diag = d;
    if (reset_e0 || !stats_.have_diag) stats_.energy0 = d.total();
    stats_.have_diag = true;
    stats_.energy_drift = relative_energy_drift(stats_.energy0, d.total());
    stats_.sim_time = checkpoint_.t;
    ++stats_.diag_serial;
}

void SimSession::publish_locked() {
    size_ = backend_->size();
    {
        std::lock_guard<std::mutex> c(ctl_mutex_);
        backend_name_ = backend_->name();
        precision_ = backend_->precision();
    }
    std::lock_guard<std::mutex> s(snap_mutex_);
    if (!gpu_) {
        std::size_t n = backend_->size();
        snap_pos_.resize(n);
        snap_vel_.resize(n);
        backend_->copy_positions(snap_pos_.data());
        backend_->copy_velocities(snap_vel_.data());
    }
    ++snap_version_;
}

bool SimSession::with_newest_bodies(
    bool force, const std::function<void(Backend*, const Vec4<float>*, const Vec4<float>*, std::size_t)>& fn) {
    if (gpu_) {
        std::uint64_t v;
        {
            std::lock_guard<std::mutex> s(snap_mutex_);
            if (!force && snap_version_ == drawn_version_) return false;
            v = snap_version_;
        }
        std::unique_lock<std::mutex> lk(backend_mutex_, std::try_to_lock);
        if (!lk.owns_lock()) return false;
        fn(backend_.get(), nullptr, nullptr, backend_->size());
        drawn_version_ = v;
        return true;
    }
    std::lock_guard<std::mutex> s(snap_mutex_);
    if (!force && snap_version_ == drawn_version_) return false;
    fn(nullptr, snap_pos_.data(), snap_vel_.data(), snap_pos_.size());
    drawn_version_ = snap_version_;
    return true;
}

std::string SimSession::load_state(const HostState& s) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    try {
        check_host_memory(s.size(), backend_->precision());
        backend_->set_state(s);
    } catch (const std::exception& e) {
        std::string why = dynamic_cast<const std::bad_alloc*>(&e) ? std::string("out of memory") : e.what();
        try {
            backend_->set_state(checkpoint_);  // the old bodies, as last checkpointed
        } catch (const std::exception&) {
        }
        publish_locked();
        return "cannot load " + std::to_string(s.size()) + " bodies: " + why + " (kept the previous state)";
    }
    checkpoint_ = s;
    checkpoint_and_diagnostics_locked(true);
    publish_locked();
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.steps_total = 0;
    stats_.sim_time = s.t;
    stats_.ms_per_step = 0;
    return {};
}

std::string SimSession::switch_backend(const std::string& name, Precision precision) {
    std::lock_guard<std::mutex> lk(backend_mutex_);
    if (backend_->name() == name && backend_->precision() == precision) return {};
    try {
        HostState cur = backend_->get_state();  // exact: float -> double -> float is lossless
        auto next = create_backend(name, precision);
        next->set_state(cur);
        backend_ = std::move(next);
    } catch (const std::bad_alloc&) {
        return "cannot switch to " + name + ": out of memory (kept " + backend_->name() + ")";
    } catch (const std::exception& e) {
        return "cannot switch to " + name + ": " + e.what() + " (kept " + backend_->name() + ")";
    }
    gpu_ = backend_->name() == "cuda";
    publish_locked();
    std::lock_guard<std::mutex> c(ctl_mutex_);
    stats_.ms_per_step = 0;
    window_start_ = now_s();
    window_steps_ = 0;
    window_busy_ = 0;
    return {};
}

SessionStats SimSession::stats() const {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    return stats_;
}

std::string SimSession::backend_name() const {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    return backend_name_;
}

Precision SimSession::precision() const {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    return precision_;
}

std::size_t SimSession::size() const { return size_; }

std::string SimSession::take_message() {
    std::lock_guard<std::mutex> c(ctl_mutex_);
    std::string m;
    m.swap(message_);
    return m;
}

}  // namespace nbody
