// Built with -ffast-math (see sim/CMakeLists.txt): lets the compiler use rsqrt + a Newton step and
// reassociate the j-sums into SIMD lanes. Nothing here tests for NaN; callers check the state's bits.
#include "kernels_cpu.hpp"

#include <cmath>

#include "interaction.hpp"

namespace nbody {
namespace {

template <typename T>
void to_soa(const Vec4<T>* pm, std::size_t n, ForceScratch<T>& s) {
    s.x.resize(n), s.y.resize(n), s.z.resize(n), s.m.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.x[i] = pm[i].x, s.y[i] = pm[i].y, s.z[i] = pm[i].z, s.m[i] = pm[i].w;
    }
}

template <typename T>
void from_soa(const ForceScratch<T>& s, std::size_t n, T G, Vec4<T>* acc) {
    for (std::size_t i = 0; i < n; ++i) acc[i] = {G * s.ax[i], G * s.ay[i], G * s.az[i], T(0)};
}

// sum over j in [j0, j1) of m_j r_ij / (r^2 + eps^2)^{3/2}, added to (ax, ay, az).
template <typename T>
inline void row_sum(const ForceScratch<T>& s, T xi, T yi, T zi, T eps2, std::size_t j0, std::size_t j1, T& ax,
                    T& ay, T& az) {
    const T* __restrict__ x = s.x.data();
    const T* __restrict__ y = s.y.data();
    const T* __restrict__ z = s.z.data();
    const T* __restrict__ m = s.m.data();
    T sx = 0, sy = 0, sz = 0;
#pragma omp simd reduction(+ : sx, sy, sz)
    for (std::size_t j = j0; j < j1; ++j) {
        add_interaction(x[j] - xi, y[j] - yi, z[j] - zi, m[j], eps2, sx, sy, sz);
    }
    ax += sx, ay += sy, az += sz;
}

}  // namespace

template <typename T>
void accelerations_pairwise(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, T G, T eps2,
                            ForceScratch<T>& s) {
    to_soa(pos_mass, n, s);
    s.ax.assign(n, T(0)), s.ay.assign(n, T(0)), s.az.assign(n, T(0));
    const T* __restrict__ x = s.x.data();
    const T* __restrict__ y = s.y.data();
    const T* __restrict__ z = s.z.data();
    const T* __restrict__ m = s.m.data();
    T* __restrict__ ax = s.ax.data();
    T* __restrict__ ay = s.ay.data();
    T* __restrict__ az = s.az.data();
    for (std::size_t i = 0; i < n; ++i) {
        const T xi = x[i], yi = y[i], zi = z[i], mi = m[i];
        T sx = 0, sy = 0, sz = 0;
        // j > i only: each pair's force is computed once and applied to both bodies with opposite signs.
#pragma omp simd reduction(+ : sx, sy, sz)
        for (std::size_t j = i + 1; j < n; ++j) {
            const T dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            // One r^-3 factor for both sides of the pair.
            const T s3 = interaction_weight(T(1), inv_sqrt(softened_distance2(dx, dy, dz, eps2)));
            const T wi = m[j] * s3, wj = mi * s3;
            sx += wi * dx, sy += wi * dy, sz += wi * dz;
            ax[j] -= wj * dx, ay[j] -= wj * dy, az[j] -= wj * dz;
        }
        ax[i] += sx, ay[i] += sy, az[i] += sz;
    }
    from_soa(s, n, G, acc);
}

