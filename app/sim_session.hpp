#pragma once
// Runs the simulation off the render thread, so a step longer than a frame never freezes the window.
// The UI edits Params and asks for actions; the render thread takes the newest bodies each frame.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sim/backend.hpp"

namespace nbody {

struct SessionStats {
    std::int64_t steps_total = 0;
    double sim_time = 0;
    double steps_per_s = 0;     // measured over the last ~0.5 s of wall time, pauses excluded
    double ms_per_step = 0;     // wall time per step, averaged the same way
    Diagnostics diag;           // at the last energy cadence
    bool have_diag = false;
    double energy0 = 0;         // total energy when the state was loaded (or G / softening changed)
    double energy_drift = 0;    // |E - E0| / |E0|
    std::uint64_t diag_serial = 0;  // increments with each new diagnostics
};

class SimSession {
public:
    // Creates the backend and loads the state. Throws nbody::Error (unknown backend, no device, OOM).
    SimSession(const HostState& s, const Params& p, const std::string& backend, Precision precision);
    ~SimSession();
    SimSession(const SimSession&) = delete;
    SimSession& operator=(const SimSession&) = delete;

    void set_params(const Params& p);
    void set_paused(bool paused);
    bool paused() const { return paused_; }
    void request_single_step();
    // Steps granted per rendered frame (the sim runs as fast as it can when a step outlasts a frame).
    void set_steps_per_frame(int k);
    // Called once per rendered frame: grants the next steps_per_frame steps.
    void frame_tick();

    // Replaces the bodies (new N, preset reset). On failure keeps the old ones and returns the message.
    std::string load_state(const HostState& s);
    // Moves the exact current state into a new backend. On failure keeps the old one, returns the message.
    std::string switch_backend(const std::string& name, Precision precision);

    // Render thread: hands the newest bodies to fn. CPU backends: from a snapshot (never waits for a
    // step); GPU backends: fn gets the backend itself so it can write the GL buffers in place, skipped
    // while a step holds it (the buffers keep the last bodies). Returns false if fn was not called:
    // nothing new since the last call (unless `force`), or the GPU backend was busy.
    bool with_newest_bodies(bool force, const std::function<void(Backend*, const Vec4<float>*, const Vec4<float>*, std::size_t)>& fn);

    SessionStats stats() const;
    std::string backend_name() const;
    Precision precision() const;
    std::size_t size() const;
    // The messages (NaN detected, step failed) since the last call; empty if none.
    std::string take_message();

private:
    void run();
    void do_steps();
    void publish_locked();
    void checkpoint_and_diagnostics_locked(bool reset_e0);

    mutable std::mutex backend_mutex_;  // guards backend_, checkpoint_
    std::unique_ptr<Backend> backend_;
    HostState checkpoint_;
    std::atomic<bool> gpu_{false};
    std::atomic<std::size_t> size_{0};

    mutable std::mutex ctl_mutex_;      // guards params_, granted_, message_, stats_, wake-ups
    std::condition_variable wake_;
    Params params_;
    bool params_changed_energy_ = false;
    int steps_per_frame_ = 1;
    int granted_ = 0;
    bool single_step_ = false;
    std::atomic<bool> paused_{false};
    bool quit_ = false;
    std::string message_;
    SessionStats stats_;
    std::string backend_name_;
    Precision precision_ = Precision::f32;

    std::mutex snap_mutex_;              // guards the snapshot the CPU path draws from
    std::vector<Vec4<float>> snap_pos_, snap_vel_;
    std::uint64_t snap_version_ = 1, drawn_version_ = 0;

    double last_diag_wall_ = -1e9, diag_cost_ = 0;
    double window_start_ = 0, window_busy_ = 0;
    std::int64_t window_steps_ = 0;
    std::thread thread_;
};

}  // namespace nbody
