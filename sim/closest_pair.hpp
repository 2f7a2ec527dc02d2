#pragma once
// The closest pair of bodies, for the "close encounter with softening 0" warning of `nbody run`.
#include <cstddef>
#include <limits>

#include "state.hpp"

namespace nbody {

struct ClosestPair {
    double distance = std::numeric_limits<double>::infinity();  // infinity for fewer than 2 bodies
    std::size_t i = 0, j = 0;                                   // i < j
};

// Sorts the bodies along x and sweeps, comparing each body only with those closer in x than the best
// distance so far: O(N log N) for spread-out bodies (every preset), O(N^2) only when all share one x.
// Cheap next to a step, so a run can sample it at every progress update.
ClosestPair closest_pair(const HostState& s);

}  // namespace nbody
