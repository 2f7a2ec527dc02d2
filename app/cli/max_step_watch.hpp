#pragma once
// The progress line inside a long max step of an adaptive integrator. `nbody run` updates its line between
// chunks of max steps, and a max step cannot be split: at a large --dt one of them can run for minutes.
// While a chunk runs, a thread of this class reads how far the block steps have got (MaxStepProgress, which
// the backend publishes at each block on the host, at each return to the host on a device) and updates
// the line with the share of the max step done and the blocks' time.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "progress.hpp"
#include "sim/integrate/block_steps.hpp"

namespace nbody {

// A max step gets lines of its own once it has run this long (seconds), or the line's interval if longer.
inline constexpr double kLongMaxStepSeconds = 0.5;

class MaxStepWatch {
  public:
    // Updates `line` (which must outlive this) at most every `interval_s` seconds (the line's own: 0 for
    // a line at every change).
    MaxStepWatch(Progress& line, double interval_s);
    ~MaxStepWatch();  // stops the thread
    MaxStepWatch(const MaxStepWatch&) = delete;
    MaxStepWatch& operator=(const MaxStepWatch&) = delete;

    // What to give Backend::set_progress.
    MaxStepProgress* published() { return &published_; }
    // A chunk of max steps of `dt` begins, `done` of the run's finished before it, the clock at `t`.
    void begin_chunk(std::int64_t done, double t, double dt);
    // It ended: the loop updates the line itself again (no update from the thread after this returns).
    void end_chunk();

  private:
    void watch();

    Progress& line_;
    double interval_s_;
    MaxStepProgress published_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool running_ = false;  // a chunk is under way
    std::int64_t done_ = 0, finished_base_ = 0;
    double t_ = 0, dt_ = 0;
    std::int64_t current_ = 0;  // max steps finished in the chunk when the one under way was first seen
    double current_since_ = 0;  // when that was (now_s())
    std::thread thread_;        // last: starts after the members it reads
};

}  // namespace nbody