template <typename T>
void accelerations_row_range(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, std::size_t first,
                             std::size_t count, T G, T eps2, bool parallel, ForceScratch<T>& s) {
    to_soa(pos_mass, n, s);
    const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(count);
    // Below ~512 bodies a step takes microseconds: waking threads (or waiting for a time slice on a busy
    // machine) would cost more than it saves.
#pragma omp parallel for schedule(static) if (parallel && n >= 512)
    for (std::ptrdiff_t k = 0; k < rows; ++k) {
        const std::size_t i = first + static_cast<std::size_t>(k);
        T ax = 0, ay = 0, az = 0;
        if (eps2 > T(0)) {
            // The self-term has r = 0 and contributes exactly 0: one unbroken loop.
            row_sum(s, s.x[i], s.y[i], s.z[i], eps2, 0, n, ax, ay, az);
        } else {
            // eps = 0: skip j = i (0/0) by splitting the row instead of masking every lane.
            row_sum(s, s.x[i], s.y[i], s.z[i], eps2, 0, i, ax, ay, az);
            row_sum(s, s.x[i], s.y[i], s.z[i], eps2, i + 1, n, ax, ay, az);
        }
        acc[k] = {G * ax, G * ay, G * az, T(0)};
    }
}

template <typename T>
void accelerations_rows(const Vec4<T>* pos_mass, Vec4<T>* acc, std::size_t n, T G, T eps2,
                        ForceScratch<T>& s) {
    accelerations_row_range(pos_mass, acc, n, 0, n, G, eps2, true, s);
}

template <typename T>
void field_at_targets(const Vec4<T>* bodies, std::size_t n, const Vec4<T>* targets, std::size_t m, T G,
                      T eps2, Vec4<T>* acc, T* potential, bool parallel, ForceScratch<T>& s) {
    to_soa(bodies, n, s);
    const T* __restrict__ x = s.x.data();
    const T* __restrict__ y = s.y.data();
    const T* __restrict__ z = s.z.data();
    const T* __restrict__ mass = s.m.data();
    const std::ptrdiff_t mm = static_cast<std::ptrdiff_t>(m);
#pragma omp parallel for schedule(static) if (parallel && m * n >= 65536)
    for (std::ptrdiff_t it = 0; it < mm; ++it) {
        const T xi = targets[it].x, yi = targets[it].y, zi = targets[it].z;
        T ax = 0, ay = 0, az = 0, phi = 0;
#pragma omp simd reduction(+ : ax, ay, az, phi)
        for (std::size_t j = 0; j < n; ++j) {
            const T dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            const bool same = dx == T(0) && dy == T(0) && dz == T(0);
            const T inv = same ? T(0) : inv_sqrt(softened_distance2(dx, dy, dz, eps2));
            const T w = interaction_weight(mass[j], inv);
            ax += w * dx, ay += w * dy, az += w * dz;
            phi += mass[j] * inv;
        }
        if (acc) acc[it] = {G * ax, G * ay, G * az, T(0)};
        if (potential) potential[it] = -G * phi;
    }
}

namespace {

// sum over j in [j0, j1) of the force and jerk terms of source j on a target at (xi, vi), added to a and j.
template <typename T>
inline void jerk_row_sum(const JerkScratch<T>& s, const T* xi, const T* vi, T eps2, std::size_t j0,
                         std::size_t j1, T* a, T* jk) {
    const T* __restrict__ x = s.x.data();
    const T* __restrict__ y = s.y.data();
    const T* __restrict__ z = s.z.data();
    const T* __restrict__ m = s.m.data();
    const T* __restrict__ vx = s.vx.data();
    const T* __restrict__ vy = s.vy.data();
    const T* __restrict__ vz = s.vz.data();
    T ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0;
#pragma omp simd reduction(+ : ax, ay, az, jx, jy, jz)
    for (std::size_t j = j0; j < j1; ++j) {
        add_interaction_jerk(x[j] - xi[0], y[j] - xi[1], z[j] - xi[2], vx[j] - vi[0], vy[j] - vi[1],
                             vz[j] - vi[2], m[j], eps2, ax, ay, az, jx, jy, jz);
    }
    a[0] += ax, a[1] += ay, a[2] += az;
    jk[0] += jx, jk[1] += jy, jk[2] += jz;
}

}  // namespace

