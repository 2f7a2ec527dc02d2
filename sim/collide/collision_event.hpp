#pragma once
// What a step's collisions did: one event per resolved pair, and their totals.
#include <cstdint>
#include <vector>

namespace nbody {

// One resolved contact. Indices are the bodies' at that step, before the step's merges removed any.
struct CollisionEvent {
    double t = 0;                // the contact's time (the swept test's, inside the step)
    std::uint64_t i = 0, j = 0;  // i < j; on a merge i survives and j is removed
    double mi = 0, mj = 0;       // masses before
    double speed = 0;            // relative speed |v_i - v_j| before
    double energy_lost = 0;      // kinetic + the pair's potential energy before minus after (see resolve.hpp)
    bool merged = false;         // false: a bounce
    std::int64_t step = 0;  // the step of the step() call it happened in (1-based; Backend::step sets it)
};

// The collisions of one or more steps.
struct CollisionTally {
    std::vector<CollisionEvent> events;
    std::int64_t merges = 0, bounces = 0;
    double energy_lost = 0;  // summed over the events

    void add(const CollisionEvent& e) {
        events.push_back(e);
        (e.merged ? merges : bounces) += 1;
        energy_lost += e.energy_lost;
    }
    void add(const CollisionTally& other) {
        for (const CollisionEvent& e : other.events) add(e);
    }
};

}  // namespace nbody
