#include "classroom_presets.hpp"

#include <cmath>
#include <numbers>

namespace nbody {
namespace {

// Bodies added one by one, then moved into the centre-of-mass frame.
struct Builder {
    HostState s;
    void add(double x, double y, double vx, double vy, double m) {
        s.pos_mass.push_back({x, y, 0, m});
        s.vel.push_back({vx, vy, 0, 0});
    }
    // A body on a circular orbit of radius r about a mass M at the origin, at angle phi, counter-clockwise.
    void add_circular(double r, double phi, double big_m, double m, double g = kGAuYrMsun) {
        const double v = std::sqrt(g * (big_m + m) / r);
        add(r * std::cos(phi), r * std::sin(phi), -v * std::sin(phi), v * std::cos(phi), m);
    }
    HostState done() {
        to_center_of_mass_frame(s);
        return s;
    }
};

// Masses in solar masses (IAU values, rounded).
constexpr double kEarthMass = 3.003e-6, kMoonMass = 3.694e-8, kJupiterMass = 9.546e-4;

// A binary of 1 and 0.5 solar masses 1 AU apart on a circular orbit, and an Earth-mass planet on a
// circular orbit of radius r about the pair's total mass.
HostState binary_with_planet(double r) {
    const double m1 = 1.0, m2 = 0.5, big_m = m1 + m2, v = std::sqrt(kGAuYrMsun * big_m);
    Builder b;
    b.add(-m2 / big_m, 0, 0, -v * m2 / big_m, m1);
    b.add(m1 / big_m, 0, 0, v * m1 / big_m, m2);
    b.add_circular(r, std::numbers::pi / 2, big_m, kEarthMass);
    return b.done();
}

}  // namespace

HostState make_figure_eight(std::size_t, Rng&) {
    // Chenciner & Montgomery (2000), G = 1, masses 1: x1 = -x2, x3 = 0, v1 = v2 = -v3 / 2.
    const double x = 0.97000436, y = 0.24308753, vx = -0.93240737, vy = -0.86473146;
    Builder b;
    b.add(-x, y, -vx / 2, -vy / 2, 1);
    b.add(x, -y, -vx / 2, -vy / 2, 1);
    b.add(0, 0, vx, vy, 1);
    return b.done();
}

HostState make_sun_earth(std::size_t, Rng&) {
    // The Earth at perihelion: r = a (1 - e), v = sqrt(G M (1 + e) / r), a = 1 AU, e = 0.0167.
    const double e = 0.0167, r = 1 - e;
    Builder b;
    b.add(0, 0, 0, 0, 1);
    b.add(r, 0, 0, std::sqrt(kGAuYrMsun * (1 + kEarthMass) * (1 + e) / r), kEarthMass);
    return b.done();
}

HostState make_sun_earth_moon(std::size_t, Rng&) {
    Builder b;
    b.add(0, 0, 0, 0, 1);
    const double v_earth = std::sqrt(kGAuYrMsun * (1 + kEarthMass + kMoonMass));
    b.add(1, 0, 0, v_earth, kEarthMass);
    // The Moon 0.00257 AU (384,400 km) further out, circling the Earth counter-clockwise.
    const double r = 0.00257, v_moon = std::sqrt(kGAuYrMsun * (kEarthMass + kMoonMass) / r);
    b.add(1 + r, 0, 0, v_earth + v_moon, kMoonMass);
    return b.done();
}

HostState make_comet(std::size_t, Rng&) {
    Builder b;
    b.add(0, 0, 0, 0, 1);
    b.add_circular(1, 0, 1, kEarthMass);
    // a = 3 AU, e = 0.9, starting at aphelion a (1 + e) = 5.7 AU with v = sqrt(G M (1 - e) / (a (1 + e))).
    const double a = 3, e = 0.9, r = a * (1 + e);
    b.add(-r, 0, 0, -std::sqrt(kGAuYrMsun * (1 - e) / r), 1e-12);
    return b.done();
}

HostState make_binary_planet(std::size_t, Rng&) {
    return binary_with_planet(4.0);
}

HostState make_binary_planet_unstable(std::size_t, Rng&) {
    return binary_with_planet(1.8);
}

HostState make_trojans(std::size_t n, Rng& rng) {
    Builder b;
    b.add(0, 0, 0, 0, 1);
    if (n < 2) return b.done();
    const double a = 5.2;
    b.add_circular(a, 0, 1, kJupiterMass);
    // The rest share L4 (60 degrees ahead of Jupiter) and L5 (60 behind), a little spread in radius and
    // angle, each on the circular orbit of its own radius about the Sun.
    for (std::size_t i = 2; i < n; ++i) {
        const double lead = i % 2 == 0 ? 1.0 : -1.0;
        const double r = a * (1 + rng.uniform(-0.02, 0.02));
        const double phi = lead * std::numbers::pi / 3 + rng.uniform(-0.08, 0.08);
        b.add_circular(r, phi, 1, 1e-12);
    }
    return b.done();
}

HostState make_cold_collapse(std::size_t n, Rng& rng) {
    // Uniform in the unit ball, at rest, equal masses 1/N (G = 1): it falls in within t ~ pi/2 sqrt(1/2).
    Builder b;
    for (std::size_t i = 0; i < n; ++i) {
        double x, y, z;
        rng.in_unit_ball(x, y, z);
        b.s.pos_mass.push_back({x, y, z, 1.0 / double(n)});
        b.s.vel.push_back({0, 0, 0, 0});
    }
    return b.done();
}

HostState make_solar_system(std::size_t, Rng&) {
    // The eight planets on circular orbits at their semi-major axes (AU), in the plane, spread in angle
    // by the golden angle so no two line up; masses in solar masses.
    const double a[] = {0.387, 0.723, 1.000, 1.524, 5.203, 9.537, 19.19, 30.07};
    const double m[] = {1.660e-7, 2.448e-6, 3.003e-6, 3.227e-7, 9.546e-4, 2.858e-4, 4.366e-5, 5.151e-5};
    Builder b;
    b.add(0, 0, 0, 0, 1);
    for (int i = 0; i < 8; ++i) b.add_circular(a[i], 2.39996 * i, 1, m[i]);
    return b.done();
}

}  // namespace nbody
