// The Hermite integrator's Ahmad-Cohen neighbour scheme (--neighbours K, sim/integrate/neighbour_scheme.hpp)
// on the host backends: its accuracy and its savings, serial against openmp, the limit where every body is
// a neighbour, restarts, and the input it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "hermite_checks.hpp"
#include "reference.hpp"
#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/integrate/block_steps.hpp"
#include "sim/presets.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

using test::backend_with;
using test::hermite_params;
using test::relative_rms_difference;
using test::same_bits;
using test::two_body_energy;

// The plummer preset's Params with hermite, `neighbours` and max step dt.
Params plummer_params(double neighbours, double dt) {
    const PresetInfo* info = find_preset("plummer");
    Params p = info ? info->params : Params{};
    p.integrator = Integrator::hermite;
    p.neighbours = neighbours;
    p.dt = dt;
    return p;
}

BlockCounters counters_of(Backend& b) {
    return b.block_steps()->counters();
}

// The Plummer sphere, N = 1024, double, softening 1e-4 (encounters resolved by the levels), max
// step 1/8 to t = 1, with and without 32 neighbours.
// Measured: |dE/E| 3.9e-7 with neighbours, 4.2e-8 without; 28391 full sums against 178055 (6.3x fewer);
// 178775 neighbour-list evaluations; 4379 blocks against 4375. About 0.7 s on 2 cores.
TEST(HermiteNeighbours, PlummerSphereConservesEnergyWithFewerFullSums) {
    const HostState s0 = make_preset("plummer", 1024, 1);
    std::uint64_t full[2] = {0, 0}, irregular[2] = {0, 0};
    std::int64_t blocks[2] = {0, 0};
    double drift[2] = {0, 0};
    for (int k : {0, 32}) {
        SCOPED_TRACE("neighbours " + std::to_string(k));
        Params p = plummer_params(k, 0.125);
        p.softening = 1e-4;
        auto b = backend_with("openmp", Precision::f64, s0);
        const Diagnostics d0 = b->diagnostics(p, true);
        const StepReport r = b->step(p, 8);
        ASSERT_TRUE(r.finite);
        EXPECT_EQ(b->time(), 1.0);
        const Diagnostics d = b->diagnostics(p, true);
        const int i = k > 0;
        drift[i] = relative_energy_drift(d0.total(), d.total());
        full[i] = r.body_updates;
        irregular[i] = counters_of(*b).neighbour_updates;
        blocks[i] = r.blocks;
        EXPECT_EQ(counters_of(*b).body_updates, r.body_updates);  // the counters since the backend was made
    }
    std::cout << "|dE/E| " << drift[1] << " (plain " << drift[0] << "), full sums " << full[1] << " (plain "
              << full[0] << "), neighbour evaluations " << irregular[1] << ", blocks " << blocks[1]
              << " (plain " << blocks[0] << ")\n";
    EXPECT_LE(drift[1], 1e-6);
    EXPECT_LE(2 * full[1], full[0]);
    EXPECT_GT(irregular[1], 0u);
    EXPECT_EQ(irregular[0], 0u);  // off: every step a full sum, none against a list
    // Every body is due at least once per max step, and all at the start: the irregular steps cover at
    // least that.
    EXPECT_GE(irregular[1], 8u * 1024u);
}

