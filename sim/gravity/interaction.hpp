#pragma once
// The one body-body interaction of Plummer-softened Newtonian gravity. Every force loop includes this:
// the CPU kernels (sim/), the CUDA kernels (cuda/), the tree's leaf and cell evaluations and the
// potential. It carries no CUDA header: NBODY_HD marks the functions __host__ __device__ only when nvcc
// compiles the file.
//
//   a_i   += m_j r / (|r|^2 + eps^2)^{3/2},   r = x_j - x_i          (times G once per body, by the caller)
//   phi_i -= m_j / (|r|^2 + eps^2)^{1/2}                             (likewise)
//
// Counted as kFlopsPerInteraction = 20 FLOPs by the CUDA sample's convention: 3 sub for r, 3 mul + 3 add
// for |r|^2 + eps^2, the reciprocal square root, 3 mul for m / r^3, 3 mul + 3 add for the sum. On the
// GPU that is 3 FADD, 6 FFMA, 3 FMUL and one MUFU.RSQ.
#include <cmath>

#if defined(__CUDACC__)
#define NBODY_HD __host__ __device__ __forceinline__
#else
#define NBODY_HD inline
#endif

namespace nbody {

struct Params;  // sim/params.hpp: not included, every device kernel includes this file and needs none of it

// FLOPs counted per body-body interaction wherever GFLOP/s is shown (the CUDA sample's convention).
inline constexpr double kFlopsPerInteraction = 20.0;

// eps^2 in T for a softening length eps held in double: squared in double, then rounded to T once. Every
// force loop, diagnostic and check takes eps^2 from here, so they all use the same number (squaring a
// float eps instead rounds twice and differs in the last bit for about half of all eps).
template <typename T>
inline T softening2(double softening) {
    return static_cast<T>(softening * softening);
}
// The same for p.softening (T = float, double; defined in interaction.cpp).
template <typename T>
T softening2(const Params& p);

// |r|^2 + eps^2. On the device as three FFMAs seeded with eps^2; on the host in the order the SIMD loops
// (built with -ffast-math, which fuses where the CPU has FMA) have always used, so CPU results keep their
// bits. The two orders differ only by rounding.
template <typename T>
NBODY_HD T softened_distance2(T dx, T dy, T dz, T eps2) {
#if defined(__CUDA_ARCH__)
    return fma(dx, dx, fma(dy, dy, fma(dz, dz, eps2)));
#else
    return dx * dx + dy * dy + dz * dz + eps2;
#endif
}

// 1 / sqrt(x). The device's float path is one MUFU.RSQ (files built with -ftz=true); its double path is
// the hardware's ~23-bit approximation refined by one third-order Newton step, y *= 1 + e/2 + 3e^2/8
// with e = 1 - x y^2, leaving a relative error ~e^3, below double rounding (five DP operations instead
// of the library's rsqrt with its special-case branches).
NBODY_HD float inv_sqrt(float x) {
#if defined(__CUDA_ARCH__)
    return rsqrtf(x);
#else
    return 1.0f / std::sqrt(x);
#endif
}
NBODY_HD double inv_sqrt(double x) {
#if defined(__CUDA_ARCH__)
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    const double e = fma(-x * y, y, 1.0);
    return fma(y * e, fma(0.375, e, 0.5), y);
#else
    return 1.0 / std::sqrt(x);
#endif
}

// m / (|r|^2 + eps^2)^{3/2} from inv = 1 / sqrt(|r|^2 + eps^2): the factor w in a += w r. On the device
// (m inv) inv^2, so that a zero mass gives exactly 0 whenever inv^2 is finite (padding bodies add
// nothing); on the host left to right, the order the CPU loops have always used (same bits).
template <typename T>
NBODY_HD T interaction_weight(T m, T inv) {
#if defined(__CUDA_ARCH__)
    return (m * inv) * (inv * inv);
#else
    return m * inv * inv * inv;
#endif
}

// a += w r: the accumulation every interaction ends with (three FFMAs on the device).
template <typename T>
NBODY_HD void add_weighted(T dx, T dy, T dz, T w, T& ax, T& ay, T& az) {
#if defined(__CUDA_ARCH__)
    ax = fma(dx, w, ax), ay = fma(dy, w, ay), az = fma(dz, w, az);
#else
    ax += w * dx, ay += w * dy, az += w * dz;
#endif
}

// a += m_j r / (|r|^2 + eps^2)^{3/2} for r = (dx, dy, dz) = x_j - x_i: one interaction, all of it.
template <typename T>
NBODY_HD void add_interaction(T dx, T dy, T dz, T m, T eps2, T& ax, T& ay, T& az) {
    add_weighted(dx, dy, dz, interaction_weight(m, inv_sqrt(softened_distance2(dx, dy, dz, eps2))), ax, ay,
                 az);
}

// m_j / sqrt(|r|^2 + eps^2): one source's contribution to -phi / G at a target. The host divides (the
// energy diagnostics are not built with -ffast-math and keep a correctly rounded quotient).
template <typename T>
NBODY_HD T potential_term(T dx, T dy, T dz, T m, T eps2) {
#if defined(__CUDA_ARCH__)
    return m * inv_sqrt(softened_distance2(dx, dy, dz, eps2));
#else
    return m / std::sqrt(softened_distance2(dx, dy, dz, eps2));
#endif
}

// FLOPs of one force-and-jerk interaction (the Hermite integrator's, add_interaction_jerk below), counted
// by the convention of kFlopsPerInteraction (the reciprocal square root as 2): r and v (3 + 3 sub),
// |r|^2 + eps^2 (3 mul + 3 add), the reciprocal square root (2), inv^2 (1), w = m inv^3 (2), r.v (3 mul +
// 2 add), alpha = 3 r.v inv^2 (2), a += w r (3 mul + 3 add), j += w (v - alpha r) (3 mul + 3 sub + 3 mul +
// 3 add) = 42.
inline constexpr double kFlopsPerJerkInteraction = 42.0;

// One source's acceleration and jerk (its time derivative) at a target, for r = x_j - x_i and
// v = v_j - v_i (source minus target), divided by G:
//   a += m r / (|r|^2 + eps^2)^{3/2}
//   j += m [v - 3 (r.v) r / (|r|^2 + eps^2)] / (|r|^2 + eps^2)^{3/2}
// Plummer softening as in add_interaction; the jerk is the exact derivative of the softened acceleration.
// A source at the target's own position and velocity adds exactly 0 when eps > 0; at eps = 0 the caller
// skips it (0/0).
template <typename T>
NBODY_HD void add_interaction_jerk(T dx, T dy, T dz, T dvx, T dvy, T dvz, T m, T eps2, T& ax, T& ay, T& az,
                                   T& jx, T& jy, T& jz) {
    const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
    const T inv2 = inv * inv;
    const T w = m * inv * inv2;
#if defined(__CUDA_ARCH__)
    const T alpha = T(3) * fma(dx, dvx, fma(dy, dvy, dz * dvz)) * inv2;
    add_weighted(dx, dy, dz, w, ax, ay, az);
    jx = fma(w, fma(-alpha, dx, dvx), jx);
    jy = fma(w, fma(-alpha, dy, dvy), jy);
    jz = fma(w, fma(-alpha, dz, dvz), jz);
#else
    const T alpha = T(3) * (dx * dvx + dy * dvy + dz * dvz) * inv2;
    ax += w * dx, ay += w * dy, az += w * dz;
    jx += w * (dvx - alpha * dx), jy += w * (dvy - alpha * dy), jz += w * (dvz - alpha * dz);
#endif
}

}  // namespace nbody
