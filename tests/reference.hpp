#pragma once
// Float64 references and random scenarios shared by the physics tests.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/state.hpp"

namespace nbody::test {

// Bodies uniform in [-1, 1]^3 with masses in [0.5, 1.5] / n and small random velocities.
inline HostState random_bodies(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    HostState s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.pos_mass[i] = {u(g), u(g), u(g), (1.0 + 0.5 * u(g)) / double(n)};
        s.vel[i] = {0.1 * u(g), 0.1 * u(g), 0.1 * u(g), 0.0};
    }
    return s;
}

// Direct sum in double, skipping only j == i.
inline std::vector<Vec4<double>> reference_accelerations(const HostState& s, double G, double eps) {
    const std::size_t n = s.size();
    std::vector<Vec4<double>> a(n, Vec4<double>{0, 0, 0, 0});
    for (std::size_t i = 0; i < n; ++i) {
        double ax = 0, ay = 0, az = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const double dx = s.pos_mass[j].x - s.pos_mass[i].x, dy = s.pos_mass[j].y - s.pos_mass[i].y,
                         dz = s.pos_mass[j].z - s.pos_mass[i].z;
            const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
            const double w = s.pos_mass[j].w / (r2 * std::sqrt(r2));
            ax += w * dx, ay += w * dy, az += w * dz;
        }
        a[i] = {G * ax, G * ay, G * az, 0};
    }
    return a;
}

// sqrt(sum |a - ref|^2 / sum |ref|^2); NaN anywhere gives NaN, which fails every <= comparison.
inline double relative_rms(const std::vector<Vec4<double>>& a, const std::vector<Vec4<double>>& ref) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double dx = a[i].x - ref[i].x, dy = a[i].y - ref[i].y, dz = a[i].z - ref[i].z;
        num += dx * dx + dy * dy + dz * dz;
        den += ref[i].x * ref[i].x + ref[i].y * ref[i].y + ref[i].z * ref[i].z;
    }
    return std::sqrt(num / den);
}

// The figure-eight choreography (Chenciner & Montgomery 2000, as in assets/figure8.csv): three unit
// masses, G = 1, period 6.32591398. Embedded, so a test binary runs wherever it is copied.
inline HostState figure_eight() {
    HostState s;
    s.resize(3);
    const double x = 0.97000436, y = 0.24308753, vx = 0.93240737, vy = 0.86473146;
    s.pos_mass = {{-x, y, 0, 1}, {x, -y, 0, 1}, {0, 0, 0, 1}};
    s.vel = {{vx / 2, vy / 2, 0, 0}, {vx / 2, vy / 2, 0, 0}, {-vx, -vy, 0, 0}};
    return s;
}

// Two bodies of mass 1/2 (G M = 1) on a Kepler orbit of semi-major axis 1 and eccentricity e, started at
// pericentre on the x axis, moving counter-clockwise. Period 2 pi.
inline HostState kepler(double e) {
    const double rp = 1.0 - e, vp = std::sqrt((1.0 + e) / (1.0 - e));
    HostState s;
    s.resize(2);
    s.pos_mass[0] = {0.5 * rp, 0, 0, 0.5};
    s.pos_mass[1] = {-0.5 * rp, 0, 0, 0.5};
    s.vel[0] = {0, 0.5 * vp, 0, 0};
    s.vel[1] = {0, -0.5 * vp, 0, 0};
    return s;
}

}  // namespace nbody::test
