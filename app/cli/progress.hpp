#pragma once
// The progress line of long headless commands (`run`, `render`, `bench`) on stderr: steps done,
// steps/s, interactions/s and an ETA. On a terminal one line is rewritten in place a few times a second;
// otherwise (a log file, a pipe, a batch job) a plain line is printed every few seconds, so a log shows
// the run is alive without filling up.
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>

namespace nbody {

struct ProgressSettings {
    bool enabled = true;            // false: --quiet, nothing is printed
    bool terminal = false;          // true: rewrite one line in place (stderr is a TTY)
    double plain_interval_s = 5.0;  // seconds between plain lines (not a terminal)
    double live_interval_s = 0.2;   // seconds between rewrites of the live line
};

// What the environment says: terminal = isatty(stderr); NBODY_PROGRESS_SECONDS, when set to a number
// >= 0, replaces the plain-line interval (0: a line at every update, for tests and scripts).
ProgressSettings progress_settings_from_environment(bool quiet);

// An adaptive run's work for a progress line's detail, as `run` and `render` show it: "t = T, B blocks, E
// force+jerk evaluations" (with the neighbour scheme: "E full force+jerk evaluations, M neighbour
// evaluations"); t to the resolution `dt_max` / 1000.
std::string block_work_detail(double t, double dt_max, std::int64_t blocks, std::uint64_t body_updates,
                              std::uint64_t neighbour_updates, bool neighbours);

// The line's detail while a max step is under way (MaxStepWatch): its blocks' time and count so far.
std::string max_step_under_way_detail(double t, double dt_max, std::int64_t blocks);

// One line, updated from the loop that runs the steps and, while a long max step runs, from a watching
// thread (MaxStepWatch): every call below is safe from two threads.
class Progress {
  public:
    // `label` starts each line ("run", "bench openmp float N=4096"); total_steps > 0; interactions
    // counted per step (N^2, the convention of every rate nbody prints). Writes to `out` (std::cerr).
    Progress(std::string label, std::int64_t total_steps, double interactions_per_step, ProgressSettings s,
             std::ostream& out);
    ~Progress();  // finish()
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // What the line counts, one and many ("body", "bodies"); "step", "steps" unless set.
    void set_units(std::string one, std::string many);
    // Text shown after the count and before the rates, until replaced ("" for none): what a step count
    // does not tell, e.g. an adaptive integrator's simulated time, blocks and force evaluations.
    void set_detail(std::string detail);

    // `done` steps are complete; prints if the interval has passed. Cheap to call often.
    void update(std::int64_t done);
    // The same inside a step: `done` counts the share of the one under way too (0.37 of the first max
    // step), and `detail` replaces the detail.
    void update_within(double done, std::string detail);
    // Ends the live line (a newline on a terminal) so the summary starts on its own line. Idempotent.
    void finish();

    // The text of one line for `done` steps after `elapsed_s` seconds (no newline); exposed for tests.
    // A share of a step (update_within) counts in the percentage, the rate and the ETA.
    std::string line(double done, double elapsed_s) const;

  private:
    void print(double done);  // update's, with mutex_ held

    mutable std::mutex mutex_;
    std::string label_;
    std::string unit_ = "step", units_ = "steps";
    std::string detail_;
    std::int64_t total_;
    double interactions_per_step_;
    ProgressSettings settings_;
    std::ostream& out_;
    double start_s_, last_print_s_;
    bool live_line_open_ = false;
    bool finished_ = false;
};

// Chooses how many steps to run before the next progress update so that one call of Backend::step
// lasts about `target_s` seconds, from the measured time of the previous call. At least 1, at most
// `remaining`. Long runs then report progress without slowing the backend down (a call costs one sync).
std::int64_t next_chunk(std::int64_t previous_steps, double previous_seconds, std::int64_t remaining,
                        double target_s = 0.25);

}  // namespace nbody
