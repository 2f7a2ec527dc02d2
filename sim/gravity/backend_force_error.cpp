#include "backend_force_error.hpp"

#include <vector>

namespace nbody {

ForceErrorStats backend_force_error(Backend& b, const Params& p, std::size_t sample, std::uint64_t seed) {
    const std::vector<Vec4<double>> got = b.accelerations_of(p, error_sample(b.size(), sample, seed));
    const HostState s = b.get_state();  // after accelerations_of: the same positions
    const std::vector<std::size_t> idx = error_sample(s.size(), sample, seed);
    std::vector<Vec4<double>> ref(idx.size());
    direct_accelerations_at(s.pos_mass.data(), s.size(), idx.data(), idx.size(), p.G, p.softening,
                            ref.data());
    return force_error_stats(got.data(), ref.data(), idx.size());
}

}  // namespace nbody
