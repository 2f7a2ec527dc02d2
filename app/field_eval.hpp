#pragma once
// The gravitational potential at arbitrary target points (not bodies): what the selected body's potential
// energy and the potential-field view need. Direct sum on the host over bodies the window already holds
// in host memory; GPU backends will answer through the force solver's target evaluation instead.
#include <cstddef>
#include <vector>

#include "sim/state.hpp"

namespace nbody {

// phi(x_t) = -G sum_j m_j / sqrt(|x_j - x_t|^2 + eps^2) for every target t (its w is ignored), with body
// skip_body left out. OpenMP over targets.
std::vector<double> potentials_at_points(const Vec4<float>* bodies, std::size_t n,
                                         const std::vector<Vec4<double>>& targets, double G, double softening,
                                         std::size_t skip_body = std::size_t(-1));

class Backend;
struct Params;

// The potential at the targets from the bodies a backend holds. Today through a host copy of the
// positions (a device->host copy on GPU backends); the one place to switch to the force solver's
// evaluation at target points.
std::vector<double> potentials_from_backend(const Backend& b, const std::vector<Vec4<double>>& targets,
                                            const Params& p);

}  // namespace nbody
