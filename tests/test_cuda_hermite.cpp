// The CUDA backend's own block time steps (--integrator hermite, cuda/hermite_steps.hpp) and their
// force+jerk kernel (cuda/jerk_kernels.hpp) against the float64 direct sum and the serial backend's
// Hermite. Every test skips, with a reason, where the build has no CUDA or the machine no device (CI);
// they run for real on the lent GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backends/registry.hpp"
#include "hermite_checks.hpp"
#include "reference.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/integrate/hermite.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/presets.hpp"

#ifdef NBODY_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/hermite_steps.hpp"
#include "cuda/jerk_kernels.hpp"
#include "cuda/neighbour_kernels.hpp"
#include "cuda/step_kernels.hpp"
#include "cuda_skip.hpp"
#endif

namespace nbody {
namespace {

#ifndef NBODY_HAVE_CUDA

TEST(CudaHermite, Skipped) {
    GTEST_SKIP() << "built without CUDA (NBODY_WITH_CUDA=OFF or nvcc not found)";
}

#else

// ---- The force+jerk kernel ------------------------------------------------------------------------

// Acceleration and jerk of body i against every other body, in double (G = 1).
void reference_jerk(const HostState& s, std::size_t i, double eps, Vec4<double>& a, Vec4<double>& j) {
    a = j = Vec4<double>{0, 0, 0, 0};
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (k == i) continue;
        const Vec4<double>&x = s.pos_mass[k], &xi = s.pos_mass[i], &v = s.vel[k], &vi = s.vel[i];
        const double dx = x.x - xi.x, dy = x.y - xi.y, dz = x.z - xi.z;
        const double dvx = v.x - vi.x, dvy = v.y - vi.y, dvz = v.z - vi.z;
        const double r2 = dx * dx + dy * dy + dz * dz + eps * eps;
        const double inv = 1.0 / std::sqrt(r2), w = x.w * inv * inv * inv;
        const double alpha = 3.0 * (dx * dvx + dy * dvy + dz * dvz) / r2;
        a.x += w * dx, a.y += w * dy, a.z += w * dz;
        j.x += w * (dvx - alpha * dx), j.y += w * (dvy - alpha * dy), j.z += w * (dvz - alpha * dz);
    }
}

template <typename T>
std::vector<Vec4<T> > narrow(const std::vector<Vec4<double> >& in) {
    std::vector<Vec4<T> > out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = {T(in[i].x), T(in[i].y), T(in[i].z), T(in[i].w)};
    return out;
}

std::vector<Vec4<double> > widen(const std::vector<Vec4<float> >& in) {
    std::vector<Vec4<double> > out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = {in[i].x, in[i].y, in[i].z, in[i].w};
    return out;
}
std::vector<Vec4<double> > widen(const std::vector<Vec4<double> >& in) {
    return in;
}

struct JerkResult {
    std::vector<Vec4<double> > acc, jerk;
    std::vector<unsigned char> bits;  // the raw output, to compare runs bit for bit
};

// The first m accelerations and jerks of a launch, copied back, with their raw bits.
template <typename T>
JerkResult read_result(const DeviceBuffer<Vec4<T> >& acc, const DeviceBuffer<Vec4<T> >& jerk, std::size_t m) {
    std::vector<Vec4<T> > ha(m), hj(m);
    acc.copy_to_host(ha.data(), m);
    jerk.copy_to_host(hj.data(), m);
    JerkResult r{widen(ha), widen(hj), {}};
    r.bits.resize(2 * m * sizeof(Vec4<T>));
    if (m > 0) {
        std::memcpy(r.bits.data(), ha.data(), m * sizeof(Vec4<T>));
        std::memcpy(r.bits.data() + m * sizeof(Vec4<T>), hj.data(), m * sizeof(Vec4<T>));
    }
    return r;
}

// launch_jerks of the bodies of s (as T) for the given targets, copied back.
template <typename T>
JerkResult run_jerks(const HostState& s, const std::vector<std::uint32_t>& targets, double eps,
                     const JerkLaunch& requested) {
    const std::size_t n = s.size(), m = targets.size();
    const JerkLaunch l = resolve_jerk_launch(requested, m, n, precision_of<T>());
    DeviceBuffer<Vec4<T> > x(n), v(n), acc(m), jerk(m), scratch(jerk_scratch_count(l, m));
    DeviceBuffer<std::uint32_t> t(m);
    const std::vector<Vec4<T> > hx = narrow<T>(s.pos_mass), hv = narrow<T>(s.vel);
    x.copy_from_host(hx.data(), n);
    v.copy_from_host(hv.data(), n);
    t.copy_from_host(targets.data(), m);
    launch_jerks<T>(l, x.data(), v.data(), n, t.data(), m, T(1), static_cast<T>(eps * eps), acc.data(),
                    jerk.data(), scratch.data(), nullptr, 0, nullptr);
    return read_result(acc, jerk, m);
}

// launch_planned_jerks of the bodies of s (as T) for the given targets, the count on the device, with
// the plans for s's size; the plan it used in `used`.
template <typename T>
JerkResult run_planned_jerks(const HostState& s, const std::vector<std::uint32_t>& targets, double eps,
                             JerkLaunch& used, int& lanes) {
    const std::size_t n = s.size(), m = targets.size();
    const JerkPlans plans = make_jerk_plans({}, n, precision_of<T>());
    DeviceBuffer<JerkPlan> dplans(plans.entries.size());
    dplans.copy_from_host(plans.entries.data(), plans.entries.size());
    DeviceBuffer<Vec4<T> > x(n), v(n), acc(m), jerk(m), scratch(std::max<std::size_t>(plans.scratch, 1));
    DeviceBuffer<std::uint32_t> t(m), count(1);
    DeviceBuffer<JerkChosen> chosen(1);
    const std::vector<Vec4<T> > hx = narrow<T>(s.pos_mass), hv = narrow<T>(s.vel);
    x.copy_from_host(hx.data(), n);
    v.copy_from_host(hv.data(), n);
    t.copy_from_host(targets.data(), m);
    const auto m32 = std::uint32_t(m);
    count.copy_from_host(&m32, 1);
    launch_planned_jerks<T>(plans, dplans.data(), chosen.data(), x.data(), v.data(), n, t.data(),
                            count.data(), T(1), static_cast<T>(eps * eps), acc.data(), jerk.data(),
                            scratch.data(), nullptr);
    for (const JerkPlan& e : plans.entries) {
        if (e.m_max >= m) {
            used = JerkLaunch{e.bodies_per_thread, plans.block, int(e.splits)};
            lanes = e.lanes;
            break;
        }
    }
    return read_result(acc, jerk, m);
}

// Bodies at the positions and velocities a T-precision kernel sees (so the reference sums the same
// bodies and the difference is the kernel's arithmetic alone).
template <typename T>
HostState rounded(const HostState& s) {
    return convert_state<double>(convert_state<T>(s));
}

// The target lists the kernel must serve: all bodies, a scattered few (one in the short last tile), one
// body, the last body, and a contiguous middle run crossing tile boundaries.
std::vector<std::vector<std::uint32_t> > target_lists(std::size_t n) {
    std::vector<std::vector<std::uint32_t> > lists;
    std::vector<std::uint32_t> all(n), few, middle;
    for (std::size_t i = 0; i < n; ++i) all[i] = std::uint32_t(i);
    for (std::size_t i = 3; i < n; i += 97) few.push_back(std::uint32_t(i));
    few.push_back(std::uint32_t(n - 1));
    for (std::size_t i = n / 3; i < n / 3 + 300 && i < n; ++i) middle.push_back(std::uint32_t(i));
    lists.push_back(all);
    lists.push_back(few);
    lists.push_back({0});
    lists.push_back({std::uint32_t(n - 1)});
    lists.push_back(middle);
    return lists;
}

// Every shape: automatic, and K x B with no splits, a few, and automatic splits.
std::vector<JerkLaunch> jerk_launches() {
    std::vector<JerkLaunch> v{JerkLaunch{}};
    for (int k : {1, 2, 4}) {
        for (int b : {32, 64, 128}) {
            for (int s : {1, 3, 0}) v.push_back({k, b, s});
        }
    }
    return v;
}

// sqrt(sum |a - ref|^2 / sum |ref|^2) over the targets.
double relative_rms_of(const std::vector<Vec4<double> >& a, const std::vector<Vec4<double> >& ref) {
    return test::relative_rms(a, ref);
}

// Float: the tiles' sums are shorter than a host loop's single sum, whose float error on these bodies is
// ~2e-6 (acceleration) and ~8e-6 (jerk, whose terms cancel more) relative RMS at N = 4099; double: ~1e-15.
template <typename T>
void check_kernel_against_float64(std::size_t n, double eps) {
    const HostState s = rounded<T>(test::random_bodies(n, 11));
    const double tol_a = sizeof(T) == 4 ? 2e-5 : 1e-12, tol_j = sizeof(T) == 4 ? 1e-4 : 1e-12;
    for (const std::vector<std::uint32_t>& targets : target_lists(n)) {
        std::vector<Vec4<double> > ra(targets.size()), rj(targets.size());
        for (std::size_t k = 0; k < targets.size(); ++k) reference_jerk(s, targets[k], eps, ra[k], rj[k]);
        for (const JerkLaunch& l : jerk_launches()) {
            const JerkLaunch resolved = resolve_jerk_launch(l, targets.size(), n, precision_of<T>());
            SCOPED_TRACE(std::string(to_string(precision_of<T>())) + " n=" + std::to_string(n) +
                         " m=" + std::to_string(targets.size()) + " eps=" + std::to_string(eps) + " " +
                         to_string(resolved));
            const JerkResult r = run_jerks<T>(s, targets, eps, l);
            if (n == 1) {  // no other body: exactly nothing
                EXPECT_EQ(r.acc[0].x, 0.0);
                EXPECT_EQ(r.jerk[0].z, 0.0);
            } else {
                EXPECT_LE(relative_rms_of(r.acc, ra), tol_a);
                EXPECT_LE(relative_rms_of(r.jerk, rj), tol_j);
            }
            // The same launch again: the same bits (partial sums added in a fixed order).
            EXPECT_TRUE(run_jerks<T>(s, targets, eps, l).bits == r.bits);
        }
    }
}

// Softened and eps = 0 (the self-term skipped by its index, never 0/0), N not a multiple of any block.
TEST(CudaHermiteKernel, ForceAndJerkMatchFloat64ForEveryLaunchShape) {
    SKIP_WITHOUT_DEVICE();
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(4099)}) {
        for (double eps : {0.0, 0.01}) {
            check_kernel_against_float64<float>(n, eps);
            check_kernel_against_float64<double>(n, eps);
        }
    }
}

