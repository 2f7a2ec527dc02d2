// Built with -ffast-math like the direct kernels (sim/CMakeLists.txt): the list loops vectorise with
// rsqrt + Newton and reassociated sums. No NaN tests here; the step checks the state's bits.
#include "tree_walk.hpp"

#include <algorithm>
#include <cassert>

#include "interaction.hpp"
namespace nbody {
namespace {

// One thread's interaction lists, structure of arrays so the per-target loops vectorise.
template <typename T>
struct InteractionLists {
    std::vector<T> cx, cy, cz, cm, qxx, qyy, qzz, qxy, qxz, qyz;  // accepted cells
    std::vector<T> mx, my, mz, mm;                                // accepted far cells: monopoles alone
    std::vector<T> bx, by, bz, bm;                                // bodies of opened leaves
    std::vector<std::uint32_t> stack;
    std::size_t cells = 0, monopoles = 0, bodies = 0;

    void reserve_cells(std::size_t need) {
        if (cx.size() >= need) return;
        const std::size_t s = std::max(need, 2 * cx.size());
        for (auto* v : {&cx, &cy, &cz, &cm, &qxx, &qyy, &qzz, &qxy, &qxz, &qyz, &mx, &my, &mz, &mm})
            v->resize(s);
    }
    void reserve_bodies(std::size_t need) {
        if (bx.size() >= need) return;
        const std::size_t s = std::max(need, 2 * bx.size());
        for (auto* v : {&bx, &by, &bz, &bm}) v->resize(s);
    }
};

// The walk of one group whose targets span the box [lo, hi]: fills the lists (an accepted cell far enough
// out for the monopole rule goes to the monopole list). The children of an opened
// cell are judged right away (only cells to open go on the stack), and leaf bodies are copied with plain
// loops: most leaves hold a handful of bodies, too few for a library copy call to pay off.
template <typename T>
void collect(const Octree<T>& tree, const T lo[3], const T hi[3], T inv_theta, bool monopoles,
             T inv_theta_mono, InteractionLists<T>& L) {
    const TreeCell<T>* cells = tree.cells().data();
    const T *x = tree.x().data(), *y = tree.y().data(), *z = tree.z().data(), *m = tree.m().data();
    L.cells = 0, L.monopoles = 0, L.bodies = 0;
    L.stack.clear();
    auto consider = [&](std::uint32_t ci) {
        const TreeCell<T>& c = cells[ci];
        const T d2 = distance2_to_box(c.com_x, c.com_y, c.com_z, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        const bool accepted = accept_cell(d2, opening_radius(c.side, c.com_offset, inv_theta));
        if (accepted && monopoles && accept_cell(d2, opening_radius(c.side, c.com_offset, inv_theta_mono))) {
            const std::size_t k = L.monopoles++;
            L.mx[k] = c.com_x, L.my[k] = c.com_y, L.mz[k] = c.com_z, L.mm[k] = c.mass;
        } else if (accepted) {
            const std::size_t k = L.cells++;
            L.cx[k] = c.com_x, L.cy[k] = c.com_y, L.cz[k] = c.com_z, L.cm[k] = c.mass;
            L.qxx[k] = c.quad.xx, L.qyy[k] = c.quad.yy, L.qzz[k] = c.quad.zz;
            L.qxy[k] = c.quad.xy, L.qxz[k] = c.quad.xz, L.qyz[k] = c.quad.yz;
        } else if (c.child_count == 0) {
            const std::size_t nb = c.body_end - c.body_begin;
            L.reserve_bodies(L.bodies + nb);
            T *bx = L.bx.data() + L.bodies, *by = L.by.data() + L.bodies, *bz = L.bz.data() + L.bodies,
              *bm = L.bm.data() + L.bodies;
            for (std::size_t j = 0; j < nb; ++j) {
                bx[j] = x[c.body_begin + j], by[j] = y[c.body_begin + j], bz[j] = z[c.body_begin + j],
                bm[j] = m[c.body_begin + j];
            }
            L.bodies += nb;
        } else {
            L.stack.push_back(ci);
        }
    };
    L.reserve_cells(std::max(L.cells, L.monopoles) + 1);
    consider(0);
    while (!L.stack.empty()) {
        const TreeCell<T>& c = cells[L.stack.back()];
        L.stack.pop_back();
        L.reserve_cells(std::max(L.cells, L.monopoles) + c.child_count);
        for (std::uint32_t h = c.first_child; h < c.first_child + c.child_count; ++h) consider(h);
    }
}

// a / G at (xi, yi, zi) from both lists.
template <typename T>
void sum_acceleration(const InteractionLists<T>& L, T xi, T yi, T zi, T eps2, T& ax, T& ay, T& az) {
    const T *__restrict__ cx = L.cx.data(), *__restrict__ cy = L.cy.data(), *__restrict__ cz = L.cz.data(),
            *__restrict__ cm = L.cm.data(), *__restrict__ qxx = L.qxx.data(), *__restrict__ qyy = L.qyy.data(),
            *__restrict__ qzz = L.qzz.data(), *__restrict__ qxy = L.qxy.data(), *__restrict__ qxz = L.qxz.data(),
            *__restrict__ qyz = L.qyz.data();
    T sx = 0, sy = 0, sz = 0;
    const std::size_t nc = L.cells;
#pragma omp simd reduction(+ : sx, sy, sz)
    for (std::size_t k = 0; k < nc; ++k) {
        const Quadrupole<T> q{qxx[k], qyy[k], qzz[k], qxy[k], qxz[k], qyz[k]};
        add_cell_interaction(cx[k] - xi, cy[k] - yi, cz[k] - zi, cm[k], q, eps2, sx, sy, sz);
    }
    const T* __restrict__ mx = L.mx.data(), * __restrict__ my = L.my.data(), * __restrict__ mz = L.mz.data(), * __restrict__ mm = L.mm.data();
    const std::size_t nm = L.monopoles;
#pragma omp simd reduction(+ : sx, sy, sz)
    for (std::size_t k = 0; k < nm; ++k)
        add_interaction(mx[k] - xi, my[k] - yi, mz[k] - zi, mm[k], eps2, sx, sy, sz);
    const T* __restrict__ bx = L.bx.data(), * __restrict__ by = L.by.data(), * __restrict__ bz = L.bz.data(), * __restrict__ bm = L.bm.data();
    T tx = 0, ty = 0, tz = 0;
    const std::size_t nb = L.bodies;
#pragma omp simd reduction(+ : tx, ty, tz)
    for (std::size_t k = 0; k < nb; ++k)
        add_body_interaction(bx[k] - xi, by[k] - yi, bz[k] - zi, bm[k], eps2, tx, ty, tz);
    ax = sx + tx, ay = sy + ty, az = sz + tz;
}

// -phi / G at (xi, yi, zi) from both lists.
template <typename T>
T sum_potential(const InteractionLists<T>& L, T xi, T yi, T zi, T eps2) {
    T s = 0;
    for (std::size_t k = 0; k < L.cells; ++k) {
        const Quadrupole<T> q{L.qxx[k], L.qyy[k], L.qzz[k], L.qxy[k], L.qxz[k], L.qyz[k]};
        s += cell_potential_term(L.cx[k] - xi, L.cy[k] - yi, L.cz[k] - zi, L.cm[k], q, eps2);
    }
    for (std::size_t k = 0; k < L.monopoles; ++k) {
        s += potential_term(L.mx[k] - xi, L.my[k] - yi, L.mz[k] - zi, L.mm[k], eps2);
    }
    for (std::size_t k = 0; k < L.bodies; ++k) {
        s += body_potential_term(L.bx[k] - xi, L.by[k] - yi, L.bz[k] - zi, L.bm[k], eps2);
    }
    return s;
}

// Targets (tx, ty, tz)[0, n) in key order; out[k] is where target k's result goes in the caller's order.
template <typename T>
TreeWalkCounts walk(const Octree<T>& tree, const T* tx, const T* ty, const T* tz, const std::uint32_t* out,
                    std::size_t n, const TreeWalkParams& p, Vec4<T>* acc, T* potential) {
    assert(p.theta > 0 && p.theta <= 1 && "tree walk: theta must be in (0, 1]");
    assert(p.group_size >= 1 && "tree walk: group_size must be at least 1");
    TreeWalkCounts counts;
    if (n == 0) return counts;
    if (tree.size() == 0) {  // no sources: nothing pulls
        for (std::size_t k = 0; k < n; ++k) {
            acc[out[k]] = Vec4<T>{0, 0, 0, 0};
            if (potential) potential[out[k]] = T(0);
        }
        return counts;
    }
    const T inv_theta = T(1.0 / p.theta), eps2 = softening2<T>(p.softening), G = T(p.G);
    const bool monopoles = p.monopole_power > 0;
    const T inv_theta_mono = monopoles ? T(monopole_inv_theta(p.theta, p.monopole_power)) : T(0);
    const std::size_t gs = p.group_size;
    const std::ptrdiff_t groups = std::ptrdiff_t((n + gs - 1) / gs);
    std::uint64_t body_body = 0, body_cell = 0, body_monopole = 0;
#pragma omp parallel reduction(+ : body_body, body_cell, body_monopole) if (p.parallel && groups > 1)
    {
        InteractionLists<T> lists;
#pragma omp for schedule(dynamic, 4)
        for (std::ptrdiff_t g = 0; g < groups; ++g) {
            const std::size_t k0 = std::size_t(g) * gs, k1 = std::min(n, k0 + gs);
            T lo[3] = {tx[k0], ty[k0], tz[k0]}, hi[3] = {tx[k0], ty[k0], tz[k0]};
            for (std::size_t k = k0 + 1; k < k1; ++k) {
                lo[0] = std::min(lo[0], tx[k]), hi[0] = std::max(hi[0], tx[k]);
                lo[1] = std::min(lo[1], ty[k]), hi[1] = std::max(hi[1], ty[k]);
                lo[2] = std::min(lo[2], tz[k]), hi[2] = std::max(hi[2], tz[k]);
            }
            collect(tree, lo, hi, inv_theta, monopoles, inv_theta_mono, lists);
            body_body += (k1 - k0) * lists.bodies;
            body_cell += (k1 - k0) * (lists.cells + lists.monopoles);
            body_monopole += (k1 - k0) * lists.monopoles;
            for (std::size_t k = k0; k < k1; ++k) {
                T ax, ay, az;
                sum_acceleration(lists, tx[k], ty[k], tz[k], eps2, ax, ay, az);
                acc[out[k]] = Vec4<T>{G * ax, G * ay, G * az, T(0)};
                if (potential) potential[out[k]] = -G * sum_potential(lists, tx[k], ty[k], tz[k], eps2);
            }
        }
    }
    counts.body_body = body_body, counts.body_cell = body_cell, counts.body_monopole = body_monopole;
    return counts;
}

}  // namespace

template <typename T>
TreeWalkCounts tree_accelerations(const Octree<T>& tree, const TreeWalkParams& p, Vec4<T>* acc,
                                  T* potential) {
    return walk(tree, tree.x().data(), tree.y().data(), tree.z().data(), tree.order().data(), tree.size(), p,
                acc, potential);
}

template <typename T>
TreeWalkCounts tree_accelerations_at(const Octree<T>& tree, const Vec4<T>* targets, std::size_t count,
                                     const TreeWalkParams& p, Vec4<T>* acc, T* potential,
                                     TreeWalkScratch<T>& s) {
    // The targets' own key order (in the tree's cube, clamped at its faces) makes the groups compact.
    s.keys.resize(count), s.order.resize(count), s.x.resize(count), s.y.resize(count), s.z.resize(count);
    const std::ptrdiff_t nn = std::ptrdiff_t(count);
#pragma omp parallel for if (p.parallel && nn >= 8192)
    for (std::ptrdiff_t i = 0; i < nn; ++i) {
        s.keys[i] =
            morton_key(targets[i].x, targets[i].y, targets[i].z, tree.cube(), tree.cells_per_length());
        s.order[i] = std::uint32_t(i);
    }
    radix_sort_by_key(s.keys, s.order, s.key_scratch, s.order_scratch, 63, p.parallel);
#pragma omp parallel for if (p.parallel && nn >= 8192)
    for (std::ptrdiff_t k = 0; k < nn; ++k) {
        const Vec4<T>& t = targets[s.order[k]];
        s.x[k] = t.x, s.y[k] = t.y, s.z[k] = t.z;
    }
    return walk(tree, s.x.data(), s.y.data(), s.z.data(), s.order.data(), count, p, acc, potential);
}

template TreeWalkCounts tree_accelerations<float>(const Octree<float>&, const TreeWalkParams&, Vec4<float>*,
                                                  float*);
template TreeWalkCounts tree_accelerations<double>(const Octree<double>&, const TreeWalkParams&,
                                                   Vec4<double>*, double*);
template TreeWalkCounts tree_accelerations_at<float>(const Octree<float>&, const Vec4<float>*, std::size_t,
                                                     const TreeWalkParams&, Vec4<float>*, float*,
                                                     TreeWalkScratch<float>&);
template TreeWalkCounts tree_accelerations_at<double>(const Octree<double>&, const Vec4<double>*, std::size_t,
                                                      const TreeWalkParams&, Vec4<double>*, double*,
                                                      TreeWalkScratch<double>&);

}  // namespace nbody
