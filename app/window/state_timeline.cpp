#include "state_timeline.hpp"

#include <utility>

namespace nbody {

void StateTimeline::set_budget(std::size_t bytes) {
    budget_ = bytes;
    evict();
}

void StateTimeline::push(std::int64_t step, std::shared_ptr<const KeptState> state, bool reversed) {
    if (!state) return;
    bytes_ += state->bytes();
    entries_.push_back({step, std::move(state), reversed});
    evict();
}

void StateTimeline::truncate_after(std::size_t i) {
    while (entries_.size() > i + 1) {
        bytes_ -= entries_.back().state->bytes();
        entries_.pop_back();
    }
}

bool StateTimeline::drop_oldest() {
    if (entries_.empty()) return false;
    bytes_ -= entries_.front().state->bytes();
    entries_.pop_front();
    return true;
}

void StateTimeline::clear() {
    entries_.clear();
    bytes_ = 0;
}

void StateTimeline::evict() {
    while (entries_.size() > 1 && bytes_ > budget_) {
        bytes_ -= entries_.front().state->bytes();
        entries_.pop_front();
    }
}

}  // namespace nbody