template <typename T>
void accelerations_jerks_of(const Vec4<T>* pos_mass, const Vec4<T>* vel, std::size_t n,
                            const std::size_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc,
                            Vec4<T>* jerk, bool parallel, JerkScratch<T>& s) {
    s.x.resize(n), s.y.resize(n), s.z.resize(n), s.m.resize(n), s.vx.resize(n), s.vy.resize(n),
        s.vz.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.x[i] = pos_mass[i].x, s.y[i] = pos_mass[i].y, s.z[i] = pos_mass[i].z, s.m[i] = pos_mass[i].w;
        s.vx[i] = vel[i].x, s.vy[i] = vel[i].y, s.vz[i] = vel[i].z;
    }
    const std::ptrdiff_t rows = static_cast<std::ptrdiff_t>(m);
    auto row = [&](std::ptrdiff_t k) {
        const std::size_t i = targets[k];
        const T xi[3] = {s.x[i], s.y[i], s.z[i]}, vi[3] = {s.vx[i], s.vy[i], s.vz[i]};
        T a[3] = {0, 0, 0}, jk[3] = {0, 0, 0};
        if (eps2 > T(0)) {
            // The self-term has r = 0 and v = 0 and adds exactly 0: one unbroken loop.
            jerk_row_sum(s, xi, vi, eps2, 0, n, a, jk);
        } else {
            // eps = 0: skip j = i (0/0) by splitting the row.
            jerk_row_sum(s, xi, vi, eps2, 0, i, a, jk);
            jerk_row_sum(s, xi, vi, eps2, i + 1, n, a, jk);
        }
        acc[k] = {G * a[0], G * a[1], G * a[2], T(0)};
        jerk[k] = {G * jk[0], G * jk[1], G * jk[2], T(0)};
    };
    // Threads only where the block is worth waking them for: a few active bodies among a few thousand take
    // microseconds, and a block step makes thousands of such calls. Not even an if(false) parallel region
    // then: each one re-docks libgomp's idle threads, which spin again.
    if (parallel && m > 1 && m * n >= 65536) {
#pragma omp parallel for schedule(static)
        for (std::ptrdiff_t k = 0; k < rows; ++k) row(k);
    } else {
        for (std::ptrdiff_t k = 0; k < rows; ++k) row(k);
    }
}

template void accelerations_jerks_of<float>(const Vec4<float>*, const Vec4<float>*, std::size_t,
                                            const std::size_t*, std::size_t, float, float, Vec4<float>*,
                                            Vec4<float>*, bool, JerkScratch<float>&);
template void accelerations_jerks_of<double>(const Vec4<double>*, const Vec4<double>*, std::size_t,
                                             const std::size_t*, std::size_t, double, double, Vec4<double>*,
                                             Vec4<double>*, bool, JerkScratch<double>&);
template void field_at_targets<float>(const Vec4<float>*, std::size_t, const Vec4<float>*, std::size_t, float,
                                      float, Vec4<float>*, float*, bool, ForceScratch<float>&);
template void field_at_targets<double>(const Vec4<double>*, std::size_t, const Vec4<double>*, std::size_t,
                                       double, double, Vec4<double>*, double*, bool, ForceScratch<double>&);
template void accelerations_pairwise<float>(const Vec4<float>*, Vec4<float>*, std::size_t, float, float,
                                            ForceScratch<float>&);
template void accelerations_pairwise<double>(const Vec4<double>*, Vec4<double>*, std::size_t, double, double,
                                             ForceScratch<double>&);
template void accelerations_row_range<float>(const Vec4<float>*, Vec4<float>*, std::size_t, std::size_t,
                                             std::size_t, float, float, bool, ForceScratch<float>&);
template void accelerations_row_range<double>(const Vec4<double>*, Vec4<double>*, std::size_t, std::size_t,
                                              std::size_t, double, double, bool, ForceScratch<double>&);
template void accelerations_rows<float>(const Vec4<float>*, Vec4<float>*, std::size_t, float, float,
                                        ForceScratch<float>&);
template void accelerations_rows<double>(const Vec4<double>*, Vec4<double>*, std::size_t, double, double,
                                         ForceScratch<double>&);

}  // namespace nbody
