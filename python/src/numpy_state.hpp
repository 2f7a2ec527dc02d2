#pragma once
// Bodies between numpy and the library: float64 arrays of shape (N, 3) and (N,) in, float64 copies out.
// Shapes are checked here; values (finite, mass > 0) by validate_state, in the command line's words.
#include <pybind11/numpy.h>

#include "sim/state.hpp"

namespace nbody::python {

namespace py = pybind11;

// Any array-like of numbers, as a C-contiguous float64 array (ints and lists convert; strings do not).
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// The bodies of the arrays, at time t; radii (N,) or null for points (radius 0). Throws nbody::Error naming
// the array whose shape is wrong ("positions must have shape (N, 3), got (4, 2)"), or "no bodies" for N = 0.
HostState state_from_arrays(const DoubleArray& positions, const DoubleArray& velocities,
                            const DoubleArray& masses, double t, const DoubleArray* radii = nullptr);

// One of a body's columns, as the Simulation's properties name them.
enum class Column { positions, velocities, masses, radii };

// s with one column replaced by `a` ((N, 3) or (N,) for s's N); the other columns, radii included, kept.
// Throws nbody::Error naming the column ("positions must have shape (16, 3), got (15, 3)").
HostState with_column(HostState s, Column c, const DoubleArray& a);

// One body (x, y, z), (vx, vy, vz), m and radius appended to s; shapes checked as above.
void append_body(HostState& s, const DoubleArray& position, const DoubleArray& velocity, double mass,
                 double radius);

// (N, 3) float64 copies of the x, y, z (or vx, vy, vz), the (N,) masses and radii.
py::array_t<double> positions_of(const HostState& s);
py::array_t<double> velocities_of(const HostState& s);
py::array_t<double> masses_of(const HostState& s);
py::array_t<double> radii_of(const HostState& s);
// The one of these that `c` names.
py::array_t<double> column_of(const HostState& s, Column c);
// (N, 3) float64 of (x, y, z) of each Vec4 (accelerations).
py::array_t<double> xyz_of(const std::vector<Vec4<double>>& v);

}  // namespace nbody::python
