// Diagnostics against hand-computed values and a float64 double loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "backends/registry.hpp"
#include "reference.hpp"
#include "sim/diagnostics.hpp"
#include "sim/local_density.hpp"
#include "sim/potential_estimate.hpp"
#include "sim/presets.hpp"
#include "sim/rng.hpp"

namespace nbody {
namespace {

TEST(Diagnostics, TwoBodiesByHand) {
    HostState s;
    s.resize(2);
    s.pos_mass[0] = {1, 0, 0, 2};
    s.pos_mass[1] = {-1, 0, 0, 3};
    s.vel[0] = {0, 1, 0, 0};
    s.vel[1] = {0, 0, 2, 0};
    Params p;
    p.G = 1.5;
    p.softening = 1.0;
    const Diagnostics d = compute_diagnostics(s, p, true);
    EXPECT_DOUBLE_EQ(d.mass, 5);
    EXPECT_DOUBLE_EQ(d.kinetic, 0.5 * 2 * 1 + 0.5 * 3 * 4);
    EXPECT_DOUBLE_EQ(d.potential, -1.5 * 2 * 3 / std::sqrt(4.0 + 1.0));
    EXPECT_DOUBLE_EQ(d.total(), d.kinetic + d.potential);
    EXPECT_DOUBLE_EQ(d.momentum.y, 2);
    EXPECT_DOUBLE_EQ(d.momentum.z, 6);
    // L = sum m r x v: body 0: 2 (1,0,0)x(0,1,0) = (0,0,2); body 1: 3 (-1,0,0)x(0,0,2) = (0,6,0)
    EXPECT_DOUBLE_EQ(d.angular_momentum.z, 2);
    EXPECT_DOUBLE_EQ(d.angular_momentum.y, 6);
    EXPECT_DOUBLE_EQ(d.center_of_mass.x, (2.0 - 3.0) / 5.0);
}

TEST(Diagnostics, PotentialMatchesPairLoop) {
    const HostState s = test::random_bodies(700, 21);
    Params p;
    p.softening = 0.02;
    double w = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (std::size_t j = i + 1; j < s.size(); ++j) {
            const double dx = s.pos_mass[i].x - s.pos_mass[j].x, dy = s.pos_mass[i].y - s.pos_mass[j].y,
                         dz = s.pos_mass[i].z - s.pos_mass[j].z;
            w -= s.pos_mass[i].w * s.pos_mass[j].w / std::sqrt(dx * dx + dy * dy + dz * dz + 0.02 * 0.02);
        }
    }
    const Diagnostics d = compute_diagnostics(s, p, true);
    EXPECT_NEAR(d.potential, w, 1e-12 * std::abs(w));
    const Diagnostics cheap = compute_diagnostics(s, p, false);
    EXPECT_FALSE(cheap.has_potential);
    EXPECT_EQ(cheap.potential, 0.0);
    EXPECT_DOUBLE_EQ(cheap.kinetic, d.kinetic);
}

TEST(Diagnostics, FloatStateIsAccumulatedInDouble) {
    // 1e6 bodies of mass 1e-6 moving at speed 1: float accumulation would lose ~1e-2 of the total.
    State<float> s;
    s.resize(1000000);
    for (auto& b : s.pos_mass) b.w = 1e-6f;
    for (auto& v : s.vel) v.x = 1.0f;
    const Diagnostics d = compute_diagnostics(s, Params{}, false);
    EXPECT_NEAR(d.kinetic, 0.5 * 1e6 * double(1e-6f), 1e-9);
}

// The slices' shares of the potential (each over all sources, halved) add up to the whole system's.
TEST(Diagnostics, SliceSharesOfThePotentialAddUp) {
    const HostState s = test::random_bodies(1001, 5);
    for (double eps : {0.0, 0.1}) {
        Params p;
        p.softening = eps;
        p.G = 2.5;
        const double whole = compute_diagnostics(s, p, true).potential;
        const double shares = potential_of_slice(s.pos_mass.data(), s.size(), 0, 500, p) +
                              potential_of_slice(s.pos_mass.data(), s.size(), 500, 501, p);
        EXPECT_NEAR(shares, whole, 1e-13 * std::abs(whole)) << "eps = " << eps;
        EXPECT_NEAR(potential_of_slice(s.pos_mass.data(), s.size(), 0, s.size(), p), whole,
                    1e-13 * std::abs(whole));
    }
}

// Up to kExactPotentialMaxN bodies the potential stays the exact sum; above, the tree where the run
// uses it, else a sample.
TEST(PotentialEstimate, MethodByNAndForce) {
    Params p;
    EXPECT_EQ(potential_method(kExactPotentialMaxN, p), PotentialMethod::exact);
    EXPECT_EQ(potential_method(kExactPotentialMaxN + 1, p), PotentialMethod::sampled);
    p.force = ForceAlgorithm::tree;
    EXPECT_EQ(potential_method(kExactPotentialMaxN, p), PotentialMethod::exact);
    EXPECT_EQ(potential_method(kExactPotentialMaxN + 1, p), PotentialMethod::tree);
    p.theta = 0.5;
    EXPECT_EQ(potential_method_text(PotentialMethod::tree, 200000, p), "tree (theta 0.5)");
    EXPECT_EQ(potential_method_text(PotentialMethod::sampled, 200000, p), "sampled (4096 of 200000 bodies)");
}

// One policy for `nbody run`, the window and Python: a device backend sums its own potential at any N, a
// host backend's large state is estimated. backend_diagnostics asks the backend itself for the exact sum
// (bit for bit) and sums a host copy for the others, saying which.
TEST(PotentialEstimate, PolicyByResidencyAndBackendDiagnostics) {
    Params p;
    p.softening = 0.05;
    p.theta = 0.5;
    EXPECT_EQ(potential_method(kExactPotentialMaxN + 1, p, Residency::device), PotentialMethod::exact);
    EXPECT_EQ(potential_method(kExactPotentialMaxN + 1, p, Residency::host), PotentialMethod::sampled);
    EXPECT_EQ(potential_method(kExactPotentialMaxN, p, Residency::host), PotentialMethod::exact);

    auto b = create_backend("serial", Precision::f64);
    b->set_state(test::random_bodies(300, 5));
    const Diagnostics own = b->diagnostics(p, true);
    const Diagnostics exact = backend_diagnostics(*b, p, true);  // 300 bodies on the host: exact
    EXPECT_EQ(exact.potential_method, PotentialMethod::exact);
    EXPECT_EQ(exact.potential, own.potential);
    EXPECT_EQ(exact.kinetic, own.kinetic);
    EXPECT_EQ(potential_method_note(exact, 300, p), "");

    const Diagnostics tree = backend_diagnostics(*b, p, true, PotentialMethod::tree);
    EXPECT_EQ(tree.potential_method, PotentialMethod::tree);
    EXPECT_TRUE(tree.has_potential);
    EXPECT_EQ(tree.kinetic, own.kinetic);
    EXPECT_NEAR(tree.potential, own.potential, 1e-3 * std::abs(own.potential));
    EXPECT_NE(tree.potential, own.potential);  // the tree's own sum, not the backend's
    EXPECT_EQ(potential_method_note(tree, 200000, p), "potential tree (theta 0.5): above " +
                                                          std::to_string(kExactPotentialMaxN) +
                                                          " bodies the energy is estimated");
    const Diagnostics sampled = backend_diagnostics(*b, p, true, PotentialMethod::sampled);
    EXPECT_EQ(sampled.potential_method, PotentialMethod::sampled);
    EXPECT_NEAR(sampled.potential, own.potential, 1e-12 * std::abs(own.potential));  // every row sampled
    EXPECT_FALSE(backend_diagnostics(*b, p, false, PotentialMethod::tree).has_potential);
}

// The exact method is compute_diagnostics' own sum, bit for bit.
TEST(PotentialEstimate, ExactIsTheDirectSumBitForBit) {
    const HostState s = test::random_bodies(500, 3);
    Params p;
    p.softening = 0.05;
    Diagnostics d;
    estimate_potential(d, s, p, PotentialMethod::exact);
    EXPECT_EQ(d.potential, compute_diagnostics(s, p, true).potential);
    EXPECT_EQ(d.potential_error, 0.0);
}

// The tree's potential against the exact float64 pair sum. With quadrupoles the error of each body's
// potential falls roughly as theta^3 and the errors of the sum partly cancel: measured here 1.1e-8, 1.8e-7
// and 7.6e-6 at theta 0.3, 0.5 and 0.8, below the bound 1e-4 theta^3 (2.7e-6, 1.25e-5, 5.1e-5).
TEST(PotentialEstimate, TreeMatchesThePairSumWithinAThetaBound) {
    const HostState s = make_preset("plummer", 6000, 11);
    for (double theta : {0.3, 0.5, 0.8}) {
        Params p;
        p.softening = 0.01;
        p.G = 1.7;
        p.theta = theta;
        const double exact = compute_diagnostics(s, p, true).potential;
        std::size_t last_done = 0, calls = 0;
        const double tree = tree_potential(s, p, [&](std::size_t done, std::size_t total) {
            EXPECT_EQ(total, s.size());
            EXPECT_GT(done, last_done);
            last_done = done, ++calls;
        });
        EXPECT_EQ(last_done, s.size());
        EXPECT_GE(calls, 1u);
        const double rel = std::abs(tree - exact) / std::abs(exact);
        EXPECT_LT(rel, 1e-4 * theta * theta * theta) << "theta " << theta << ": " << tree << " vs " << exact;
        std::printf("theta %g: relative error %.3g\n", theta, rel);
    }
}

// A sample's estimate lies within a few of its own standard errors of the exact sum, the error it states
// is small for a sample of 4096 rows, and a sample of every body is the exact sum.
TEST(PotentialEstimate, SampleIsWithinItsStatedError) {
    const HostState s = make_preset("plummer", 20000, 7);
    Params p;
    p.softening = 0.02;
    const double exact = compute_diagnostics(s, p, true).potential;
    const PotentialSample e = sampled_potential(s, p, kPotentialSampleSize);
    EXPECT_EQ(e.sampled, kPotentialSampleSize);
    EXPECT_GT(e.standard_error, 0.0);
    EXPECT_LT(e.standard_error, 0.02 * std::abs(exact));
    EXPECT_LT(std::abs(e.potential - exact), 4 * e.standard_error) << e.potential << " vs " << exact;
    std::printf("sampled: %.6g +- %.3g vs exact %.6g\n", e.potential, e.standard_error, exact);

    const HostState small = test::random_bodies(300, 9);
    const PotentialSample all = sampled_potential(small, p, 1000);
    EXPECT_EQ(all.sampled, small.size());
    EXPECT_EQ(all.standard_error, 0.0);
    const double small_exact = compute_diagnostics(small, p, true).potential;
    EXPECT_NEAR(all.potential, small_exact, 1e-13 * std::abs(small_exact));
}

TEST(Diagnostics, RelativeDrift) {
    EXPECT_NEAR(relative_energy_drift(-0.25, -0.2475), 0.01, 1e-15);
    EXPECT_DOUBLE_EQ(relative_energy_drift(0.0, 0.5), 0.5);
}

// The local density colour's estimate: a uniform cube reads its density inside, and a Plummer sphere's
// bodies read its profile rho(r) = 3 M / (4 pi a^3) (1 + r^2 / a^2)^(-5/2) within a factor of 2 over the
// radii where the grid's cells resolve it.
TEST(LocalDensity, UniformCubeAndPlummerProfile) {
    // 64,000 bodies of mass 1 / 64,000 uniformly at random in the unit cube: density 1, each estimate a
    // count of about kLocalDensityNeighbours bodies (Poisson: 1 / sqrt(64) = 12.5%).
    HostState cube;
    Rng rng(5);
    for (int b = 0; b < 64000; ++b) {
        cube.pos_mass.push_back({rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0, 1), 1.0 / 64000});
        cube.vel.push_back({0, 0, 0, 0});
    }
    const std::vector<double> rc = local_densities(cube);
    int inside = 0, within = 0;
    double sum = 0;
    for (std::size_t b = 0; b < cube.size(); ++b) {
        const auto& p = cube.pos_mass[b];
        if (p.x < 0.2 || p.x > 0.8 || p.y < 0.2 || p.y > 0.8 || p.z < 0.2 || p.z > 0.8) continue;
        sum += rc[b];
        within += std::fabs(rc[b] - 1.0) < 0.5;
        ++inside;
    }
    EXPECT_GT(inside, 10000);
    EXPECT_NEAR(sum / inside, 1.0, 0.03);
    EXPECT_GT(within, 0.99 * inside);

