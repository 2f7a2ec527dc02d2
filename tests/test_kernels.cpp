// Every backend's accelerations against a float64 direct sum, and the properties the force must have.
#include <gtest/gtest.h>

#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>

#include "backends/registry.hpp"
#include "reference.hpp"
#include "sim/cpu_backend.hpp"
#include "sim/gravity/force_solver.hpp"
#include "sim/source_exchange.hpp"
#include "sim/validate.hpp"
#include "thread_exchange.hpp"

namespace nbody {
namespace {

struct Case {
    std::string backend;
    Precision precision;
};

std::vector<Case> available_cases() {
    std::vector<Case> out;
    for (const auto& b : builtin_backends()) {
        if (!b.available()) continue;
        out.push_back({b.name, Precision::f32});
        out.push_back({b.name, Precision::f64});
    }
    return out;
}

double tolerance(Precision p) {
    return p == Precision::f32 ? 1e-5 : 1e-12;
}

class EveryBackend : public testing::TestWithParam<Case> {};

TEST_P(EveryBackend, MatchesFloat64DirectSum) {
    const Case c = GetParam();
    for (std::size_t n : {1u, 2u, 31u, 1000u, 4097u}) {
        for (double eps : {0.0, 0.05}) {
            HostState s = test::random_bodies(n, 1000 + n);
            Params p;
            p.G = 1.3;
            p.softening = eps;
            auto b = create_backend(c.backend, c.precision);
            b->set_state(s);
            const auto a = b->accelerations(p);
            ASSERT_EQ(a.size(), n);
            if (n == 1) {  // a lone body feels nothing, even at eps = 0
                EXPECT_EQ(a[0].x, 0.0);
                EXPECT_EQ(a[0].y, 0.0);
                EXPECT_EQ(a[0].z, 0.0);
                continue;
            }
            // The reference sees the same rounded inputs the backend does.
            const HostState rounded = b->get_state();
            const double err = test::relative_rms(a, test::reference_accelerations(rounded, p.G, eps));
            EXPECT_LE(err, tolerance(c.precision)) << c.backend << " N=" << n << " eps=" << eps;
        }
    }
}

// Acceleration and potential at points that are not the bodies (targets != sources), against float64.
TEST_P(EveryBackend, FieldAtArbitraryPointsMatchesFloat64) {
    const Case c = GetParam();
    const HostState in = test::random_bodies(3000, 5);
    Params p;
    p.G = 0.8;
    p.softening = 0.02;
    std::vector<Vec4<double>> points;
    for (int i = 0; i < 60; ++i) points.push_back({0.05 * i - 1.5, 0.5 - 0.01 * i, 0.2, 0});
    auto b = create_backend(c.backend, c.precision);
    b->set_state(in);
    const HostState s = b->get_state();
    points.push_back(s.pos_mass[7]);  // a body's own position: that body is skipped there
    const FieldSample f = b->field_at(p, points, true);
    ASSERT_EQ(f.acc.size(), points.size());
    ASSERT_EQ(f.potential.size(), points.size());
    const double tol = c.precision == Precision::f32 ? 1e-5 : 1e-12;
    for (std::size_t k = 0; k < points.size(); ++k) {
        double ax = 0, ay = 0, az = 0, phi = 0;
        for (const auto& q : s.pos_mass) {
            const double dx = q.x - points[k].x, dy = q.y - points[k].y, dz = q.z - points[k].z;
            if (dx == 0 && dy == 0 && dz == 0) continue;
            const double r2 = dx * dx + dy * dy + dz * dz + p.softening * p.softening;
            const double w = q.w / (r2 * std::sqrt(r2));
            ax += w * dx, ay += w * dy, az += w * dz, phi -= q.w / std::sqrt(r2);
        }
        const double scale = p.G * std::sqrt(ax * ax + ay * ay + az * az);
        EXPECT_NEAR(f.acc[k].x, p.G * ax, tol * scale) << k;
        EXPECT_NEAR(f.acc[k].y, p.G * ay, tol * scale) << k;
        EXPECT_NEAR(f.acc[k].z, p.G * az, tol * scale) << k;
        EXPECT_NEAR(f.potential[k], p.G * phi, tol * std::abs(p.G * phi)) << k;
    }
    // Without the potential, only accelerations come back.
    EXPECT_TRUE(b->field_at(p, points, false).potential.empty());
}

TEST(ForceAlgorithms, RegistryNamesRoundTripAndDirectIsDefault) {
    EXPECT_EQ(builtin_force_algorithms().front().id, Params{}.force);
    for (const auto& info : builtin_force_algorithms()) {
        EXPECT_EQ(parse_force_algorithm(info.name), info.id);
        EXPECT_EQ(std::string(to_string(info.id)), info.name);
    }
    EXPECT_FALSE(parse_force_algorithm("bogus").has_value());
}

TEST_P(EveryBackend, ZeroSofteningWithDistinctBodiesIsFinite) {
    const Case c = GetParam();
    HostState s = test::random_bodies(257, 7);
    Params p;
    p.softening = 0;
    auto b = create_backend(c.backend, c.precision);
    b->set_state(s);
    for (const auto& a : b->accelerations(p)) {
        ASSERT_TRUE(is_finite_bits(a.x) && is_finite_bits(a.y) && is_finite_bits(a.z));
    }
    const StepReport r = b->step(p, 3);
    EXPECT_TRUE(r.finite);
    EXPECT_EQ(r.steps_done, 3);
}

TEST_P(EveryBackend, SetThenGetStateIsExact) {
    const Case c = GetParam();
    HostState s = test::random_bodies(100, 3);
    auto b = create_backend(c.backend, c.precision);
    b->set_state(s);
    const HostState once = b->get_state();
    b->set_state(once);
    const HostState twice = b->get_state();
    for (std::size_t i = 0; i < s.size(); ++i) {
        EXPECT_EQ(once.pos_mass[i].x, twice.pos_mass[i].x);
        EXPECT_EQ(once.vel[i].z, twice.vel[i].z);
        if (c.precision == Precision::f64) {
            EXPECT_EQ(once.pos_mass[i].y, s.pos_mass[i].y);
        }
    }
}

TEST_P(EveryBackend, ReportsFirstNonFiniteBody) {
    const Case c = GetParam();
    HostState s = test::random_bodies(64, 11);
    s.vel[37].y = 1e300;  // overflows to Inf in float at once, and in double after a few steps via x
    s.vel[41].x = std::numeric_limits<double>::infinity();
    Params p;
    p.softening = 0.1;
    // Euler kicks with the old (finite) forces, so only the bad bodies go non-finite in step 1; a force
    // evaluation of an Inf position would spread NaN to every body in the same step.
    p.integrator = Integrator::euler;
    auto b = create_backend(c.backend, c.precision);
    b->set_state(s);
    const StepReport r = b->step(p, 10);
    EXPECT_FALSE(r.finite);
    EXPECT_EQ(r.bad_step, 1);
    EXPECT_EQ(r.steps_done, 1);
    // 1e300 is Inf in float but finite in double.
    EXPECT_EQ(r.bad_body, c.precision == Precision::f32 ? 37u : 41u);
}

INSTANTIATE_TEST_SUITE_P(Backends, EveryBackend, testing::ValuesIn(available_cases()),
                         [](const testing::TestParamInfo<Case>& param_info) {
                             return param_info.param.backend + "_" + to_string(param_info.param.precision);
                         });

TEST(Serial, ConservesMomentumToRoundoff) {
    HostState s = test::random_bodies(500, 5);
    Params p;
    p.softening = 0.01;
    p.dt = 1e-3;
    auto b = create_backend("serial", Precision::f64);
    b->set_state(s);
    const Diagnostics d0 = b->diagnostics(p, false);
    ASSERT_TRUE(b->step(p, 100).finite);
    const Diagnostics d1 = b->diagnostics(p, false);
    // Pairwise forces cancel exactly in exact arithmetic; allow roundoff only.
    EXPECT_NEAR(d1.momentum.x, d0.momentum.x, 1e-14);
    EXPECT_NEAR(d1.momentum.y, d0.momentum.y, 1e-14);
    EXPECT_NEAR(d1.momentum.z, d0.momentum.z, 1e-14);
}

TEST(Backends, EveryAvailableBackendMatchesSerialAfterSteps) {
    HostState s = test::random_bodies(300, 9);
    Params p;
    p.softening = 0.05;
    p.dt = 1e-3;
    auto ref = create_backend("serial", Precision::f64);
    ref->set_state(s);
    ref->step(p, 50);
    const HostState want = ref->get_state();
    for (const auto& info : builtin_backends()) {
        if (!info.available()) continue;
        auto b = create_backend(info.name, Precision::f64);
        b->set_state(s);
        ASSERT_TRUE(b->step(p, 50).finite);
        const HostState got = b->get_state();
        for (std::size_t i = 0; i < s.size(); ++i) {
            EXPECT_NEAR(got.pos_mass[i].x, want.pos_mass[i].x, 1e-10) << info.name << " body " << i;
            EXPECT_NEAR(got.vel[i].z, want.vel[i].z, 1e-9) << info.name << " body " << i;
        }
        EXPECT_DOUBLE_EQ(got.t, want.t);
    }
}

// A distributed run's slice (targets) against every body (sources) is the same rows the whole system's
// OpenMP direct sum computes, bit for bit, on one thread (serial) or all (openmp): what lets `mpirun`
// runs match the one-process run exactly.
template <typename T>
void check_slices_are_rows(double eps) {
    const State<T> s = convert_state<T>(test::random_bodies(1001, 17));
    Params p;
    p.softening = eps;
    std::vector<Vec4<T>> whole(s.size()), part(s.size());
    make_host_force_solver<T>(ForceAlgorithm::direct, HostParallelism::openmp)
        ->accelerations(s.pos_mass.data(), s.size(), p, whole.data());
    for (HostParallelism par : {HostParallelism::serial, HostParallelism::openmp}) {
        auto solver = make_host_force_solver<T>(ForceAlgorithm::direct, par);
        for (auto [first, count] : {std::pair<std::size_t, std::size_t>{0, 334}, {334, 334}, {668, 333}}) {
            solver->accelerations_slice(s.pos_mass.data(), s.size(), first, count, p, part.data() + first);
        }
        EXPECT_EQ(std::memcmp(whole.data(), part.data(), whole.size() * sizeof(Vec4<T>)), 0)
            << "eps = " << eps << (par == HostParallelism::serial ? " serial" : " openmp");
    }
}

TEST(HostSolvers, SlicesOfTheDirectSumAreItsRowsBitForBit) {
    for (double eps : {0.0, 0.05}) {
        check_slices_are_rows<float>(eps);
        check_slices_are_rows<double>(eps);
    }
}

TEST(Backends, SlicesWithASourceExchangeStepLikeTheWholeSystem) {
    // Below the OpenMP row threshold (512 sources): the slices' threads run no parallel regions.
    const HostState s = test::random_bodies(401, 23);
    Params p;
    p.softening = 0.05;
    p.dt = 1e-3;
    for (Integrator integrator : {Integrator::leapfrog, Integrator::yoshida4}) {
        p.integrator = integrator;
        for (Precision precision : {Precision::f32, Precision::f64}) {
            auto whole = make_cpu_backend(CpuKind::openmp, precision);
            whole->set_state(s);
            ASSERT_TRUE(whole->step(p, 20).finite);
            const HostState want = whole->get_state();
            const Diagnostics want_d = whole->diagnostics(p, true);

            const std::size_t counts[] = {134, 134, 133};
            // (The CPU backends never share out pairs: sum_into_slices stays unused here.)
            test::ThreadExchange::Shared shared(3, s.size());
            std::vector<HostState> got(3);
            std::vector<Diagnostics> shares(3);
            std::vector<std::thread> threads;
            std::size_t first = 0;
            for (int k = 0; k < 3; ++k) {
                threads.emplace_back([&, k, first] {
                    auto b = make_cpu_backend(CpuKind::openmp, precision);
                    ASSERT_TRUE(b->set_source_exchange(
                        std::make_shared<test::ThreadExchange>(shared, s.size(), first, counts[k], k, 3)));
                    b->set_state(test::slice_of(s, first, counts[k]));
                    b->step(p, 20);
                    got[std::size_t(k)] = b->get_state();
                    shares[std::size_t(k)] = b->diagnostics(p, true);
                });
                first += counts[k];
            }
            for (auto& t : threads) t.join();
            std::size_t i = 0;
            double potential = 0, kinetic = 0;
            for (int k = 0; k < 3; ++k) {
                potential += shares[std::size_t(k)].potential, kinetic += shares[std::size_t(k)].kinetic;
                for (std::size_t j = 0; j < counts[k]; ++j, ++i) {
                    EXPECT_EQ(got[std::size_t(k)].pos_mass[j].x, want.pos_mass[i].x) << "body " << i;
                    EXPECT_EQ(got[std::size_t(k)].vel[j].z, want.vel[i].z) << "body " << i;
                }
            }
            EXPECT_NEAR(potential, want_d.potential, 1e-13 * std::abs(want_d.potential));
            EXPECT_NEAR(kinetic, want_d.kinetic, 1e-13 * std::abs(want_d.kinetic));
        }
    }
}

TEST(Registry, UnknownBackendListsValidOnes) {
    try {
        create_backend("gpu9000", Precision::f32);
        FAIL() << "expected an error";
    } catch (const std::exception& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("gpu9000"), std::string::npos);
        EXPECT_NE(msg.find("serial"), std::string::npos);
        EXPECT_NE(msg.find("openmp"), std::string::npos);
    }
}

TEST(Registry, ListsSerialOpenmpCudaInOrder) {
    const auto names = backend_names();
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[0], "serial");
    EXPECT_EQ(names[1], "openmp");
    EXPECT_EQ(names[2], "cuda");
}

}  // namespace
}  // namespace nbody
