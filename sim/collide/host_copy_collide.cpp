// Backend::collide's default: the collisions of any backend through host copies of its bodies.
#include "resolve.hpp"
#include "sim/backend.hpp"

namespace nbody {

CollisionTally Backend::collide(const Params& p, double dt, double t_end) {
    if (p.collisions == CollisionMode::off) return {};
    HostState s = get_state();
    // In the backend's own precision, so that the contacts and the merged values are those the host
    // backends find for the same bodies.
    CollisionTally tally;
    if (precision() == Precision::f32) {
        State<float> f = convert_state<float>(s);
        tally = collide_bodies(f, p, dt, t_end);
        if (!tally.events.empty()) s = convert_state<double>(f);
    } else {
        tally = collide_bodies(s, p, dt, t_end);
    }
    if (!tally.events.empty()) set_state(s);  // keeps s.t, the time at the start of this step() call
    return tally;
}

}  // namespace nbody
