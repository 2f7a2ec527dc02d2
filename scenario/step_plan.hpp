#pragma once
// How many steps reach a given time: `nbody run --t-end` and the Python module's integrate(t_end) plan
// their steps here, so both end on T exactly and refuse the same bad T with the same words.
#include <cstdint>
#include <string>

#include "sim/state.hpp"

namespace nbody {

struct StepPlan {
    std::int64_t steps = 0;
    bool shorten_last = false;  // the last step is T - t instead of dt, so the run ends exactly at T
};

// ceil((t_end - t0) / dt) steps (at least one), the last one shortened to end at t_end. `what` names the
// end time in messages ("--t-end", "t_end"). Throws nbody::Error for a t_end that is not finite, not later
// than t0, an interval the precision cannot hold, or more steps than an int64 counts.
StepPlan plan_steps_until(const std::string& what, double t0, double t_end, double dt, Precision precision);

}  // namespace nbody
