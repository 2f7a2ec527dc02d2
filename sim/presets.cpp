#include "presets.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>

#include "classroom_presets.hpp"
#include "error.hpp"
#include "rng.hpp"
#include "sim/collide/radius.hpp"
#include "sim/gravity/interaction.hpp"
#include "util.hpp"

namespace nbody {
namespace {

struct Vec3 {
    double x = 0, y = 0, z = 0;
};

Params preset_params(double dt, double softening, double g = 1.0) {
    Params p;
    p.dt = dt;
    p.softening = softening;
    p.G = g;
    return p;
}

// Astronomical units, years and solar masses: G = 4 pi^2. Softening 0: these are point masses.
Params au_params(double dt) {
    return preset_params(dt, 0.0, kGAuYrMsun);
}

// Kiloparsecs, megayears and 10^10 solar masses: G = 4.50e-2 (classroom_presets.hpp says from what).
Params galaxy_params(double dt, double softening) {
    return preset_params(dt, softening, kGKpcMyr);
}

// The unit systems a preset can be in; N-body units leave PresetInfo's unit strings empty.
enum class Units { nbody, au, galaxy };

PresetInfo classroom(std::string name, std::string description, Params p, std::size_t natural_n, bool fixed,
                     std::string look_for, Units units = Units::au) {
    PresetInfo info{std::move(name), std::move(description), p, fixed ? natural_n : 1, natural_n,
                    fixed,           std::move(look_for)};
    if (units == Units::au) {
        info.units = "AU, years, solar masses (G = 4 pi^2)";
        info.length_unit = "AU";
        info.time_unit = "yr";
        info.mass_unit = "Msun";
    } else if (units == Units::galaxy) {
        info.units = "kpc, Myr, 1e10 solar masses (G = 4.50e-2)";
        info.length_unit = "kpc";
        info.time_unit = "Myr";
        info.mass_unit = "1e10 Msun";
    }
    return info;
}

void set_body(HostState& s, std::size_t i, Vec3 pos, Vec3 vel, double m) {
    s.pos_mass[i] = {pos.x, pos.y, pos.z, m};
    s.vel[i] = {vel.x, vel.y, vel.z, 0};
}

}  // namespace

void to_center_of_mass_frame(HostState& s) {
    double m = 0;
    Vec3 c, v;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto& p = s.pos_mass[i];
        m += p.w;
        c.x += p.w * p.x;
        c.y += p.w * p.y;
        c.z += p.w * p.z;
        v.x += p.w * s.vel[i].x;
        v.y += p.w * s.vel[i].y;
        v.z += p.w * s.vel[i].z;
    }
    if (m <= 0) return;
    for (std::size_t i = 0; i < s.size(); ++i) {
        s.pos_mass[i].x -= c.x / m;
        s.pos_mass[i].y -= c.y / m;
        s.pos_mass[i].z -= c.z / m;
        s.vel[i].x -= v.x / m;
        s.vel[i].y -= v.y / m;
        s.vel[i].z -= v.z / m;
    }
}

