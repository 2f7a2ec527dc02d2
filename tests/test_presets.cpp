// Presets: deterministic per seed, and each has the physical properties it claims.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>
#include <string>
#include <vector>

#include "sim/classroom_presets.hpp"
#include "sim/error.hpp"
#include "sim/presets.hpp"
#include "sim/rng.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

bool bit_identical(const HostState& a, const HostState& b) {
    return a.size() == b.size() &&
           std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4<double>)) == 0 &&
           std::memcmp(a.vel.data(), b.vel.data(), a.size() * sizeof(Vec4<double>)) == 0;
}

struct Totals {
    double mass = 0, kinetic = 0, potential = 0;
    double com[3] = {0, 0, 0}, momentum[3] = {0, 0, 0};
};

// Float64 reference sums, written out here so the test does not trust the diagnostics module.
Totals totals(const HostState& s, double softening) {
    Totals t;
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = s.pos_mass[i];
        const auto& v = s.vel[i];
        t.mass += p.w;
        t.kinetic += 0.5 * p.w * (v.x * v.x + v.y * v.y + v.z * v.z);
        t.com[0] += p.w * p.x;
        t.com[1] += p.w * p.y;
        t.com[2] += p.w * p.z;
        t.momentum[0] += p.w * v.x;
        t.momentum[1] += p.w * v.y;
        t.momentum[2] += p.w * v.z;
        for (std::size_t j = i + 1; j < n; ++j) {
            const auto& q = s.pos_mass[j];
            const double dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
            t.potential -= p.w * q.w / std::sqrt(dx * dx + dy * dy + dz * dz + softening * softening);
        }
    }
    for (double& c : t.com) c /= t.mass;
    return t;
}

TEST(Presets, ListStartsWithPlummerAndNamesMatch) {
    ASSERT_FALSE(presets().empty());
    EXPECT_EQ(presets().front().name, "plummer");
    const std::vector<std::string> expected = {"plummer", "disk",  "collision", "solar",
                                               "cube",    "shell", "expand"};
    const std::vector<std::string> names = preset_names();
    ASSERT_GE(names.size(), expected.size());
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + std::ptrdiff_t(expected.size())),
              expected);
    for (const auto& name : expected) {
        const PresetInfo* info = find_preset(name);
        ASSERT_NE(info, nullptr) << name;
        EXPECT_EQ(info->name, name);
        EXPECT_FALSE(info->description.empty());
        EXPECT_NO_THROW(validate_params(info->params)) << name;
        EXPECT_GT(info->params.softening, 0) << name;
        EXPECT_EQ(info->params.integrator, Integrator::leapfrog);
        EXPECT_EQ(info->params.damping, 1.0);
    }
    EXPECT_EQ(find_preset("nope"), nullptr);
}

TEST(Presets, UnknownNameListsValidOnes) {
    try {
        make_preset("galaxy", 10, 1);
        FAIL() << "no error";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("unknown preset 'galaxy'"), std::string::npos) << msg;
        for (const auto& name : preset_names()) EXPECT_NE(msg.find(name), std::string::npos) << msg;
    }
}

TEST(Presets, TooFewBodiesRejected) {
    for (const auto& info : presets()) {
        if (info.min_n == 0) continue;
        try {
            make_preset(info.name, info.min_n - 1, 1);
            FAIL() << info.name << ": no error";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(info.name), std::string::npos) << e.what();
        }
    }
}

TEST(Presets, SmallAndModerateNAreValid) {
    for (const auto& info : presets()) {
        for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{257}}) {
            if (n < info.min_n || (info.fixed_n && n != info.natural_n)) continue;
            SCOPED_TRACE(info.name + " n=" + std::to_string(n));
            const HostState s = make_preset(info.name, n, 7);
            ASSERT_EQ(s.size(), n);
            ASSERT_EQ(s.vel.size(), n);
            EXPECT_EQ(s.t, 0.0);
            // Finite, positive masses, no coincident bodies even at softening 0, in both precisions.
            Params p = info.params;
            p.softening = 0;
            EXPECT_NO_THROW(validate_state(s, p, Precision::f64));
            EXPECT_NO_THROW(validate_state(s, p, Precision::f32));
            // Radii (vel.w) only where the preset resolves collisions; points elsewhere.
            for (const auto& v : s.vel) {
                if (info.params.collisions == CollisionMode::off)
                    EXPECT_EQ(v.w, 0.0);
                else
                    EXPECT_GT(v.w, 0.0);
            }
            // Every preset sits in its centre-of-mass frame.
            const Totals t = totals(s, info.params.softening);
            for (int k = 0; k < 3; ++k) {
                EXPECT_NEAR(t.com[k], 0.0, 1e-12);
                EXPECT_NEAR(t.momentum[k], 0.0, 1e-12);
            }
        }
    }
}

