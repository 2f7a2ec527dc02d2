#pragma once
// The Barnes-Hut tree's physics, shared by the CPU tree (sim/) and the GPU tree (cuda/): the quadrupole
// moment of a cell, its shift to a parent's centre of mass, the opening rule and the evaluation of an
// accepted cell or an opened leaf's body at one target. All of it from sim/gravity/interaction.hpp's pieces,
// so the monopole term is exactly the direct sum's pair interaction with m = M. No CUDA header.
//
// Sign convention as in add_interaction: d = (source) - (target), i.e. d = c - x for a cell with centre
// of mass c seen from a target at x; results accumulate a / G and -phi / G (G applied once by the caller).
// With r = x - c = -d, eps2 = eps^2 and inv = 1 / sqrt(|r|^2 + eps^2) (tree-spec.md):
//   a   += -M r inv^3 + Q r inv^5 - (5/2) (r.Q.r) r inv^7
//        = (M inv^3 + (5/2) (d.Q.d) inv^7) d - Q d inv^5
//   phi += -M inv - (1/2) (r.Q.r) inv^5        (a = -grad phi; Q traceless)
#include "interaction.hpp"

namespace nbody {

// FLOPs of one accepted-cell (monopole + quadrupole) interaction, stated once: d (3 sub), |d|^2 + eps^2
// (6), the reciprocal square root (1), inv^2 (1), Q d (9 mul + 6 add), d.Q.d (3 mul + 2 add), inv^5 (2),
// M inv^3 (3), (5/2) (d.Q.d) inv^7 added to it (4), a += w d - inv^5 Q d (12) = 52.
inline constexpr double kFlopsPerCellInteraction = 52.0;

// The traceless quadrupole Q_ab = sum m (3 d_a d_b - |d|^2 delta_ab), d = x - c: six unique components.
template <typename T>
struct Quadrupole {
    T xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
};

// Q += m (3 d d^T - |d|^2 I): one body at offset d from the centre of mass, or (parallel-axis rule) a
// child cell of mass m whose centre of mass sits at offset d from the parent's; the child's own Q is
// added separately (the cross terms vanish because d is measured from a centre of mass).
template <typename T>
NBODY_HD void add_point_quadrupole(Quadrupole<T>& q, T m, T dx, T dy, T dz) {
    const T d2 = dx * dx + dy * dy + dz * dz;
    q.xx += m * (T(3) * dx * dx - d2);
    q.yy += m * (T(3) * dy * dy - d2);
    q.zz += m * (T(3) * dz * dz - d2);
    q.xy += m * (T(3) * dx * dy);
    q.xz += m * (T(3) * dx * dz);
    q.yz += m * (T(3) * dy * dz);
}

// A child's Q, already about its own centre of mass, shifted to the parent's centre of mass and added:
// d = c_child - c_parent.
template <typename T>
NBODY_HD void add_shifted_quadrupole(Quadrupole<T>& parent, const Quadrupole<T>& child, T m_child, T dx, T dy,
                                     T dz) {
    parent.xx += child.xx, parent.yy += child.yy, parent.zz += child.zz;
    parent.xy += child.xy, parent.xz += child.xz, parent.yz += child.yz;
    add_point_quadrupole(parent, m_child, dx, dy, dz);
}

// The distance the opening rule demands: l / theta + s, for a cell of side l whose centre of mass lies
// s = |c - centre of its cube| from the cube's centre (modified Barnes-Hut, as GADGET and Bonsai do).
template <typename T>
NBODY_HD T opening_radius(T side, T com_offset, T inv_theta) {
    return side * inv_theta + com_offset;
}

// Far cells as monopoles. An accepted cell that passes the opening rule also at the smaller angle
// theta^p (p = kMonopolePower; dist(c, box) > l / theta^p + s) is evaluated as its monopole alone,
// add_interaction with m = M: that far out its quadrupole term is no larger than the error the opening
// rule already admits for nearer cells (the dropped term scales as theta^(2p) = theta^3, the quadrupole's
// own truncation error as theta^3, so small theta stays accurate). Measured on the CPU tree and the GPU:
// docs/CUDA_NOTES.md t11-t12 (p = 2 and 1.5 gave the same medians; 1.5 is 13% faster).
inline constexpr double kMonopolePower = 1.5;

// 1 / theta^p: the monopole radius is opening_radius(l, s, monopole_inv_theta(theta, p)).
inline double monopole_inv_theta(double theta, double power) {
    return std::pow(theta, -power);
}

// The squared distance from point c to the nearest point of the box [lo, hi] (0 inside it). Per axis
// max(lo - c, c - hi, 0): at most one of the two differences is positive; no branches.
template <typename T>
NBODY_HD T distance2_to_box(T cx, T cy, T cz, T lo_x, T lo_y, T lo_z, T hi_x, T hi_y, T hi_z) {
    T dx = lo_x - cx > cx - hi_x ? lo_x - cx : cx - hi_x;
    T dy = lo_y - cy > cy - hi_y ? lo_y - cy : cy - hi_y;
    T dz = lo_z - cz > cz - hi_z ? lo_z - cz : cz - hi_z;
    dx = dx > T(0) ? dx : T(0), dy = dy > T(0) ? dy : T(0), dz = dz > T(0) ? dz : T(0);
    return dx * dx + dy * dy + dz * dz;
}

// The opening rule: true when the cell may act as one multipole on every target in the group's box,
// i.e. dist(c, box) > l / theta + s (compared squared; both sides are non-negative).
template <typename T>
NBODY_HD bool accept_cell(T distance2_to_group_box, T opening_radius) {
    return distance2_to_group_box > opening_radius * opening_radius;
}

// An accepted cell (mass M, centre of mass at d = c - x from the target, quadrupole q) added to the
// target's acceleration / G.
template <typename T>
NBODY_HD void add_cell_interaction(T dx, T dy, T dz, T M, const Quadrupole<T>& q, T eps2, T& ax, T& ay,
                                   T& az) {
    const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
    const T inv2 = inv * inv;
    const T qdx = q.xx * dx + q.xy * dy + q.xz * dz;
    const T qdy = q.xy * dx + q.yy * dy + q.yz * dz;
    const T qdz = q.xz * dx + q.yz * dy + q.zz * dz;
    const T dqd = dx * qdx + dy * qdy + dz * qdz;
    const T inv5 = inv2 * inv2 * inv;
#if defined(__CUDA_ARCH__)
    // The same sums as FMAs into the accumulators: four instructions fewer per cell on the GPU, where this
    // is the tree walk's inner loop (docs/CUDA_NOTES.md). Differs from the host's order only by rounding.
    const T w = fma(T(2.5) * dqd * inv5, inv2, interaction_weight(M, inv));
    ax = fma(w, dx, ax), ay = fma(w, dy, ay), az = fma(w, dz, az);
    ax = fma(-inv5, qdx, ax), ay = fma(-inv5, qdy, ay), az = fma(-inv5, qdz, az);
#else
    const T w = interaction_weight(M, inv) + T(2.5) * dqd * inv5 * inv2;
    ax += w * dx - inv5 * qdx;
    ay += w * dy - inv5 * qdy;
    az += w * dz - inv5 * qdz;
#endif
}

// An accepted cell's contribution to -phi / G at the target: M inv + (1/2) (d.Q.d) inv^5.
template <typename T>
NBODY_HD T cell_potential_term(T dx, T dy, T dz, T M, const Quadrupole<T>& q, T eps2) {
    const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
    const T inv2 = inv * inv;
    const T dqd = dx * (q.xx * dx + q.xy * dy + q.xz * dz) + dy * (q.xy * dx + q.yy * dy + q.yz * dz) +
                  dz * (q.xz * dx + q.yz * dy + q.zz * dz);
    return M * inv + T(0.5) * dqd * (inv2 * inv2 * inv);
}

// One body of an opened leaf acting on a target (d = x_j - x_i): add_interaction, except that a source
// exactly at the target adds nothing (the self-term; with eps = 0 it would be 0 / 0). Written as a select
// rather than a branch so the loops over leaf bodies stay vectorised.
template <typename T>
NBODY_HD void add_body_interaction(T dx, T dy, T dz, T m, T eps2, T& ax, T& ay, T& az) {
    const T r2 = softened_distance2(dx, dy, dz, eps2);
    const T inv = r2 > T(0) ? inv_sqrt(r2) : T(0);
    add_weighted(dx, dy, dz, interaction_weight(m, inv), ax, ay, az);
}

// One body's contribution to -phi / G at a target: potential_term, skipped when the source sits exactly
// at the target (|d| = 0, whatever eps; the self-term).
template <typename T>
NBODY_HD T body_potential_term(T dx, T dy, T dz, T m, T eps2) {
    return (dx != T(0) || dy != T(0) || dz != T(0)) ? potential_term(dx, dy, dz, m, eps2) : T(0);
}

}  // namespace nbody
