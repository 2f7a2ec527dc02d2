#include "step_plan.hpp"

#include <algorithm>
#include <cmath>

#include "sim/error.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {

namespace {
// Beyond this --t-end does not replay the clock (~4 s): a run of so many steps is planned with --steps.
constexpr double kMaxPlannedSteps = 4.0e9;
}  // namespace

StepPlan plan_steps_until(const std::string& what, double t0, double t_end, double dt, Precision precision) {
    if (!is_finite_bits(t_end)) throw Error(what + " must be a finite number (got " + format_g(t_end) + ")");
    if (!(t_end > t0)) {
        throw Error(what + " " + format_g(t_end) + " must be later than the start time t = " + format_g(t0));
    }
    // A run shorter than one dt is a single step of T - t0, which a float backend must be able to hold.
    validate_time_interval("the " + what + " interval T - t", t_end - t0, precision);
    validate_clock_step(t0, dt);  // else the replay below would never end
    // The clock adds dt once a step (Backend::step, so that every backend and a restart have the same t to
    // the bit), and the last step is T minus that sum, which drifts from k dt by up to k roundings: at 3e8
    // steps it left a last step of -1.8 dt. So the count comes from the same additions, stopping where
    // T - t <= dt. The tolerance keeps T = 1, dt = 0.1 at 10 steps although the sum of nine 0.1s leaves a
    // hair over 0.1. Replaying costs ~1 ns a step, which the steps themselves dwarf.
    const double exact = (t_end - t0) / dt;
    if (!(exact < kMaxPlannedSteps)) {
        throw Error(what + " / --dt is too many steps (" + format_g(std::ceil(exact)) + ", more than " +
                    format_g(kMaxPlannedSteps) + " to plan exactly): give a larger --dt, or --steps");
    }
    double t = t0;
    std::int64_t full = 0;  // steps of dt before the shortened last one
    while (t_end - t > dt * (1 + 1e-9)) {
        t += dt;
        ++full;
    }
    // Where dt is below ~1e9 roundings of T the last addition can reach T itself: the step before it ends
    // the run instead, a hair over dt.
    if (!(t_end - t > 0)) --full;
    return {full + 1, true};
}

}  // namespace nbody
