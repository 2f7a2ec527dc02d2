#include "radius.hpp"

namespace nbody {

std::size_t assign_default_radii(HostState& s, double density) {
    std::size_t given = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.vel[i].w != 0) continue;
        s.vel[i].w = default_radius(s.pos_mass[i].w, density);
        ++given;
    }
    return given;
}

}  // namespace nbody