// The device-planned launch (the count read on the device, a fixed grid taking the items in turn) gives
// the bits of the host-shaped launch with the same K, block and splits, for every target list: the
// block loop on the device evaluates exactly what the tested kernel does. Where its plan has several
// threads share a target (a few targets), the sums are added in another order: then it matches the
// float64 reference as closely as the host-shaped launch, and itself bit for bit on a second run.
template <typename T>
void check_planned_equals_host_shaped(std::size_t n, double eps) {
    const HostState s = rounded<T>(test::random_bodies(n, 12));
    const double tol_a = sizeof(T) == 4 ? 2e-5 : 1e-12, tol_j = sizeof(T) == 4 ? 1e-4 : 1e-12;
    for (const std::vector<std::uint32_t>& targets : target_lists(n)) {
        JerkLaunch used;
        int lanes = 1;
        const JerkResult planned = run_planned_jerks<T>(s, targets, eps, used, lanes);
        SCOPED_TRACE(std::string(to_string(precision_of<T>())) + " n=" + std::to_string(n) +
                     " m=" + std::to_string(targets.size()) + " " + to_string(used) +
                     " lanes=" + std::to_string(lanes));
        if (lanes == 1) {
            EXPECT_TRUE(planned.bits == run_jerks<T>(s, targets, eps, used).bits);
            continue;
        }
        std::vector<Vec4<double> > ra(targets.size()), rj(targets.size());
        for (std::size_t k = 0; k < targets.size(); ++k) reference_jerk(s, targets[k], eps, ra[k], rj[k]);
        EXPECT_LE(relative_rms_of(planned.acc, ra), tol_a);
        EXPECT_LE(relative_rms_of(planned.jerk, rj), tol_j);
        JerkLaunch again;
        EXPECT_TRUE(run_planned_jerks<T>(s, targets, eps, again, lanes).bits == planned.bits);
    }
}

TEST(CudaHermiteKernel, PlannedLaunchGivesTheHostShapedBits) {
    SKIP_WITHOUT_DEVICE();
    for (std::size_t n : {std::size_t(1000), std::size_t(4099), std::size_t(70000)}) {
        for (double eps : {0.0, 0.01}) {
            check_planned_equals_host_shaped<float>(n, eps);
            check_planned_equals_host_shaped<double>(n, eps);
        }
    }
}

// The plans cover every count up to n in ascending bounds, the last one n, each plan a valid launch.
TEST(CudaHermiteKernel, PlansCoverEveryCount) {
    SKIP_WITHOUT_DEVICE();
    for (std::size_t n : {std::size_t(1), std::size_t(100), std::size_t(65536), std::size_t(1) << 20}) {
        const JerkPlans plans = make_jerk_plans({}, n, Precision::f32);
        ASSERT_FALSE(plans.entries.empty());
        EXPECT_EQ(plans.entries.back().m_max, n);
        EXPECT_EQ(plans.block, 128);
        std::size_t prev = 0, tiles = (n + 127) / 128;
        for (const JerkPlan& e : plans.entries) {
            EXPECT_GT(e.m_max, prev);
            prev = e.m_max;
            EXPECT_TRUE(e.bodies_per_thread == 1 || e.bodies_per_thread == 2 || e.bodies_per_thread == 4);
            EXPECT_GE(e.splits, 1u);
            EXPECT_EQ(e.per_split % 128, 0u);
            // The splits cover the sources, none empty.
            EXPECT_GE(e.splits * (e.per_split / 128), tiles);
            EXPECT_LT((e.splits - 1) * (e.per_split / 128), tiles);
            if (e.splits > 1) {
                EXPECT_GE(plans.scratch, 2 * std::size_t(e.splits) * e.m_max);
            }
        }
        EXPECT_GT(plans.grid[0] + plans.grid[1] + plans.grid[2], 0);
    }
}

// ---- Every body at once, each pair once (cuda/pairwise_jerks.cu) ------------------------------------

// launch_pair_jerks of the bodies of s (as T), copied back. `live`: the value of the live flag passed
// (the outputs and the scratch start as 7s, so a launch that did nothing shows: `scratch_untouched`).
template <typename T>
JerkResult run_pair_jerks(const HostState& s, double eps, const PairJerkLaunch& requested,
                          std::uint32_t live = 1, bool* scratch_untouched = nullptr) {
    const std::size_t n = s.size();
    const PairJerkLaunch l = plan_pair_jerks(requested, n, precision_of<T>());
    EXPECT_FALSE(l.off);
    const std::size_t slots = std::max<std::size_t>(pair_jerk_scratch_count(l, n), 1);
    DeviceBuffer<Vec4<T> > x(n), v(n), acc(n), jerk(n), scratch(slots);
    DeviceBuffer<std::uint32_t> flag(1);
    const std::vector<Vec4<T> > hx = narrow<T>(s.pos_mass), hv = narrow<T>(s.vel);
    const std::vector<Vec4<T> > sevens(std::max(n, slots), Vec4<T>{T(7), T(7), T(7), T(7)});
    x.copy_from_host(hx.data(), n);
    v.copy_from_host(hv.data(), n);
    acc.copy_from_host(sevens.data(), n);
    jerk.copy_from_host(sevens.data(), n);
    scratch.copy_from_host(sevens.data(), slots);
    flag.copy_from_host(&live, 1);
    launch_pair_jerks<T>(l, x.data(), v.data(), n, T(1), static_cast<T>(eps * eps), acc.data(), jerk.data(),
                         scratch.data(), flag.data(), nullptr);
    if (scratch_untouched) {
        std::vector<Vec4<T> > back(slots);
        scratch.copy_to_host(back.data(), slots);
        *scratch_untouched = std::memcmp(back.data(), sevens.data(), slots * sizeof(Vec4<T>)) == 0;
    }
    return read_result(acc, jerk, n);
}

std::vector<PairJerkLaunch> pair_shapes(Precision p) {
    std::vector<PairJerkLaunch> v{{1, 64, false}, {1, 128, false}, {2, 128, false}, {2, 256, false}};
    if (p == Precision::f32) v.push_back({4, 256, false});
    return v;
}

// Every shape against the float64 sum (the tolerances of the one-sided kernel's test above), softened
// and at eps = 0 (the self-term skipped in the diagonal tiles), N a single short tile, one pair of
// tiles, and many tiles with a short last one; each shape twice with the same bits.
template <typename T>
void check_pairwise_against_float64(std::size_t n, double eps) {
    const HostState s = rounded<T>(test::random_bodies(n, 13));
    const double tol_a = sizeof(T) == 4 ? 2e-5 : 1e-12, tol_j = sizeof(T) == 4 ? 1e-4 : 1e-12;
    std::vector<Vec4<double> > ra(n), rj(n);
    for (std::size_t i = 0; i < n; ++i) reference_jerk(s, i, eps, ra[i], rj[i]);
    for (const PairJerkLaunch& l : pair_shapes(precision_of<T>())) {
        SCOPED_TRACE(std::string(to_string(precision_of<T>())) + " n=" + std::to_string(n) +
                     " eps=" + std::to_string(eps) + " " + to_string(l));
        const JerkResult r = run_pair_jerks<T>(s, eps, l);
        if (n == 1) {
            EXPECT_EQ(r.acc[0].x, 0.0);
            EXPECT_EQ(r.jerk[0].z, 0.0);
        } else {
            EXPECT_LE(relative_rms_of(r.acc, ra), tol_a);
            EXPECT_LE(relative_rms_of(r.jerk, rj), tol_j);
        }
        EXPECT_TRUE(run_pair_jerks<T>(s, eps, l).bits == r.bits);
    }
}

TEST(CudaHermiteKernel, PairwiseMatchesFloat64ForEveryShape) {
    SKIP_WITHOUT_DEVICE();
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(300), std::size_t(4099)}) {
        for (double eps : {0.0, 0.01}) {
            check_pairwise_against_float64<float>(n, eps);
            check_pairwise_against_float64<double>(n, eps);
        }
    }
}

// With the live flag at 0 (the block clock stopped: a failed step) nothing is written: neither the
// results nor the partial sums (both kernels look at the flag).
TEST(CudaHermiteKernel, PairwiseDoesNothingWhenNotLive) {
    SKIP_WITHOUT_DEVICE();
    const HostState s = test::random_bodies(1000, 14);
    bool untouched = false;
    const JerkResult r = run_pair_jerks<float>(s, 0.01, {2, 128, false}, 0, &untouched);
    EXPECT_TRUE(untouched);
    for (std::size_t i = 0; i < s.size(); ++i) {
        ASSERT_EQ(r.acc[i].x, 7.0);
        ASSERT_EQ(r.jerk[i].y, 7.0);
    }
    run_pair_jerks<float>(s, 0.01, {2, 128, false}, 1, &untouched);
    EXPECT_FALSE(untouched);
}