namespace {

Vec3 random_direction(Rng& rng) {
    Vec3 d;
    rng.on_unit_sphere(d.x, d.y, d.z);
    return d;
}

// A unit vector in the xy-plane, uniform in angle (rejection from the square, so no sin/cos whose last
// bit differs between maths libraries).
Vec3 random_planar_direction(Rng& rng) {
    double x = 0, y = 0, r2 = 0;
    do {
        x = rng.uniform(-1, 1);
        y = rng.uniform(-1, 1);
        r2 = x * x + y * y;
    } while (r2 > 1.0 || r2 < 1e-12);
    const double inv = 1.0 / std::sqrt(r2);
    return {x * inv, y * inv, 0};
}

// --- plummer --------------------------------------------------------------------------------------

// Aarseth, Henon & Wielen (1974), A&A 37, 183: a Plummer sphere of total mass 1 drawn in structural
// units (G = M = a = 1), then scaled to Henon units (G = M = 1, E = -1/4), where a = 3 pi / 16.
HostState make_plummer(std::size_t n, Rng& rng) {
    constexpr double kMaxMassFraction = 0.999;  // cut the infinite tail: the last 0.1% lies beyond r ~ 39 a
    const double length = 3.0 * std::numbers::pi / 16.0;
    const double speed = 1.0 / std::sqrt(length);  // keeps G M / r and v^2 consistent

    HostState s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        // Radius from the cumulative mass M(r) = r^3 / (1 + r^2)^{3/2}, inverted.
        double x1 = 0;
        do {
            x1 = rng.uniform_open0();
        } while (x1 > kMaxMassFraction);
        const double r = 1.0 / std::sqrt(std::pow(x1, -2.0 / 3.0) - 1.0);
        const Vec3 dir = random_direction(rng);

        // Speed q * v_escape, q drawn by rejection from g(q) = q^2 (1 - q^2)^{7/2} (max ~0.092 < 0.1).
        double q = 0, y = 0, g = 0;
        do {
            q = rng.uniform();
            y = 0.1 * rng.uniform();
            const double w = 1.0 - q * q;
            g = q * q * w * w * w * std::sqrt(w);
        } while (y > g);
        const double v = q * std::sqrt(2.0) / std::sqrt(std::sqrt(1.0 + r * r));
        const Vec3 vdir = random_direction(rng);

        set_body(s, i, {dir.x * r * length, dir.y * r * length, dir.z * r * length},
                 {vdir.x * v * speed, vdir.y * v * speed, vdir.z * v * speed}, 1.0 / double(n));
    }
    to_center_of_mass_frame(s);
    return s;
}

// --- disk and collision ---------------------------------------------------------------------------

// Light bodies that fall close to a central mass M reach v ~ sqrt(2 G M / eps); leapfrog resolves the
// passage if dt < ~eps^1.5 / sqrt(2 G M). An isolated disk keeps its bodies out at R >= 0.2, but in a
// collision they plunge through the other centre, hence the larger softening there.
constexpr double kDiskDt = 0.005;
constexpr double kDiskSoftening = 0.05;
constexpr double kCollisionSoftening = 0.1;

struct DiskSpec {
    double central_mass = 1.0;
    double disk_mass = 0.1;  // total over all light bodies
    double r_in = 0.2, r_out = 1.0;
    bool uniform_in_area = true;   // else uniform in radius
    double half_thickness = 0.02;  // z uniform in [-h, h]
    double G = 1.0;
    double softening = kDiskSoftening;
};

// Fills bodies [first, first + count): a central mass at the origin at rest, then count - 1 light bodies
// between r_in and r_out (uniform surface density, or uniform in radius), rotating counter-clockwise about
// +z. Each light body gets the circular speed of the mass enclosed by its cylindrical radius (central mass
// plus the light bodies further in), under the same Plummer softening the run uses: v^2 = G M_enc R^2 /
// (R^2+z^2+eps^2)^1.5.
void fill_disk(HostState& s, std::size_t first, std::size_t count, const DiskSpec& d, Rng& rng) {
    if (count == 0) return;
    set_body(s, first, {}, {}, d.central_mass);
    const std::size_t light = count - 1;
    if (light == 0) return;
    const double m = d.disk_mass / double(light);

    std::vector<double> radius(light), z(light);
    std::vector<Vec3> dir(light);
    for (std::size_t k = 0; k < light; ++k) {
        radius[k] = d.uniform_in_area ? std::sqrt(rng.uniform(d.r_in * d.r_in, d.r_out * d.r_out))
                                      : rng.uniform(d.r_in, d.r_out);
        dir[k] = random_planar_direction(rng);
        z[k] = d.half_thickness > 0 ? rng.uniform(-d.half_thickness, d.half_thickness) : 0.0;
    }
    // Rank by radius (ties broken by index, so the order is deterministic) to get the enclosed mass.
    std::vector<std::size_t> order(light);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return radius[a] < radius[b] || (radius[a] == radius[b] && a < b);
    });
    for (std::size_t rank = 0; rank < light; ++rank) {
        const std::size_t k = order[rank];
        const double R = radius[k];
        const double enclosed = d.central_mass + m * double(rank);
        const double d2 = R * R + z[k] * z[k] + softening2<double>(d.softening);
        const double v = std::sqrt(d.G * enclosed * R * R / (d2 * std::sqrt(d2)));
        set_body(s, first + 1 + k, {dir[k].x * R, dir[k].y * R, z[k]}, {-dir[k].y * v, dir[k].x * v, 0}, m);
    }
}