TEST(Presets, DeterministicPerSeedAndDifferentAcrossSeeds) {
    for (const auto& info : presets()) {
        SCOPED_TRACE(info.name);
        if (info.fixed_n) continue;  // one exact system (the figure-eight), no random numbers
        const HostState a = make_preset(info.name, 300, 42);
        const HostState b = make_preset(info.name, 300, 42);
        const HostState c = make_preset(info.name, 300, 43);
        EXPECT_TRUE(bit_identical(a, b));
        EXPECT_FALSE(bit_identical(a, c));
    }
}

// The generator's stream, checked against an independent implementation of splitmix64 seeding +
// xoshiro256** (Python, arbitrary-precision integers): presets must give the same bits everywhere.
TEST(Rng, MatchesReferenceStream) {
    Rng zero(0);
    EXPECT_EQ(zero.next_u64(), 0x99ec5f36cb75f2b4ull);
    EXPECT_EQ(zero.next_u64(), 0xbf6e1f784956452aull);
    EXPECT_EQ(zero.next_u64(), 0x1a5f849d4933e6e0ull);
    Rng r42(42);
    EXPECT_EQ(r42.uniform(), double(0x15780b2e0c2ec716ull >> 11) * 0x1.0p-53);
    // uniform() stays in [0, 1) and uniform_open0() in (0, 1].
    Rng r(7);
    for (int i = 0; i < 100000; ++i) {
        const double u = r.uniform(), w = r.uniform_open0();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        ASSERT_GT(w, 0.0);
        ASSERT_LE(w, 1.0);
    }
}

TEST(Presets, PlummerIsInVirialEquilibriumInHenonUnits) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const HostState s = make_preset("plummer", 4096, seed);
        for (const auto& p : s.pos_mass) EXPECT_DOUBLE_EQ(p.w, 1.0 / 4096);
        const Totals t = totals(s, 0.0);  // W without softening: the Plummer model's own potential
        EXPECT_NEAR(t.mass, 1.0, 1e-12);
        const double virial = 2 * t.kinetic / std::abs(t.potential);
        EXPECT_NEAR(virial, 1.0, 0.05);
        EXPECT_NEAR(t.kinetic + t.potential, -0.25, 0.025);

        // Half-mass radius of a Plummer sphere: a / sqrt(2^{2/3} - 1) with a = 3 pi / 16, about 0.769.
        std::vector<double> r;
        for (const auto& p : s.pos_mass) r.push_back(std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z));
        std::nth_element(r.begin(), r.begin() + r.size() / 2, r.end());
        const double expected = (3 * std::numbers::pi / 16) / std::sqrt(std::pow(2.0, 2.0 / 3.0) - 1);
        EXPECT_NEAR(r[r.size() / 2], expected, 0.05 * expected);
    }
}

// For each orbiting body: cylindrical radius R, speed, and the enclosed mass computed here by sorting.
struct Orbit {
    double R, z, v2, radial, vz, enclosed, lz;
};

std::vector<Orbit> orbits_around(const HostState& s, std::size_t centre) {
    const auto& c = s.pos_mass[centre];
    const auto& cv = s.vel[centre];
    std::vector<Orbit> out;
    std::vector<double> mass;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i == centre) continue;
        const double x = s.pos_mass[i].x - c.x, y = s.pos_mass[i].y - c.y, z = s.pos_mass[i].z - c.z;
        const double vx = s.vel[i].x - cv.x, vy = s.vel[i].y - cv.y, vz = s.vel[i].z - cv.z;
        const double R = std::sqrt(x * x + y * y);
        out.push_back({R, z, vx * vx + vy * vy + vz * vz, (x * vx + y * vy) / R, vz, 0, x * vy - y * vx});
        mass.push_back(s.pos_mass[i].w);
    }
    std::vector<std::size_t> order(out.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return out[a].R < out[b].R; });
    double enclosed = c.w;
    for (const std::size_t k : order) {
        out[k].enclosed = enclosed;
        enclosed += mass[k];
    }
    return out;
}