// The automatic choice: on for 32,768 bodies and up (the benchmark's 65,536), off below and where the
// partial sums would not fit; explicit shapes taken as they are, bad ones refused. (K = 4 at 65,536 assumes
// a device of the lent GPU's size: about 132 SMs and 2 GiB of scratch budget.)
TEST(CudaHermiteKernel, PairwiseServesLargeAllActiveBlocksOnly) {
    SKIP_WITHOUT_DEVICE();
    for (std::size_t n : {std::size_t(32768), std::size_t(65536)}) {
        EXPECT_FALSE(plan_pair_jerks({}, n, Precision::f32).off) << n;
        EXPECT_FALSE(plan_pair_jerks({}, n, Precision::f64).off) << n;
    }
    EXPECT_EQ(plan_pair_jerks({}, 65536, Precision::f32).bodies_per_thread, 4);
    EXPECT_TRUE(plan_pair_jerks({}, 16384, Precision::f32).off);
    EXPECT_TRUE(plan_pair_jerks({}, 100, Precision::f32).off);
    EXPECT_TRUE(plan_pair_jerks({}, std::size_t(1) << 22, Precision::f32).off);
    EXPECT_TRUE(plan_pair_jerks({0, 0, true}, 65536, Precision::f32).off);
    const PairJerkLaunch small = plan_pair_jerks({1, 64, false}, 100, Precision::f64);
    EXPECT_FALSE(small.off);
    EXPECT_EQ(small.bodies_per_thread, 1);
    EXPECT_EQ(small.block, 64);
    EXPECT_EQ(pair_jerk_scratch_count(small, 100), 2u * 2u * 100u);  // two tiles of 64, two slots each
    EXPECT_THROW(plan_pair_jerks({3, 0, false}, 10, Precision::f32), Error);
    EXPECT_THROW(plan_pair_jerks({4, 0, false}, 10, Precision::f64), Error);
    EXPECT_THROW(plan_pair_jerks({0, 96, false}, 10, Precision::f32), Error);
    EXPECT_THROW(plan_pair_jerks({2, 0, false}, 10, Precision::f32), Error);  // K and B, or neither
    EXPECT_THROW(plan_pair_jerks({0, 128, false}, 10, Precision::f32), Error);
}

// The launch shapes the automatic choice gives the two benchmark cases and the regimes between.
TEST(CudaHermiteKernel, AutomaticShapesFitTheTargets) {
    SKIP_WITHOUT_DEVICE();
    const JerkLaunch all = resolve_jerk_launch({}, 65536, 65536, Precision::f32);
    EXPECT_EQ(all.bodies_per_thread, 4);
    EXPECT_EQ(all.block, 128);
    EXPECT_GE(all.splits, 1);
    const JerkLaunch few = resolve_jerk_launch({}, 256, 1 << 20, Precision::f32);
    EXPECT_EQ(few.block * few.bodies_per_thread, 256);  // one block of targets, no idle lane
    EXPECT_GT(few.splits, 100);                         // the sources spread over the device
    const JerkLaunch one = resolve_jerk_launch({}, 1, 1 << 20, Precision::f64);
    EXPECT_EQ(one.block, 32);
    EXPECT_EQ(one.bodies_per_thread, 1);
    EXPECT_LE(resolve_jerk_launch({}, 65536, 65536, Precision::f64).bodies_per_thread, 2);
    EXPECT_THROW(resolve_jerk_launch({3, 0, 0}, 10, 10, Precision::f32), Error);
    EXPECT_THROW(resolve_jerk_launch({0, 96, 0}, 10, 10, Precision::f32), Error);
    EXPECT_THROW(resolve_jerk_launch({0, 0, -1}, 10, 10, Precision::f32), Error);
}

// ---- The block steps against the serial backend's -------------------------------------------------

Params hermite_params(double eps) {
    Params p = find_preset("plummer")->params;  // dt = 0.01
    p.integrator = Integrator::hermite;
    p.softening = eps;
    return p;
}

std::unique_ptr<Backend> with_state(std::unique_ptr<Backend> b, const HostState& s) {
    b->set_state(s);
    return b;
}

double rms_norm(const std::vector<Vec4<double> >& v) {
    double s = 0;
    for (const auto& a : v) s += a.x * a.x + a.y * a.y + a.z * a.z;
    return std::sqrt(s / double(v.size()));
}

double distance(const Vec4<double>& a, const Vec4<double>& b) {
    return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

struct Difference {
    double pos_max = 0, pos_rms = 0, vel_max = 0, vel_rms = 0;  // over the reference's RMS radius / speed
    double relative = 0;  // sqrt(sum |dx|^2 + |dv|^2 / sum |x|^2 + |v|^2)
};

Difference difference(const HostState& s, const HostState& ref) {
    Difference d;
    const double r = rms_norm(ref.pos_mass), v = rms_norm(ref.vel);
    double sx = 0, sv = 0, den = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const double dx = distance(s.pos_mass[i], ref.pos_mass[i]), dv = distance(s.vel[i], ref.vel[i]);
        d.pos_max = std::max(d.pos_max, dx / r);
        d.vel_max = std::max(d.vel_max, dv / v);
        sx += dx * dx, sv += dv * dv;
        den += std::pow(distance(ref.pos_mass[i], {0, 0, 0, 0}), 2) +
               std::pow(distance(ref.vel[i], {0, 0, 0, 0}), 2);
    }
    const double n = double(s.size());
    d.pos_rms = std::sqrt(sx / n) / r;
    d.vel_rms = std::sqrt(sv / n) / v;
    d.relative = std::sqrt((sx + sv) / den);
    return d;
}

bool same_bits(const HostState& a, const HostState& b) {
    return a.size() == b.size() && a.t == b.t &&
           std::memcmp(a.pos_mass.data(), b.pos_mass.data(), a.size() * sizeof(Vec4<double>)) == 0 &&
           std::memcmp(a.vel.data(), b.vel.data(), a.size() * sizeof(Vec4<double>)) == 0;
}

// Plummer spheres at eps = 1e-3 (close encounters resolved by the levels: levels up to 6-8 here) after 4
// max steps, cuda in both precisions against serial double.
// Double: the device sums each force in another order (tiles, splits, FMAs), ~1e-15 relative per
// evaluation; a perturbation of one ulp grows to only 1.2e-16 relative RMS over these steps (measured on
// the host), so 1e-10 leaves five orders of magnitude, and a wrong level (a step of another size) or a
// wrong term would be off by far more. The levels and the blocks themselves are the same.
// Float: serial float against serial double measured 5e-7 (N = 1024) and 1.2e-6 (N = 4096) of the RMS
// radius at most over the bodies, 3e-5 of the RMS speed at most (a tight pair's velocity) and 9e-7 RMS;
// the bounds sit 80x, 30x and 100x above.
TEST(CudaHermite, MatchesSerialDoubleOnPlummer) {
    SKIP_WITHOUT_DEVICE();
    const Params p = hermite_params(1e-3);
    const int steps = 4;
    for (std::size_t n : {std::size_t(1024), std::size_t(4096)}) {
        const HostState s0 = make_preset("plummer", n, 1);
        auto serial = with_state(create_backend("serial", Precision::f64), s0);
        const StepReport rs = serial->step(p, steps);
        ASSERT_TRUE(rs.finite);
        const HostState ref = serial->get_state();
        for (Precision precision : {Precision::f64, Precision::f32}) {
            SCOPED_TRACE("N = " + std::to_string(n) + " " + to_string(precision));
            auto gpu = with_state(make_cuda_backend(precision), s0);
            ASSERT_NE(gpu->block_steps(), nullptr);
            EXPECT_FALSE(gpu->block_steps()->host_copy());  // its own, not the generic host copy
            const StepReport rg = gpu->step(p, steps);
            ASSERT_TRUE(rg.finite) << "step " << rg.bad_step << " body " << rg.bad_body;
            const HostState s = gpu->get_state();
            EXPECT_EQ(s.t, ref.t);
            EXPECT_EQ(rg.time_advanced, rs.time_advanced);
            const Difference d = difference(s, ref);
            if (precision == Precision::f64) {
                EXPECT_LE(d.relative, 1e-10) << d.pos_max << " " << d.vel_max;
                EXPECT_EQ(rg.blocks, rs.blocks);
                EXPECT_EQ(rg.body_updates, rs.body_updates);
                EXPECT_EQ(gpu->block_steps()->levels(), serial->block_steps()->levels());
            } else {
                EXPECT_LE(d.pos_max, 1e-4) << "rms " << d.pos_rms;
                EXPECT_LE(d.vel_rms, 1e-4) << "max " << d.vel_max;
                EXPECT_LE(d.vel_max, 1e-3);
                EXPECT_GT(d.pos_max, 0.0);  // float really ran in float
            }
        }
    }
}

