#pragma once
// The fourth-order Hermite predictor-corrector with individual block time steps (Makino & Aarseth 1992,
// PASJ 44, 141), written once for the host and the device: every function here is NBODY_HD (no CUDA
// header; nvcc marks them __host__ __device__). A backend only writes the loops around them
// (sim/integrate/block_steps.hpp says which); the order of the block scheme is driven by
// sim/integrate/hermite.cpp.
//
// Time inside one max step dt_max (Params::dt) is counted in integer ticks of dt_max / 2^kMaxBlockLevel, so
// block times are exact and every body's clock sits on the grid of its own step:
//   level L: step dt_max / 2^L = level_ticks(L) ticks; a body at level L is due at t_i + level_ticks(L).
//   A block is every body due at the earliest such time; the last block of a max step (tick
//   kTicksPerMaxStep) holds every body, so at the end of each max step all bodies share one time.
// Per block: predict every body to the block time (hermite_predict), evaluate the force and jerk of the
// active bodies against all predicted bodies (add_interaction_jerk), correct the active ones
// (hermite_correct), then give each its next level (next_level): finer at any block, coarser by one level
// at most and only where the block time is a multiple of the doubled step.
#include <cmath>
#include <cstdint>

#include "sim/gravity/interaction.hpp"
#include "sim/state.hpp"