HostState make_disk(std::size_t n, Rng& rng) {
    HostState s;
    s.resize(n);
    fill_disk(s, 0, n, DiskSpec{}, rng);
    to_center_of_mass_frame(s);
    return s;
}

// Rotates bodies [first, first + count) about the x-axis by the angle with cosine c and sine sn.
void tilt_about_x(HostState& s, std::size_t first, std::size_t count, double c, double sn) {
    for (std::size_t i = first; i < first + count; ++i) {
        auto& p = s.pos_mass[i];
        auto& v = s.vel[i];
        const double py = p.y, pz = p.z, vy = v.y, vz = v.z;
        p.y = c * py - sn * pz;
        p.z = sn * py + c * pz;
        v.y = c * vy - sn * vz;
        v.z = sn * vy + c * vz;
    }
}

void shift(HostState& s, std::size_t first, std::size_t count, Vec3 dp, Vec3 dv) {
    for (std::size_t i = first; i < first + count; ++i) {
        s.pos_mass[i].x += dp.x;
        s.pos_mass[i].y += dp.y;
        s.pos_mass[i].z += dp.z;
        s.vel[i].x += dv.x;
        s.vel[i].y += dv.y;
        s.vel[i].z += dv.z;
    }
}

// Two disks, the second tilted by 60 degrees, 4 disk radii apart along x with an impact parameter of one
// radius along y, falling towards each other on a parabolic (zero-energy) orbit of their centres.
HostState make_collision(std::size_t n, Rng& rng) {
    constexpr double kSeparation = 4.0, kImpact = 1.0;
    HostState s;
    s.resize(n);
    DiskSpec d;
    d.softening = kCollisionSoftening;
    const std::size_t na = (n + 1) / 2, nb = n - na;
    fill_disk(s, 0, na, d, rng);
    fill_disk(s, na, nb, d, rng);
    tilt_about_x(s, na, nb, 0.5, std::sqrt(3.0) / 2.0);  // 60 degrees, without cos/sin

    auto mass_of = [&](std::size_t first, std::size_t count) {
        double m = 0;
        for (std::size_t i = first; i < first + count; ++i) m += s.pos_mass[i].w;
        return m;
    };
    const double ma = mass_of(0, na), mb = mass_of(na, nb), mt = ma + mb;
    const double dist = std::sqrt(kSeparation * kSeparation + kImpact * kImpact);
    const double v_rel = std::sqrt(2.0 * d.G * mt / dist);
    shift(s, 0, na, {-kSeparation * mb / mt, -kImpact * mb / mt, 0}, {v_rel * mb / mt, 0, 0});
    shift(s, na, nb, {kSeparation * ma / mt, kImpact * ma / mt, 0}, {-v_rel * ma / mt, 0, 0});
    to_center_of_mass_frame(s);
    return s;
}

// The collision's bodies in kpc, Myr and 10^10 solar masses: lengths times kGalaxyLength, masses times
// kGalaxyMass, speeds times the unit of speed sqrt(G M / L) so that every orbit is the N-body one, slower by
// the time unit. (The disk speeds come from the N-body softening 0.1, which is the preset's 1 kpc.)
HostState make_two_galaxies(std::size_t n, Rng& rng) {
    HostState s = make_collision(n, rng);
    const double speed = std::sqrt(kGKpcMyr * kGalaxyMass / kGalaxyLength);
    for (std::size_t i = 0; i < n; ++i) {
        s.pos_mass[i] = {s.pos_mass[i].x * kGalaxyLength, s.pos_mass[i].y * kGalaxyLength,
                         s.pos_mass[i].z * kGalaxyLength, s.pos_mass[i].w * kGalaxyMass};
        s.vel[i] = {s.vel[i].x * speed, s.vel[i].y * speed, s.vel[i].z * speed, s.vel[i].w * kGalaxyLength};
    }
    return s;
}