// Double: the levels after the start and after every max step are the host's, and so is the work
// (blocks, force+jerk evaluations), on a Plummer sphere and on an eccentric binary whose pericentre
// passage takes the levels deep (e = 0.9, 8 max steps of P/8: levels up to ~10).
TEST(CudaHermite, LevelsAndWorkAreTheHostsInDouble) {
    SKIP_WITHOUT_DEVICE();
    struct Case {
        const char* name;
        HostState s0;
        Params p;
        int steps;
    };
    Params kp = hermite_params(0);
    kp.dt = 2 * 3.14159265358979323846 / 8;
    kp.eta = 1e-3;
    const Case cases[] = {{"plummer", make_preset("plummer", 2048, 3), hermite_params(1e-3), 5},
                          {"kepler e=0.9", test::kepler(0.9), kp, 8}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        auto serial = with_state(create_backend("serial", Precision::f64), c.s0);
        auto gpu = with_state(make_cuda_backend(Precision::f64), c.s0);
        int deepest = 0;
        for (int k = 0; k < c.steps; ++k) {
            const StepReport rs = serial->step(c.p, 1), rg = gpu->step(c.p, 1);
            ASSERT_TRUE(rs.finite && rg.finite);
            EXPECT_EQ(rg.blocks, rs.blocks) << "max step " << k;
            EXPECT_EQ(rg.body_updates, rs.body_updates) << "max step " << k;
            const std::vector<int> ls = serial->block_steps()->levels(), lg = gpu->block_steps()->levels();
            ASSERT_EQ(lg, ls) << "max step " << k;
            for (int l : ls) deepest = std::max(deepest, l);
        }
        EXPECT_GE(deepest, 4);  // the levels did their work
        EXPECT_LE(difference(gpu->get_state(), serial->get_state()).relative, 1e-10);
        const BlockCounters cs = serial->block_steps()->counters(), cg = gpu->block_steps()->counters();
        EXPECT_EQ(cg.blocks, cs.blocks);
        EXPECT_EQ(cg.body_updates, cs.body_updates);
        EXPECT_EQ(cg.starts, 1);
    }
}

// The figure-eight in float at a max step near its preset's: the middle body's pulls cancel (a = 0), so its
// start step comes from sqrt(|v| / |jerk|) (start_kernel, as the host's): from the finest level it stalled
// in max step 1. With and without the neighbour scheme.
TEST(CudaHermite, FigureEightRunsInFloat) {
    SKIP_WITHOUT_DEVICE();
    const HostState eight = test::figure_eight();
    for (int k : {0, 2}) {
        SCOPED_TRACE(k);
        Params p = hermite_params(0);
        p.dt = 6.32591398 / 1024;
        p.neighbours = k;
        auto gpu = with_state(make_cuda_backend(Precision::f32), eight);
        const StepReport r = gpu->step(p, 1024);
        ASSERT_TRUE(r.ok()) << (r.stalled ? "stalled" : "not finite") << " in max step " << r.bad_step;
        EXPECT_LT(r.blocks, 4 * 1024) << r.blocks;  // the host's: 1,025 (one a max step)
        const HostState s = gpu->get_state();
        for (std::size_t i = 0; i < 3; ++i) EXPECT_LE(distance(s.pos_mass[i], eight.pos_mass[i]), 1e-3) << i;
    }
}

// A max step of another length between max steps keeps each body's step on the device as on the host
// (change_max_step: every level moved by one shift, no restart). Double, plain block steps and the
// neighbour scheme: max steps half as long, longer by rounding, shorter and longer by other factors; after
// each the same blocks, full sums and levels as serial double, and one start in all. Float: the
// figure-eight's shortened last max step of Hermite.AShortenedLastMaxStepKeepsEachBodysStep, in one block
// (a restart took 799 on the host).
TEST(CudaHermite, AChangedMaxStepKeepsEachBodysStepAsTheHostDoes) {
    SKIP_WITHOUT_DEVICE();
    for (const auto& [n, k] : {std::pair{std::size_t(1024), 0}, std::pair{std::size_t(4096), 32}}) {
        SCOPED_TRACE("neighbours " + std::to_string(k));
        const HostState s0 = make_preset("plummer", n, 1);
        Params p = hermite_params(1e-3);
        p.neighbours = k;
        auto serial = with_state(create_backend("serial", Precision::f64), s0);
        auto gpu = with_state(make_cuda_backend(Precision::f64), s0);
        for (double dt : {0.0625, 0.03125, 0.03125 * (1 + 0x1p-48), 0.02, 0.05}) {
            p.dt = dt;
            const StepReport rs = serial->step(p, 1), rg = gpu->step(p, 1);
            ASSERT_TRUE(rs.finite);
            ASSERT_TRUE(rg.finite) << "dt " << dt << " body " << rg.bad_body;
            EXPECT_EQ(rg.blocks, rs.blocks) << "dt " << dt;
            EXPECT_EQ(rg.body_updates, rs.body_updates) << "dt " << dt;
            EXPECT_EQ(gpu->block_steps()->levels(), serial->block_steps()->levels()) << "dt " << dt;
        }
        EXPECT_EQ(serial->block_steps()->counters().starts, 1);
        EXPECT_EQ(gpu->block_steps()->counters().starts, 1);
        const Difference d = difference(gpu->get_state(), serial->get_state());
        EXPECT_LE(d.relative, 1e-9) << d.pos_max << " " << d.vel_max;
    }
    Params p = hermite_params(0);
    p.dt = 6.32591398 / 1024;
    auto gpu = with_state(make_cuda_backend(Precision::f32), make_preset("figure-eight", 3, 1));
    ASSERT_TRUE(gpu->step(p, 512).ok());
    p.dt = 3.16296 - gpu->time();
    const StepReport last = gpu->step(p, 1);
    ASSERT_TRUE(last.ok());
    EXPECT_LT(last.blocks, 16);
    EXPECT_EQ(gpu->time(), 3.16296);
    EXPECT_EQ(gpu->block_steps()->counters().starts, 1);
}

// An interrupt stops a device max step at its next return to the host (a batch of graphs, a persistent
// run) and Backend::step puts the bodies back as it began; the run then goes on as one restarted from them.
// Plain block steps and the neighbour scheme's persistent kernel; the flag set before the call.
TEST(CudaHermite, AnInterruptPutsTheMaxStepBack) {
    SKIP_WITHOUT_DEVICE();
    const HostState s0 = make_preset("plummer", 4096, 3);
    for (int k : {0, 32}) {
        SCOPED_TRACE(k);
        Params p = hermite_params(1e-3);
        p.dt = 0.125;
        p.neighbours = k;
        auto gpu = with_state(make_cuda_backend(Precision::f32), s0);
        ASSERT_TRUE(gpu->step(p, 1).ok());
        const HostState before = gpu->get_state();
        std::atomic<bool> stop{true};
        gpu->set_interrupt(&stop);
        const StepReport r = gpu->step(p, 2);
        EXPECT_TRUE(r.interrupted);
        EXPECT_EQ(r.steps_done, 0);
        EXPECT_EQ(r.time_advanced, 0.0);
        EXPECT_TRUE(same_bits(gpu->get_state(), before));
        stop = false;
        ASSERT_TRUE(gpu->step(p, 2).ok());
        auto fresh = with_state(make_cuda_backend(Precision::f32), before);
        ASSERT_TRUE(fresh->step(p, 2).ok());
        EXPECT_TRUE(same_bits(gpu->get_state(), fresh->get_state()));
    }
}

// eps = 0: the self-term is skipped by its index. The figure-eight (3 bodies: one tile, every body in it)
// and a Plummer sphere with its close encounters unsoftened, against serial double. Float over the
// figure-eight's whole period (64 max steps, many small increments rounded to float positions): serial
// float measured 4.4e-5 from serial double and 4.2e-5 from the start after the period (double: 6.5e-7),
// hence 5e-4 in float.
TEST(CudaHermite, ZeroSofteningWorks) {
    SKIP_WITHOUT_DEVICE();
    const HostState eight = test::figure_eight();
    Params p8 = hermite_params(0);
    p8.dt = 6.32591398 / 64;
    p8.eta = 0.005;
    Params pp = hermite_params(0);
    for (Precision precision : {Precision::f64, Precision::f32}) {
        SCOPED_TRACE(to_string(precision));
        const bool f64 = precision == Precision::f64;
        {
            auto serial = with_state(create_backend("serial", Precision::f64), eight);
            auto gpu = with_state(make_cuda_backend(precision), eight);
            ASSERT_TRUE(serial->step(p8, 64).finite);
            const StepReport r = gpu->step(p8, 64);
            ASSERT_TRUE(r.finite) << "step " << r.bad_step << " body " << r.bad_body;
            const HostState s = gpu->get_state();
            EXPECT_LE(difference(s, serial->get_state()).relative, f64 ? 1e-10 : 5e-4);
            // After one period the choreography is back where it started.
            for (std::size_t i = 0; i < 3; ++i) {
                EXPECT_LE(distance(s.pos_mass[i], eight.pos_mass[i]), f64 ? 1e-5 : 5e-4) << "body " << i;
            }
        }
        {
            const HostState s0 = make_preset("plummer", 1024, 9);
            auto serial = with_state(create_backend("serial", Precision::f64), s0);
            auto gpu = with_state(make_cuda_backend(precision), s0);
            ASSERT_TRUE(serial->step(pp, 3).finite);
            const StepReport r = gpu->step(pp, 3);
            ASSERT_TRUE(r.finite) << "step " << r.bad_step << " body " << r.bad_body;
            const Difference d = difference(gpu->get_state(), serial->get_state());
            if (f64) {
                EXPECT_LE(d.relative, 1e-10);
            } else {
                EXPECT_LE(d.pos_max, 1e-4);  // serial float: 8e-7 of the RMS radius
            }
        }
    }
}

