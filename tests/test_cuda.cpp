// The CUDA backend against float64 references and the serial backend. Every test skips, with a reason,
// where the build has no CUDA or the machine no device (CI); they run for real on the lent GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "backends/registry.hpp"
#include "reference.hpp"
#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/presets.hpp"
#include "thread_exchange.hpp"

#ifdef NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/baseline_kernel.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_force_solver.hpp"
#include "cuda/force_choice.hpp"
#include "cuda_skip.hpp"
#endif

namespace nbody {
namespace {

#ifndef NBODY_HAVE_CUDA

TEST(Cuda, Skipped) {
    GTEST_SKIP() << "built without CUDA (NBODY_WITH_CUDA=OFF or nvcc not found)";
}

#else

// The float64 direct sum over all pairs, one row per thread (the reference for N up to 65536).
std::vector<Vec4<double> > reference_parallel(const HostState& s, double G, double eps) {
    const std::ptrdiff_t n = std::ptrdiff_t(s.size());
    std::vector<Vec4<double> > a(s.size());
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        double ax = 0, ay = 0, az = 0;
        const auto& pi = s.pos_mass[i];
        for (std::ptrdiff_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const auto& pj = s.pos_mass[j];
            const double dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
            const double w = pj.w / (r2 * std::sqrt(r2));
            ax += w * dx, ay += w * dy, az += w * dz;
        }
        a[i] = {G * ax, G * ay, G * az, 0};
    }
    return a;
}

// Every kernel variant and launch shape the tests cover: automatic and K x block x splits.
std::vector<ForceLaunch> all_launches(Precision p) {
    std::vector<ForceLaunch> v{ForceLaunch{}};
    for (int k : {1, 2, 4, 8}) {
        for (int b : {32, 128, 256}) {
            for (int s : {1, 5}) v.push_back({ForceKernel::tuned, k, b, s});
        }
    }
    for (int k : {2, 4, 8}) {
        if (k == 8 && p == Precision::f64) continue;  // refused: it would spill
        for (int b : {32, 64, 128, 256}) v.push_back({ForceKernel::pairwise, k, b, 0});
        for (int b : {32, 128, 256}) v.push_back({ForceKernel::pairwise_grid, k, b, 0});
    }
    // Several bands: an even and an odd band count (a bye), a short last band, one tile per band.
    for (int band : {1, 2, 3, 5}) v.push_back({ForceKernel::pairwise_grid, 2, 32, band});
    v.push_back({ForceKernel::pairwise_grid, 4, 64, 2});
    if (p == Precision::f32) {  // K = 12: blocks of at most 128
        for (int b : {32, 128}) {
            v.push_back({ForceKernel::pairwise, 12, b, 0});
            v.push_back({ForceKernel::pairwise_grid, 12, b, 0});
        }
        v.push_back({ForceKernel::pairwise_grid, 12, 64, 3});
    }
    return v;
}

double tolerance(Precision p) {
    return p == Precision::f32 ? 1e-5 : 1e-12;
}

// ------------------------------------------------------------------------------------------------
// Accelerations against the float64 direct sum, N in {1, 2, 31, 1000, 4097, 65536}, both precisions,
// softened and eps = 0, every variant.
using AccelCase = std::tuple<std::size_t, Precision, double>;

class CudaAccelerations : public ::testing::TestWithParam<AccelCase> {};

TEST_P(CudaAccelerations, MatchFloat64DirectSum) {
    SKIP_WITHOUT_DEVICE();
    const auto [n, prec, eps] = GetParam();
    Params p;
    p.G = 0.7;
    p.softening = eps;
    const HostState in = test::random_bodies(n, 1000 + n);
    std::vector<Vec4<double> > ref;
    for (const ForceLaunch& l : all_launches(prec)) {
        SCOPED_TRACE(to_string(resolve_force_launch(l, n, prec)));
        auto b = make_cuda_backend(prec, l);
        b->set_state(in);
        if (ref.empty()) ref = reference_parallel(b->get_state(), p.G, eps);  // the backend's rounded bodies
        const auto a = b->accelerations(p);
        ASSERT_EQ(a.size(), n);
        if (n == 1) {
            EXPECT_EQ(a[0].x, 0.0);
            EXPECT_EQ(a[0].y, 0.0);
            EXPECT_EQ(a[0].z, 0.0);
            continue;
        }
        EXPECT_LE(test::relative_rms(a, ref), tolerance(prec));
    }
}

std::string accel_name(const ::testing::TestParamInfo<AccelCase>& info) {
    const auto [n, prec, eps] = info.param;
    return "N" + std::to_string(n) + "_" + to_string(prec) + (eps == 0 ? "_eps0" : "_soft");
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaAccelerations,
                         ::testing::Combine(::testing::Values<std::size_t>(1, 2, 31, 1000, 4097, 65536),
                                            ::testing::Values(Precision::f32, Precision::f64),
                                            ::testing::Values(0.02, 0.0)),
                         accel_name);

TEST(Cuda, AccelerationsAreDeterministic) {
    SKIP_WITHOUT_DEVICE();
    for (const auto& [prec, l] : {std::pair{Precision::f32, ForceLaunch{ForceKernel::tuned, 4, 64, 7}},
                                  {Precision::f32, ForceLaunch{ForceKernel::pairwise, 2, 64, 0}},
                                  {Precision::f32, ForceLaunch{ForceKernel::pairwise_grid, 2, 64, 0}},
                                  {Precision::f64, ForceLaunch{ForceKernel::pairwise, 2, 64, 0}},
                                  {Precision::f64, ForceLaunch{ForceKernel::pairwise_grid, 2, 64, 0}},
                                  {Precision::f32, ForceLaunch{ForceKernel::pairwise_grid, 2, 64, 3}},
                                  {Precision::f64, ForceLaunch{ForceKernel::pairwise_grid, 4, 32, 4}},
                                  {Precision::f32, ForceLaunch{ForceKernel::pairwise_grid, 12, 32, 2}}}) {
        SCOPED_TRACE(to_string(l) + " " + to_string(prec));
        auto b = make_cuda_backend(prec, l);
        b->set_state(test::random_bodies(5000, 3));
        Params p;
        p.softening = 0.01;
        const auto a1 = b->accelerations(p);
        p.softening = 0.02;  // a different eps forces a fresh evaluation, then back
        (void)b->accelerations(p);
        p.softening = 0.01;
        const auto a2 = b->accelerations(p);
        for (std::size_t i = 0; i < a1.size(); ++i) {
            ASSERT_EQ(a1[i].x, a2[i].x) << i;
            ASSERT_EQ(a1[i].y, a2[i].y) << i;
            ASSERT_EQ(a1[i].z, a2[i].z) << i;
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Integrators against the serial backend on the same bodies.

double max_abs_diff(const HostState& a, const HostState& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto &pa = a.pos_mass[i], &pb = b.pos_mass[i], &va = a.vel[i], &vb = b.vel[i];
        for (double d : {pa.x - pb.x, pa.y - pb.y, pa.z - pb.z, va.x - vb.x, va.y - vb.y, va.z - vb.z}) {
            m = std::max(m, std::abs(d));
        }
    }
    return m;
}

struct RunResult {
    HostState state;
    StepReport report;
    double drift = 0;
};

RunResult run(std::unique_ptr<Backend> b, const HostState& in, const Params& p, std::int64_t steps) {
    b->set_state(in);
    const double e0 = b->diagnostics(p, true).total();
    RunResult r;
    r.report = b->step(p, steps);
    r.state = b->get_state();
    r.drift = relative_energy_drift(e0, b->diagnostics(p, true).total());
    return r;
}

using StepCase = std::tuple<Integrator, Precision>;
class CudaVsSerial : public ::testing::TestWithParam<StepCase> {};

// 100 steps of 1000 bodies (crossing time ~1, 0.1 time units simulated): positions and velocities agree
// within 1e-4 (fp32: rounding differences grow slowly) and 1e-10 (fp64), and the GPU's energy drift is
// within 2x (+ rounding) of the CPU's.
TEST_P(CudaVsSerial, HundredStepsMatch) {
    SKIP_WITHOUT_DEVICE();
    const auto [integ, prec] = GetParam();
    Params p;
    p.dt = 1e-3;
    p.softening = 0.05;
    p.integrator = integ;
    const HostState in = test::random_bodies(1000, 11);
    const RunResult cpu = run(create_backend("serial", prec), in, p, 100);
    const RunResult gpu = run(make_cuda_backend(prec), in, p, 100);
    ASSERT_TRUE(gpu.report.finite);
    EXPECT_EQ(gpu.report.steps_done, 100);
    EXPECT_DOUBLE_EQ(gpu.state.t, cpu.state.t);
    EXPECT_LE(max_abs_diff(gpu.state, cpu.state), prec == Precision::f32 ? 1e-4 : 1e-10);
    const double slack = prec == Precision::f32 ? 1e-5 : 1e-12;
    EXPECT_LE(std::abs(gpu.drift), 2 * std::abs(cpu.drift) + slack) << "cpu drift " << cpu.drift;
}

// The pairwise kernels (8 tiles of 128 or 16 of 64, a partial last tile: diagonal, rounds and a
// bye-free tournament, or the grid in one band or in 3 bands of 3, 3 and 2 tiles: a bye; K = 12 in fp32) over
// 100 leapfrog steps against the serial backend, as above, in both precisions.
TEST(Cuda, PairwiseHundredStepsMatchSerial) {
    SKIP_WITHOUT_DEVICE();
    Params p;
    p.dt = 1e-3;
    p.softening = 0.05;
    const HostState in = test::random_bodies(1000, 11);
    for (Precision prec : {Precision::f32, Precision::f64}) {
        const RunResult cpu = run(create_backend("serial", prec), in, p, 100);
        for (const ForceLaunch l :
             {ForceLaunch{ForceKernel::pairwise, 2, 64, 0}, ForceLaunch{ForceKernel::pairwise, 4, 32, 0},
              ForceLaunch{ForceKernel::pairwise_grid, 2, 64, 0},
              ForceLaunch{ForceKernel::pairwise_grid, 2, 64, 3},
              ForceLaunch{ForceKernel::pairwise_grid, prec == Precision::f32 ? 12 : 4, 32, 0}}) {
            SCOPED_TRACE(to_string(l) + " " + to_string(prec));
            const RunResult gpu = run(make_cuda_backend(prec, l), in, p, 100);
            ASSERT_TRUE(gpu.report.finite);
            EXPECT_EQ(gpu.report.steps_done, 100);
            EXPECT_LE(max_abs_diff(gpu.state, cpu.state), prec == Precision::f32 ? 1e-4 : 1e-10);
            const double slack = prec == Precision::f32 ? 1e-5 : 1e-12;
            EXPECT_LE(std::abs(gpu.drift), 2 * std::abs(cpu.drift) + slack) << "cpu drift " << cpu.drift;
        }
    }
}

TEST_P(CudaVsSerial, DampingAndMixedIntegratorsMatch) {
    SKIP_WITHOUT_DEVICE();
    const auto [integ, prec] = GetParam();
    Params p;
    p.dt = 2e-3;
    p.softening = 0.05;
    p.damping = 0.99;
    const HostState in = test::random_bodies(777, 5);
    auto cpu = create_backend("serial", prec);
    auto gpu = make_cuda_backend(prec);
    cpu->set_state(in);
    gpu->set_state(in);
    // Leapfrog first (caches accelerations), then the integrator under test reusing or refreshing them.
    for (Integrator i : {Integrator::leapfrog, integ, integ}) {
        p.integrator = i;
        cpu->step(p, 5);
        ASSERT_TRUE(gpu->step(p, 5).finite);
    }
    EXPECT_LE(max_abs_diff(gpu->get_state(), cpu->get_state()), prec == Precision::f32 ? 1e-5 : 1e-12);
}

std::string step_name(const ::testing::TestParamInfo<StepCase>& info) {
    std::string name =
        std::string(to_string(std::get<0>(info.param))) + "_" + to_string(std::get<1>(info.param));
    for (char& c : name) c = c == '-' ? '_' : c;  // "symplectic-euler": gtest names are identifiers
    return name;
}

INSTANTIATE_TEST_SUITE_P(Integrators, CudaVsSerial,
                         ::testing::Combine(::testing::Values(Integrator::leapfrog,
                                                              Integrator::symplectic_euler, Integrator::euler,
                                                              Integrator::yoshida4),
                                            ::testing::Values(Precision::f32, Precision::f64)),
                         step_name);

// The potential's pair sum takes tiles of 256 bodies in pairs and each tile against itself: sizes around
// a tile, one body (no pair), softening 0 (the body itself must never be a term), and more items than its
// 2,048 blocks (20,000 bodies: 3,160 tile pairs and tiles, some blocks taking two).
TEST(Cuda, DiagnosticsMatchHostComputation) {
    SKIP_WITHOUT_DEVICE();
    for (auto [prec, n, softening] : {std::tuple{Precision::f32, 3001, 0.01},
                                      {Precision::f64, 3001, 0.01},
                                      {Precision::f64, 1, 0.01},
                                      {Precision::f64, 2, 0.0},
                                      {Precision::f64, 255, 0.0},
                                      {Precision::f64, 256, 0.01},
                                      {Precision::f64, 257, 0.0},
                                      {Precision::f32, 513, 0.0},
                                      {Precision::f64, 20000, 0.001}}) {
        SCOPED_TRACE(::testing::Message() << to_string(prec) << " n " << n << " softening " << softening);
        auto b = make_cuda_backend(prec);
        b->set_state(test::random_bodies(std::size_t(n), 8));
        Params p;
        p.G = 1.3;
        p.softening = softening;
        const Diagnostics d = b->diagnostics(p, true);
        const Diagnostics h = compute_diagnostics(b->get_state(), p, true);
        ASSERT_TRUE(d.has_potential);
        auto near = [](double x, double y) { return std::abs(x - y) <= 1e-12 * std::max(1.0, std::abs(y)); };
        EXPECT_TRUE(near(d.mass, h.mass));
        EXPECT_TRUE(near(d.kinetic, h.kinetic)) << d.kinetic << " " << h.kinetic;
        EXPECT_TRUE(near(d.potential, h.potential)) << d.potential << " " << h.potential;
        for (auto [x, y] : {std::pair{d.momentum.x, h.momentum.x},
                            {d.momentum.z, h.momentum.z},
                            {d.angular_momentum.y, h.angular_momentum.y},
                            {d.center_of_mass.x, h.center_of_mass.x}}) {
            EXPECT_TRUE(near(x, y)) << x << " " << y;
        }
        EXPECT_FALSE(b->diagnostics(p, false).has_potential);
    }
}

// ------------------------------------------------------------------------------------------------
// eps = 0 and non-finite values.

TEST(Cuda, ZeroSofteningStaysFinite) {
    SKIP_WITHOUT_DEVICE();
    for (Precision prec : {Precision::f32, Precision::f64}) {
        auto b = make_cuda_backend(prec);
        b->set_state(test::random_bodies(4097, 21));
        Params p;
        p.softening = 0;
        p.dt = 1e-5;
        const StepReport r = b->step(p, 10);
        EXPECT_TRUE(r.finite) << "step " << r.bad_step << " body " << r.bad_body;
        EXPECT_EQ(r.steps_done, 10);
    }
}

// Euler takes a(x_old), so a body whose position overflows at step 2 is the only one that fails there.
TEST(Cuda, OverflowNamesTheStepAndBody) {
    SKIP_WITHOUT_DEVICE();
    for (Integrator integ : {Integrator::euler, Integrator::symplectic_euler}) {
        HostState s = test::random_bodies(100, 4);
        s.vel[37] = {3e38, 0, 0, 0};  // finite in float; x = 3e38 after step 1, +inf after step 2
        Params p;
        p.dt = 1.0;
        p.softening = 0.1;
        p.integrator = integ;
        auto b = make_cuda_backend(Precision::f32);
        b->set_state(s);
        const StepReport r = b->step(p, 50);
        EXPECT_FALSE(r.finite);
        EXPECT_EQ(r.bad_step, 2);
        EXPECT_EQ(r.bad_body, 37u);
        EXPECT_EQ(r.steps_done, 2);
        EXPECT_DOUBLE_EQ(b->get_state().t, 2.0);
        EXPECT_TRUE(std::isinf(b->get_state().pos_mass[37].x));  // the state stops after the failing step
    }
}

TEST(Cuda, NanInjectionMatchesSerialReport) {
    SKIP_WITHOUT_DEVICE();
    for (Integrator integ : {Integrator::leapfrog, Integrator::euler}) {
        for (Precision prec : {Precision::f32, Precision::f64}) {
            HostState s = test::random_bodies(300, 6);
            s.vel[299].y = std::numeric_limits<double>::quiet_NaN();
            Params p;
            p.dt = 1e-3;
            p.softening = 0.05;
            p.integrator = integ;
            auto cpu = create_backend("serial", prec);
            auto gpu = make_cuda_backend(prec);
            cpu->set_state(s);
            gpu->set_state(s);
            const StepReport rc = cpu->step(p, 20), rg = gpu->step(p, 20);
            EXPECT_FALSE(rg.finite);
            EXPECT_EQ(rg.bad_step, rc.bad_step);
            EXPECT_EQ(rg.bad_body, rc.bad_body);
            EXPECT_EQ(rg.steps_done, rc.steps_done);
            if (integ == Integrator::euler) {
                EXPECT_EQ(rg.bad_body, 299u);  // forces used the old, finite x
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Copies, the device write for interop, the registry, errors.

TEST(Cuda, CopiesAndDeviceWriteAgree) {
    SKIP_WITHOUT_DEVICE();
    for (Precision prec : {Precision::f32, Precision::f64}) {
        const std::size_t n = 1031;
        auto b = make_cuda_backend(prec);
        b->set_state(test::random_bodies(n, 9));
        const HostState s = b->get_state();
        std::vector<Vec4<float> > pos(n), vel(n), dpos(n), dvel(n);
        b->copy_positions(pos.data());
        b->copy_velocities(vel.data());
        DeviceBuffer<Vec4<float> > gp(n), gv(n);
        ASSERT_TRUE(b->write_positions_device(gp.data(), gv.data()));
        ASSERT_EQ(cudaMemcpy(dpos.data(), gp.data(), n * sizeof(Vec4<float>), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dvel.data(), gv.data(), n * sizeof(Vec4<float>), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        ASSERT_TRUE(b->write_positions_device(gp.data(), nullptr));  // velocities optional
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(pos[i].x, float(s.pos_mass[i].x));
            ASSERT_EQ(pos[i].w, float(s.pos_mass[i].w));
            ASSERT_EQ(vel[i].z, float(s.vel[i].z));
            ASSERT_EQ(vel[i].w, float(s.vel[i].w));  // the radius (sim/state.hpp)
            ASSERT_EQ(dvel[i].w, vel[i].w);
            ASSERT_EQ(dpos[i].x, pos[i].x);
            ASSERT_EQ(dpos[i].y, pos[i].y);
            ASSERT_EQ(dpos[i].w, pos[i].w);
            ASSERT_EQ(dvel[i].y, vel[i].y);
        }
    }
}

// What the window reads for a picked body and for acceleration arrows: one body exactly as held, the
// accelerations a step uses (host copy and device write agree, and match the float64 sum), and the
// body's potential at its own position with itself left out.
TEST(Cuda, OneBodyAccelerationsAndOwnPotential) {
    SKIP_WITHOUT_DEVICE();
    Params p;
    p.softening = 0.05;
    for (Precision prec : {Precision::f32, Precision::f64}) {
        const std::size_t n = 1031;
        const HostState in = test::random_bodies(n, 12);
        auto b = make_cuda_backend(prec);
        b->set_state(in);
        const HostState s = b->get_state();
        for (std::size_t i : {std::size_t(0), std::size_t(517), n - 1}) {
            const BodyValues v = b->body(i);
            EXPECT_EQ(v.pos_mass.x, s.pos_mass[i].x);
            EXPECT_EQ(v.pos_mass.w, s.pos_mass[i].w);
            EXPECT_EQ(v.vel.y, s.vel[i].y);
        }
        EXPECT_THROW(b->body(n), Error);
        std::vector<Vec4<float> > host(n), dev(n);
        b->copy_accelerations(p, host.data());
        DeviceBuffer<Vec4<float> > ga(n);
        ASSERT_TRUE(b->write_accelerations_device(p, ga.data()));
        ASSERT_EQ(cudaMemcpy(dev.data(), ga.data(), n * sizeof(Vec4<float>), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        const std::vector<Vec4<double> > ref = reference_parallel(s, p.G, p.softening);
        std::vector<Vec4<double> > got(n);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(dev[i].x, host[i].x) << i;
            ASSERT_EQ(dev[i].w, 0.0f) << i;
            got[i] = {host[i].x, host[i].y, host[i].z, 0};
        }
        EXPECT_LT(test::relative_rms(got, ref), 1e-5);
        const BodyValues v = b->body(517);
        const FieldSample f = b->field_at(p, {v.pos_mass}, true);
        double want = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == 517) continue;
            const double dx = s.pos_mass[j].x - v.pos_mass.x, dy = s.pos_mass[j].y - v.pos_mass.y,
                         dz = s.pos_mass[j].z - v.pos_mass.z;
            want -= s.pos_mass[j].w / std::sqrt(dx * dx + dy * dy + dz * dz + p.softening * p.softening);
        }
        EXPECT_NEAR(f.potential.at(0), want, (prec == Precision::f32 ? 1e-5 : 1e-12) * std::abs(want));
    }
}

// The field at arbitrary targets (potential view, picking, a rank's slice under MPI): few targets split
// the sources over several blocks and add the parts in a fixed order; many targets do not. Both must
// match the float64 sum, skip a body sitting exactly at a target, and repeat bit for bit; accelerations
// alone at many targets take the tuned tiled kernel instead.
TEST(Cuda, FieldAtTargetsMatchesFloat64ForFewAndManyTargets) {
    SKIP_WITHOUT_DEVICE();
    Params p;
    p.softening = 0.02;
    const std::size_t n = 20011;
    const HostState in = test::random_bodies(n, 31);
    for (Precision prec : {Precision::f32, Precision::f64}) {
        auto b = make_cuda_backend(prec);
        b->set_state(in);
        const HostState s = b->get_state();
        for (std::size_t m : {std::size_t(1), std::size_t(7), std::size_t(300), std::size_t(140000)}) {
            std::vector<Vec4<double> > pts = test::random_bodies(m, 100 + m).pos_mass;
            pts[0] = s.pos_mass[4321];  // exactly at a body: that body is left out
            const FieldSample f = b->field_at(p, pts, true);
            const FieldSample again = b->field_at(p, pts, true);
            // Accelerations alone: many targets take the tuned tiled kernel (a rank's slice under MPI).
            const FieldSample acc_only = b->field_at(p, pts, false);
            ASSERT_EQ(acc_only.acc.size(), m);
            double err2_only = 0;
            ASSERT_EQ(f.acc.size(), m);
            ASSERT_EQ(f.potential.size(), m);
            double worst_phi = 0, err2 = 0, ref2 = 0;
            for (std::size_t i = 0; i < m; i += (m > 1000 ? 193 : 1)) {
                double ax = 0, ay = 0, az = 0, phi = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    const double dx = s.pos_mass[j].x - pts[i].x, dy = s.pos_mass[j].y - pts[i].y,
                                 dz = s.pos_mass[j].z - pts[i].z;
                    const double r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 == 0) continue;
                    const double inv = 1 / std::sqrt(r2 + p.softening * p.softening);
                    const double w = s.pos_mass[j].w * inv * inv * inv;
                    ax += dx * w, ay += dy * w, az += dz * w, phi -= s.pos_mass[j].w * inv;
                }
                // Accelerations as a relative RMS (a single target may sit where the pulls cancel);
                // potentials point by point (every term has the same sign).
                err2 += (f.acc[i].x - ax) * (f.acc[i].x - ax) + (f.acc[i].y - ay) * (f.acc[i].y - ay) +
                        (f.acc[i].z - az) * (f.acc[i].z - az);
                ref2 += ax * ax + ay * ay + az * az;
                err2_only += (acc_only.acc[i].x - ax) * (acc_only.acc[i].x - ax) +
                             (acc_only.acc[i].y - ay) * (acc_only.acc[i].y - ay) +
                             (acc_only.acc[i].z - az) * (acc_only.acc[i].z - az);
                worst_phi = std::max(worst_phi, std::abs(f.potential[i] - phi) / std::abs(phi));
                ASSERT_EQ(f.acc[i].x, again.acc[i].x) << m << " " << i;
                ASSERT_EQ(f.potential[i], again.potential[i]) << m << " " << i;
            }
            const double tol = prec == Precision::f32 ? 5e-5 : 1e-12;
            EXPECT_LT(std::sqrt(err2 / ref2), tol) << "targets " << m;
            EXPECT_LT(worst_phi, tol) << "targets " << m;
            EXPECT_LT(std::sqrt(err2_only / ref2), tol) << "targets " << m << ", accelerations alone";
        }
    }
}

TEST(Cuda, StateRoundTripsExactly) {
    SKIP_WITHOUT_DEVICE();
    const HostState in = test::random_bodies(100, 2);
    auto b = make_cuda_backend(Precision::f64);
    b->set_state(in);
    const HostState out = b->get_state();
    EXPECT_EQ(max_abs_diff(in, out), 0.0);
    auto empty = make_cuda_backend(Precision::f32);
    empty->set_state(HostState{});
    Params p;
    EXPECT_EQ(empty->step(p, 3).steps_done, 3);
    EXPECT_TRUE(empty->accelerations(p).empty());
    EXPECT_EQ(empty->diagnostics(p, true).mass, 0.0);
}

TEST(Cuda, RegistryEntryMatchesDevice) {
    const BackendInfo info = *find_backend("cuda");
    EXPECT_EQ(info.residency, Residency::device);
    EXPECT_EQ(info.name, "cuda");
    EXPECT_EQ(info.available(), cuda_device_info().has_value());
    if (!info.available()) {
        EXPECT_NE(info.unavailable_reason().find("no CUDA device"), std::string::npos);
        EXPECT_THROW(make_cuda_backend(Precision::f32), Error);
        GTEST_SKIP() << "no CUDA device on this machine: " << info.unavailable_reason();
    }
    auto b = create_backend("cuda", Precision::f64);
    EXPECT_EQ(b->name(), "cuda");
    EXPECT_EQ(b->precision(), Precision::f64);
    EXPECT_EQ(b->residency(), Residency::device);
    EXPECT_NE(info.device_description().find(cuda_device_info()->name), std::string::npos);
}

// The textbook kernel lives in bench/ and reaches `nbody bench` only through the registry's comparison.
TEST(Cuda, BaselineKernelMatchesFloat64AndIsComparedThroughTheRegistry) {
    SKIP_WITHOUT_DEVICE();
    const std::size_t n = 1000;
    const double eps = 0.05;
    const HostState in = test::random_bodies(n, 77);
    auto b = make_cuda_backend(Precision::f32);
    b->set_state(in);
    const auto ref = reference_parallel(b->get_state(), 1.0, eps);
    const State<float> fs = convert_state<float>(b->get_state());
    DeviceBuffer<Vec4<float> > pos(n), acc(n);
    pos.copy_from_host(fs.pos_mass.data(), n);
    baseline_force_kernel().f32(pos.data(), acc.data(), n, 1.0f, float(eps * eps), nullptr);
    std::vector<Vec4<float> > got(n);
    acc.copy_to_host(got.data(), n);
    std::vector<Vec4<double> > wide(n);
    for (std::size_t i = 0; i < n; ++i) wide[i] = {got[i].x, got[i].y, got[i].z, 0};
    EXPECT_LT(test::relative_rms(wide, ref), 1e-5);
    const KernelComparison k = find_backend("cuda")->compare_kernels(4096, Precision::f32, 3);
    EXPECT_GT(k.production_ms, 0.0);
    EXPECT_GT(k.reference_ms, 0.0);
    EXPECT_FALSE(k.production_launch.empty());
}

// A distributed run with one GPU per process shares out the pairwise grid's passes
// (DeviceForceSolver::accelerations_share): the shares' partial sums must add up to the whole evaluation,
// for 2 and 3 shares, and every share must hold some of the work.
template <typename T>
void check_shares_add_up(const ForceLaunch& launch, double tolerance) {
    const std::size_t n = 20000;
    const HostState s = test::random_bodies(n, 5);
    std::vector<Vec4<T> > host(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& q = s.pos_mass[i];
        host[i] = {T(q.x), T(q.y), T(q.z), T(q.w)};
    }
    DeviceBuffer<Vec4<T> > pos(n), acc(n);
    pos.copy_from_host(host.data(), n);
    auto solver = make_device_direct_solver<T>(launch);
    solver->prepare(n, 1.0);
    Params p;
    p.softening = 0.01;
    solver->accelerations(pos.data(), n, p, acc.data(), {}, nullptr);
    std::vector<Vec4<T> > whole(n), part(n);
    acc.copy_to_host(whole.data(), n);
    double scale = 0;
    for (const auto& a : whole) scale = std::max(scale, std::abs(double(a.x)));
    for (const int shares : {2, 3}) {
        std::vector<Vec4<double> > sum(n, Vec4<double>{0, 0, 0, 0});
        for (int share = 0; share < shares; ++share) {
            ASSERT_TRUE(solver->can_share(n));
            solver->accelerations_share(pos.data(), n, p, 1.0, share, shares, acc.data(), nullptr);
            acc.copy_to_host(part.data(), n);
            double largest = 0;
            for (std::size_t i = 0; i < n; ++i) {
                sum[i].x += part[i].x, sum[i].y += part[i].y, sum[i].z += part[i].z;
                largest = std::max(largest, std::abs(double(part[i].x)));
            }
            EXPECT_GT(largest, 0.0) << "share " << share << " of " << shares << " did nothing";
        }
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
            worst = std::max({worst, std::abs(sum[i].x - whole[i].x), std::abs(sum[i].y - whole[i].y),
                              std::abs(sum[i].z - whole[i].z)});
        }
        EXPECT_LE(worst, tolerance * scale) << shares << " shares";
    }
}

TEST(Cuda, SharesOfThePairwiseGridAddUpToTheWhole) {
    SKIP_WITHOUT_DEVICE();
    check_shares_add_up<float>({ForceKernel::pairwise_grid, 12, 64, 0}, 1e-5);
    check_shares_add_up<float>({ForceKernel::pairwise_grid, 8, 128, 0}, 1e-5);
    check_shares_add_up<double>({ForceKernel::pairwise_grid, 4, 128, 0}, 1e-12);
    // The other kernels sum each body whole: no shares (a slice then evaluates its own bodies).
    auto tuned = make_device_direct_solver<float>({ForceKernel::tuned, 4, 128, 1});
    tuned->prepare(1000, 1.0);
    EXPECT_FALSE(tuned->can_share(1000));
}

// Two CUDA backends as the two slices of one system (threads standing in for MPI processes, sharing the
// one GPU): at N = 20,000 the direct solver runs the pairwise grid, so the slices share out its passes and
// add them up through the exchange (CudaBackend's shared_forces). 10 leapfrog steps against one backend.
TEST(Cuda, SlicesShareThePairsAndStepLikeTheWholeSystem) {
    SKIP_WITHOUT_DEVICE();
    const std::size_t n = 20000, counts[] = {10001, 9999};
    const HostState s = test::random_bodies(n, 17);
    Params p;
    p.softening = 0.01;
    p.dt = 1e-3;
    for (Precision prec : {Precision::f32, Precision::f64}) {
        SCOPED_TRACE(to_string(prec));
        auto whole = make_cuda_backend(prec);
        whole->set_state(s);
        ASSERT_TRUE(whole->step(p, 10).finite);
        const HostState want = whole->get_state();
        test::ThreadExchange::Shared shared(2, n);
        std::vector<HostState> got(2);
        std::vector<std::thread> threads;
        for (int k = 0; k < 2; ++k) {
            const std::size_t first = k == 0 ? 0 : counts[0];
            threads.emplace_back([&, k, first] {
                auto b = make_cuda_backend(prec);
                b->set_source_exchange(
                    std::make_shared<test::ThreadExchange>(shared, n, first, counts[k], k, 2));
                b->set_state(test::slice_of(s, first, counts[k]));
                b->step(p, 10);
                got[std::size_t(k)] = b->get_state();
            });
        }
        for (auto& t : threads) t.join();
        EXPECT_GE(shared.sums, 10);  // the pairs were shared out at every force evaluation
        double worst = 0, r2 = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto& a = i < counts[0] ? got[0].pos_mass[i] : got[1].pos_mass[i - counts[0]];
            const auto& b = want.pos_mass[i];
            worst = std::max({worst, std::abs(a.x - b.x), std::abs(a.y - b.y), std::abs(a.z - b.z)});
            r2 += b.x * b.x + b.y * b.y + b.z * b.z;
        }
        EXPECT_LE(worst / std::sqrt(r2 / double(n)), prec == Precision::f32 ? 1e-5 : 1e-12);
    }
}

// The pairwise kernels form eps^-3 before the mass multiplies it: the unguarded form needs it finite
// however small the masses are (a zero-mass padding body must add exactly 0).
TEST(Cuda, GuardCoversTheInverseCube) {
    EXPECT_FALSE(force_needs_guard(1e-4, 1e-6, Precision::f32));
    EXPECT_TRUE(force_needs_guard(1e-22, 1e-6, Precision::f32));  // m / eps^3 = 1e27, but eps^-3 = 1e33
    EXPECT_TRUE(force_needs_guard(0.0, 1.0, Precision::f64));
    EXPECT_FALSE(force_needs_guard(1e-22, 1e-6, Precision::f64));
}

TEST(Cuda, BadLaunchAndHugeAllocationThrow) {
    SKIP_WITHOUT_DEVICE();
    EXPECT_THROW(make_cuda_backend(Precision::f32, {ForceKernel::tuned, 3, 0, 0})
                     ->set_state(test::random_bodies(10, 1)),
                 Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::tuned, 0, 100, 0}, 10, Precision::f32), Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::pairwise, 1, 0, 0}, 10, Precision::f32), Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::pairwise_grid, 2, 48, 0}, 10, Precision::f64), Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::pairwise, 8, 128, 0}, 10, Precision::f64), Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::pairwise_grid, 12, 128, 0}, 10, Precision::f64), Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::pairwise_grid, 12, 256, 0}, 10, Precision::f32), Error);
    EXPECT_THROW(resolve_force_launch({ForceKernel::pairwise, 6, 128, 0}, 10, Precision::f32), Error);
    EXPECT_EQ(resolve_force_launch({ForceKernel::pairwise_grid, 12, 0, 0}, 10, Precision::f32).block, 128);
    // The automatic choice follows the table row by row, from each row's first N; the grid's bands keep its
    // scratch within the budget at any N.
    for (const ForceChoice& c : kForceChoices) {
        const ForceLaunch l = resolve_force_launch({}, std::max<std::size_t>(c.min_n, 1), c.precision);
        SCOPED_TRACE(to_string(l));
        EXPECT_EQ(l.kernel, c.kernel);
        if (c.bodies_per_thread) {
            EXPECT_EQ(l.bodies_per_thread, c.bodies_per_thread);
        }
        if (c.block) {
            EXPECT_EQ(l.block, c.block);
        }
    }
    for (const std::size_t n : {std::size_t(1000), std::size_t(1) << 20, std::size_t(1) << 23}) {
        const ForceLaunch l =
            resolve_force_launch({ForceKernel::pairwise_grid, 8, 128, 0}, n, Precision::f32);
        EXPECT_LE(double(force_scratch_count(l, n)) * 16, max_pairwise_grid_bytes()) << n;
        EXPECT_GE(l.splits, 1);
    }
    EXPECT_EQ(resolve_force_launch({ForceKernel::pairwise_grid, 2, 32, 5}, 1000, Precision::f32).splits, 5);
    EXPECT_EQ(resolve_force_launch({ForceKernel::pairwise_grid, 2, 32, 99}, 1000, Precision::f32).splits, 16);
    try {
        DeviceBuffer<char> huge(std::size_t(1) << 50);
        FAIL() << "a 1 PiB allocation succeeded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("device out of memory"), std::string::npos) << e.what();
    }
    // The device still works after the failed allocation.
    auto b = make_cuda_backend(Precision::f32);
    b->set_state(test::random_bodies(10, 1));
    EXPECT_EQ(b->accelerations(Params{}).size(), 10u);
}