// eta_regular sets the regular steps (Aarseth's criterion on the full sums) and eta the irregular ones:
// 0 is eta's value to the bit; halving eta_regular alone asks for more full sums (about sqrt 2 as many)
// and no fewer irregular steps; doubling eta alone asks for fewer irregular steps, and the full sums stay
// within a few percent (a body's irregular level never coarser than its regular one ties them a little).
TEST(HermiteNeighbours, EtaRegularSetsTheRegularStepsAndEtaTheIrregular) {
    const HostState s0 = make_preset("plummer", 1024, 3);
    struct Run {
        BlockCounters c;
        HostState end;
    };
    auto run = [&](double eta, double eta_regular) {
        Params p = plummer_params(32, 0.125);
        p.softening = 1e-3;
        p.eta = eta;
        p.eta_regular = eta_regular;
        auto b = backend_with("openmp", Precision::f64, s0);
        const StepReport r = b->step(p, 2);
        EXPECT_TRUE(r.finite);
        return Run{counters_of(*b), b->get_state()};
    };
    const Run base = run(0.02, 0), same = run(0.02, 0.02), finer = run(0.02, 0.01), looser = run(0.04, 0.02);
    EXPECT_TRUE(same_bits(same.end, base.end));
    EXPECT_EQ(same.c.body_updates, base.c.body_updates);
    std::cout << "full sums " << base.c.body_updates << " (eta_regular 0.01: " << finer.c.body_updates
              << ", eta 0.04: " << looser.c.body_updates << "), irregular " << base.c.neighbour_updates
              << " (" << finer.c.neighbour_updates << ", " << looser.c.neighbour_updates << ")\n";
    EXPECT_GT(double(finer.c.body_updates), 1.25 * double(base.c.body_updates));
    EXPECT_GE(finer.c.neighbour_updates, base.c.neighbour_updates);
    EXPECT_LT(double(looser.c.neighbour_updates), 0.9 * double(base.c.neighbour_updates));
    EXPECT_NEAR(double(looser.c.body_updates), double(base.c.body_updates),
                0.05 * double(base.c.body_updates));
}

// eta_regular acts only with the scheme on: changing it with neighbours 0 keeps the block state (no
// restart), with the scheme on it is a new model.
TEST(HermiteNeighbours, EtaRegularChangesTheModelOnlyWithTheSchemeOn) {
    Params a = plummer_params(0, 0.125), b = a;
    b.eta_regular = 0.01;
    EXPECT_TRUE(same_block_model(a, b));
    a.neighbours = b.neighbours = 16;
    EXPECT_FALSE(same_block_model(a, b));
    b.eta_regular = a.eta;  // eta's value, said explicitly: the same model as 0
    EXPECT_TRUE(same_block_model(a, b));
}

// Each body's sums depend on its index alone, whatever the threads: openmp gives serial's bits, in both
// precisions. N = 1024, so that the start's list building and irregular sums (all bodies active) take the
// threaded loops.
TEST(HermiteNeighbours, SerialAndOpenmpAgreeBitForBit) {
    const HostState s0 = make_preset("plummer", 1024, 7);
    const Params p = plummer_params(32, 0.125);
    for (Precision precision : {Precision::f32, Precision::f64}) {
        SCOPED_TRACE(to_string(precision));
        auto serial = backend_with("serial", precision, s0);
        auto openmp = backend_with("openmp", precision, s0);
        ASSERT_TRUE(serial->step(p, 2).finite);
        ASSERT_TRUE(openmp->step(p, 2).finite);
        EXPECT_GT(counters_of(*serial).neighbour_updates, 0u);
        EXPECT_EQ(counters_of(*serial).neighbour_updates, counters_of(*openmp).neighbour_updates);
        EXPECT_EQ(counters_of(*serial).body_updates, counters_of(*openmp).body_updates);
        const HostState a = serial->get_state(), b = openmp->get_state();
        EXPECT_TRUE(same_bits(a, b)) << relative_rms_difference(b, a);
        // The scheme really ran: not plain Hermite's bits.
        auto plain = backend_with("serial", precision, s0);
        ASSERT_TRUE(plain->step(plummer_params(0, 0.125), 2).finite);
        EXPECT_FALSE(same_bits(plain->get_state(), a));
    }
}

