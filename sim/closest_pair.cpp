#include "closest_pair.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace nbody {

ClosestPair closest_pair(const HostState& s) {
    ClosestPair best;
    const std::size_t n = s.size();
    if (n < 2) return best;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return s.pos_mass[a].x < s.pos_mass[b].x; });
    double best2 = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < n; ++a) {
        const auto& p = s.pos_mass[order[a]];
        for (std::size_t b = a + 1; b < n; ++b) {
            const auto& q = s.pos_mass[order[b]];
            const double dx = q.x - p.x;
            if (dx * dx >= best2) break;  // every later body is at least this far away in x alone
            const double dy = q.y - p.y, dz = q.z - p.z;
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < best2) {
                best2 = r2;
                best.i = std::min(order[a], order[b]);
                best.j = std::max(order[a], order[b]);
            }
        }
    }
    best.distance = std::sqrt(best2);
    return best;
}

}  // namespace nbody