// A pair float cannot resolve stops the run with a stall once its max step has run kStallBlocks blocks, as
// on the host (test_hermite.cpp): by itself
// (plain block steps) and as bodies 0 and 1 of a Plummer sphere at softening 0 with the neighbour scheme,
// whose irregular blocks run in the persistent kernel or as graphs; the same step and body as serial.
TEST(CudaHermite, AStallStopsTheRunAndNamesTheBody) {
    SKIP_WITHOUT_DEVICE();
    const HostState pair = test::unresolved_pair();
    HostState sphere = make_preset("plummer", 1024, 3);
    for (std::size_t k = 0; k < 2; ++k) {
        sphere.pos_mass[k] = pair.pos_mass[k];
        sphere.pos_mass[k].x += 2;  // 3 + 3e-7 in float: 2.4e-7 apart
        sphere.vel[k] = pair.vel[k];
    }
    struct Case {
        const HostState* s;
        int neighbours;
        bool persistent;
        double dt;
    };
    for (const Case& c : {Case{&pair, 0, true, 1e-3}, Case{&sphere, 32, true, 1.0 / 64},
                          Case{&sphere, 32, false, 1.0 / 64}}) {
        SCOPED_TRACE("n " + std::to_string(c.s->size()) + " persistent " + std::to_string(c.persistent));
        Params p = hermite_params(0);
        p.dt = c.dt;
        p.neighbours = c.neighbours;
        auto serial = with_state(create_backend("serial", Precision::f32), *c.s);
        const StepReport want = serial->step(p, 2);
        ASSERT_TRUE(want.stalled);
        auto gpu = with_state(make_cuda_backend(Precision::f32), *c.s);
        auto* steps = dynamic_cast<DeviceBlockSteps*>(gpu->block_steps());
        ASSERT_NE(steps, nullptr);
        steps->set_persistent_irregular(c.persistent);
        const StepReport r = gpu->step(p, 2);
        EXPECT_TRUE(r.stalled);
        EXPECT_TRUE(r.finite);
        EXPECT_EQ(r.bad_step, want.bad_step);
        EXPECT_EQ(r.bad_body, want.bad_body);
        EXPECT_EQ(r.steps_done, want.steps_done);
        EXPECT_EQ(gpu->time(), serial->time());
        EXPECT_GT(r.blocks, kStallBlocks);
    }
    Params p = hermite_params(0);
    p.dt = 1e-6;
    auto gpu = with_state(make_cuda_backend(Precision::f64), pair);
    const StepReport r = gpu->step(p, 2);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.steps_done, 2);
}

// An exact restart (docs/SNAPSHOTS.md): run 3 max steps, save to HDF5 with the block steps' state
// (export_block_state: what `nbody run` stores), read back into a fresh backend that takes it and run 3
// more; the unbroken run ends with the same bits. A backend given the bodies alone starts its levels again
// and goes another way, so the test can tell.
void check_restart_is_bit_identical(const Params& p) {
    const std::int64_t k = 3;
    const HostState start = make_preset("plummer", 4096, 5);
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("nbody_cuda_hermite_restart_" + std::to_string(::getpid()) + ".h5"))
                                 .string();
    for (Precision precision : {Precision::f32, Precision::f64}) {
        SCOPED_TRACE(to_string(precision));
        auto unbroken = with_state(make_cuda_backend(precision), start);
        ASSERT_TRUE(unbroken->step(p, k).finite);
        Snapshot snap;
        snap.state = unbroken->get_state();
        snap.info.has_params = true;
        snap.info.params = p;
        snap.info.precision = precision;
        snap.info.step = k;
        snap.block = unbroken->export_block_state(p);
        ASSERT_TRUE(snap.block.has_value());
        write_snapshot(path, snap);
        ASSERT_TRUE(unbroken->step(p, k).finite);

        const Snapshot back = read_snapshot(path);
        std::filesystem::remove(path);
        ASSERT_EQ(back.info.precision, precision);
        EXPECT_EQ(back.info.params.integrator, Integrator::hermite);
        ASSERT_TRUE(back.block.has_value());
        auto restarted = with_state(make_cuda_backend(back.info.precision), back.state);
        ASSERT_TRUE(restarted->import_block_state(back.info.params, *back.block));
        ASSERT_TRUE(restarted->step(back.info.params, k).finite);
        const HostState a = restarted->get_state(), b = unbroken->get_state();
        EXPECT_TRUE(same_bits(a, b)) << "relative difference " << difference(a, b).relative;
        EXPECT_EQ(restarted->block_steps_for(p)->levels(), unbroken->block_steps_for(p)->levels());

        auto bodies_alone = with_state(make_cuda_backend(precision), back.state);
        ASSERT_TRUE(bodies_alone->step(p, k).finite);
        EXPECT_FALSE(same_bits(bodies_alone->get_state(), b));
    }
}

TEST(CudaHermite, RestartFromAnHdf5SnapshotIsBitIdentical) {
    SKIP_WITHOUT_DEVICE();
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    check_restart_is_bit_identical(hermite_params(1e-3));
}

// The same with the neighbour scheme: the snapshot also keeps each body's split, regular level, radius
// and list.
TEST(CudaHermite, NeighbourSchemeRestartIsBitIdentical) {
    SKIP_WITHOUT_DEVICE();
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    Params p = hermite_params(1e-3);
    p.neighbours = 32;
    p.dt = 0.0625;
    check_restart_is_bit_identical(p);
}

// The same where collisions are on: the cuda backend runs the generic host-copy block steps then
// (Backend::block_steps_for), whose state goes through the snapshot as well.
TEST(CudaHermite, HostCopyBlockStepsRestartIsBitIdentical) {
    SKIP_WITHOUT_DEVICE();
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    Params p = hermite_params(1e-3);
    p.collisions = CollisionMode::bounce;
    check_restart_is_bit_identical(p);
}

// Neighbour lists of random bodies from launch_neighbour_lists: each target's list (the first `capacity`
// in index order), its full count's new radius. by_count: the count read from the device (the path a
// block takes), else a fixed m (a start's). planned: as a block with regular steps builds them, the planned
// force+jerk evaluation with lists (its scratch at most 256 MiB), the list search gated by
// lists_separate, the ranges joined where lists_inline; inline_count: whether the evaluation built them.
struct DeviceLists {
    std::vector<std::vector<std::uint32_t> > lists;
    std::vector<double> radius;
    std::uint64_t inline_count = 0;
};
template <typename T>
DeviceLists run_neighbour_lists(const HostState& s, const std::vector<double>& radius,
                                const std::vector<int>& regular_level,
                                const std::vector<std::uint32_t>& targets, bool by_count, int k, double dt,
                                bool build = true, bool planned = false) {
    const std::size_t n = s.size(), m = targets.size();
    const int cap = neighbour_capacity(k);
    const std::size_t items = neighbour_split_items(n, cap);
    std::vector<Vec4<T> > hx(n), hv(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = s.pos_mass[i];
        const auto& v = s.vel[i];
        hx[i] = {T(p.x), T(p.y), T(p.z), T(p.w)};
        hv[i] = {T(v.x), T(v.y), T(v.z), T(0)};
    }
    DeviceBuffer<Vec4<T> > x(n), v(n);
    DeviceBuffer<std::uint32_t> list(n * cap), listed(n), t(m), count(1), split_list(items * cap),
        split_count(items);
    DeviceBuffer<double> r(n);
    DeviceBuffer<int> level(n);
    x.copy_from_host(hx.data(), n);
    v.copy_from_host(hv.data(), n);
    t.copy_from_host(targets.data(), m);
    const auto m32 = std::uint32_t(m);
    count.copy_from_host(&m32, 1);
    r.copy_from_host(radius.data(), n);
    level.copy_from_host(regular_level.data(), n);
    DeviceNeighbourLists l;
    l.list = list.data(), l.listed = listed.data(), l.radius = r.data(), l.regular_level = level.data();
    l.k = k, l.capacity = cap, l.split_list = split_list.data(), l.split_count = split_count.data();
    DeviceLists out;
    if (planned) {
        const JerkPlans plans = make_jerk_plans({}, n, precision_of<T>());
        DeviceBuffer<JerkPlan> dplans(plans.entries.size());
        dplans.copy_from_host(plans.entries.data(), plans.entries.size());
        DeviceBuffer<JerkChosen> chosen(1);
        const JerkChosen zero{};
        chosen.copy_from_host(&zero, 1);
        DeviceBuffer<Vec4<T> > a(m), j(m), scratch(std::max<std::size_t>(plans.scratch, 1));
        const std::size_t range_items = std::min(
            jerk_list_items(plans), (std::size_t(256) << 20) / (std::size_t(cap) * sizeof(std::uint32_t)));
        DeviceBuffer<std::uint32_t> ranges(range_items * cap), counts(range_items);
        JerkLists jl;
        jl.lists = l, jl.dt = dt, jl.ranges = ranges.data(), jl.counts = counts.data(),
        jl.items = range_items;
        launch_planned_jerks<T>(plans, dplans.data(), chosen.data(), x.data(), v.data(), n, t.data(),
                                count.data(), T(1), T(1e-6), a.data(), j.data(), scratch.data(), nullptr,
                                &jl);
        launch_neighbour_lists<T>(true, x.data(), v.data(), n, t.data(), count.data(), m, l, dt,
                                  kRadiusFactor, &chosen.data()->lists_separate, nullptr);
        launch_join_ranges(t.data(), count.data(), &chosen.data()->splits, ranges.data(), counts.data(), l,
                           kRadiusFactor, &chosen.data()->lists_inline, nullptr);
        JerkChosen c{};
        chosen.copy_to_host(&c, 1);
        out.inline_count = c.inline_count;
    } else {
        launch_neighbour_lists<T>(build, x.data(), v.data(), n, t.data(), by_count ? count.data() : nullptr,
                                  m, l, dt, kRadiusFactor, nullptr, nullptr);
    }
    std::vector<std::uint32_t> all(n * cap), used(n);
    list.copy_to_host(all.data(), n * cap);
    listed.copy_to_host(used.data(), n);
    out.radius.resize(n);
    r.copy_to_host(out.radius.data(), n);
    for (const std::uint32_t i : targets)
        out.lists.emplace_back(all.begin() + std::ptrdiff_t(i) * cap,
                               all.begin() + std::ptrdiff_t(i) * cap + used[i]);
    return out;
}

