#include "local_density.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace nbody {
namespace {

// The 10th to 90th percentile of one coordinate over the finite bodies: the bulk's extent, which a few
// escapers do not stretch.
void bulk_range(std::vector<double>& v, double& lo, double& hi) {
    const std::size_t a = v.size() / 10, b = v.size() - 1 - v.size() / 10;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(a), v.end());
    lo = v[a];
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(b), v.end());
    hi = v[b];
}

std::uint64_t cell_key(std::int64_t x, std::int64_t y, std::int64_t z) {
    // 21 bits per axis, offset so that negative cells pack too (cells beyond are clamped by the caller).
    const std::uint64_t o = std::uint64_t(1) << 20;
    return ((std::uint64_t(x) + o) << 42) | ((std::uint64_t(y) + o) << 21) | (std::uint64_t(z) + o);
}

}  // namespace

std::vector<double> local_densities(const HostState& s) {
    const std::size_t n = s.size();
    std::vector<double> rho(n, 0.0);
    std::vector<double> xs, ys, zs;
    xs.reserve(n), ys.reserve(n), zs.reserve(n);
    for (const auto& p : s.pos_mass) {
        if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
            xs.push_back(p.x), ys.push_back(p.y), zs.push_back(p.z);
    }
    const std::size_t finite = xs.size();
    if (finite < 2) return rho;
    double lo[3], hi[3];
    bulk_range(xs, lo[0], hi[0]);
    bulk_range(ys, lo[1], hi[1]);
    bulk_range(zs, lo[2], hi[2]);
    // The middle 80% per axis holds about half the bodies in a volume of the three spans' product; a
    // flat axis (a disk) counts as the largest span's 1/100 so the cells stay finite.
    const double largest = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    if (!(largest > 0)) return rho;
    double volume = 1;
    for (int k = 0; k < 3; ++k) volume *= std::max(hi[k] - lo[k], 1e-2 * largest);
    const double per_body = volume / (0.5 * double(finite));
    const double h = std::cbrt(per_body * kLocalDensityNeighbours / 27.0);
    const double limit = double((std::int64_t(1) << 20) - 2);  // cells from the origin, either way
    auto cell_of = [&](double c) { return std::int64_t(std::floor(std::clamp(c / h, -limit, limit))); };

    std::unordered_map<std::uint64_t, double> mass;
    mass.reserve(finite);
    std::vector<std::int64_t> cx(n), cy(n), cz(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = s.pos_mass[i];
        if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))) continue;
        cx[i] = cell_of(p.x), cy[i] = cell_of(p.y), cz[i] = cell_of(p.z);
        mass[cell_key(cx[i], cy[i], cz[i])] += p.w;
    }
    const double block_volume = 27.0 * h * h * h;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = s.pos_mass[i];
        if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))) continue;
        double m = 0;
        for (int dx = -1; dx <= 1; ++dx) {
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dz = -1; dz <= 1; ++dz) {
                    const auto it = mass.find(cell_key(cx[i] + dx, cy[i] + dy, cz[i] + dz));
                    if (it != mass.end()) m += it->second;
                }
            }
        }
        rho[i] = m / block_volume;
    }
    return rho;
}

}  // namespace nbody
