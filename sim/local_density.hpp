#pragma once
// Each body's local mass density, for colouring bodies by how crowded their neighbourhood is (the window's
// "local density" colour): a uniform grid over the bulk of the bodies, and each body's density the mass in
// the 3 x 3 x 3 cells around its own divided by their volume. The cell is sized so that a body in the bulk
// has about kLocalDensityNeighbours others in that block: a smoothing scale that follows N, O(N) work.
// An estimate, not a potential-grade quantity: in sparse regions it is the mass of few bodies over a fixed
// volume (noisy), and structure finer than a cell is averaged away.
#include <cstddef>
#include <vector>

#include "state.hpp"

namespace nbody {

inline constexpr double kLocalDensityNeighbours = 64;

// Densities in body order (mass per unit volume in the state's units); 0 for a body with a non-finite
// position. Fewer than 2 bodies, or all at one point: every finite body gets 0.
std::vector<double> local_densities(const HostState& s);

}  // namespace nbody