// Every path of the list search gives the same lists and radii: the split search of a few targets (a
// device count up to 2,048), the lane search of many (a larger count, or a fixed m) with its sources in
// ranges joined in order or, where the scratch has no room for ranges (lists of K = 1024 and 3,001
// targets), in one range written straight; building or only counting, in float and double; and the planned
// force+jerk evaluation that builds them as it sums (or leaves them to the search). Against a
// host search in the same precision: the same lists but for a rare body at a sphere's edge (the device
// may fuse a multiply-add the host rounds twice). Radii make some lists overflow their capacity (the
// first ones in index order kept); targets in reverse order.
TEST(CudaHermiteKernel, NeighbourListsAreTheSameOnEveryPath) {
    SKIP_WITHOUT_DEVICE();
    const std::size_t n = 5003;
    const HostState s = rounded<float>(test::random_bodies(n, 5));
    const double dt = 0.125;
    std::vector<int> regular_level(n);
    for (std::size_t i = 0; i < n; ++i) regular_level[i] = int(i % 5);
    for (const int k : {32, 1024}) {
        // Uniform in [-1, 1]^3: a sphere of radius r0 holds about k bodies; scaled from 0.5 to 1.36 r0.
        const double r0 = std::cbrt(3.0 * k * 8.0 / (4.0 * M_PI * double(n)));
        std::vector<double> radius(n);
        for (std::size_t i = 0; i < n; ++i) radius[i] = r0 * (0.5 + double(i % 7) / 7.0);
        for (const std::size_t m : {std::size_t(1025), std::size_t(2000), std::size_t(2048),
                                    std::size_t(2049), std::size_t(3001)}) {
            SCOPED_TRACE("K " + std::to_string(k) + " m " + std::to_string(m));
            std::vector<std::uint32_t> targets(m);
            for (std::size_t q = 0; q < m; ++q) targets[q] = std::uint32_t(n - 1 - 2 * q % n);
            const DeviceLists a = run_neighbour_lists<float>(s, radius, regular_level, targets, true, k, dt);
            const DeviceLists b = run_neighbour_lists<float>(s, radius, regular_level, targets, false, k, dt);
            EXPECT_EQ(a.lists, b.lists);
            EXPECT_EQ(a.radius, b.radius);
            // Counting only (a start's rounds, a fixed m): the same radii.
            const DeviceLists c =
                run_neighbour_lists<float>(s, radius, regular_level, targets, false, k, dt, false);
            EXPECT_EQ(c.radius, a.radius) << "counting";
            const DeviceLists d = run_neighbour_lists<double>(s, radius, regular_level, targets, true, k, dt);
            const DeviceLists e =
                run_neighbour_lists<double>(s, radius, regular_level, targets, false, k, dt);
            EXPECT_EQ(d.lists, e.lists) << "double";
            EXPECT_EQ(d.radius, e.radius) << "double";
            // Built by the planned evaluation as it sums (K = 32), or left to the search where its ranges
            // would not fit the scratch (K = 1024): the same lists either way.
            for (const bool f32 : {true, false}) {
                const DeviceLists p = f32 ? run_neighbour_lists<float>(s, radius, regular_level, targets,
                                                                       true, k, dt, true, true)
                                          : run_neighbour_lists<double>(s, radius, regular_level, targets,
                                                                        true, k, dt, true, true);
                EXPECT_EQ(p.lists, f32 ? a.lists : d.lists) << "planned, " << (f32 ? "float" : "double");
                EXPECT_EQ(p.radius, f32 ? a.radius : d.radius) << "planned, " << (f32 ? "float" : "double");
                EXPECT_EQ(p.inline_count, k == 32 ? 1u : 0u) << (f32 ? "float" : "double");
            }
            std::size_t differ = 0, overflow = 0, listed = 0;
            for (std::size_t q = 0; q < m; ++q) {
                const std::uint32_t i = targets[q];
                std::vector<std::uint32_t> host;
                const Vec4<float> xi{float(s.pos_mass[i].x), float(s.pos_mass[i].y), float(s.pos_mass[i].z),
                                     0.f};
                const Vec4<float> vi{float(s.vel[i].x), float(s.vel[i].y), float(s.vel[i].z), 0.f};
                const auto r2 = float(radius[i] * radius[i]);
                const auto ahead = float(neighbour_lookahead(regular_level[i], dt));
                for (std::size_t j = 0; j < n; ++j) {
                    const Vec4<float> xj{float(s.pos_mass[j].x), float(s.pos_mass[j].y),
                                         float(s.pos_mass[j].z), 0.f};
                    const Vec4<float> vj{float(s.vel[j].x), float(s.vel[j].y), float(s.vel[j].z), 0.f};
                    if (j != i && within_radius(xi, vi, xj, vj, r2, ahead)) host.push_back(std::uint32_t(j));
                }
                if (host.size() > std::size_t(neighbour_capacity(k))) ++overflow;
                host.resize(std::min(host.size(), std::size_t(neighbour_capacity(k))));
                differ += a.lists[q] != host;
                listed += a.lists[q].size();
            }
            EXPECT_LE(differ, m / 200) << "of " << m;
            EXPECT_GT(overflow, 0u);
            EXPECT_GT(listed, m * std::size_t(k) / 2);
        }
    }
}

// The neighbour scheme (--neighbours) on the device against serial double, as MatchesSerialDoubleOnPlummer
// and LevelsAndWorkAreTheHostsInDouble check plain block steps: N = 4096 exercises the lists of many
// targets (a start, the last block of a max step: one target per thread) and of few (a block with a few
// regular steps: the sources split into ranges). Double: the same blocks, full sums, neighbour evaluations
// and levels after every max step; the device adds each irregular sum in another order and may round a
// distance at a sphere's edge differently (FMA), so the bound is 1e-9 rather than plain's 1e-10 (measured
// at N = 4096: the same blocks, evaluations and |dE/E| to four digits). Float: plain's bounds.
// Also with eta_regular apart from eta (the regular steps' own criterion, at the start and each regular
// step).
TEST(CudaHermite, NeighbourSchemeMatchesSerial) {
    SKIP_WITHOUT_DEVICE();
    Params p = hermite_params(1e-3);
    p.neighbours = 32;
    p.dt = 0.0625;
    const int steps = 3;
    const HostState s0 = make_preset("plummer", 4096, 1);
    for (const auto& [precision, eta, eta_regular] :
         {std::tuple{Precision::f64, p.eta, 0.0}, std::tuple{Precision::f32, p.eta, 0.0},
          std::tuple{Precision::f64, 0.03, 0.015}}) {
        SCOPED_TRACE(std::string(to_string(precision)) + " eta " + std::to_string(eta) + " eta_regular " +
                     std::to_string(eta_regular));
        p.eta = eta;
        p.eta_regular = eta_regular;
        auto serial = with_state(create_backend("serial", Precision::f64), s0);
        auto gpu = with_state(make_cuda_backend(precision), s0);
        EXPECT_FALSE(gpu->block_steps()->host_copy());
        for (int k = 0; k < steps; ++k) {
            const StepReport rs = serial->step(p, 1), rg = gpu->step(p, 1);
            ASSERT_TRUE(rs.finite);
            ASSERT_TRUE(rg.finite) << "step " << rg.bad_step << " body " << rg.bad_body;
            if (precision == Precision::f64) {
                EXPECT_EQ(rg.blocks, rs.blocks) << "max step " << k;
                EXPECT_EQ(rg.body_updates, rs.body_updates) << "max step " << k;
                EXPECT_EQ(rg.neighbour_updates, rs.neighbour_updates) << "max step " << k;
                EXPECT_EQ(gpu->block_steps()->levels(), serial->block_steps()->levels()) << "max step " << k;
            }
        }
        const BlockCounters cg = gpu->block_steps()->counters();
        EXPECT_GT(cg.neighbour_updates, 0u);
        // Most steps are irregular (with eta_regular at half of eta, the regular steps come more often).
        EXPECT_LT(cg.body_updates * (eta_regular > 0 ? 1 : 4), cg.neighbour_updates);
        const Difference d = difference(gpu->get_state(), serial->get_state());
        if (precision == Precision::f64) {
            EXPECT_LE(d.relative, 1e-9) << d.pos_max << " " << d.vel_max;
        } else {
            EXPECT_LE(d.pos_max, 1e-4) << "rms " << d.pos_rms;
            EXPECT_LE(d.vel_rms, 1e-4) << "max " << d.vel_max;
            EXPECT_GT(d.pos_max, 0.0);
        }
    }
}

// The same run twice on the device: the same bits (no atomics in any sum, the same launches).
TEST(CudaHermite, RunsAreDeterministic) {
    SKIP_WITHOUT_DEVICE();
    Params with_lists = hermite_params(1e-3);
    with_lists.neighbours = 32;
    const HostState s0 = make_preset("plummer", 3000, 2);
    for (const Params& p : {hermite_params(1e-3), with_lists})
        for (Precision precision : {Precision::f32, Precision::f64}) {
            auto a = with_state(make_cuda_backend(precision), s0);
            auto b = with_state(make_cuda_backend(precision), s0);
            ASSERT_TRUE(a->step(p, 3).finite);
            ASSERT_TRUE(b->step(p, 3).finite);
            EXPECT_TRUE(same_bits(a->get_state(), b->get_state())) << to_string(precision);
        }
}