    const HostState plummer = make_preset("plummer", 65536, 2);
    const std::vector<double> rp = local_densities(plummer);
    const double a = 3 * 3.14159265358979 / 16;  // the preset's scale length (N-body units, M = 1)
    // Per radial shell, the median of estimate / profile (single estimates are counts: noisy).
    const double edges[] = {0.1, 0.3, 0.6, 1.0};
    for (int shell = 0; shell < 3; ++shell) {
        std::vector<double> ratio;
        for (std::size_t b = 0; b < plummer.size(); ++b) {
            const auto& p = plummer.pos_mass[b];
            const double r = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
            if (r < edges[shell] || r >= edges[shell + 1]) continue;
            const double rho = 3 / (4 * 3.14159265358979 * a * a * a) * std::pow(1 + r * r / (a * a), -2.5);
            ratio.push_back(rp[b] / rho);
        }
        ASSERT_GT(ratio.size(), 1000u);
        std::nth_element(ratio.begin(), ratio.begin() + std::ptrdiff_t(ratio.size() / 2), ratio.end());
        const double median = ratio[ratio.size() / 2];
        EXPECT_GT(median, 0.6) << "shell " << shell;
        EXPECT_LT(median, 1.6) << "shell " << shell;
    }
    HostState bad = cube;
    bad.pos_mass[7].x = std::nan("");
    EXPECT_EQ(local_densities(bad)[7], 0.0);
}

}  // namespace
}  // namespace nbody