// An exact restart (docs/SNAPSHOTS.md) with the pairwise kernels, which sum each pair once for both bodies
// (N = 262,144: the automatic choice is the one-launch pairwise grid there; the tournament rounds are
// asked for explicitly): 4 steps in one go and 2 + HDF5 snapshot + read back + 2 on a fresh backend must
// agree bit for bit, as SnapshotTest.RestartIsBitIdenticalOnCuda checks for the tuned kernel at N = 96.
TEST(Cuda, RestartIsBitIdenticalWithThePairwiseKernels) {
    SKIP_WITHOUT_DEVICE();
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const std::size_t n = 262144;
    Params p;
    p.dt = 1e-3;
    p.softening = 0.01;
    const HostState start = make_preset("plummer", n, 5);
    const std::int64_t k = 2;
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("nbody_cuda_restart_" + std::to_string(::getpid()) + ".h5"))
                                 .string();
    const std::pair<Precision, ForceLaunch> cases[] = {
        {Precision::f32, ForceLaunch{}},
        {Precision::f32, ForceLaunch{ForceKernel::pairwise, 8, 256, 0}},
        {Precision::f64, ForceLaunch{}},
    };
    for (const auto& [precision, launch] : cases) {
        const ForceLaunch resolved = resolve_force_launch(launch, n, precision);
        SCOPED_TRACE(std::string(to_string(precision)) + " " + to_string(resolved));
        ASSERT_TRUE(resolved.kernel == ForceKernel::pairwise ||
                    resolved.kernel == ForceKernel::pairwise_grid);
        auto whole = make_cuda_backend(precision, launch);
        whole->set_state(start);
        ASSERT_TRUE(whole->step(p, 2 * k).finite);

        auto first = make_cuda_backend(precision, launch);
        first->set_state(start);
        ASSERT_TRUE(first->step(p, k).finite);
        Snapshot snap;
        snap.state = first->get_state();
        snap.info.has_params = true;
        snap.info.params = p;
        snap.info.precision = precision;
        snap.info.step = k;
        write_snapshot(path, snap);
        first.reset();
        const Snapshot back = read_snapshot(path);
        std::filesystem::remove(path);
        ASSERT_EQ(back.info.precision, precision);
        auto second = make_cuda_backend(back.info.precision, launch);
        second->set_state(back.state);
        ASSERT_TRUE(second->step(back.info.params, k).finite);

        const HostState a = second->get_state(), b = whole->get_state();
        ASSERT_EQ(a.size(), b.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            differ += std::memcmp(&a.pos_mass[i], &b.pos_mass[i], sizeof a.pos_mass[i]) != 0 ||
                      std::memcmp(&a.vel[i], &b.vel[i], sizeof a.vel[i]) != 0;
        }
        EXPECT_EQ(differ, 0u) << "bodies differing after the restart (max |diff| " << max_abs_diff(a, b)
                              << ")";
        EXPECT_EQ(a.t, b.t);
    }
}

#endif  // NBODY_HAVE_CUDA

}  // namespace
}  // namespace nbody