// Two CUDA backends on the same Plummer sphere of 4,096 bodies (the neighbour scheme, K 32, max dt 1/16),
// the second with one of the device's paths switched off (`switch_off`): after three max steps, in float
// and double, the same blocks, evaluations, bits and levels; `check` then looks at both block steps.
void expect_same_without(std::uint64_t seed, const std::function<void(DeviceBlockSteps&)>& switch_off,
                         const std::function<void(const DeviceBlockSteps& on, const DeviceBlockSteps& off,
                                                  const StepReport&)>& check,
                         const std::function<void(DeviceBlockSteps&)>& set_on = {}, std::size_t n = 4096) {
    Params p = hermite_params(1e-3);
    p.neighbours = 32;
    p.dt = 0.0625;
    const HostState s0 = make_preset("plummer", n, seed);
    for (Precision precision : {Precision::f32, Precision::f64}) {
        SCOPED_TRACE(to_string(precision));
        auto on = with_state(make_cuda_backend(precision), s0);
        auto off = with_state(make_cuda_backend(precision), s0);
        auto* on_steps = dynamic_cast<DeviceBlockSteps*>(on->block_steps());
        auto* off_steps = dynamic_cast<DeviceBlockSteps*>(off->block_steps());
        ASSERT_NE(on_steps, nullptr);
        ASSERT_NE(off_steps, nullptr);
        switch_off(*off_steps);
        if (set_on) set_on(*on_steps);
        const StepReport a = on->step(p, 3), b = off->step(p, 3);
        ASSERT_TRUE(a.finite);
        ASSERT_TRUE(b.finite);
        EXPECT_EQ(a.blocks, b.blocks);
        EXPECT_EQ(a.body_updates, b.body_updates);
        EXPECT_EQ(a.neighbour_updates, b.neighbour_updates);
        EXPECT_TRUE(same_bits(on->get_state(), off->get_state()));
        EXPECT_EQ(on_steps->levels(), off_steps->levels());
        check(*on_steps, *off_steps, a);
    }
}

// The neighbour scheme's irregular blocks run in one persistent kernel (irregular_blocks.cuh) where the
// device allows, else as graphs of a few kernels per block: both the same bits, blocks and evaluations.
// In float the kernel also runs the blocks with a few regular steps (RegularInRun) that the graphs' path
// runs as ~17 kernels each.
TEST(CudaHermite, PersistentIrregularBlocksGiveTheGraphsBits) {
    SKIP_WITHOUT_DEVICE();
    // 4,001 bodies too: the last warp's threads past n have no body.
    for (const std::size_t n : {std::size_t(4096), std::size_t(4001)}) {
        SCOPED_TRACE(n);
        expect_same_without(
            3, [](DeviceBlockSteps& s) { s.set_persistent_irregular(false); },
            [](const DeviceBlockSteps& runs, const DeviceBlockSteps& graphs, const StepReport& a) {
                EXPECT_GT(a.blocks, 3 * 10);  // many irregular blocks between the regular ones
                // Most of them run inside the persistent kernel (the rest: the blocks with many regular
                // steps), none where it is off.
                EXPECT_GT(runs.persistent_blocks() * 2, a.blocks);
                EXPECT_EQ(graphs.persistent_blocks(), 0);
                EXPECT_EQ(graphs.persistent_regular_blocks(), 0);
            },
            {}, n);
    }
}

// The blocks with a few regular steps that the persistent kernel runs itself (float) are many of the
// blocks with regular steps: in the runs above, their results are the graphs' bit for bit.
TEST(CudaHermite, PersistentKernelRunsTheBlocksWithAFewRegularSteps) {
    SKIP_WITHOUT_DEVICE();
    Params p = hermite_params(1e-3);
    p.neighbours = 32;
    p.dt = 0.0625;
    auto backend = with_state(make_cuda_backend(Precision::f32), make_preset("plummer", 4096, 3));
    auto* steps = dynamic_cast<DeviceBlockSteps*>(backend->block_steps());
    ASSERT_NE(steps, nullptr);
    const StepReport a = backend->step(p, 3);
    ASSERT_TRUE(a.finite);
    EXPECT_GT(steps->persistent_regular_blocks(), 3 * 2);
    EXPECT_LT(steps->persistent_regular_blocks(), steps->persistent_blocks());
}

// The same with the persistent kernel on 3 blocks of threads (768 threads for 4,096 bodies): each thread
// looks at several bodies a block and loads their clocks and states, where with a thread for every body
// (the test above in float: 4,096 bodies, the device's grid) it keeps its body in registers.
TEST(CudaHermite, PersistentIrregularBlocksWithSeveralBodiesAThreadGiveTheGraphsBits) {
    SKIP_WITHOUT_DEVICE();
    expect_same_without(
        3, [](DeviceBlockSteps& s) { s.set_persistent_irregular(false); },
        [](const DeviceBlockSteps& runs, const DeviceBlockSteps&, const StepReport& a) {
            EXPECT_EQ(runs.persistent_grid(), 3u);
            EXPECT_GT(runs.persistent_blocks() * 2, a.blocks);
        },
        [](DeviceBlockSteps& s) { s.set_persistent_grid(3); });
}

// The planned evaluation that builds the new lists as it sums gives the list search's lists: the same
// bits and levels after max steps whose regular blocks and last blocks have from a few hundred to all 4,096
// bodies at a regular step (below 32,768 bodies the last block is a planned evaluation too).
TEST(CudaHermite, InlineListsGiveTheListSearchsBits) {
    SKIP_WITHOUT_DEVICE();
    expect_same_without(
        5, [](DeviceBlockSteps& s) { s.set_inline_lists(false); },
        [](const DeviceBlockSteps& built, const DeviceBlockSteps& search, const StepReport&) {
            EXPECT_GE(built.inline_list_evaluations(), 3);  // at least every max step's last block
            EXPECT_EQ(search.inline_list_evaluations(), 0);
        });
}

// A blow-up is reported as the serial backend reports it (the step, the lowest bad body, the steps
// done, the time), the call ends instead of stepping on, and the bodies are those the failing step left.
// G = 1e38 overflows float at the start; a NaN velocity poisons every jerk at once. Both leave every
// body on level 0 (a NaN step reads as the max step), so each max step is one block and the failure is
// read back with the next max step's first block, which then ends the call. Plain and with the
// neighbour scheme.
TEST(CudaHermite, BlowUpIsReportedLikeSerial) {
    SKIP_WITHOUT_DEVICE();
    struct Case {
        const char* name;
        HostState s;
        Params p;
    };
    std::vector<Case> cases;
    {
        Params p = hermite_params(0.02);
        p.G = 1e38;
        cases.push_back({"G = 1e38", make_preset("plummer", 256, 4), p});
    }
    {
        HostState s = test::random_bodies(300, 6);
        s.vel[299].y = std::numeric_limits<double>::quiet_NaN();
        cases.push_back({"NaN velocity", s, hermite_params(0.05)});
    }
    // The same with the neighbour scheme (its start and its blocks with regular steps: every block here).
    for (std::size_t k = 0, plain = cases.size(); k < plain; ++k) {
        Case c = cases[k];
        c.p.neighbours = 32;
        c.name = k == 0 ? "G = 1e38, neighbours 32" : "NaN velocity, neighbours 32";
        cases.push_back(c);
    }
    for (const Case& c : cases) {
        for (Precision precision : {Precision::f32, Precision::f64}) {
            if (c.p.G > 1e37 && precision == Precision::f64) continue;  // finite in double
            SCOPED_TRACE(std::string(c.name) + " " + to_string(precision));
            auto serial = with_state(create_backend("serial", precision), c.s);
            auto gpu = with_state(make_cuda_backend(precision), c.s);
            const StepReport rs = serial->step(c.p, 6), rg = gpu->step(c.p, 6);
            ASSERT_FALSE(rs.finite);
            EXPECT_FALSE(rg.finite);
            EXPECT_EQ(rg.bad_step, rs.bad_step);
            EXPECT_EQ(rg.bad_body, rs.bad_body);
            EXPECT_EQ(rg.steps_done, rs.steps_done);
            EXPECT_EQ(gpu->get_state().t, serial->get_state().t);
            // The state stops after the failing step: its bad body is non-finite there.
            const BodyValues b = gpu->body(rg.bad_body);
            EXPECT_FALSE(std::isfinite(b.pos_mass.x) && std::isfinite(b.pos_mass.y) &&
                         std::isfinite(b.pos_mass.z) && std::isfinite(b.vel.x) && std::isfinite(b.vel.y) &&
                         std::isfinite(b.vel.z));
            // A later call starts afresh from what is there (and fails again, promptly).
            EXPECT_FALSE(gpu->step(c.p, 2).finite);
        }
    }
}

