#pragma once
// Runs the simulation off the render thread, so a step longer than a frame never freezes the window.
// The UI edits Params and queues requests (new bodies, another backend) that the simulation thread
// applies between steps; the render thread takes the newest bodies each frame.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/backend.hpp"
#include "sim/gravity/force_error.hpp"
#include "state_timeline.hpp"

namespace nbody {

// A step call running longer than this (seconds) shows its max step's progress in the panel.
inline constexpr double kLongStepSeconds = 0.5;

// Body `index` after the merges `events` (indices before each step's removals; survivors keep the lower
// index): its new index, or the survivor's where it was merged away.
std::size_t remap_after_merges(std::size_t index, const std::vector<CollisionEvent>& events);

struct SessionStats {
    // The step index and the clock: they count down while time runs backwards (reversed). A loaded snapshot
    // starts them at its own step and time.
    std::int64_t steps_total = 0;  // max steps for an adaptive integrator
    double sim_time = 0;
    bool reversed = false;  // stepping with -dt: the motion retraces itself
    // An adaptive integrator's work since the bodies were loaded: blocks, and force+jerk evaluations of
    // one body against all; and how many bodies sit on each time-step level (dt / 2^level), refreshed at
    // the energy cadence (a GPU backend copies the levels back then). Empty for fixed-step integrators.
    std::int64_t blocks_total = 0;
    std::uint64_t body_updates_total = 0;
    std::uint64_t neighbour_updates_total = 0;  // the neighbour scheme's irregular steps (BlockCounters)
    std::vector<std::size_t> level_counts;
    // Collisions since the bodies were loaded (Params::collisions), and the energy they removed: the
    // drift below is that of E + energy_lost.
    std::int64_t merges_total = 0, bounces_total = 0;
    double energy_lost = 0;
    // The share (0..1) of an adaptive integrator's max step under way where the step call has run for
    // more than kLongStepSeconds (the picture waits for it: every body reaches the max step's end); -1
    // otherwise.
    double max_step_share = -1;
    std::int64_t max_step_blocks = 0;  // the blocks that max step has run so far (with max_step_share)
    double steps_per_s = 0;            // measured over the last ~0.5 s of wall time, pauses excluded
    double ms_per_step = 0;            // wall time per step, averaged the same way; 0 = not known yet
    Diagnostics diag;                  // at the last energy cadence
    // How diag's potential was found where it is not the exact pair sum (sim/potential_estimate.hpp:
    // above kExactPotentialMaxN bodies on a host backend), e.g. "potential tree (theta 0.5): above 131072
    // bodies the energy is estimated"; "" when exact.
    std::string potential_note;
    bool have_diag = false;
    double energy0 = 0;             // total energy when the state was loaded (or G / softening changed)
    double energy_drift = 0;        // |E - E0| / |E0|
    std::uint64_t diag_serial = 0;  // increments with each new diagnostics
    // An approximate force solver's (the tree's) error, measured every so often on a small sample of
    // bodies against the float64 direct sum on that sample (sim/gravity/backend_force_error.hpp).
    bool have_force_error = false;
    ForceErrorStats force_error;
    std::string force_error_settings;   // "theta 0.6": the settings it was measured at
    std::int64_t force_error_step = 0;  // steps_total when measured
    // Interactions a step evaluates: the solver's own count where it has one (a tree), else N^2 per
    // force evaluation. 0 until the first step.
    double interactions_per_step = 0;
    // The NaN-recovery checkpoint: a full copy of the bodies taken every checkpoint_interval_s seconds.
    std::size_t checkpoint_bytes = 0;  // bytes each checkpoint reads (device -> host for GPU backends)
    bool checkpoint_from_device = false;
    double checkpoint_interval_s = 0;  // the current cadence (wall seconds between checkpoints)
    double checkpoint_ms = 0;          // wall time of the last checkpoint
};

// Tunables with defaults; tests shorten or lengthen them.
struct SessionTuning {
    double chunk_seconds = 0.010;         // each step() call aims at about this much work
    double draw_wait_seconds = 0.050;     // GPU drawing: the longest the sim thread waits for a waiting draw
    double draw_starved_seconds = 0.033;  // ... and only once the last draw is older than this (2 frames)
    double checkpoint_share = 0.01;       // checkpoints may cost at most this fraction of the wall time
};

// What a queued request (load_state / switch_backend / capture_state) came to.
struct SessionResult {
    enum class Kind { load, switch_backend, capture, reverse, add_body } kind = Kind::load;
    std::uint64_t id = 0;  // as returned by the request call
    std::string error;     // empty on success; else one line (the old state or backend was kept)
    // capture: the exact bodies between two steps, with the parameters and step count they belong to.
    std::shared_ptr<const HostState> state;
    Params params;
    Precision precision = Precision::f32;
    std::int64_t steps_total = 0;
    // capture: an adaptive integrator's state beside the bodies (Backend::export_block_state), or none.
    std::shared_ptr<const BlockState> block;
};

class SimSession {
  public:
    // Creates the backend and loads the state. Throws nbody::Error (unknown backend, no device, OOM).
    SimSession(const HostState& s, const Params& p, const std::string& backend, Precision precision);
    // Runs an existing backend that already holds the bodies `s` (tests pass instrumented backends).
    // draw_from_backend: drawing goes through the backend under its lock (GPU), not a host snapshot.
    SimSession(std::unique_ptr<Backend> backend, const HostState& s, const Params& p, bool draw_from_backend,
               const SessionTuning& tuning = {});
    // Stops the simulation thread. Waits for a step() call already running (one call: see do_steps).
    ~SimSession();
    SimSession(const SimSession&) = delete;
    SimSession& operator=(const SimSession&) = delete;

