#pragma once
// The scrub bar: while the simulation is paused, a slider over the states the timeline kept (in the order
// the run reached them, each with its step, t and whether time ran backwards there), what they cost
// against the memory budget, and "Resume from here". ImGui only; window_app shows the state and
// resumes the session.
#include <cstddef>

#include "state_timeline.hpp"

namespace nbody {

struct TimelineBarResult {
    bool moved = false;   // the slider moved: show state `index`
    bool resume = false;  // resume the run from state `index`
};

// Draws the bar at the bottom of the window. `index` is the state shown (size() - 1: the newest);
// `budget_mib` the budget slider, applied by the caller.
TimelineBarResult draw_timeline_bar(const StateTimeline& t, int& index, int& budget_mib);

}  // namespace nbody