// With K >= N every other body is in every list: the regular part is zero up to rounding and the
// irregular steps are plain Hermite's, so the run follows plain Hermite's closely.
// Measured: 1.1e-16 relative RMS after 4 max steps of 1/8, 330 blocks as plain's, 320 full sums against
// 3116 (64 x 5: the regular steps at each max step's end and the start; the regular part is zero, so the
// regular step is the max step).
TEST(HermiteNeighbours, EveryBodyANeighbourIsPlainHermite) {
    const std::size_t n = 64;
    const HostState s0 = make_preset("plummer", n, 5);
    auto plain = backend_with("serial", Precision::f64, s0);
    auto all = backend_with("serial", Precision::f64, s0);
    const StepReport rp = plain->step(plummer_params(0, 0.125), 4);
    const StepReport ra = all->step(plummer_params(1024, 0.125), 4);
    ASSERT_TRUE(rp.finite && ra.finite);
    const double diff = relative_rms_difference(all->get_state(), plain->get_state());
    std::cout << "relative RMS difference " << diff << ", blocks " << ra.blocks << " (plain " << rp.blocks
              << "), full sums " << ra.body_updates << " (plain " << rp.body_updates << ")\n";
    // Every list holds every other body, so the regular part is exactly zero (not the rounding difference
    // of two sums, which once chose the regular levels at random): the steps are plain Hermite's, the same
    // blocks and as many irregular steps as plain Hermite's after the start, and the bodies differ only by
    // the order in which each body's sum is added.
    EXPECT_LE(diff, 1e-14);
    EXPECT_EQ(ra.blocks, rp.blocks);
    EXPECT_EQ(counters_of(*all).neighbour_updates, rp.body_updates - n);
    EXPECT_LT(ra.body_updates, rp.body_updates);
}

// As plain Hermite's (test_hermite.cpp): a run restarted from its synchronized bodies continues bit for
// bit as the unbroken run that also synchronized there (the lists, radii and splits start again from the
// bodies alone); without that synchronization the unbroken run goes another way.
TEST(HermiteNeighbours, RestartFromSynchronizedBodiesIsExact) {
    const Params p = plummer_params(16, find_preset("plummer")->params.dt);
    const HostState s0 = make_preset("plummer", 300, 3);
    for (const char* name : {"serial", "openmp"}) {
        for (Precision precision : {Precision::f32, Precision::f64}) {
            SCOPED_TRACE(std::string(name) + " " + to_string(precision));
            auto unbroken = backend_with(name, precision, s0);
            ASSERT_TRUE(unbroken->step(p, 10).finite);
            unbroken->synchronize();
            const HostState saved = unbroken->get_state();  // what a snapshot holds
            ASSERT_TRUE(unbroken->step(p, 10).finite);
            auto restarted = backend_with(name, precision, saved);
            ASSERT_TRUE(restarted->step(p, 10).finite);
            EXPECT_TRUE(same_bits(restarted->get_state(), unbroken->get_state()));
            EXPECT_GT(counters_of(*restarted).neighbour_updates, 0u);

            auto kept = backend_with(name, precision, s0);  // never synchronized
            ASSERT_TRUE(kept->step(p, 20).finite);
            EXPECT_FALSE(same_bits(kept->get_state(), unbroken->get_state()));
        }
    }
}

