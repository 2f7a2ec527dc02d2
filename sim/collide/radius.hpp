#pragma once
// A body's radius: where it lives (vel[i].w, sim/state.hpp), the default rule and the merged radius.
#include <cmath>

#include "sim/state.hpp"

namespace nbody {

// The default radius of a body of mass m at density rho: the sphere r = (3 m / (4 pi rho))^(1/3).
inline double default_radius(double mass, double density) {
    constexpr double kPi = 3.14159265358979323846;
    return std::cbrt(3.0 * mass / (4.0 * kPi * density));
}

// Two spheres merged into one of the summed volume.
inline double merged_radius(double r1, double r2) {
    return std::cbrt(r1 * r1 * r1 + r2 * r2 * r2);
}

// Gives every body of radius 0 (a point: a preset or a file without radii) the default radius at
// `density`. Bodies with a radius keep it. Returns how many were given one.
std::size_t assign_default_radii(HostState& s, double density);

}  // namespace nbody