// --- solar ----------------------------------------------------------------------------------------

constexpr double kSolarSoftening = 0.01;

// A star of mass 1 at the origin and n - 1 planets of total mass 1e-3 in the xy-plane on circular orbits,
// radii uniform in [0.5, 5] (uniform in r, not in area, so the inner orbits are not sparse),
// counter-clockwise; speeds from the enclosed mass and the run's softening, as for the disk.
HostState make_solar(std::size_t n, Rng& rng) {
    HostState s;
    s.resize(n);
    DiskSpec d;
    d.disk_mass = 1e-3;
    d.r_in = 0.5;
    d.r_out = 5.0;
    d.uniform_in_area = false;
    d.half_thickness = 0.0;
    d.softening = kSolarSoftening;
    fill_disk(s, 0, n, d, rng);
    to_center_of_mass_frame(s);
    return s;
}

// --- the three random configurations of NVIDIA's CUDA nbody sample --------------------------------
// Equal masses summing to 1 and G = 1, so the scenes have the same time scale (about 1) at any N.

constexpr double kCloudDt = 0.005;
constexpr double kCloudSoftening = 0.05;

// cube: positions uniform in [-1, 1]^3, velocities uniform in [-0.2, 0.2]^3 (cold: it collapses).
HostState make_cube(std::size_t n, Rng& rng) {
    HostState s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3 p{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
        const Vec3 v{rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2)};
        set_body(s, i, p, v, 1.0 / double(n));
    }
    to_center_of_mass_frame(s);
    return s;
}

// shell: positions in a spherical shell of radii [0.625, 1] (the sample's inner/outer ratio), spinning
// about the z-axis with angular speed 0.5 (v = 0.5 z x r), about half the circular speed.
HostState make_shell(std::size_t n, Rng& rng) {
    constexpr double kInner = 0.625, kOuter = 1.0, kOmega = 0.5;
    HostState s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3 dir = random_direction(rng);
        const double r = rng.uniform(kInner, kOuter);
        const Vec3 p{dir.x * r, dir.y * r, dir.z * r};
        set_body(s, i, p, {-kOmega * p.y, kOmega * p.x, 0}, 1.0 / double(n));
    }
    to_center_of_mass_frame(s);
    return s;
}

// expand: positions uniform in the unit ball, velocities radial, v = 1.2 r (below escape speed at the
// edge, sqrt(2), so the ball expands, slows and falls back).
HostState make_expand(std::size_t n, Rng& rng) {
    constexpr double kHubble = 1.2;
    HostState s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        Vec3 p;
        rng.in_unit_ball(p.x, p.y, p.z);
        set_body(s, i, p, {kHubble * p.x, kHubble * p.y, kHubble * p.z}, 1.0 / double(n));
    }
    to_center_of_mass_frame(s);
    return s;
}

// ---- Presets with collisions (sim/collide/): bodies with radii, merging by default.

// accretion: a star of mass 1 and radius 0.02 at the origin and n - 1 planetesimals of total mass 1e-3
// on near-circular orbits in a thin annulus, radii 1 to 1.5 (uniform surface density), with random
// eccentricities and inclinations of about 0.01. Orbital period 2 pi at the inner edge. The planetesimals'
// radii come from kAccretionDensity (0.0029 for 1000 bodies: inflated, as accretion demonstrations are, so
// that they grow into a few planets over a few hundred orbits instead of millions of years).
constexpr double kAccretionDt = 0.02;  // 314 steps per orbit at the inner edge
constexpr double kAccretionSoftening = 1e-3;
constexpr double kAccretionDensity = 10.0;
constexpr double kAccretionStarRadius = 0.02;

Params collision_params(double dt, double softening, double density) {
    Params p = preset_params(dt, softening);
    p.collisions = CollisionMode::merge;
    p.density = density;
    return p;
}