TEST(Presets, SolarPlanetsOnCircularOrbits) {
    const PresetInfo* info = find_preset("solar");
    ASSERT_NE(info, nullptr);
    const HostState s = make_preset("solar", 500, 3);
    EXPECT_DOUBLE_EQ(s.pos_mass[0].w, 1.0);
    double planets = 0;
    for (std::size_t i = 1; i < s.size(); ++i) {
        EXPECT_LT(s.pos_mass[i].w, 1e-5);
        EXPECT_EQ(s.pos_mass[i].z, 0.0);
        EXPECT_EQ(s.vel[i].z, 0.0);
        planets += s.pos_mass[i].w;
    }
    EXPECT_NEAR(planets, 1e-3, 1e-12);
    for (const Orbit& o : orbits_around(s, 0)) {
        // v^2 r / (G M_enclosed) = 1 for a circular orbit; softening shifts it by < 1e-3 at r >= 0.5.
        EXPECT_NEAR(o.v2 * o.R / (info->params.G * o.enclosed), 1.0, 1e-3);
        EXPECT_NEAR(o.radial, 0.0, 1e-6);
        EXPECT_GT(o.lz, 0.0);  // all prograde
        EXPECT_GE(o.R, 0.5 - 1e-3);
        EXPECT_LE(o.R, 5.0 + 1e-3);
    }
}

TEST(Presets, DiskBodiesOnNearCircularOrbits) {
    const PresetInfo* info = find_preset("disk");
    ASSERT_NE(info, nullptr);
    const HostState s = make_preset("disk", 2000, 5);
    EXPECT_DOUBLE_EQ(s.pos_mass[0].w, 1.0);
    bool thick = false;
    for (const Orbit& o : orbits_around(s, 0)) {
        // The central force, softened as the run softens it, balances v^2 / R.
        const double eps = info->params.softening;
        const double d2 = o.R * o.R + o.z * o.z + eps * eps;
        const double needed = info->params.G * o.enclosed * o.R * o.R / (d2 * std::sqrt(d2));
        EXPECT_NEAR(o.v2 / needed, 1.0, 1e-9);
        EXPECT_NEAR(o.radial, 0.0, 1e-6);
        EXPECT_NEAR(o.vz, 0.0, 1e-12);
        EXPECT_GT(o.lz, 0.0);
        EXPECT_LE(std::abs(o.z), 0.05);
        thick = thick || std::abs(o.z) > 1e-3;
    }
    EXPECT_TRUE(thick) << "the disk should be slightly thick";
}

TEST(Presets, CollisionDisksApproachEachOther) {
    const std::size_t n = 1001;
    const HostState s = make_preset("collision", n, 9);
    const std::size_t nb = n / 2, na = n - nb;
    // Body 0 and body na are the two central masses.
    EXPECT_DOUBLE_EQ(s.pos_mass[0].w, 1.0);
    EXPECT_DOUBLE_EQ(s.pos_mass[na].w, 1.0);
    const auto &a = s.pos_mass[0], &b = s.pos_mass[na];
    const auto &va = s.vel[0], &vb = s.vel[na];
    const double dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
    const double dvx = vb.x - va.x, dvy = vb.y - va.y, dvz = vb.z - va.z;
    EXPECT_GT(std::sqrt(dx * dx + dy * dy + dz * dz), 2.5);  // disks of radius 1 start apart
    EXPECT_LT(dx * dvx + dy * dvy + dz * dvz, 0.0);          // and approach
    // The second disk is tilted: its bodies' angular momentum about its centre is not along z.
    double lz = 0, ly = 0;
    for (std::size_t i = na + 1; i < n; ++i) {
        const double x = s.pos_mass[i].x - b.x, y = s.pos_mass[i].y - b.y, z = s.pos_mass[i].z - b.z;
        const double vx = s.vel[i].x - vb.x, vy = s.vel[i].y - vb.y, vz = s.vel[i].z - vb.z;
        lz += x * vy - y * vx;
        ly += z * vx - x * vz;
    }
    EXPECT_GT(std::abs(ly), 0.5 * std::abs(lz));
    // N = 2: just the two central masses.
    const HostState two = make_preset("collision", 2, 1);
    EXPECT_DOUBLE_EQ(two.pos_mass[0].w, 1.0);
    EXPECT_DOUBLE_EQ(two.pos_mass[1].w, 1.0);
}

