#include "state_timeline.hpp"

#include <utility>

namespace nbody {

void StateTimeline::set_budget(std::size_t bytes) {
    budget_ = bytes;
    evict();
}

void StateTimeline::push(std::int64_t step, std::shared_ptr<const HostState> state) {
    if (!state) return;
    bytes_ += bytes_per_state(state->size());
    entries_.push_back({step, std::move(state)});
    evict();
}

void StateTimeline::truncate_after(std::size_t i) {
    while (entries_.size() > i + 1) {
        bytes_ -= bytes_per_state(entries_.back().state->size());
        entries_.pop_back();
    }
}

void StateTimeline::clear() {
    entries_.clear();
    bytes_ = 0;
}

void StateTimeline::evict() {
    while (entries_.size() > 1 && bytes_ > budget_) {
        bytes_ -= bytes_per_state(entries_.front().state->size());
        entries_.pop_front();
    }
}

}  // namespace nbody
