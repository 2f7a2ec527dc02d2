#pragma once
// The Ahmad-Cohen neighbour scheme of the Hermite block steps (--neighbours K; Ahmad & Cohen 1973, in
// Hermite form Makino & Aarseth 1992, PASJ 44, 141, section 3), written once for the host and the device
// as sim/integrate/hermite.hpp is. Why: in a dense system a body's jerk and its higher derivatives come
// from its few nearest bodies, so plain block steps spend a full sum over all N on every short step that
// an encounter asks for. Here each body's force is split in two:
//   irregular: from the bodies in its neighbour list (about K of them), evaluated at every step of the
//              body (its level, as in plain block steps), against the neighbours predicted there;
//   regular:   from every other body, evaluated with the full sum only at the body's regular steps, a
//              power-of-two multiple of its irregular step with a level of its own, and extrapolated in
//              between from its value, jerk, snap and crackle at the regular time (regular_extrapolate).
//
// An irregular step of body i at the block time: irregular force and jerk from its list, plus the
// extrapolated regular, is the total (a1, j1) the Hermite corrector uses (neighbour_correct); the
// next irregular step comes from Aarseth's criterion on that total and the fit's derivatives.
// A regular step (the body is due and so is its regular time): first the same irregular correction, with
// the old list; then the full force and jerk (af, jf) at the block time gives the regular part of that
// list, af - ai_old, whose Hermite fit over the regular step, less the extrapolation, is what that left out,
// added once to x and v (regular_correct), and the next regular step. Then the list is built again at the
// block time (every other body within the radius now or, by within_radius's look-ahead, during the next
// regular step; ascending index, the first neighbour_capacity(K) kept), the radius adapts towards K bodies
// for next time, the irregular part is evaluated over the new list, and the regular becomes af minus that.
//
// Every level's step divides the max step, so the last block of a max step is a regular step of every
// body: synchronized states have every body's split fresh.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hermite.hpp"