TEST(Presets, CudaSampleConfigurationsHaveTheirShapes) {
    const std::size_t n = 2000;
    const HostState cube = make_preset("cube", n, 11);
    const HostState shell = make_preset("shell", n, 11);
    const HostState expand = make_preset("expand", n, 11);
    for (const auto* s : {&cube, &shell, &expand}) EXPECT_NEAR(totals(*s, 0.05).mass, 1.0, 1e-12);

    // cube: inside [-1, 1]^3 (up to the centre-of-mass shift) and filling it.
    double max_abs = 0;
    for (const auto& p : cube.pos_mass)
        max_abs = std::max({max_abs, std::abs(p.x), std::abs(p.y), std::abs(p.z)});
    EXPECT_LT(max_abs, 1.1);
    EXPECT_GT(max_abs, 0.9);

    // shell: radii in [0.625, 1] about the centre of mass; spinning about z, so v is horizontal.
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = shell.pos_mass[i];
        const auto& v = shell.vel[i];
        const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
        EXPECT_GT(r, 0.6);
        EXPECT_LT(r, 1.05);
        EXPECT_NEAR(v.z, 0.0, 1e-3);
        EXPECT_GT(p.x * v.y - p.y * v.x, -1e-3);  // counter-clockwise
    }

    // expand: velocity parallel to position, pointing outwards.
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = expand.pos_mass[i];
        const auto& v = expand.vel[i];
        const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
        const double speed = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        EXPECT_LT(r, 1.05);
        if (r > 0.1) {
            EXPECT_GT((p.x * v.x + p.y * v.y + p.z * v.z) / (r * speed), 0.99);
        }
    }
}

}  // namespace
// The classroom scenarios (issue 23): each at its natural N, valid, named by the CLI, with a description
// and what to look for; a fixed system refuses another N; the physics they claim.
TEST(Presets, ClassroomScenariosAreWhatTheySay) {
    for (const char* name :
         {"figure-eight", "sun-earth", "sun-earth-moon", "comet", "binary-planet", "binary-planet-unstable",
          "trojans", "cold-collapse", "solar-system", "two-galaxies"}) {
        SCOPED_TRACE(name);
        const PresetInfo* info = find_preset(name);
        ASSERT_NE(info, nullptr);
        EXPECT_FALSE(info->look_for.empty());
        EXPECT_NO_THROW(validate_params(info->params));
        const std::size_t n = info->natural_n ? info->natural_n : 512;
        const HostState s = make_preset(name, n, 1);
        ASSERT_EQ(s.size(), n);
        EXPECT_NO_THROW(validate_state(s, info->params, Precision::f64));
        if (info->fixed_n) {
            EXPECT_THROW(make_preset(name, n + 1, 1), Error);
        }
        if (info->length_unit == "AU") {
            EXPECT_NEAR(info->params.G, 4 * M_PI * M_PI, 1e-12);
        } else if (info->length_unit == "kpc") {
            EXPECT_EQ(info->time_unit, "Myr");
            EXPECT_EQ(info->mass_unit, "1e10 Msun");
        } else {
            EXPECT_TRUE(info->units.empty());
            EXPECT_EQ(info->params.G, 1.0);
        }
    }
    // The Earth at perihelion: 0.9833 AU from the Sun at 6.389 AU/yr (2 pi sqrt((1 + e) / (1 - e))).
    const HostState se = make_preset("sun-earth", 2, 1);
    const double dx = se.pos_mass[1].x - se.pos_mass[0].x, dvy = se.vel[1].y - se.vel[0].y;
    EXPECT_NEAR(dx, 0.9833, 1e-4);
    EXPECT_NEAR(dvy, 2 * M_PI * std::sqrt(1.0167 / 0.9833), 1e-3);
    // Jupiter is the sixth body, 5.203 AU out.
    const HostState ss = make_preset("solar-system", 9, 1);
    EXPECT_NEAR(std::hypot(ss.pos_mass[5].x - ss.pos_mass[0].x, ss.pos_mass[5].y - ss.pos_mass[0].y), 5.203,
                1e-3);
}

}  // namespace nbody