HostState make_accretion(std::size_t n, Rng& rng) {
    HostState s;
    s.resize(n);
    set_body(s, 0, {}, {}, 1.0);
    s.vel[0].w = kAccretionStarRadius;
    if (n > 1) {
        const double m = 1e-3 / double(n - 1);
        for (std::size_t i = 1; i < n; ++i) {
            const double R = std::sqrt(rng.uniform(1.0, 2.25));  // uniform in area between 1 and 1.5
            const double phi = rng.uniform(0.0, 2 * std::numbers::pi);
            const double c = std::cos(phi), sn = std::sin(phi);
            const double vk = 1.0 / std::sqrt(R);
            // Small random departures from the circular orbit: e and i of order 0.01.
            const double dvr = 0.01 * vk * rng.uniform(-1.0, 1.0), dvt = 0.005 * vk * rng.uniform(-1.0, 1.0);
            const double z = 0.01 * R * rng.uniform(-1.0, 1.0), vz = 0.01 * vk * rng.uniform(-1.0, 1.0);
            set_body(s, i, {R * c, R * sn, z}, {dvr * c - (vk + dvt) * sn, dvr * sn + (vk + dvt) * c, vz}, m);
            s.vel[i].w = default_radius(m, kAccretionDensity);
        }
    }
    to_center_of_mass_frame(s);
    return s;
}

// impact: two planets in a grazing impact. Planet 0 (mass 1, radius 0.1) at rest, planet 1 (mass 0.1,
// radius 0.05) coming in from x = -2 at speed 2 with an offset of 0.3 in y, which gravity bends to a
// closest approach of about 0.135 (two-body orbit), 0.9 times the summed radii: the spheres touch near
// their edges; the other n - 2 bodies are light moonlets (total mass 1e-4, radius
// 0.005) on circular orbits of radii 0.3 to 0.6 around planet 0, which the impact scatters or sweeps up.
constexpr double kImpactDt = 0.002;
constexpr double kImpactSoftening = 1e-3;

HostState make_impact(std::size_t n, Rng& rng) {
    HostState s;
    s.resize(n);
    set_body(s, 0, {}, {}, 1.0);
    s.vel[0].w = 0.1;
    if (n > 1) {
        set_body(s, 1, {-2.0, 0.3, 0.0}, {2.0, 0.0, 0.0}, 0.1);
        s.vel[1].w = 0.05;
    }
    if (n > 2) {
        const double m = 1e-4 / double(n - 2);
        for (std::size_t i = 2; i < n; ++i) {
            const double R = rng.uniform(0.3, 0.6), phi = rng.uniform(0.0, 2 * std::numbers::pi);
            const double c = std::cos(phi), sn = std::sin(phi), v = 1.0 / std::sqrt(R);
            set_body(s, i, {R * c, R * sn, 0.0}, {-v * sn, v * c, 0.0}, m);
            s.vel[i].w = 0.005;
        }
    }
    to_center_of_mass_frame(s);
    return s;
}

// The collision preset in galaxy units. Its N-body time unit is 47.1 Myr: the collision's dt 0.005 would be
// 0.236 Myr, rounded down to 0.2; its softening 0.1 is 1 kpc. First passage at about 140 Myr; the demo's
// 1400 steps (280 Myr) show the tidal tails, as the collision's 1200 do.
PresetInfo two_galaxies() {
    PresetInfo info = classroom(
        "two-galaxies",
        "two disk galaxies (10^11 solar masses each, 10 kpc across) colliding, in kpc, Myr and 10^10 solar "
        "masses",
        galaxy_params(0.2, 0.1 * kGalaxyLength), 0, false,
        "Two spinning disk galaxies fall towards each other; one is tilted. Watch the first close pass "
        "(about 140 Myr): the stars on the near sides are flung out into long curved tidal tails and "
        "bridges, while the centres swing round and fall back to merge. Colour by set (View tab) to see "
        "which stars came from which galaxy. The speeds are a few hundred km/s (0.2 kpc/Myr is 196 km/s).",
        Units::galaxy);
    info.min_n = 2;
    info.demo_steps = 1400;
    return info;
}

using Generator = HostState (*)(std::size_t, Rng&);

struct PresetEntry {
    PresetInfo info;
    Generator make;
};