namespace nbody {

// The list holds at most this many times the target count K (the radius adapts towards K, the capacity
// absorbs the scatter about it; past it the lowest indices are kept, and the radius shrinks next time).
inline constexpr int kNeighbourCapacityFactor = 2;
// A regular step changes the radius by at most this factor either way; a start adapts it over
// kStartRadiusRounds counts by up to kStartRadiusFactor each, from one guess for every body (the mean
// density's). Each round counts all N^2 pairs. Why two: after one round a dense core's lists still overflow
// (N = 8,192: 753 bodies past the capacity at the first build, 138 after two), and a list past its capacity
// keeps its lowest indices, not its nearest bodies: a close neighbour left in the regular part for the
// whole first regular step cost one sphere in eight the 1e-6 bound (PERFORMANCE.md's float GPU run, seed 6:
// |dE/E| 1.9e-6 after one round, 6.2e-7 after two; at N = 8,192 seed 2 7.9e-7 against 3.5e-7, and keeping
// the nearest at the first build alone gave the same 3.2e-7). A third round changed nothing measurable
// ("Eighteenth pass"). The regular steps adapt each list from there (a list past its capacity meanwhile is
// still a consistent split).
inline constexpr double kRadiusFactor = 2.0;
inline constexpr int kStartRadiusRounds = 2;
inline constexpr double kStartRadiusFactor = 8.0;

NBODY_HD int neighbour_capacity(int k) {
    return kNeighbourCapacityFactor * k;
}

// The interactions one evaluation against a list counts in the work figures: K, the lists' target
// length, but no more than the n - 1 other bodies a list can hold (a K of N or more lists every body).
inline double counted_list_length(double k, std::size_t n) {
    const double others = n > 0 ? double(n - 1) : 0.0;
    return k < others ? k : others;
}

NBODY_HD double neighbour_cbrt(double x) {
#if defined(__CUDA_ARCH__)
    return ::cbrt(x);
#else
    return std::cbrt(x);
#endif
}

// The radius for next time from the bodies `count` found within `r` (all of them, also those past the
// capacity): scaled by the cube root of k / count (a uniform density's), by at most `factor` either way.
NBODY_HD double next_neighbour_radius(double r, std::uint32_t count, int k, double factor) {
    if (count == 0) return r * factor;  // an empty sphere grows by the most it may
    double s = neighbour_cbrt(double(k) / double(count));
    s = s < 1.0 / factor ? 1.0 / factor : (s > factor ? factor : s);
    return r * s;
}

// Whether source j (predicted xj, vj) belongs in the list of body i (predicted xi, vi) with radius r: the
// distance without softening, in the run's precision, within r now or, moving straight at their relative
// velocity, at some time in the next `ahead` (the longest the next regular step can be): a body about to
// pass close is listed before it arrives, instead of sweeping through the regular part, which is only
// extrapolated between regular steps. (j != i is the caller's.)
template <typename T>
NBODY_HD bool within_radius(const Vec4<T>& xi, const Vec4<T>& vi, const Vec4<T>& xj, const Vec4<T>& vj, T r2,
                            T ahead) {
    const T dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
    const T ux = vj.x - vi.x, uy = vj.y - vi.y, uz = vj.z - vi.z;
    const T d2 = dx * dx + dy * dy + dz * dz;
    const T rv = dx * ux + dy * uy + dz * uz;  // < 0: approaching
    const T u2 = ux * ux + uy * uy + uz * uz;
    // Closest approach at s = -rv / u2: within the look-ahead, the least distance squared is
    // d2 - rv^2 / u2 (compared multiplied by u2: no division); past it, the distance at `ahead`.
    const bool closest_ahead = -rv <= ahead * u2;
    const bool passes =
        closest_ahead ? d2 * u2 - rv * rv < r2 * u2 : d2 + ahead * (T(2) * rv + ahead * u2) < r2;
    return (d2 < r2) | ((rv < T(0)) & passes);
}

// How far ahead a list built at a regular step of `regular_level` looks: the longest next regular step
// (one level coarser, the max step at most).
NBODY_HD double neighbour_lookahead(int regular_level, double dt) {
    return ticks_to_time(level_ticks(regular_level > 0 ? regular_level - 1 : 0), dt);
}

// Whether a due body's regular step is due too.
NBODY_HD bool regular_due(std::int64_t tick, std::int64_t t_regular, int regular_level) {
    return t_regular + level_ticks(regular_level) == tick;
}

// The regular force and jerk extrapolated tau after the regular time from their values there and the
// snap and crackle of the last regular fit (zero after a start):
//   a = ar + tau jr + tau^2/2 d2 + tau^3/6 d3,   j = jr + tau d2 + tau^2/2 d3.
template <typename T>
NBODY_HD void regular_extrapolate(const Vec4<T>& ar, const Vec4<T>& jr, const Vec4<T>& d2, const Vec4<T>& d3,
                                  T tau, Vec4<T>& a, Vec4<T>& j) {
    const T half = T(0.5), sixth = T(1) / T(6);
    a.x = ar.x + tau * (jr.x + tau * (half * d2.x + tau * sixth * d3.x));
    a.y = ar.y + tau * (jr.y + tau * (half * d2.y + tau * sixth * d3.y));
    a.z = ar.z + tau * (jr.z + tau * (half * d2.z + tau * sixth * d3.z));
    a.w = T(0);
    j.x = jr.x + tau * (d2.x + tau * half * d3.x);
    j.y = jr.y + tau * (d2.y + tau * half * d3.y);
    j.z = jr.z + tau * (d2.z + tau * half * d3.z);
    j.w = T(0);
}

// The irregular corrector of a due body predicted over h (xp, vp) from its total force and jerk a0, j0:
// its new irregular force and jerk (ai1, ji1) plus the extrapolated regular (are, jre) are its total at
// the block time, (a1, j1), kept for its next prediction. Returns the irregular step Aarseth's criterion
// asks for, from the total force and jerk and the fit's derivatives, as plain block steps choose theirs
// (the irregular part alone would ask for a vanishing step where it is weak or empty: its derivatives
// include the regular extrapolation's curvature).
template <typename T>
NBODY_HD double neighbour_correct(const Vec4<T>& xp, const Vec4<T>& vp, const Vec4<T>& a0, const Vec4<T>& j0,
                                  const Vec4<T>& ai1, const Vec4<T>& ji1, const Vec4<T>& are,
                                  const Vec4<T>& jre, T h, double eta, Vec4<T>& x1, Vec4<T>& v1, Vec4<T>& a1,
                                  Vec4<T>& j1) {
    a1 = Vec4<T>{ai1.x + are.x, ai1.y + are.y, ai1.z + are.z, T(0)};
    j1 = Vec4<T>{ji1.x + jre.x, ji1.y + jre.y, ji1.z + jre.z, T(0)};
    const HermiteFit<T> f = hermite_fit(a0, j0, a1, j1, h);
    hermite_apply(f, h, xp, vp, x1, v1);
    return hermite_fit_step(eta, a1, j1, f, h);
}

// A regular step's second correction, after neighbour_correct: the regular part of the old list at the
// regular time (ar0, jr0, with the snap and crackle d2, d3 its extrapolation used) and now (ar1, jr1 =
// the full sum minus the old list's irregular), fitted over the regular step hr. What the extrapolation
// missed over the whole regular step, the fit's snap and crackle less d2, d3, is added to x and v in
// place; d2, d3 become the fit's at the new regular time. Returns the regular step Aarseth's criterion
// asks for from the regular jerk and the fit's derivatives, with the body's total force (a_total) for
// the force: the regular part alone can be all but zero (few bodies, all of them neighbours), and its
// rounding noise would then ask for any step at all.
template <typename T>
NBODY_HD double regular_correct(const Vec4<T>& ar0, const Vec4<T>& jr0, Vec4<T>& d2, Vec4<T>& d3,
                                const Vec4<T>& ar1, const Vec4<T>& jr1, const Vec4<T>& a_total, T hr,
                                double eta, Vec4<T>& x, Vec4<T>& v) {
    const HermiteFit<T> f = hermite_fit(ar0, jr0, ar1, jr1, hr);
    const T h2 = hr * hr, h3 = h2 * hr;
    HermiteFit<T> missed;
    missed.c2 = Vec4<T>{f.c2.x - h2 * d2.x, f.c2.y - h2 * d2.y, f.c2.z - h2 * d2.z, T(0)};
    missed.c3 = Vec4<T>{f.c3.x - h3 * d3.x, f.c3.y - h3 * d3.y, f.c3.z - h3 * d3.z, T(0)};
    const Vec4<T> x0 = x, v0 = v;
    hermite_apply(missed, hr, x0, v0, x, v);
    // a2(t1) = a2 + hr a3, a3(t1) = a3.
    d2 = Vec4<T>{(f.c2.x + f.c3.x) / h2, (f.c2.y + f.c3.y) / h2, (f.c2.z + f.c3.z) / h2, T(0)};
    d3 = Vec4<T>{f.c3.x / h3, f.c3.y / h3, f.c3.z / h3, T(0)};
    return hermite_fit_step(eta, a_total, jr1, f, hr);
}

// a - b in x, y, z (w 0): the regular part as the full sum minus the irregular.
template <typename T>
NBODY_HD Vec4<T> minus3(const Vec4<T>& a, const Vec4<T>& b) {
    return Vec4<T>{a.x - b.x, a.y - b.y, a.z - b.z, T(0)};
}

// The levels after a step at `tick`: the regular (at a regular step only; unchanged otherwise) as
// next_level says, then the irregular as next_level says but never coarser than the regular (the
// irregular clock must reach the regular time, so the irregular step divides the regular one).
NBODY_HD void neighbour_levels(std::int64_t tick, double dt, double irregular_step, double regular_step,
                               bool regular, int& irregular_level, int& regular_level) {
    if (regular) regular_level = next_level(regular_level, level_for_step(regular_step, dt), tick);
    const int l = next_level(irregular_level, level_for_step(irregular_step, dt), tick);
    irregular_level = l > regular_level ? l : regular_level;
}

// A start's levels: each part's start step (hermite_start_step, the regular part's with eta_regular), the
// irregular no coarser than the regular.
template <typename T>
NBODY_HD void neighbour_start_levels(double eta, double eta_regular, double dt, const Vec4<T>& v,
                                     const Vec4<T>& ai, const Vec4<T>& ji, const Vec4<T>& ar,
                                     const Vec4<T>& jr, int& irregular_level, int& regular_level) {
    regular_level = level_for_step(hermite_start_step(eta_regular, v, ar, jr), dt);
    const int l = level_for_step(hermite_start_step(eta, v, ai, ji), dt);
    irregular_level = l > regular_level ? l : regular_level;
}

// One body's state in the scheme, beside the block steps' own (pointers into host or device arrays, one
// element per body): the irregular force and jerk at its own time, the regular ones, their snap and
// crackle at its regular time, that time (ticks since the max step began) and its regular level; and
// how many bodies each list holds, of n.
template <typename T>
struct NeighbourArrays {
    Vec4<T>*ai, *ji, *ar, *jr, *d2, *d3;
    std::int64_t* t_regular;
    int* regular_level;
    const std::uint32_t* listed;
    std::size_t n;
};

// Whether body i's list holds every other body: its regular part is then exactly zero, not the rounding
// difference of two sums of the same forces in another order, which would choose its regular level at
// random (and through it some irregular levels).
template <typename T>
NBODY_HD bool lists_every_body(const NeighbourArrays<T>& s, std::size_t i) {
    return std::size_t(s.listed[i]) + 1 >= s.n;
}

// What a block evaluated for one due body: its irregular force and jerk from the list it had (old), and
// at a regular step (full != nullptr) its full sum and the irregular from its new list.
template <typename T>
struct NeighbourForces {
    Vec4<T> ai_old, ji_old;
    const Vec4<T>*af, *jf, *ai_new, *ji_new;  // all null, or all set (a regular step)
};

// The whole correction of due body i at `tick` (its own time t_own): predicted xp, vp; its total force
// and jerk `acc`, `jerk` at t_own (replaced by the new totals); the corrected x, v; its next irregular
// level `level` (Aarseth's criterion with eta) and, at a regular step, its regular state (its next
// regular level with eta_regular: Params::eta_regular). Host and device both call this. Returns whether the
// body's steps stall there (block_step_stalls of the irregular criterion's step: the irregular level is the
// body's step), asked only where `judge` (kStallBlocks).
template <typename T>
NBODY_HD bool neighbour_correct_body(const NeighbourArrays<T>& s, std::size_t i, std::int64_t tick,
                                     std::int64_t t_own, double dt, double eta, double eta_regular,
                                     const Vec4<T>& xp, const Vec4<T>& vp, const NeighbourForces<T>& f,
                                     Vec4<T>& acc, Vec4<T>& jerk, Vec4<T>& x, Vec4<T>& v, int& level,
                                     bool judge) {
    const T h = static_cast<T>(ticks_to_time(tick - t_own, dt));
    const T tau = static_cast<T>(ticks_to_time(tick - s.t_regular[i], dt));
    Vec4<T> are, jre, a1, j1;
    regular_extrapolate(s.ar[i], s.jr[i], s.d2[i], s.d3[i], tau, are, jre);
    const double irregular_step =
        neighbour_correct(xp, vp, acc, jerk, f.ai_old, f.ji_old, are, jre, h, eta, x, v, a1, j1);
    double regular_step = 0;
    const bool regular = f.af != nullptr;
    if (regular) {
        // tau is the regular step just completed (regular_due).
        regular_step = regular_correct(s.ar[i], s.jr[i], s.d2[i], s.d3[i], minus3(*f.af, f.ai_old),
                                       minus3(*f.jf, f.ji_old), *f.af, tau, eta_regular, x, v);
        a1 = *f.af;
        j1 = *f.jf;
        s.ai[i] = *f.ai_new;
        s.ji[i] = *f.ji_new;
        s.ar[i] = minus3(*f.af, *f.ai_new);
        s.jr[i] = minus3(*f.jf, *f.ji_new);
        s.t_regular[i] = tick;
        if (lists_every_body(s, i)) {
            s.ar[i] = s.jr[i] = s.d2[i] = s.d3[i] = Vec4<T>{T(0), T(0), T(0), T(0)};
            regular_step = dt;  // nothing to extrapolate: the max step
        }
    } else {
        s.ai[i] = f.ai_old;
        s.ji[i] = f.ji_old;
    }
    acc = a1;
    jerk = j1;
    neighbour_levels(tick, dt, irregular_step, regular_step, regular, level, s.regular_level[i]);
    return judge && block_step_stalls(x, v, acc, irregular_step, dt);
}

// A start's split of body i (velocity v) from its full force and jerk (a, j) and the irregular from its
// list (ai, ji): the regular part, no snap or crackle yet, the regular time 0, both levels (the irregular
// one returned).
template <typename T>
NBODY_HD int neighbour_start_body(const NeighbourArrays<T>& s, std::size_t i, double eta, double eta_regular,
                                  double dt, const Vec4<T>& v, const Vec4<T>& a, const Vec4<T>& j,
                                  const Vec4<T>& ai, const Vec4<T>& ji) {
    s.ai[i] = ai;
    s.ji[i] = ji;
    s.ar[i] = minus3(a, ai);
    s.jr[i] = minus3(j, ji);
    s.d2[i] = s.d3[i] = Vec4<T>{T(0), T(0), T(0), T(0)};
    if (lists_every_body(s, i)) s.ar[i] = s.jr[i] = s.d2[i];  // zero: the max step (0 / 0 reads so)
    s.t_regular[i] = 0;
    int level = 0;
    neighbour_start_levels(eta, eta_regular, dt, v, ai, ji, s.ar[i], s.jr[i], level, s.regular_level[i]);
    return level;
}

// The first radius of every body before a start's rounds of counting: the radius of a sphere holding k
// of the n bodies at the mean density within the bodies' root-mean-square distance from their centroid
// (host code; the device's start calls it on a host copy, so both begin alike).
template <typename T>
double start_neighbour_radius(const Vec4<T>* pos, std::size_t n, int k) {
    if (n == 0) return 1.0;
    double cx = 0, cy = 0, cz = 0;
    for (std::size_t i = 0; i < n; ++i) cx += pos[i].x, cy += pos[i].y, cz += pos[i].z;
    cx /= double(n), cy /= double(n), cz /= double(n);
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dx = pos[i].x - cx, dy = pos[i].y - cy, dz = pos[i].z - cz;
        s += dx * dx + dy * dy + dz * dz;
    }
    const double rms = std::sqrt(s / double(n));
    const double r = rms * std::cbrt(double(k) / double(n));
    return r > 0 && std::isfinite(r) ? r : 1.0;
}

}  // namespace nbody