namespace nbody {
namespace {

// G in kpc, Myr and 10^10 solar masses, checked against the textbook G = 4.30091e-6 kpc (km/s)^2 / Msun
// and 1 km/s = 1.02271e-3 kpc/Myr.
TEST(GalaxyUnits, GravitationalConstant) {
    const double g = 4.30091e-6 * 1.02271e-3 * 1.02271e-3 * 1e10;
    EXPECT_NEAR(kGKpcMyr / g, 1.0, 1e-4);
    EXPECT_NEAR(kGKpcMyr, 4.50e-2, 5e-4);
}

// two-galaxies is the collision preset in other units: lengths x10 kpc, masses x10^11 Msun, and speeds
// scaled so that each orbit is the same one (v^2 r / (G m) unchanged), its softening 1 kpc; the same sets.
TEST(GalaxyUnits, TwoGalaxiesIsTheCollisionScaled) {
    const PresetInfo* gal = find_preset("two-galaxies");
    const PresetInfo* col = find_preset("collision");
    ASSERT_NE(gal, nullptr);
    ASSERT_NE(col, nullptr);
    EXPECT_EQ(gal->params.G, kGKpcMyr);
    EXPECT_NEAR(gal->params.softening, col->params.softening * kGalaxyLength, 1e-12);
    // Its dt is no longer than the collision's dt in Myr (the N-body time unit).
    const double time_unit =
        std::sqrt(kGalaxyLength * kGalaxyLength * kGalaxyLength / (kGKpcMyr * kGalaxyMass));
    EXPECT_NEAR(time_unit, 47.1, 0.1);
    EXPECT_LE(gal->params.dt, col->params.dt * time_unit);
    EXPECT_GE(gal->params.dt, 0.8 * col->params.dt * time_unit);
    const HostState g = make_preset("two-galaxies", 101, 3), c = make_preset("collision", 101, 3);
    const double speed = kGalaxyLength / time_unit;
    for (std::size_t i = 0; i < g.size(); ++i) {
        EXPECT_NEAR(g.pos_mass[i].x, c.pos_mass[i].x * kGalaxyLength, 1e-12);
        EXPECT_NEAR(g.pos_mass[i].w, c.pos_mass[i].w * kGalaxyMass, 1e-12);
        EXPECT_NEAR(g.vel[i].y, c.vel[i].y * speed, 1e-12);
    }
    EXPECT_EQ(preset_group_starts("two-galaxies", 101), preset_group_starts("collision", 101));
}

// Colour by set needs each preset's sets as index ranges that match how it fills the bodies: the
// collision's second galaxy starts where its second central mass sits.
TEST(PresetGroups, CollisionSplitsAtTheSecondGalaxy) {
    for (std::size_t n : {2u, 7u, 1000u}) {
        const HostState s = make_preset("collision", n, 1);
        const auto starts = preset_group_starts("collision", n);
        ASSERT_EQ(starts.size(), 2u);
        EXPECT_EQ(starts[0], 0u);
        // fill_disk puts each disk's central mass (1.0) first.
        EXPECT_DOUBLE_EQ(s.pos_mass[starts[1]].w, 1.0);
    }
    EXPECT_EQ(preset_group_starts("plummer", 100), std::vector<std::size_t>{0});
    EXPECT_EQ(preset_group_starts("no-such", 100), std::vector<std::size_t>{0});
}

// A first `nbody render --preset collision` shows the encounter: its demo length passes the centres'
// pericentre (t ~ 2.9).
TEST(PresetGroups, CollisionDemoRunsPastFirstPassage) {
    const PresetInfo* p = find_preset("collision");
    ASSERT_NE(p, nullptr);
    EXPECT_GT(double(p->demo_steps) * p->params.dt, 4.0);
}

}  // namespace
}  // namespace nbody