    void set_params(const Params& p);
    void set_paused(bool paused);
    bool paused() const { return paused_; }
    void request_single_step() { request_steps(1); }
    // Runs exactly k more steps, also while paused (single steps, the test script's steps=K).
    void request_steps(int k);
    // Blocks until the steps requested are done (testing aid).
    void wait_for_steps();
    // The gravitational potential phi (G and softening included) at each target, evaluated by the
    // backend's force solver where the bodies live (Backend::field_at: on a GPU only the targets go up and
    // the potentials come back). Queued like every request, so it waits at most for the step() call
    // running, and blocks the caller until answered: call it off the render thread. Throws nbody::Error
    // if the evaluation fails or the session stops first.
    std::vector<double> potentials_at(const std::vector<Vec4<double>>& targets);
    // Body i's potential energy m_i phi(x_i), phi from every other body, by the same solver at the body's
    // exact position (one body read from the backend, not the state). nullopt if there is no body i.
    // Blocks like potentials_at.
    std::optional<double> body_potential_energy(std::size_t i);
    // Every body's potential phi(x_i) from all the others, in body order, by the same solver (the targets
    // are the bodies' own positions, so each leaves itself out). Blocks like potentials_at.
    std::vector<double> body_potentials();
    // Every body's local density (sim/local_density.hpp) from a host copy of the bodies, in body order.
    // Blocks like potentials_at.
    std::vector<double> body_densities();
    // Whether drawing wants the accelerations too (acceleration arrows): host backends then copy them
    // into the snapshot with the positions (computing them if the step left none for these positions).
    void set_draw_accelerations(bool on);
    // Steps granted per rendered frame (the sim runs as fast as it can when a step outlasts a frame).
    void set_steps_per_frame(int k);
    // Called once per rendered frame: grants the next steps_per_frame steps.
    void frame_tick();
    // Blocks until the steps granted by the last frame_tick() are done (at once when paused): a recording
    // advances exactly steps_per_frame steps per video frame, however long they take.
    void wait_for_frame_steps();

