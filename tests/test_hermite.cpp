// The Hermite integrator with block time steps: its pair interaction (force and jerk), the predictor,
// corrector and level rules of sim/integrate/hermite.hpp, and the integrator on every host backend.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/gravity/interaction.hpp"
#include "sim/integrate/hermite.hpp"

namespace nbody {
namespace {

// ---- The pair interaction with jerk ------------------------------------------------------------------

struct Pair {
    double dx, dy, dz, dvx, dvy, dvz, m;
};

// Acceleration of the target from one source whose offset moves as d + t dv (double, no jerk).
Vec4<double> acc_at(const Pair& p, double eps2, double t) {
    double ax = 0, ay = 0, az = 0;
    add_interaction(p.dx + t * p.dvx, p.dy + t * p.dvy, p.dz + t * p.dvz, p.m, eps2, ax, ay, az);
    return {ax, ay, az, 0};
}

TEST(HermiteInteraction, JerkIsTheTimeDerivativeOfTheSoftenedAcceleration) {
    const Pair pairs[] = {{0.3, -0.2, 0.5, 0.7, 0.1, -0.4, 1.5}, {1e-2, 2e-2, -1e-2, -3.0, 1.0, 2.0, 0.25}};
    for (double eps : {0.0, 0.05, 1.0}) {
        for (const Pair& p : pairs) {
            double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
            add_interaction_jerk(p.dx, p.dy, p.dz, p.dvx, p.dvy, p.dvz, p.m, eps * eps, ax, ay, az, jx, jy,
                                 jz);
            // The acceleration is add_interaction's (up to the order of one product).
            const Vec4<double> a = acc_at(p, eps * eps, 0);
            EXPECT_NEAR(ax, a.x, 1e-14 * std::abs(a.x) + 1e-300);
            EXPECT_NEAR(ay, a.y, 1e-14 * std::abs(a.y) + 1e-300);
            EXPECT_NEAR(az, a.z, 1e-14 * std::abs(a.z) + 1e-300);
            // The jerk is da/dt along the relative motion: a fourth-order central difference.
            const double r = std::sqrt(p.dx * p.dx + p.dy * p.dy + p.dz * p.dz);
            const double v = std::sqrt(p.dvx * p.dvx + p.dvy * p.dvy + p.dvz * p.dvz);
            const double h = 1e-3 * r / v;
            auto d = [&](double Vec4<double>::*c) {
                auto at = [&](double t) { return acc_at(p, eps * eps, t).*c; };
                return (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h);
            };
            const double jn = std::sqrt(jx * jx + jy * jy + jz * jz);
            EXPECT_NEAR(jx, d(&Vec4<double>::x), 1e-8 * jn) << "eps " << eps;
            EXPECT_NEAR(jy, d(&Vec4<double>::y), 1e-8 * jn) << "eps " << eps;
            EXPECT_NEAR(jz, d(&Vec4<double>::z), 1e-8 * jn) << "eps " << eps;
        }
    }
}

TEST(HermiteInteraction, ASourceAtTheTargetAddsExactlyNothingWithSoftening) {
    float ax = 1, ay = 2, az = 3, jx = 4, jy = 5, jz = 6;
    add_interaction_jerk(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 2.0f, 1e-4f, ax, ay, az, jx, jy, jz);
    EXPECT_EQ(ax, 1.0f);
    EXPECT_EQ(ay, 2.0f);
    EXPECT_EQ(az, 3.0f);
    EXPECT_EQ(jx, 4.0f);
    EXPECT_EQ(jy, 5.0f);
    EXPECT_EQ(jz, 6.0f);
}

TEST(HermiteInteraction, FlopCountIsStatedOnce) {
    EXPECT_EQ(kFlopsPerJerkInteraction, 42.0);
    EXPECT_EQ(kFlopsPerInteraction, 20.0);
}

// ---- Predictor and corrector ---------------------------------------------------------------------------

// A motion whose acceleration is a cubic in t: a(t) = a0 + j0 t + s t^2/2 + c t^3/6. Hermite's
// interpolation of a over a step is exact for it, so the corrector must return x(h), v(h) to rounding.
struct Quintic {
    Vec4<double> x0, v0, a0, j0, s, c;
    Vec4<double> x(double t) const { return eval(t, 0); }
    Vec4<double> v(double t) const { return eval(t, 1); }
    Vec4<double> a(double t) const { return eval(t, 2); }
    Vec4<double> j(double t) const { return eval(t, 3); }
    // The d-th derivative of x at t.
    Vec4<double> eval(double t, int d) const {
        const Vec4<double>* k[6] = {&x0, &v0, &a0, &j0, &s, &c};
        Vec4<double> out{0, 0, 0, d == 0 ? x0.w : 0};
        for (int n = d; n < 6; ++n) {
            double f = 1;  // t^(n-d) / (n-d)!
            for (int q = 1; q <= n - d; ++q) f *= t / q;
            out.x += f * k[n]->x, out.y += f * k[n]->y, out.z += f * k[n]->z;
        }
        return out;
    }
};

const Quintic kMotion{{0.1, -0.2, 0.3, 2.0}, {1.0, 0.5, -0.25, 0}, {-0.3, 0.2, 0.1, 0},
                      {0.05, -0.4, 0.2, 0},  {0.7, 0.1, -0.6, 0},  {-0.9, 0.3, 0.4, 0}};

double dist(const Vec4<double>& a, const Vec4<double>& b) {
    return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

TEST(HermiteMath, PredictorIsTheCubicTaylorExpansion) {
    Quintic cubic = kMotion;
    cubic.s = cubic.c = {0, 0, 0, 0};
    const double h = 0.37;
    Vec4<double> xp, vp;
    hermite_predict(cubic.x0, cubic.v0, cubic.a0, cubic.j0, h, xp, vp);
    EXPECT_LT(dist(xp, cubic.x(h)), 1e-15);
    EXPECT_LT(dist(vp, cubic.v(h)), 1e-15);
    EXPECT_EQ(xp.w, 2.0);  // the mass rides along
    EXPECT_EQ(vp.w, 0.0);
}

TEST(HermiteMath, CorrectorIsExactWhenTheAccelerationIsACubic) {
    for (double h : {0.5, 0.01}) {
        const Quintic& q = kMotion;
        Vec4<double> xp, vp, x1, v1;
        hermite_predict(q.x0, q.v0, q.a0, q.j0, h, xp, vp);
        // The predictor alone misses the h^4 and h^5 terms...
        EXPECT_GT(dist(xp, q.x(h)), 1e-6 * h * h * h * h);
        const double dt = hermite_correct(xp, vp, q.a0, q.j0, q.a(h), q.j(h), h, 0.02, x1, v1);
        // ... the corrector has them.
        EXPECT_LT(dist(x1, q.x(h)), 1e-15) << h;
        EXPECT_LT(dist(v1, q.v(h)), 1e-14) << h;
        // Aarseth's criterion at t0 + h with the snap and crackle there: s + h c and c.
        const double a2 = norm3(q.eval(h, 4)), a3 = norm3(q.c);
        const double expected = std::sqrt(0.02 * (norm3(q.a(h)) * a2 + std::pow(norm3(q.j(h)), 2)) /
                                          (norm3(q.j(h)) * a3 + a2 * a2));
        EXPECT_NEAR(dt, expected, 1e-6 * expected) << h;
    }
}

TEST(HermiteMath, CorrectorIsFourthOrderInFloat) {
    // Float holds the h-scaled snap and crackle: no h^3 division underflows at small h.
    const Quintic& q = kMotion;
    auto f = [](const Vec4<double>& v) {
        return Vec4<float>{float(v.x), float(v.y), float(v.z), float(v.w)};
    };
    const float h = 1e-6f;
    Vec4<float> xp, vp, x1, v1;
    hermite_predict(f(q.x0), f(q.v0), f(q.a0), f(q.j0), h, xp, vp);
    const double dt = hermite_correct(xp, vp, f(q.a0), f(q.j0), f(q.a(h)), f(q.j(h)), h, 0.02, x1, v1);
    EXPECT_TRUE(std::isfinite(x1.x) && std::isfinite(v1.x));
    EXPECT_NEAR(x1.x, q.x(h).x, 1e-7);
    EXPECT_FALSE(std::isnan(dt));
}

TEST(HermiteMath, StartStepIsEtaSOverTheJerkTimeScale) {
    const Vec4<double> a{3, 0, 4, 0}, j{0, 10, 0, 0};
    EXPECT_DOUBLE_EQ(hermite_start_step(0.02, a, j), kStartEtaFraction * 0.02 * 5.0 / 10.0);
    // No force at all: NaN, which level_for_step reads as the max step.
    EXPECT_EQ(level_for_step(hermite_start_step(0.02, Vec4<double>{}, Vec4<double>{}), 0.1), 0);
}

// ---- Levels and ticks --------------------------------------------------------------------------------

TEST(HermiteLevels, LevelIsTheCoarsestPowerOfTwoNotAboveTheWantedStep) {
    const double dt_max = 0.1;
    EXPECT_EQ(level_for_step(0.2, dt_max), 0);
    EXPECT_EQ(level_for_step(0.1, dt_max), 0);
    EXPECT_EQ(level_for_step(0.099, dt_max), 1);
    EXPECT_EQ(level_for_step(0.025, dt_max), 2);   // exactly dt_max / 4
    EXPECT_EQ(level_for_step(0.0333, dt_max), 2);  // dt_max / 4 <= 0.0333 < dt_max / 2
    EXPECT_EQ(level_for_step(std::numeric_limits<double>::infinity(), dt_max), 0);
    EXPECT_EQ(level_for_step(std::numeric_limits<double>::quiet_NaN(), dt_max), 0);
    EXPECT_EQ(level_for_step(0.0, dt_max), kMaxBlockLevel);  // held at the finest level
    EXPECT_EQ(level_for_step(1e-300, dt_max), kMaxBlockLevel);
}

TEST(HermiteLevels, StepsShrinkAtAnyBlockAndGrowOneLevelOnTheDoubledGrid) {
    const std::int64_t t3 = level_ticks(3);  // one step of level 3
    // Finer: at once, by any number of levels.
    EXPECT_EQ(next_level(3, 7, t3), 7);
    EXPECT_EQ(next_level(3, 3, t3), 3);
    // Coarser: not at an odd multiple of the step (t is not on the grid of the doubled step)...
    EXPECT_EQ(next_level(3, 0, t3), 3);
    EXPECT_EQ(next_level(3, 0, 3 * t3), 3);
    // ... one level at an even multiple, however coarse the criterion asks.
    EXPECT_EQ(next_level(3, 0, 2 * t3), 2);
    EXPECT_EQ(next_level(3, 1, 4 * t3), 2);
    // Level 0 is the max step: never coarser.
    EXPECT_EQ(next_level(0, 0, kTicksPerMaxStep), 0);
    // At the end of a max step every level may grow.
    for (int l = 1; l <= kMaxBlockLevel; ++l) EXPECT_EQ(next_level(l, 0, kTicksPerMaxStep), l - 1);
}

TEST(HermiteLevels, TicksAreExactDyadicFractionsOfTheMaxStep) {
    EXPECT_EQ(level_ticks(0), kTicksPerMaxStep);
    EXPECT_EQ(level_ticks(kMaxBlockLevel), 1);
    EXPECT_EQ(ticks_to_time(kTicksPerMaxStep, 0.01), 0.01);
    for (int l = 0; l <= kMaxBlockLevel; ++l)
        EXPECT_EQ(ticks_to_time(level_ticks(l), 0.1), std::ldexp(0.1, -l));
    // Equal differences give equal times wherever they sit in the max step.
    EXPECT_EQ(ticks_to_time(3 * level_ticks(5), 0.07), 3 * ticks_to_time(level_ticks(5), 0.07));
}

}  // namespace
}  // namespace nbody