// The message validate_params gives for p, or "" where it accepts p.
std::string refusal(const Params& p) {
    try {
        validate_params(p);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(HermiteNeighbours, BadNeighbourCountsAreRefusedNamingTheSetting) {
    Params p = plummer_params(0, 0.01);
    for (double k : {0.0, 1.0, 32.0, 1024.0}) {
        p.neighbours = k;
        EXPECT_EQ(refusal(p), "") << k;
    }
    for (double k : {2.5, -1.0, std::numeric_limits<double>::quiet_NaN(), 2000.0,
                     std::numeric_limits<double>::infinity(), 1e-300}) {
        p.neighbours = k;
        const std::string m = refusal(p);
        EXPECT_NE(m.find("neighbours"), std::string::npos) << k << ": '" << m << "'";
    }
    // Not a whole number: says so.
    p.neighbours = 2.5;
    EXPECT_NE(refusal(p).find("whole number"), std::string::npos) << refusal(p);
    // Out of range: says the range.
    p.neighbours = 2000;
    EXPECT_NE(refusal(p).find("[0, 1024]"), std::string::npos) << refusal(p);
}

TEST(HermiteNeighbours, CollisionsAreRefusedNamingTheScheme) {
    Params p = plummer_params(32, 0.01);
    for (CollisionMode mode : {CollisionMode::merge, CollisionMode::bounce}) {
        p.collisions = mode;
        const std::string m = refusal(p);
        EXPECT_NE(m.find("neighbour scheme"), std::string::npos) << "'" << m << "'";
        EXPECT_NE(m.find("--neighbours 0"), std::string::npos) << m;
        // Also when stepping a backend (the block steps check their model too).
        auto b = backend_with("serial", Precision::f64, make_preset("plummer", 16, 1));
        EXPECT_THROW(b->step(p, 1), Error);
    }
    // Off, collisions run as before.
    p.neighbours = 0;
    p.collisions = CollisionMode::merge;
    EXPECT_EQ(refusal(p), "");
}

// The e = 0.5 Kepler orbit for 10 orbits (80 max steps of P/8) at eta 0.002, serial double: the worst
// |dE/E| over the max steps' ends, the full sums and the neighbour-list evaluations.
struct KeplerRun {
    double worst = 0;
    std::uint64_t full = 0, irregular = 0;
};

KeplerRun kepler_run(int neighbours) {
    constexpr double kPi = 3.14159265358979323846;
    Params p = hermite_params(2 * kPi / 8, 0.002);
    p.neighbours = neighbours;
    auto b = backend_with("serial", Precision::f64, test::kepler(0.5));
    const double e0 = two_body_energy(*b);
    KeplerRun r;
    for (int step = 0; step < 80; ++step) {
        EXPECT_TRUE(b->step(p, 1).finite);
        r.worst = std::max(r.worst, relative_energy_drift(e0, two_body_energy(*b)));
    }
    r.full = counters_of(*b).body_updates;
    r.irregular = counters_of(*b).neighbour_updates;
    return r;
}

// With one neighbour (or two) each body's list can hold only the other: the energy is conserved as plain
// Hermite conserves it. Measured: worst |dE/E| 6.46e-8 with K = 1, K = 2 and plain.
TEST(HermiteNeighbours, KeplerOrbitWithOneNeighbourConservesEnergyAsPlainHermite) {
    const KeplerRun plain = kepler_run(0);
    for (int k : {1, 2}) {
        SCOPED_TRACE("neighbours " + std::to_string(k));
        const KeplerRun r = kepler_run(k);
        std::cout << "neighbours " << k << ": worst |dE/E| " << r.worst << " (plain " << plain.worst
                  << "), full sums " << r.full << " (plain " << plain.full << "), neighbour evaluations "
                  << r.irregular << "\n";
        EXPECT_GT(r.irregular, 0u);
        EXPECT_LE(r.worst, 2 * plain.worst);
    }
    // With K = 2 the companion is listed: every step is an irregular one (as many as plain Hermite's steps
    // after the start), the full sums only the regular steps at the max steps' ends (2 x (1 + 80) = 162
    // measured, against plain's 8052), and the run is plain Hermite's to its measured digits.
    const KeplerRun two = kepler_run(2);
    EXPECT_NEAR(double(two.irregular), double(plain.full - 2), 0.05 * double(plain.full));
    EXPECT_LE(10 * two.full, plain.full);
    EXPECT_NEAR(two.worst, plain.worst, 0.01 * plain.worst);
}

// The same with K = 1: the other body is listed. (It once was not: an empty sphere kept its radius when
// the count 0 was read as 1, and the start radius, 0.198 here, is below the bodies' 0.5 apart; an empty
// sphere now grows by the most a step allows.)
TEST(HermiteNeighbours, KeplerOrbitWithOneNeighbourListsTheCompanion) {
    const KeplerRun plain = kepler_run(0), one = kepler_run(1);
    EXPECT_NEAR(double(one.irregular), double(plain.full - 2), 0.05 * double(plain.full));
    EXPECT_LE(10 * one.full, plain.full) << one.full << " full sums against plain's " << plain.full;
}

}  // namespace
}  // namespace nbody