const std::vector<PresetEntry>& entries() {
    static const std::vector<PresetEntry> list = {
        {{"plummer",
          "Plummer sphere in Henon units (G = M = 1, E = -1/4), virial equilibrium, equal masses; star "
          "cluster",
          preset_params(0.01, 0.02), 1},
         make_plummer},
        {{"disk",
          "rotating disk of light bodies (total mass 0.1, radii 0.2-1) around a central mass 1, G = 1",
          preset_params(kDiskDt, kDiskSoftening), 1},
         make_disk},
        {{"collision",
          "two disks (one tilted 60 degrees) falling together on a parabolic orbit, G = 1; galaxy merger",
          // Pericentre of the centres' parabola comes at t ~ 2.9 (Barker's equation for q ~ 0.24 from
          // 4.1 apart); t = 6 shows the first passage done and the tidal tails thrown out.
          preset_params(kDiskDt, kCollisionSoftening),
          2,
          0,
          false,
          {},
          {},
          {},
          {},
          1200},
         make_collision},
        {{"solar",
          "star of mass 1 and N-1 planets (total mass 1e-3) on circular orbits in a plane, radii 0.5-5, G = "
          "1",
          preset_params(0.01, kSolarSoftening), 1, 9},
         make_solar},
        {{"cube", "CUDA sample 'random': uniform cube [-1,1]^3, small random velocities, total mass 1, G = 1",
          preset_params(kCloudDt, kCloudSoftening), 1},
         make_cube},
        {{"shell",
          "CUDA sample 'shell': spherical shell r in [0.625,1] spinning about z, total mass 1, G = 1",
          preset_params(kCloudDt, kCloudSoftening), 1},
         make_shell},
        {{"expand", "CUDA sample 'expand': unit ball with radial velocities v = 1.2 r, total mass 1, G = 1",
          preset_params(kCloudDt, kCloudSoftening), 1},
         make_expand},
        {{"accretion",
          "star (mass 1) and planetesimals (total mass 1e-3, radii 1-1.5) that merge into planets, G = 1; "
          "collisions merge",
          collision_params(kAccretionDt, kAccretionSoftening, kAccretionDensity), 1},
         make_accretion},
        {{"impact",
          "two planets (masses 1 and 0.1) in a grazing impact, with light moonlets, G = 1; collisions merge",
          collision_params(kImpactDt, kImpactSoftening, kDefaultDensity), 1},
         make_impact},
        // The classroom scenarios (sim/classroom_presets.cpp).
        {classroom(
             "figure-eight", "three equal masses chasing each other along one figure-eight, G = 1",
             preset_params(0.005, 0.0), 3, true,
             "Three equal stars share a single path and never collide: a choreography found by computer "
             "in 1993. Turn trails on (T) to see the figure-eight; one lap takes t = 6.33. Press B to "
             "run time backwards: the stars retrace their steps exactly.",
             Units::nbody),
         make_figure_eight},
        {classroom("sun-earth", "the Sun and the Earth (e = 0.0167) in AU and years", au_params(0.001), 2,
                   true,
                   "One orbit takes one year (t = 1). Turn on velocity arrows (V): the Earth is fastest at "
                   "perihelion (where it starts) and slowest half a year later, as Kepler's second law says. "
                   "The Sun wobbles a little too: both circle their common centre of mass."),
         make_sun_earth},
        {classroom("sun-earth-moon", "the Sun, the Earth and the Moon in AU and years", au_params(0.0002), 3,
                   true,
                   "The Moon circles the Earth about 13 times a year while both go round the Sun. Select the "
                   "Earth and press L to follow it, and zoom in: the Moon's path around the Sun never loops "
                   "backwards, it is always curved towards the Sun."),
         make_sun_earth_moon},
        {classroom("comet", "the Sun, the Earth and a comet on an eccentric orbit (a = 3 AU, e = 0.9)",
                   au_params(0.0005), 3, true,
                   "The comet starts at its farthest point, 5.7 AU out, moving slowly, falls in, whips round "
                   "the Sun at 0.3 AU and climbs back out: one lap takes 5.2 years. Equal areas in equal "
                   "times: watch its speed (V) near the Sun. Raise steps / frame to speed it up."),
         make_comet},
        {classroom(
             "binary-planet", "a binary star (1 and 0.5 solar masses, 1 AU apart) with a planet at 4 AU",
             au_params(0.002), 3, true,
             "Two stars orbit each other every 0.8 years; the planet circles both of them far outside "
             "(like Tatooine). Its orbit wobbles but stays: far enough out, the pair pulls like one star. "
             "Compare with binary-planet-unstable."),
         make_binary_planet},
        {classroom(
             "binary-planet-unstable", "the same binary star with its planet at 1.8 AU: too close",
             au_params(0.002), 3, true,
             "The planet starts on a circular orbit only 1.8 AU from the pair's centre. Each pass of the "
             "stars kicks it differently: its orbit changes, and within a few tens of years it is thrown "
             "close to a star or out of the system. Watch |dE/E| stay small: the chaos is physics, not "
             "error."),
         make_binary_planet_unstable},
        {classroom(
             "trojans", "the Sun, Jupiter and asteroids at its L4 and L5 Lagrange points", au_params(0.005),
             42, false,
             "The asteroids share Jupiter's orbit, 60 degrees ahead (L4) and behind (L5), and stay there "
             "orbit after orbit: there the Sun's and Jupiter's pulls balance in the rotating frame. "
             "Select Jupiter and press L to follow it: the swarms slowly sway about the points (one "
             "Jupiter year is 11.9 years)."),
         make_trojans},
        {classroom(
             "cold-collapse", "a uniform ball of equal masses at rest, G = 1, total mass 1",
             preset_params(kCloudDt, kCloudSoftening), 0, false,
             "Nothing moves at first; gravity pulls everything to the centre at once (t ~ 1.1), the ball "
             "bounces and settles into a round, hot cluster with a halo: violent relaxation, how star "
             "clusters and galaxies may form. Kinetic energy rises from zero as potential energy falls.",
             Units::nbody),
         make_cold_collapse},
        {classroom(
             "solar-system", "the Sun and the eight planets on circular orbits at their real distances",
             au_params(0.002), 9, true,
             "Mercury laps the Sun in 0.24 years, Neptune in 165: the farther out, the slower (Kepler's "
             "third law, P^2 = a^3 in years and AU). Zoom in (wheel) to see the inner planets, out to "
             "see the giants."),
         make_solar_system},
        {two_galaxies(), make_two_galaxies},
    };
    return list;
}

}  // namespace

