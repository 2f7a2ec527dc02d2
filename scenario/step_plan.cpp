#include "step_plan.hpp"

#include <algorithm>
#include <cmath>

#include "sim/error.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {

StepPlan plan_steps_until(const std::string& what, double t0, double t_end, double dt, Precision precision) {
    if (!is_finite_bits(t_end)) throw Error(what + " must be a finite number (got " + format_g(t_end) + ")");
    if (!(t_end > t0)) {
        throw Error(what + " " + format_g(t_end) + " must be later than the start time t = " + format_g(t0));
    }
    // A run shorter than one dt is a single step of T - t0, which a float backend must be able to hold.
    validate_time_interval("the " + what + " interval T - t", t_end - t0, precision);
    // The tolerance keeps T = 1, dt = 0.1 at 10 steps although 1/0.1 rounds a hair above 10. It is a small
    // part of one step (the quotient's rounding is ~1e-16 of it): a tolerance relative to the count took a
    // whole step off T = 1, dt = 1e-9 and left the last step two dt long.
    const double exact = (t_end - t0) / dt;
    const double steps = std::max(1.0, std::ceil(exact - (1e-9 + 1e-12 * exact)));
    if (steps > 9.0e18) throw Error(what + " / --dt is too many steps (" + format_g(steps) + ")");
    return {static_cast<std::int64_t>(steps), true};
}

}  // namespace nbody