// Between max steps every body is at the same time: get_state, the float4 copy and the device write
// for drawing (write_positions_device) all give those synchronized bodies. Kicks, drifts, dampings and
// set_state change the bodies under the block steps, which then start over (as on the host).
TEST(CudaHermite, DrawnBodiesAreTheSynchronizedOnesAndChangesRestart) {
    SKIP_WITHOUT_DEVICE();
    const Params p = hermite_params(1e-3);
    const std::size_t n = 2000;
    const HostState s0 = make_preset("plummer", n, 8);
    auto gpu = with_state(make_cuda_backend(Precision::f64), s0);
    auto serial = with_state(create_backend("serial", Precision::f64), s0);
    ASSERT_TRUE(gpu->step(p, 2).finite);
    ASSERT_TRUE(serial->step(p, 2).finite);
    EXPECT_DOUBLE_EQ(gpu->time(), 2 * p.dt);

    const HostState s = gpu->get_state();
    DeviceBuffer<Vec4<float> > drawn(n), drawn_v(n);
    ASSERT_TRUE(gpu->write_positions_device(drawn.data(), drawn_v.data()));
    std::vector<Vec4<float> > hp(n), hv(n), cp(n);
    drawn.copy_to_host(hp.data(), n);
    drawn_v.copy_to_host(hv.data(), n);
    gpu->copy_positions(cp.data());
    for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(hp[i].x, float(s.pos_mass[i].x));
        EXPECT_EQ(hp[i].w, float(s.pos_mass[i].w));
        EXPECT_EQ(hv[i].y, float(s.vel[i].y));
        EXPECT_EQ(std::memcmp(&hp[i], &cp[i], sizeof hp[i]), 0);
    }

    // A reversal from outside on both: each restarts and they still agree.
    HostState r = s;
    for (auto& v : r.vel) v = {-v.x, -v.y, -v.z, 0};
    gpu->set_state(r);
    serial->set_state(r);
    ASSERT_TRUE(gpu->step(p, 2).finite);
    ASSERT_TRUE(serial->step(p, 2).finite);
    EXPECT_EQ(gpu->block_steps()->counters().starts, 2);
    EXPECT_LE(difference(gpu->get_state(), serial->get_state()).relative, 1e-10);
    EXPECT_EQ(gpu->block_steps()->levels(), serial->block_steps()->levels());

    // A drift between steps (a primitive: the bodies may have changed).
    gpu->drift(0.0);
    ASSERT_TRUE(gpu->step(p, 1).finite);
    EXPECT_EQ(gpu->block_steps()->counters().starts, 3);
    // Damping every step restarts every step (as on the host).
    Params damped = p;
    damped.damping = 0.999;
    const HostState now = gpu->get_state();
    gpu->set_state(now);
    serial->set_state(now);
    ASSERT_TRUE(gpu->step(damped, 2).finite);
    ASSERT_TRUE(serial->step(damped, 2).finite);
    EXPECT_EQ(gpu->block_steps()->counters().starts, 5);
    EXPECT_LE(difference(gpu->get_state(), serial->get_state()).relative, 1e-10);

    // The accelerations after hermite steps are those of the new positions (the cache was dropped).
    const std::vector<Vec4<double> > a = gpu->accelerations(p);
    const std::vector<Vec4<double> > ref = test::reference_accelerations(gpu->get_state(), p.G, p.softening);
    EXPECT_LE(test::relative_rms(a, ref), 1e-12);
}

// One max step of every body on one level (eta so large that no body asks for less) is one block of N.
TEST(CudaHermite, OneLevelIsOneBlockOfAllBodiesPerMaxStep) {
    SKIP_WITHOUT_DEVICE();
    Params p = hermite_params(0.01);
    p.eta = 1e30;
    const std::size_t n = 5000;
    auto gpu = with_state(make_cuda_backend(Precision::f32), make_preset("plummer", n, 6));
    const StepReport r = gpu->step(p, 7);
    ASSERT_TRUE(r.finite);
    EXPECT_EQ(r.blocks, 7);
    EXPECT_EQ(r.body_updates, 8u * n);  // the start's evaluation of all N, then N per block
    for (int l : gpu->block_steps()->levels()) EXPECT_EQ(l, 0);
}

// The block loop with the pairwise evaluation of every body at once (the start and the last block of
// each max step, forced on at this N) and without it, against serial double as in
// MatchesSerialDoubleOnPlummer: the same levels and work in double, and the two evaluations really
// differ (other sums, other bits), each deterministic.
// `generic`: the max steps in BlockSteps' own order (next_block, evaluate, correct one block at a time),
// not the device's batches. With a failure flag (`failed`), max step k runs as step k of one call, and
// *failed is the lowest non-finite body found, if any.
template <typename T>
HostState run_device_block_steps(const HostState& s0, const Params& p, int steps, const PairJerkLaunch& pair,
                                 BlockCounters& counters, std::vector<int>& levels, bool generic = false,
                                 std::optional<std::size_t>* failed = nullptr) {
    const std::size_t n = s0.size();
    const std::vector<Vec4<T> > hx = narrow<T>(s0.pos_mass), hv = narrow<T>(s0.vel);
    DeviceBuffer<Vec4<T> > pos(n), vel(n);
    DeviceBuffer<unsigned long long> bad(1);
    pos.copy_from_host(hx.data(), n);
    vel.copy_from_host(hv.data(), n);
    const unsigned long long none = kNoBadBody;
    bad.copy_from_host(&none, 1);
    std::uint64_t step = 1;
    auto blocks = make_device_block_steps<T>(
        [&] {
            return failed ? DeviceBodies<T>{pos.data(), vel.data(), n, bad.data(), step}
                          : DeviceBodies<T>{pos.data(), vel.data(), n, nullptr, 0};
        },
        nullptr, pair);
    blocks->init(p);
    for (int k = 0; k < steps; ++k, ++step) {
        if (generic) {
            blocks->BlockSteps::max_step(p);
        } else {
            blocks->max_step(p);
        }
    }
    if (failed) *failed = blocks->failed_body();
    counters = blocks->counters();
    levels = blocks->levels();
    std::vector<Vec4<T> > x(n), v(n);
    pos.copy_to_host(x.data(), n);
    vel.copy_to_host(v.data(), n);
    HostState out = s0;
    out.pos_mass = widen(x);
    out.vel = widen(v);
    return out;
}

template <typename T>
void check_pairwise_block_loop() {
    const Params p = hermite_params(1e-3);
    const int steps = 4;
    const HostState s0 = make_preset("plummer", 4096, 1);
    auto serial = with_state(create_backend("serial", Precision::f64), s0);
    const StepReport rs = serial->step(p, steps);
    ASSERT_TRUE(rs.finite);
    const HostState ref = serial->get_state();
    HostState by[2];
    for (int on = 0; on < 2; ++on) {
        SCOPED_TRACE(std::string(to_string(precision_of<T>())) + (on ? " pairwise" : " one-sided"));
        const PairJerkLaunch pair = on ? PairJerkLaunch{1, 128, false} : PairJerkLaunch{0, 0, true};
        BlockCounters c;
        std::vector<int> levels;
        by[on] = run_device_block_steps<T>(s0, p, steps, pair, c, levels);
        const Difference d = difference(by[on], ref);
        if (sizeof(T) == 8) {
            EXPECT_LE(d.relative, 1e-10) << d.pos_max << " " << d.vel_max;
            EXPECT_EQ(c.blocks, rs.blocks);
            EXPECT_EQ(c.body_updates, rs.body_updates);
            EXPECT_EQ(levels, serial->block_steps()->levels());
        } else {
            EXPECT_LE(d.pos_max, 1e-4) << "rms " << d.pos_rms;
            EXPECT_LE(d.vel_rms, 1e-4) << "max " << d.vel_max;
            EXPECT_LE(d.vel_max, 1e-3);
        }
        BlockCounters c2;
        EXPECT_TRUE(same_bits(run_device_block_steps<T>(s0, p, steps, pair, c2, levels), by[on]));
        // One block at a time (next_block releasing the held last block, evaluate choosing the pairwise
        // kernel there): the same kernels, so the same bits and work.
        BlockCounters c3;
        EXPECT_TRUE(same_bits(run_device_block_steps<T>(s0, p, steps, pair, c3, levels, true), by[on]));
        EXPECT_EQ(c3.blocks, c.blocks);
        EXPECT_EQ(c3.body_updates, c.body_updates);
    }
    EXPECT_FALSE(same_bits(by[0], by[1]));

    // A NaN velocity poisons every jerk at the start, so every body is on level 0 and each max step is
    // one all-active block: the pairwise one, held and run by the host. The failure is found in the first
    // max step as the one-sided path finds it, and the second max step leaves the bodies alone.
    HostState poisoned = s0;
    poisoned.vel[100].x = std::numeric_limits<double>::quiet_NaN();
    std::optional<std::size_t> failed[2];
    for (int on = 0; on < 2; ++on) {
        SCOPED_TRACE(std::string(to_string(precision_of<T>())) + (on ? " pairwise" : " one-sided") +
                     ", failure");
        const PairJerkLaunch pair = on ? PairJerkLaunch{1, 128, false} : PairJerkLaunch{0, 0, true};
        BlockCounters c1, c2;
        std::vector<int> levels;
        std::optional<std::size_t> f1, f2;
        const HostState one = run_device_block_steps<T>(poisoned, p, 1, pair, c1, levels, false, &f1);
        const HostState two = run_device_block_steps<T>(poisoned, p, 2, pair, c2, levels, false, &f2);
        ASSERT_TRUE(f1.has_value());
        EXPECT_EQ(f2, f1);
        EXPECT_TRUE(same_bits(two, one));
        EXPECT_EQ(c1.blocks, 1);
        failed[on] = f1;
    }
    EXPECT_EQ(failed[0], failed[1]);
}

TEST(CudaHermite, PairwiseLastBlocksMatchSerial) {
    SKIP_WITHOUT_DEVICE();
    check_pairwise_block_loop<float>();
    check_pairwise_block_loop<double>();
}

// The benchmark's block timing runs at both of its shapes (small N here; the real sizes are in
// bench/cuda_bench.cpp --hermite).
TEST(CudaHermite, BenchmarkBlockTimingRuns) {
    SKIP_WITHOUT_DEVICE();
    for (Precision precision : {Precision::f32, Precision::f64}) {
        for (std::size_t active : {std::size_t(64), std::size_t(8192)}) {
            const HermiteBlockTiming t = time_hermite_block(8192, active, precision, 3);
            EXPECT_GT(t.block_ms, 0.0);
            EXPECT_GT(t.evaluate_ms, 0.0);
            EXPECT_LE(t.evaluate_ms, t.block_ms * 1.5);
            EXPECT_FALSE(t.launch.empty());
        }
    }
    // Every body active with the pairwise evaluation: the max step's last block, run by the host.
    const HermiteBlockTiming all = time_hermite_block(8192, 8192, Precision::f32, 3, {}, {1, 128, false});
    EXPECT_GT(all.evaluate_ms, 0.0);
    EXPECT_EQ(all.launch, "pairwise K=1 block=128");
    EXPECT_THROW(time_hermite_block(100, 0, Precision::f32, 1), Error);
    EXPECT_THROW(time_hermite_block(100, 101, Precision::f32, 1), Error);
}

#endif  // NBODY_HAVE_CUDA

}  // namespace
}  // namespace nbody
