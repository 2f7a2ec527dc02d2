#include "field_eval.hpp"

#include <cstdint>

#include "sim/backend.hpp"
#include "sim/interaction.hpp"

namespace nbody {

std::vector<double> potentials_at_points(const Vec4<float>* bodies, std::size_t n,
                                         const std::vector<Vec4<double>>& targets, double G, double softening,
                                         std::size_t skip_body) {
    std::vector<double> phi(targets.size(), 0.0);
    const double eps2 = softening * softening;
    const auto nt = std::int64_t(targets.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t t = 0; t < nt; ++t) {
        const Vec4<double>& x = targets[std::size_t(t)];
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == skip_body) continue;
            sum += potential_term(double(bodies[j].x) - x.x, double(bodies[j].y) - x.y,
                                  double(bodies[j].z) - x.z, double(bodies[j].w), eps2);
        }
        phi[std::size_t(t)] = -G * sum;
    }
    return phi;
}

std::vector<double> potentials_from_backend(const Backend& b, const std::vector<Vec4<double>>& targets,
                                            const Params& p) {
    std::vector<Vec4<float>> pos(b.size());
    b.copy_positions(pos.data());
    return potentials_at_points(pos.data(), pos.size(), targets, p.G, p.softening);
}

}  // namespace nbody
