#pragma once
// The force error of whatever solver a backend runs, measured the cheap way: the accelerations its steps
// use, at a sample of bodies, against the float64 direct sum on that sample only
// (sim/gravity/force_error.hpp). For the window's live error next to the theta slider and for `nbody bench
// --error`.
#include <cstddef>
#include <cstdint>

#include "force_error.hpp"
#include "sim/backend.hpp"

namespace nbody {

// O(sample * N) on the host plus one copy of the bodies out of the backend.
ForceErrorStats backend_force_error(Backend& b, const Params& p, std::size_t sample,
                                    std::uint64_t seed = 12345);

}  // namespace nbody
