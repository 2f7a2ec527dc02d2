#include "force_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "interaction.hpp"
#include "multipole.hpp"

namespace nbody {
namespace {

// The q-quantile of sorted values (q in [0, 1]), interpolating linearly between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
    const double pos = q * double(sorted.size() - 1);
    const std::size_t i = std::size_t(pos);
    if (i + 1 >= sorted.size()) return sorted.back();
    return sorted[i] + (pos - double(i)) * (sorted[i + 1] - sorted[i]);
}

}  // namespace

template <typename T>
ForceErrorStats force_error_stats(const Vec4<T>* approx, const Vec4<double>* reference, std::size_t count) {
    ForceErrorStats s;
    s.count = count;
    if (count == 0) return s;
    std::vector<double> e(count);
    bool nan = false;
    for (std::size_t k = 0; k < count; ++k) {
        const double dx = double(approx[k].x) - reference[k].x, dy = double(approx[k].y) - reference[k].y,
                     dz = double(approx[k].z) - reference[k].z;
        const double num = std::sqrt(dx * dx + dy * dy + dz * dz);
        const double den = std::sqrt(reference[k].x * reference[k].x + reference[k].y * reference[k].y +
                                     reference[k].z * reference[k].z);
        e[k] = den > 0 ? num / den : (num == 0 ? 0.0 : std::numeric_limits<double>::infinity());
        nan = nan || std::isnan(e[k]);
    }
    if (nan) {
        s.median = s.p99 = s.max = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    std::sort(e.begin(), e.end());
    s.median = quantile(e, 0.5), s.p99 = quantile(e, 0.99), s.max = e.back();
    return s;
}

std::vector<std::size_t> error_sample(std::size_t n, std::size_t count, std::uint64_t seed) {
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    if (count >= n) return idx;
    // Partial Fisher-Yates with a portable draw (std::uniform_int_distribution differs between libraries).
    std::mt19937_64 g(seed);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t j = k + std::size_t(g() % (n - k));
        std::swap(idx[k], idx[j]);
    }
    idx.resize(count);
    std::sort(idx.begin(), idx.end());
    return idx;
}

template <typename T>
void direct_accelerations_at(const Vec4<T>* bodies, std::size_t n, const std::size_t* sample,
                             std::size_t count, double G, double softening, Vec4<double>* out,
                             double* potential) {
    const double eps2 = softening2<double>(softening);
    const std::ptrdiff_t nc = std::ptrdiff_t(count);
#pragma omp parallel for schedule(dynamic, 4)
    for (std::ptrdiff_t k = 0; k < nc; ++k) {
        const Vec4<T>& t = bodies[sample[k]];
        const double xi = t.x, yi = t.y, zi = t.z;
        double ax = 0, ay = 0, az = 0, phi = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double dx = double(bodies[j].x) - xi, dy = double(bodies[j].y) - yi,
                         dz = double(bodies[j].z) - zi;
            add_body_interaction(dx, dy, dz, double(bodies[j].w), eps2, ax, ay, az);
            if (potential) phi += body_potential_term(dx, dy, dz, double(bodies[j].w), eps2);
        }
        out[k] = Vec4<double>{G * ax, G * ay, G * az, 0};
        if (potential) potential[k] = -G * phi;
    }
}

template <typename T>
ForceErrorStats sampled_force_error(const Vec4<T>* bodies, const Vec4<T>* acc, std::size_t n,
                                    std::size_t sample_count, double G, double softening,
                                    std::uint64_t seed) {
    const std::vector<std::size_t> sample = error_sample(n, sample_count, seed);
    std::vector<Vec4<double>> ref(sample.size());
    direct_accelerations_at(bodies, n, sample.data(), sample.size(), G, softening, ref.data());
    std::vector<Vec4<T>> got(sample.size());
    for (std::size_t k = 0; k < sample.size(); ++k) got[k] = acc[sample[k]];
    return force_error_stats(got.data(), ref.data(), sample.size());
}

template ForceErrorStats force_error_stats<float>(const Vec4<float>*, const Vec4<double>*, std::size_t);
template ForceErrorStats force_error_stats<double>(const Vec4<double>*, const Vec4<double>*, std::size_t);
template void direct_accelerations_at<float>(const Vec4<float>*, std::size_t, const std::size_t*, std::size_t,
                                             double, double, Vec4<double>*, double*);
template ForceErrorStats sampled_force_error<float>(const Vec4<float>*, const Vec4<float>*, std::size_t,
                                                    std::size_t, double, double, std::uint64_t);
template ForceErrorStats sampled_force_error<double>(const Vec4<double>*, const Vec4<double>*, std::size_t,
                                                     std::size_t, double, double, std::uint64_t);
template void direct_accelerations_at<double>(const Vec4<double>*, std::size_t, const std::size_t*,
                                              std::size_t, double, double, Vec4<double>*, double*);

}  // namespace nbody