const std::vector<PresetInfo>& presets() {
    static const std::vector<PresetInfo> list = [] {
        std::vector<PresetInfo> v;
        for (const auto& e : entries()) v.push_back(e.info);
        return v;
    }();
    return list;
}

const PresetInfo* find_preset(std::string_view name) {
    for (const auto& p : presets())
        if (p.name == name) return &p;
    return nullptr;
}

std::vector<std::string> preset_names() {
    std::vector<std::string> names;
    for (const auto& p : presets()) names.push_back(p.name);
    return names;
}

std::vector<std::size_t> preset_group_starts(std::string_view name, std::size_t n) {
    // The same splits as make_collision and fill_disk.
    if ((name == "collision" || name == "two-galaxies") && n >= 2) return {0, (n + 1) / 2};
    if ((name == "disk" || name == "solar") && n >= 2) return {0, 1};
    return {0};
}

HostState make_preset(std::string_view name, std::size_t n, std::uint64_t seed) {
    for (const auto& e : entries()) {
        if (e.info.name != name) continue;
        if (e.info.fixed_n && n != e.info.natural_n)
            throw Error("preset '" + e.info.name + "' is a system of exactly " +
                        std::to_string(e.info.natural_n) + " bodies (got N = " + std::to_string(n) + ")");
        if (n < e.info.min_n)
            throw Error("preset '" + e.info.name + "' needs N >= " + std::to_string(e.info.min_n) + " (got " +
                        std::to_string(n) + ")");
        Rng rng(seed);
        HostState s = e.make(n, rng);
        s.t = 0;
        return s;
    }
    throw Error("unknown preset '" + std::string(name) + "' (valid: " + join(preset_names()) + ")");
}

}  // namespace nbody
