#pragma once
// The swept contact test of one pair, written once for the host and the device (NBODY_HD, no CUDA header).
//
// At the end of a step of length dt the pair is at separation d = x_i - x_j with relative velocity
// u = v_i - v_j. Over the step the pair is taken to have moved straight at u, so it started at
// d0 = d - u dt and was at d0 + u s at time s into the step. The spheres touch when that distance is the
// sum of the radii R. The contact is the earliest s in [0, dt] with |d0 + u s| <= R: 0 when they already
// overlapped at the start, else the entering root of |d0 + u s|^2 = R^2, found only while they approach.
// Everything in double, from the state's values, so every backend finds the same contacts.
#include "sim/gravity/interaction.hpp"

namespace nbody {

// Time into the step of the first contact, or a negative number when the spheres stay apart.
NBODY_HD double swept_contact_time(double dx, double dy, double dz, double ux, double uy, double uz, double R,
                                   double dt) {
    const double x0 = dx - ux * dt, y0 = dy - uy * dt, z0 = dz - uz * dt;
    const double c = x0 * x0 + y0 * y0 + z0 * z0 - R * R;
    if (c <= 0) return 0.0;  // overlapping at the start of the step
    const double b = x0 * ux + y0 * uy + z0 * uz;
    if (b >= 0) return -1.0;  // not approaching: the distance only grows during the step
    const double a = ux * ux + uy * uy + uz * uz;
    // b^2 - a c = a R^2 - |d0 x u|^2 (Lagrange's identity): no cancellation between the large b^2 and
    // a |d0|^2, so a miss by 1e-6 of R stays a miss at any distance.
    const double cx = y0 * uz - z0 * uy, cy = z0 * ux - x0 * uz, cz = x0 * uy - y0 * ux;
    const double disc = a * R * R - (cx * cx + cy * cy + cz * cz);
    if (disc < 0) return -1.0;               // the closest approach stays outside R
    const double s = c / (-b + sqrt(disc));  // the smaller root, in its stable form
    return s <= dt ? s : -1.0;
}

}  // namespace nbody
