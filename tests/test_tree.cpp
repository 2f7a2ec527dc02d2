// The Barnes-Hut tree (issue 15, /work/tree-spec.md): Morton keys, multipole math, and the tree's forces
// against a float64 direct sum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "sim/morton.hpp"
#include "sim/multipole.hpp"

namespace nbody {
namespace {

TEST(Morton, SpreadAndCompactAreInverseAndMatchABitLoop) {
    std::mt19937_64 g(7);
    for (int k = 0; k < 2000; ++k) {
        const std::uint32_t ix = g() & 0x1fffff, iy = g() & 0x1fffff, iz = g() & 0x1fffff;
        std::uint64_t slow = 0;
        for (int b = 0; b < kMortonBitsPerAxis; ++b) {
            slow |= std::uint64_t((ix >> b) & 1) << (3 * b + 2);
            slow |= std::uint64_t((iy >> b) & 1) << (3 * b + 1);
            slow |= std::uint64_t((iz >> b) & 1) << (3 * b);
        }
        const std::uint64_t key = morton_key(ix, iy, iz);
        ASSERT_EQ(key, slow);
        ASSERT_LT(key, std::uint64_t(1) << 63);
        ASSERT_EQ(compact_bits_3(key >> 2), ix);
        ASSERT_EQ(compact_bits_3(key >> 1), iy);
        ASSERT_EQ(compact_bits_3(key), iz);
    }
}

TEST(Morton, CubeHoldsTheBoxAndTheMaximumMapsInside) {
    const RootCube<float> c = bounding_cube(-1.0f, -2.0f, 0.5f, 3.0f, 1.0f, 0.75f);
    EXPECT_EQ(c.lo_x, -1.0f);
    EXPECT_GT(c.side, 4.0f);
    const float cpl = float(kMortonCells) / c.side;
    // The far face maps inside without the clamp, and indices still reach the top cells.
    EXPECT_LT((3.0f - c.lo_x) * cpl, float(kMortonCells));
    EXPECT_GE(morton_cell_index(3.0f, c.lo_x, cpl), kMortonCells - 3);
    EXPECT_EQ(morton_cell_index(-1.0f, c.lo_x, cpl), 0u);
    EXPECT_EQ(morton_cell_index(std::nanf(""), c.lo_x, cpl), 0u);
    // A box of zero size (one body) still gives a usable cube.
    const RootCube<double> one = bounding_cube(2.0, 2.0, 2.0, 2.0, 2.0, 2.0);
    EXPECT_GT(one.side, 0.0);
}

TEST(Morton, OctantAndCellGeometryFollowTheKey) {
    const RootCube<double> c{0, 0, 0, 8};
    const double cpl = double(kMortonCells) / c.side;
    const std::uint64_t key = morton_key(5.5, 1.5, 6.5, c, cpl);  // x in the upper half, y lower, z upper
    EXPECT_EQ(morton_octant(key, 0), 4u + 0u + 1u);
    double cx, cy, cz, side;
    morton_cell_geometry(key, 0, c, cx, cy, cz, side);
    EXPECT_EQ(side, 8.0);
    EXPECT_EQ(cx, 4.0);
    morton_cell_geometry(key, 2, c, cx, cy, cz, side);  // cells of side 2: [4,6] x [0,2] x [6,8]
    EXPECT_EQ(side, 2.0);
    EXPECT_EQ(cx, 5.0);
    EXPECT_EQ(cy, 1.0);
    EXPECT_EQ(cz, 7.0);
}

// A cluster's multipole at a distant point against the direct sum over its bodies: the quadrupole term
// must shrink the monopole's error by a factor ~ size / distance.
TEST(Multipole, QuadrupoleImprovesOnTheMonopoleAndMatchesThePotentialGradient) {
    std::mt19937_64 g(3);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    const int n = 50;
    double x[n], y[n], z[n], m[n];
    double M = 0, cx = 0, cy = 0, cz = 0;
    for (int i = 0; i < n; ++i) {
        x[i] = u(g), y[i] = 0.3 * u(g), z[i] = u(g), m[i] = 1.0 + u(g);
        M += m[i], cx += m[i] * x[i], cy += m[i] * y[i], cz += m[i] * z[i];
    }
    cx /= M, cy /= M, cz /= M;
    // Built from two halves shifted to the whole's centre of mass, as the tree's upsweep does.
    Quadrupole<double> q;
    for (int h = 0; h < 2; ++h) {
        double mh = 0, hx = 0, hy = 0, hz = 0;
        for (int i = h * n / 2; i < (h + 1) * n / 2; ++i)
            mh += m[i], hx += m[i] * x[i], hy += m[i] * y[i], hz += m[i] * z[i];
        hx /= mh, hy /= mh, hz /= mh;
        Quadrupole<double> qh;
        for (int i = h * n / 2; i < (h + 1) * n / 2; ++i)
            add_point_quadrupole(qh, m[i], x[i] - hx, y[i] - hy, z[i] - hz);
        add_shifted_quadrupole(q, qh, mh, hx - cx, hy - cy, hz - cz);
    }
    EXPECT_NEAR(q.xx + q.yy + q.zz, 0.0, 1e-12);  // traceless
    const double eps2 = 0.01;
    const double tx = 3.0, ty = -2.0, tz = 4.0;
    double ax = 0, ay = 0, az = 0, phi = 0;
    for (int i = 0; i < n; ++i) {
        add_interaction(x[i] - tx, y[i] - ty, z[i] - tz, m[i], eps2, ax, ay, az);
        phi += potential_term(x[i] - tx, y[i] - ty, z[i] - tz, m[i], eps2);
    }
    double mx = 0, my = 0, mz = 0;
    add_interaction(cx - tx, cy - ty, cz - tz, M, eps2, mx, my, mz);
    double qx = 0, qy = 0, qz = 0;
    add_cell_interaction(cx - tx, cy - ty, cz - tz, M, q, eps2, qx, qy, qz);
    const double amag = std::sqrt(ax * ax + ay * ay + az * az);
    const double err_mono =
        std::sqrt((mx - ax) * (mx - ax) + (my - ay) * (my - ay) + (mz - az) * (mz - az)) / amag;
    const double err_quad =
        std::sqrt((qx - ax) * (qx - ax) + (qy - ay) * (qy - ay) + (qz - az) * (qz - az)) / amag;
    EXPECT_LT(err_quad, 0.2 * err_mono);
    EXPECT_LT(err_quad, 1e-3);
    const double phi_mono = potential_term(cx - tx, cy - ty, cz - tz, M, eps2);
    const double phi_quad = cell_potential_term(cx - tx, cy - ty, cz - tz, M, q, eps2);
    EXPECT_LT(std::abs(phi_quad - phi), 0.2 * std::abs(phi_mono - phi));
    // a = -grad phi for the multipole itself: -phi/G is what cell_potential_term returns, so a = +grad of it.
    const double h = 1e-5;
    const double gx = (cell_potential_term(cx - tx - h, cy - ty, cz - tz, M, q, eps2) -
                       cell_potential_term(cx - tx + h, cy - ty, cz - tz, M, q, eps2)) /
                      (2 * h);
    EXPECT_NEAR(gx, qx, 1e-7 * amag + 1e-9);
}

TEST(Multipole, OpeningRuleAndBodyInteractionEdges) {
    EXPECT_EQ(distance2_to_box(0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0), 0.0);
    EXPECT_EQ(distance2_to_box(3.0, 0.5, -4.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0), 4.0 + 16.0);
    EXPECT_TRUE(accept_cell(4.01, opening_radius(1.0, 0.0, 1.0 / 0.5)));
    EXPECT_FALSE(accept_cell(4.0, opening_radius(1.0, 0.0, 1.0 / 0.5)));
    // The self-term: nothing, with or without softening, and never a NaN.
    for (float eps2 : {0.0f, 0.01f}) {
        float ax = 0, ay = 0, az = 0;
        add_body_interaction(0.0f, 0.0f, 0.0f, 1.0f, eps2, ax, ay, az);
        EXPECT_EQ(ax, 0.0f);
        EXPECT_EQ(ay, 0.0f);
        EXPECT_EQ(az, 0.0f);
        EXPECT_EQ(body_potential_term(0.0f, 0.0f, 0.0f, 1.0f, eps2), 0.0f);
    }
    float ax = 0, ay = 0, az = 0;
    add_body_interaction(2.0f, 0.0f, 0.0f, 1.0f, 0.0f, ax, ay, az);
    EXPECT_FLOAT_EQ(ax, 0.25f);
}

}  // namespace
}  // namespace nbody