namespace nbody {

// The finest level: steps down to dt_max / 2^40 (a body asking for less is held there).
inline constexpr int kMaxBlockLevel = 40;
inline constexpr std::int64_t kTicksPerMaxStep = std::int64_t(1) << kMaxBlockLevel;

// Stalls (block_step_stalls) are judged only in a max step that has run more blocks than this: a
// correction can fail the test in a run that recovers. A body that started where a = 0 (the figure-eight's
// middle one, moved off the origin) once started at dt/2^40 and for its first blocks asked for steps that
// could not move it, then recovered: ~1,500 blocks in double, ~21,000 in float with softening 0.01 (dt 1/8,
// a review's measurement); hermite_start_step now starts such a body from sqrt(|v| / |jerk|), but other
// transients of that kind are not ruled out. A real stall's max step needs 2^29 blocks and more;
// waiting for 2^20 costs ~1.3 s on one core at N = 64 (a Plummer sphere's stall, serial; 6.6 s for the whole
// run on the H100 with the neighbour scheme, which reached the stall at t = 27.8) before the run stops.
inline constexpr std::int64_t kStallBlocks = std::int64_t(1) << 20;

// The accuracy parameter eta of Aarseth's criterion is Params::eta (default kDefaultEta, sim/params.hpp).
// The first step of each body after a (re)start is eta_s |a| / |jerk| with eta_s = eta * this: there are
// no higher derivatives yet, and this cruder estimate is made safer by starting smaller.
inline constexpr double kStartEtaFraction = 0.5;
// Below this fraction of sqrt(|v| / |jerk|), |a| / |jerk| is a force that cancels, not a time scale
// (hermite_start_step).
inline constexpr double kVanishingForce = 0x1p-20;

// Ticks in one step of `level`.
NBODY_HD std::int64_t level_ticks(int level) {
    return kTicksPerMaxStep >> level;
}

// `ticks` ticks as a time: ticks / 2^40 is exact (a dyadic fraction), times dt_max one rounding, so equal
// tick differences give equal times on every body and backend.
NBODY_HD double ticks_to_time(std::int64_t ticks, double dt_max) {
    return (double(ticks) * (1.0 / double(kTicksPerMaxStep))) * dt_max;
}

// The coarsest level whose step dt_max / 2^L does not exceed `dt`: 0 where dt >= dt_max, is infinite or
// NaN (no force, or a criterion with nothing to limit it), kMaxBlockLevel at most.
NBODY_HD int level_for_step(double dt, double dt_max) {
    int level = 0;
    double step = dt_max;
    while (level < kMaxBlockLevel && step > dt) {
        step *= 0.5;
        ++level;
    }
    return level;
}

// The level a body corrected at block time `tick` takes next, from its current level and the level its
// criterion wants: finer at once (a step may shrink at any block); one level coarser at most, and only if
// `tick` is a multiple of the doubled step, so the body stays on the block grid; otherwise unchanged.
NBODY_HD int next_level(int current, int wanted, std::int64_t tick) {
    if (wanted >= current) return wanted;
    if (current > 0 && tick % level_ticks(current - 1) == 0) return current - 1;
    return current;
}

// A change of the max step between max steps (BlockSteps::change_max_step) moves every level by the same
// shift, ceil(log2(dt_new / dt_old)): each body's step is then at most what it was and more than half of
// it, as near its criterion's choice as the new grid allows, except where the grid ends (a step longer
// than a shorter new max step becomes that max step; the finest level stays dt / 2^40). A max step within
// 1e-9 of the old one, relatively, keeps every level: plan_steps_until ends a --t-end run with T minus the
// summed steps, which it lets be up to dt (1 + 1e-9). Why not a restart: it starts each level from
// |a| / |jerk| (hermite_start_step), which near a force's zero crossing asks for far shorter steps than
// the body needs; float's rounding can then hold it there (measured: the figure-eight preset, float,
// serial, --t-end 6.32591398 at its max dt 0.005: 20,556 blocks in the restarted last max step, against
// one block a max step before it).
inline int max_step_level_shift(double dt_old, double dt_new) {
    const double ratio = dt_new / dt_old;
    if (std::fabs(ratio - 1) <= 1e-9) return 0;
    // Any shift past the level range moves every level to one end (shifted_level): clamped before the
    // conversion, so that a ratio of 0 or inf (no run makes one) stays defined.
    const double shift = std::ceil(std::log2(ratio));
    const double most = 2 * kMaxBlockLevel;
    return int(shift < -most ? -most : (shift > most ? most : shift));
}
NBODY_HD int shifted_level(int level, int shift) {
    const int l = level + shift;
    return l < 0 ? 0 : (l > kMaxBlockLevel ? kMaxBlockLevel : l);
}

// sqrt in double on either side (the host's std::sqrt is correctly rounded; so is the device's).
NBODY_HD double hermite_sqrt(double x) {
#if defined(__CUDA_ARCH__)
    return ::sqrt(x);
#else
    return std::sqrt(x);
#endif
}

// |(x, y, z)|, in double.
template <typename T>
NBODY_HD double norm3(const Vec4<T>& v) {
    const double x = v.x, y = v.y, z = v.z;
    return hermite_sqrt(x * x + y * y + z * z);
}

// The first step of a body after a (re)start: eta_s |a| / |jerk| (a NaN or infinite result, e.g. no
// force at all, reads as dt_max through level_for_step). Where the others' pulls cancel (the figure-eight's
// middle body: a = 0 exactly, by symmetry) |a| / |jerk| says nothing of how fast the force changes, and a
// start at the finest level (dt / 2^40) traps float: there the fit's snap and crackle are the rounding of
// a1 - a0, and they ask for still shorter steps (the preset stalled at once in float). So where |a| / |jerk|
// is below kVanishingForce of sqrt(|v| / |jerk|), the time scale velocity and jerk give (a bound orbit's
// period within a constant), that one is taken instead: no real force is that small against it (a flyby at
// b with speed v has |a| / |jerk| = b / v and sqrt(|v| / |jerk|) = sqrt(b^3 / G M), a ratio of v_esc / v).
template <typename T>
NBODY_HD double hermite_start_step(double eta, const Vec4<T>& v, const Vec4<T>& a, const Vec4<T>& j) {
    const double jerk = norm3(j);
    const double by_force = norm3(a) / jerk, by_speed = hermite_sqrt(norm3(v) / jerk);
    return kStartEtaFraction * eta * (by_force < kVanishingForce * by_speed ? by_speed : by_force);
}

// Aarseth's criterion dt = sqrt(eta (|a| |a2| + |j|^2) / (|j| |a3| + |a2|^2)) from the acceleration, jerk,
// snap a2 and crackle a3 at the same time (magnitudes, in double).
NBODY_HD double aarseth_step(double eta, double a, double j, double a2, double a3) {
    return hermite_sqrt(eta * (a * a2 + j * j) / (j * a3 + a2 * a2));
}

// The predictor: x and v Taylor-expanded over h from a body's own time with its acceleration and jerk,
//   xp = x + h v + h^2/2 a + h^3/6 j,   vp = v + h a + h^2/2 j   (mass carried in xp.w).
template <typename T>
NBODY_HD void hermite_predict(const Vec4<T>& x, const Vec4<T>& v, const Vec4<T>& a, const Vec4<T>& j, T h,
                              Vec4<T>& xp, Vec4<T>& vp) {
    const T half = T(0.5), sixth = T(1) / T(6);
    xp.x = x.x + h * (v.x + h * (half * a.x + h * sixth * j.x));
    xp.y = x.y + h * (v.y + h * (half * a.y + h * sixth * j.y));
    xp.z = x.z + h * (v.z + h * (half * a.z + h * sixth * j.z));
    xp.w = x.w;
    vp.x = v.x + h * (a.x + h * half * j.x);
    vp.y = v.y + h * (a.y + h * half * j.y);
    vp.z = v.z + h * (a.z + h * half * j.z);
    vp.w = v.w;  // the radius (sim/state.hpp): the corrector keeps it
}

// The Hermite interpolation of a body's acceleration over a step h, from (a0, j0) at t0 to (a1, j1) at
// t0 + h: its snap a2 and crackle a3 at t0, kept as the h-scaled products
//   c2 = a2 h^2 = -6 (a0 - a1) - h (4 j0 + 2 j1),   c3 = a3 h^3 = 12 (a0 - a1) + 6 h (j0 + j1)
// (no division by h^3 in float). A linear a (a1 = a0 + h j0, j1 = j0) gives c2 = c3 = 0.
template <typename T>
struct HermiteFit {
    Vec4<T> c2, c3;
};

template <typename T>
NBODY_HD HermiteFit<T> hermite_fit(const Vec4<T>& a0, const Vec4<T>& j0, const Vec4<T>& a1, const Vec4<T>& j1,
                                   T h) {
    HermiteFit<T> f;
    f.c2.x = T(-6) * (a0.x - a1.x) - h * (T(4) * j0.x + T(2) * j1.x);
    f.c2.y = T(-6) * (a0.y - a1.y) - h * (T(4) * j0.y + T(2) * j1.y);
    f.c2.z = T(-6) * (a0.z - a1.z) - h * (T(4) * j0.z + T(2) * j1.z);
    f.c3.x = T(12) * (a0.x - a1.x) + T(6) * h * (j0.x + j1.x);
    f.c3.y = T(12) * (a0.y - a1.y) + T(6) * h * (j0.y + j1.y);
    f.c3.z = T(12) * (a0.z - a1.z) + T(6) * h * (j0.z + j1.z);
    f.c2.w = f.c3.w = T(0);
    return f;
}

// What the fit's snap and crackle add over the step beyond the predictor's Taylor series:
//   x1 = x + h^4/24 a2 + h^5/120 a3,   v1 = v + h^3/6 a2 + h^4/24 a3   (w components kept).
template <typename T>
NBODY_HD void hermite_apply(const HermiteFit<T>& f, T h, const Vec4<T>& x, const Vec4<T>& v, Vec4<T>& x1,
                            Vec4<T>& v1) {
    const T h2 = h * h;
    const T x24 = T(1) / T(24), x120 = T(1) / T(120), x6 = T(1) / T(6);
    x1.x = x.x + h2 * (x24 * f.c2.x + x120 * f.c3.x);
    x1.y = x.y + h2 * (x24 * f.c2.y + x120 * f.c3.y);
    x1.z = x.z + h2 * (x24 * f.c2.z + x120 * f.c3.z);
    x1.w = x.w;
    v1.x = v.x + h * (x6 * f.c2.x + x24 * f.c3.x);
    v1.y = v.y + h * (x6 * f.c2.y + x24 * f.c3.y);
    v1.z = v.z + h * (x6 * f.c2.z + x24 * f.c3.z);
    v1.w = v.w;  // the radius (sim/state.hpp), carried through the predictor
}

// The step Aarseth's criterion asks for at t0 + h from the acceleration and jerk there (a1, j1) and the
// fit over the step (a2(t0 + h) = a2 + h a3), in the units of h (double).
template <typename T>
NBODY_HD double hermite_fit_step(double eta, const Vec4<T>& a1, const Vec4<T>& j1, const HermiteFit<T>& f,
                                 T h) {
    const double hd = h;
    const Vec4<double> snap{double(f.c2.x) + double(f.c3.x), double(f.c2.y) + double(f.c3.y),
                            double(f.c2.z) + double(f.c3.z), 0};
    const Vec4<double> crackle{f.c3.x, f.c3.y, f.c3.z, 0};
    return aarseth_step(eta, norm3(a1), norm3(j1), norm3(snap) / (hd * hd), norm3(crackle) / (hd * hd * hd));
}

// Whether a body's block steps stall where it was just corrected to position x, velocity v and
// acceleration a, its accuracy criterion asking for the step `wanted` (max step dt_max): where the
// criterion and not the max step limits it, that step cannot move the body in T. |v| h + |a| h^2/2 is
// below T's spacing at the body's position (epsilon times its largest coordinate), tested without square
// roots through (p + q)^2 <= 2 (p^2 + q^2): a step that moves the body less than the spacing / sqrt(2)
// always stalls, one that moves it the spacing or more never. A body whose motion is lost to rounding feeds
// the criterion rounding noise, which keeps its steps there or finer: measured (serial, float, softening 0,
// a Plummer sphere of 64, seed 2), a pair then sat at level 29, 2^29 blocks a max step, moving 0.11 of the
// spacing a step; that run's steps had moved at least 1.05 of it until then. A NaN is the non-finite
// check's. The backends ask only once the max step has run kStallBlocks blocks, since one correction can
// pass this test in a run that recovers.
template <typename T>
NBODY_HD bool block_step_stalls(const Vec4<T>& x, const Vec4<T>& v, const Vec4<T>& a, double wanted,
                                double dt_max) {
    if (!(wanted < dt_max)) return false;
    const double epsilon = sizeof(T) == sizeof(float) ? 0x1p-23 : 0x1p-52;
    const double ax = x.x < 0 ? -double(x.x) : double(x.x), ay = x.y < 0 ? -double(x.y) : double(x.y),
                 az = x.z < 0 ? -double(x.z) : double(x.z);
    const double spacing = epsilon * (ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az));
    const double vx = v.x, vy = v.y, vz = v.z, gx = a.x, gy = a.y, gz = a.z, h2 = wanted * wanted;
    const double v2 = vx * vx + vy * vy + vz * vz, a2 = gx * gx + gy * gy + gz * gz;
    return 2 * (v2 * h2 + 0.25 * a2 * h2 * h2) < spacing * spacing;
}

// The corrector of Makino & Aarseth (1992) for a body that was predicted over h (xp, vp) from its state at
// t0 (a0, j0) and has its new force and jerk at t0 + h (a1, j1): the fit's snap and crackle applied to the
// prediction (hermite_fit, hermite_apply). Returns the step Aarseth's criterion asks for at t0 + h.
template <typename T>
NBODY_HD double hermite_correct(const Vec4<T>& xp, const Vec4<T>& vp, const Vec4<T>& a0, const Vec4<T>& j0,
                                const Vec4<T>& a1, const Vec4<T>& j1, T h, double eta, Vec4<T>& x1,
                                Vec4<T>& v1) {
    const HermiteFit<T> f = hermite_fit(a0, j0, a1, j1, h);
    hermite_apply(f, h, xp, vp, x1, v1);
    return hermite_fit_step(eta, a1, j1, f, h);
}

}  // namespace nbody
