#include "max_step_watch.hpp"

#include <algorithm>
#include <chrono>

#include "sim/util.hpp"

namespace nbody {

MaxStepWatch::MaxStepWatch(Progress& line, double interval_s)
    : line_(line), interval_s_(interval_s), thread_([this] { watch(); }) {}

MaxStepWatch::~MaxStepWatch() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void MaxStepWatch::begin_chunk(std::int64_t done, double t, double dt) {
    const std::lock_guard<std::mutex> lock(mutex_);
    published_.begin();
    finished_base_ = published_.finished.load(std::memory_order_relaxed);
    done_ = done, t_ = t, dt_ = dt;
    running_ = true;
    current_ = 0, current_since_ = now_s();
}

void MaxStepWatch::end_chunk() {
    const std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
}

void MaxStepWatch::watch() {
    // A look a few times per interval (the line prints at most once per interval), at most 4 a second and
    // at least 50 (interval 0: every change, for scripts and tests).
    const double look_s = std::clamp(interval_s_ / 4, 0.02, 0.25);
    // Only a max step that has run this long gets lines of its own: shorter ones end within the loop's
    // next update, whose line tells the blocks and evaluations.
    const double long_s = std::max(interval_s_, kLongMaxStepSeconds);
    double seen_share = -1;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::duration<double>(look_s));
        if (stop_ || !running_) continue;
        const std::int64_t finished = published_.finished.load(std::memory_order_relaxed) - finished_base_;
        const double share = published_.share();
        const double now = now_s();
        if (finished != current_) current_ = finished, current_since_ = now;  // another max step began
        // 0: no block of this max step reported yet (nothing to say; report_max_step_done also zeroes it
        // just before it counts the max step finished).
        if (share == 0 || share == seen_share || now - current_since_ < long_s) continue;
        seen_share = share;
        // The blocks' time: the max steps finished in this chunk, and the share of the one under way.
        const double steps = double(finished) + share;
        line_.update_within(double(done_) + steps,
                            max_step_under_way_detail(t_ + steps * dt_, dt_,
                                                      published_.blocks.load(std::memory_order_relaxed)));
    }
}

}  // namespace nbody
