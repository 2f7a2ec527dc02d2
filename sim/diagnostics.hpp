#pragma once
// Conserved quantities of a state: energies, momentum, angular momentum, centre of mass.
#include <cstddef>

#include "params.hpp"
#include "state.hpp"

namespace nbody {

struct Vec3d {
    double x = 0, y = 0, z = 0;
};

// How a Diagnostics' potential was found (sim/potential_estimate.hpp: large states are not summed exactly).
enum class PotentialMethod {
    exact,    // every pair, in double
    tree,     // the Barnes-Hut tree in double, at the run's theta
    sampled,  // exact rows of an evenly spaced sample of bodies, scaled to N
};
// "exact", "tree", "sampled".
const char* to_string(PotentialMethod m);

struct Diagnostics {
    double mass = 0;
    double kinetic = 0;
    double potential = 0;  // -G sum_{i<j} m_i m_j / sqrt(r^2 + eps^2); valid only if has_potential
    bool has_potential = false;
    PotentialMethod potential_method = PotentialMethod::exact;
    double potential_error = 0;  // sampled: one standard error of the estimate; else 0
    Vec3d momentum;
    Vec3d angular_momentum;  // about the origin
    Vec3d center_of_mass;
    double total() const { return kinetic + potential; }
};

// All quantities accumulated in double. The potential is O(N^2): ask for it only at the cadence you can
// afford (with_potential = false leaves potential at 0 and has_potential false).
template <typename T>
Diagnostics compute_diagnostics(const State<T>& s, const Params& p, bool with_potential);

// A slice's share of the potential energy, -G/2 sum_{i in [first, first + count)} m_i sum_{j != i} m_j /
// sqrt(r_ij^2 + eps^2) over all n bodies (a distributed run: the shares of all slices add up to
// compute_diagnostics' potential, up to rounding). In double, rows added in index order.
template <typename T>
double potential_of_slice(const Vec4<T>* bodies, std::size_t n, std::size_t first, std::size_t count,
                          const Params& p);

// |E - E0| / |E0|, or |E - E0| when E0 == 0.
double relative_energy_drift(double e0, double e);

}  // namespace nbody