    // The timeline for scrubbing back: every `every` steps (>= 1), forward or reversed, the exact bodies
    // are kept where the backend keeps them (Backend::keep_state: on the device for cuda), the oldest
    // dropped beyond `budget_bytes` (0: off, the timeline is cleared).
    void set_timeline(std::int64_t every, std::size_t budget_bytes);
    // A copy of the timeline's entries (the states are shared, not copied).
    StateTimeline timeline() const;
    // Queues going back to timeline entry i: its exact bodies are loaded, the step count and the direction
    // of time set to its own and the later entries dropped; steps then continue from there exactly as the
    // unbroken run did (for a fixed-step integrator; an adaptive one restarts its levels, as after any load).
    // The result is a load. Returns the request id, or 0 if there is no entry i.
    std::uint64_t resume_from_timeline(std::size_t i);
    // Queues new bodies (new N, preset reset, an opened snapshot at its step `step`); applied between steps,
    // running forward from there. Never waits for a step. Returns the request id; the outcome comes from
    // take_results().
    // params: the parameters they come with (a preset's, a snapshot's), set together with the bodies so the
    // energy reference is measured under them.
    // block: a snapshot's adaptive integrator state (with params), so that the run goes on as the one that
    // wrote it (kept where the backend can take it).
    std::uint64_t load_state(HostState s, std::int64_t step = 0, std::optional<Params> params = std::nullopt,
                             std::optional<BlockState> block = std::nullopt);
    // Queues moving the exact current state into a new backend; applied between steps, never waits.
    std::uint64_t switch_backend(const std::string& name, Precision precision);
    // Queues a copy of the exact current bodies (for saving a snapshot); taken between steps, never waits.
    // The result carries the state, the parameters in use and the steps taken since the last load.
    std::uint64_t capture_state();
    // Queues reversing the direction of time: from then on the steps take -dt, so leapfrog retraces its
    // steps exactly while the clock and the step index count down; again, forward. Refused for an adaptive
    // integrator. The velocities stay the bodies' own (a saved snapshot is the state at that t).
    std::uint64_t reverse();
    // Queues appending one body (position+mass, velocity) to the current state, keeping every other body
    // exactly; the energy reference restarts (the system changed).
    std::uint64_t add_body(const Vec4<double>& pos_mass, const Vec4<double>& vel);
    // Render thread: the merges since the last call, in the order they happened (CollisionEvent::step
    // tells the steps apart): the window moves its picked body along (remap_after_merges) and restarts
    // the trails, whose rows are indices.
    std::vector<CollisionEvent> take_merges();
    // Outcomes of finished requests, oldest first (empty if none finished since the last call).
    std::vector<SessionResult> take_results();
    // Requests queued or being applied.
    int pending_requests() const;
    // Blocks until every queued request has been applied (testing aid; may wait for one step).
    void wait_for_requests();

    // Render thread: hands the newest bodies to fn. CPU backends: from a snapshot (never waits for a
    // step); GPU backends: fn gets the backend itself so it can write the GL buffers in place. If a step
    // holds the backend, this returns false at once; once drawing has been shut out for
    // draw_starved_seconds, the sim thread waits after the step (at most draw_wait_seconds) for the next
    // call, so drawing keeps up with every step even when one outlasts many frames.
    // Returns false if fn was not called: nothing new since the last call (unless `force`), or busy.
    // acc: the snapshot's accelerations, or null (not asked for with set_draw_accelerations, or a GPU).
    bool with_newest_bodies(bool force,
                            const std::function<void(Backend*, const Vec4<float>* pos, const Vec4<float>* vel,
                                                     const Vec4<float>* acc, std::size_t n)>& fn);
    // The parameters set last (what a draw from the backend computes accelerations with).
    Params params() const;
    // Positions+mass for framing the camera: the newest if the backend is free, else the last
    // checkpoint (a GPU step in progress); never empty while there are bodies.
    std::vector<Vec4<float>> positions_for_fit();

    SessionStats stats() const;
    std::string backend_name() const;
    Precision precision() const;
    std::size_t size() const;
    // The messages (NaN detected, step failed) since the last call; empty if none.
    std::string take_message();

  private:
    struct Request {
        SessionResult::Kind kind = SessionResult::Kind::load;
        std::uint64_t id = 0;
        HostState state;
        std::string name;
        Precision precision = Precision::f32;
        // Field evaluations (kind ignored): answered through `answer`, never through take_results.
        std::shared_ptr<std::promise<std::vector<double>>> answer;
        std::vector<Vec4<double>> points;
        std::int64_t step = 0;                    // load: the step index the bodies are at
        std::optional<Params> params;             // load: the parameters that come with them
        std::optional<BlockState> block;          // load: a snapshot's block-step state (with params)
        std::optional<std::size_t> body;          // body i's potential energy instead of potentials at points
        bool republish = false;                   // only publish the bodies again (accelerations now wanted)
        bool all_bodies = false;                  // every body's potential instead of potentials at points
        bool densities = false;                   // every body's local density instead
        std::optional<std::size_t> resume_entry;  // load: timeline entry the state came from (resume)
        std::shared_ptr<const KeptState> kept;    // load (resume): that entry's kept state, not `state`
    };

