#pragma once
// The last states of a run, kept for scrubbing back in the window: exact copies of the bodies at step
// counts, where the backend keeps them (Backend::keep_state: host copies in double for the CPU backends, a
// float run converting back bit for bit; device buffers for cuda), the oldest dropped to stay within a
// memory budget. No GL, no threads: SimSession fills it between steps.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

#include "sim/kept_state.hpp"

namespace nbody {

struct TimelineEntry {
    std::int64_t step = 0;  // steps taken since the bodies were loaded (counting down while reversed)
    std::shared_ptr<const KeptState> state;
    bool reversed = false;  // kept while time ran backwards (B): the run went on from it with -dt
};

class StateTimeline {
  public:
    void set_budget(std::size_t bytes);
    std::size_t budget() const { return budget_; }
    std::size_t bytes() const { return bytes_; }
    // Whether the newest state is kept in device memory (the budget is then device memory).
    bool on_device() const { return !entries_.empty() && entries_.back().state->on_device(); }
    std::size_t size() const { return entries_.size(); }
    const TimelineEntry& at(std::size_t i) const { return entries_[i]; }
    // Appends a state, in the order the run reached them (the step count goes down while time runs
    // backwards); drops the oldest while over the budget, but always keeps the newest one, so even a state
    // larger than the budget can be gone back to.
    void push(std::int64_t step, std::shared_ptr<const KeptState> state, bool reversed = false);
    // Drops the oldest state (false if there is none): room for a new one when memory runs out.
    bool drop_oldest();
    // Drops every state after entry i: the run goes on from there and writes a new future.
    void truncate_after(std::size_t i);
    void clear();

  private:
    void evict();

    std::deque<TimelineEntry> entries_;
    std::size_t budget_ = std::size_t(256) << 20;
    std::size_t bytes_ = 0;
};

}  // namespace nbody
