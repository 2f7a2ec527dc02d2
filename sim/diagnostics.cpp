#include "diagnostics.hpp"

#include <cmath>
#include <vector>

#include "sim/gravity/interaction.hpp"

namespace nbody {

const char* to_string(PotentialMethod m) {
    switch (m) {
        case PotentialMethod::exact:
            return "exact";
        case PotentialMethod::tree:
            return "tree";
        case PotentialMethod::sampled:
            return "sampled";
    }
    return "exact";
}

template <typename T>
Diagnostics compute_diagnostics(const State<T>& s, const Params& p, bool with_potential) {
    Diagnostics d;
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n; ++i) {
        const double m = s.pos_mass[i].w;
        const double x = s.pos_mass[i].x, y = s.pos_mass[i].y, z = s.pos_mass[i].z;
        const double vx = s.vel[i].x, vy = s.vel[i].y, vz = s.vel[i].z;
        d.mass += m;
        d.kinetic += 0.5 * m * (vx * vx + vy * vy + vz * vz);
        d.momentum.x += m * vx, d.momentum.y += m * vy, d.momentum.z += m * vz;
        d.angular_momentum.x += m * (y * vz - z * vy);
        d.angular_momentum.y += m * (z * vx - x * vz);
        d.angular_momentum.z += m * (x * vy - y * vx);
        d.center_of_mass.x += m * x, d.center_of_mass.y += m * y, d.center_of_mass.z += m * z;
    }
    if (d.mass > 0) {
        d.center_of_mass.x /= d.mass, d.center_of_mass.y /= d.mass, d.center_of_mass.z /= d.mass;
    }
    if (with_potential) {
        // -G sum_{i<j} m_i m_j / sqrt(r^2 + eps^2), the potential whose gradient the force loops sum.
        const double eps2 = softening2<double>(p);
        // Rows in parallel, then added in index order: the same bits whatever the thread count and
        // schedule (an OpenMP reduction combines the threads' sums in an unspecified order).
        const std::ptrdiff_t nn = static_cast<std::ptrdiff_t>(n);
        std::vector<double> rows(n);
#pragma omp parallel for schedule(dynamic, 64)
        for (std::ptrdiff_t i = 0; i < nn; ++i) {
            const double xi = s.pos_mass[i].x, yi = s.pos_mass[i].y, zi = s.pos_mass[i].z;
            double row = 0;
#pragma omp simd reduction(+ : row)
            for (std::ptrdiff_t j = i + 1; j < nn; ++j) {
                row += potential_term(double(s.pos_mass[j].x) - xi, double(s.pos_mass[j].y) - yi,
                                      double(s.pos_mass[j].z) - zi, double(s.pos_mass[j].w), eps2);
            }
            rows[i] = double(s.pos_mass[i].w) * row;
        }
        double w = 0;
        for (double r : rows) w += r;
        d.potential = -p.G * w;
        d.has_potential = true;
    }
    return d;
}

template <typename T>
double potential_of_slice(const Vec4<T>* b, std::size_t n, std::size_t first, std::size_t count,
                          const Params& p) {
    const double eps2 = softening2<double>(p);
    const std::ptrdiff_t rows_n = static_cast<std::ptrdiff_t>(count), nn = static_cast<std::ptrdiff_t>(n);
    std::vector<double> rows(count);
    // Whole rows (j < i and j > i) rather than j > i only, so every slice has the same work.
#pragma omp parallel for schedule(dynamic, 64)
    for (std::ptrdiff_t k = 0; k < rows_n; ++k) {
        const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(first) + k;
        const double xi = b[i].x, yi = b[i].y, zi = b[i].z;
        double row = 0;
#pragma omp simd reduction(+ : row)
        for (std::ptrdiff_t j = 0; j < i; ++j) {
            row += potential_term(double(b[j].x) - xi, double(b[j].y) - yi, double(b[j].z) - zi,
                                  double(b[j].w), eps2);
        }
#pragma omp simd reduction(+ : row)
        for (std::ptrdiff_t j = i + 1; j < nn; ++j) {
            row += potential_term(double(b[j].x) - xi, double(b[j].y) - yi, double(b[j].z) - zi,
                                  double(b[j].w), eps2);
        }
        rows[static_cast<std::size_t>(k)] = double(b[i].w) * row;
    }
    double w = 0;
    for (double r : rows) w += r;
    return -0.5 * p.G * w;
}

double relative_energy_drift(double e0, double e) {
    return e0 != 0 ? std::abs((e - e0) / e0) : std::abs(e - e0);
}

template Diagnostics compute_diagnostics<float>(const State<float>&, const Params&, bool);
template Diagnostics compute_diagnostics<double>(const State<double>&, const Params&, bool);
template double potential_of_slice<float>(const Vec4<float>*, std::size_t, std::size_t, std::size_t,
                                          const Params&);
template double potential_of_slice<double>(const Vec4<double>*, std::size_t, std::size_t, std::size_t,
                                           const Params&);

}  // namespace nbody