    void start();
    void run();
    void do_steps();
    void wait_for_draw();
    // Loads s, or the kept state `kept` where given (a resume: restored where the backend keeps it).
    std::string apply_load(HostState& s, std::int64_t step, const std::optional<Params>& params,
                           std::optional<std::size_t> resume_entry = std::nullopt,
                           const KeptState* kept = nullptr,
                           const std::optional<BlockState>& block = std::nullopt);
    void keep_in_timeline_locked();  // backend_mutex_ held: keeps the bodies if the cadence is due
    std::string apply_switch(const std::string& name, Precision precision);
    std::string apply_capture(SessionResult& res);
    std::string apply_edit(const Request& r);
    void apply_field(Request& r);
    void publish_locked();
    void diagnostics_locked(bool reset_e0);
    void force_error_locked(const Params& p);
    void checkpoint_locked();
    // Keeps s as the state a failed step restores, with its step count (none: the current one).
    void set_checkpoint(HostState s, std::optional<std::int64_t> step = std::nullopt);
    // Forgets the measured step speed (and, with the time and step of newly loaded bodies, the step count,
    // simulated time and direction). Takes ctl_mutex_.
    void reset_step_stats(std::optional<double> loaded_t, std::int64_t loaded_step = 0);
    // Starts a new measuring window for the step rate; ctl_mutex_ held.
    void restart_rate_window_locked();
    std::uint64_t enqueue(Request r);

    SessionTuning tuning_;
    mutable std::mutex backend_mutex_;  // guards backend_
    std::unique_ptr<Backend> backend_;
    bool draw_from_backend_by_residency_ = true;  // false: fixed by the test constructor
    std::atomic<bool> gpu_{false};
    std::atomic<bool> quitting_{false};  // the destructor's: interrupts a long step (Backend::set_interrupt)
    // How far an adaptive integrator's max step under way has got (Backend::set_progress), and when the
    // step call under way began (now_s(); 0: none): stats() gives the panel the share of a long one.
    MaxStepProgress max_step_progress_;
    std::atomic<double> step_began_{0};
    std::atomic<std::size_t> size_{0};

    mutable std::mutex timeline_mutex_;  // guards timeline_ and its cadence
    StateTimeline timeline_;
    std::int64_t timeline_every_ = 0;  // 0: off
    std::string energy0_basis_;  // how energy0's potential was found ("", "sampled", "tree (theta 0.5)")

    std::mutex
        checkpoint_mutex_;  // guards checkpoint_ and checkpoint_step_ (the fit reads it while a step runs)
    HostState checkpoint_;
    std::int64_t checkpoint_step_ = 0;  // the step count of checkpoint_, restored with it after a failure

    mutable std::mutex ctl_mutex_;  // guards params_, granted_, requests, message_, stats_, wake-ups
    std::condition_variable wake_;
    std::condition_variable requests_done_;
    Params params_;
    bool params_changed_energy_ = false;
    // Bodies of radius 0 get the default radius once collisions are on (sim/collide/radius.hpp); false
    // after anything that replaced the bodies, or when collisions or the density changed.
    std::atomic<bool> radii_checked_{false};
    std::vector<CollisionEvent> merges_;  // guarded by ctl_mutex_
    bool reversed_ = false;               // steps take -dt
    int steps_per_frame_ = 1;
    int granted_ = 0;
    int step_budget_ = 0;  // steps requested by request_steps, run even while paused
    std::condition_variable steps_done_;
    std::atomic<bool> paused_{false};
    bool quit_ = false;
    std::atomic<bool> stopping_{false};  // quit_, readable without ctl_mutex_ (ends a wait for a draw)
    std::deque<Request> requests_;
    bool applying_ = false;
    std::uint64_t next_id_ = 1;
    std::vector<SessionResult> results_;
    std::string message_;
    SessionStats stats_;
    std::string backend_name_;
    Precision precision_ = Precision::f32;

    std::mutex snap_mutex_;  // guards the snapshot, versions and draw_waiting_
    std::condition_variable drawn_;
    std::vector<Vec4<float>> snap_pos_, snap_vel_, snap_acc_;
    std::atomic<bool> want_acc_{false};
    std::uint64_t snap_version_ = 1, drawn_version_ = 0;
    bool draw_waiting_ = false;  // GPU: a draw found the backend busy and wants the next bodies
    double last_draw_wall_ = 0;  // GPU: when a draw last got the backend

    // Sim thread only.
    double last_diag_wall_ = -1e9, diag_cost_ = 0;
    double last_error_wall_ = -1e9, error_cost_ = 0;
    std::optional<Params> last_error_params_;  // what the last force error was measured with
    double last_ckpt_wall_ = -1e9;
    double window_start_ = 0, window_busy_ = 0;
    std::int64_t window_steps_ = 0;
    std::thread thread_;
};

}  // namespace nbody
