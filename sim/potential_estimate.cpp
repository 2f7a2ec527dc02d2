#include "potential_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/gravity/interaction.hpp"
#include "sim/gravity/octree.hpp"
#include "sim/gravity/tree_walk.hpp"
#include "util.hpp"

namespace nbody {
namespace {

// Progress is reported between chunks of about this many targets (tree) or rows (sample).
constexpr std::size_t kTreeChunk = 65536;
constexpr std::size_t kSampleChunk = 64;

}  // namespace

PotentialMethod potential_method(std::size_t n, const Params& p) {
    if (n <= kExactPotentialMaxN) return PotentialMethod::exact;
    return p.force == ForceAlgorithm::tree ? PotentialMethod::tree : PotentialMethod::sampled;
}

PotentialMethod potential_method(std::size_t n, const Params& p, Residency where) {
    return where == Residency::device ? PotentialMethod::exact : potential_method(n, p);
}

std::string potential_method_text(PotentialMethod m, std::size_t n, const Params& p) {
    switch (m) {
        case PotentialMethod::exact:
            return "";
        case PotentialMethod::tree:
            return "tree (theta " + format_g(p.theta) + ")";
        case PotentialMethod::sampled:
            return "sampled (" + std::to_string(std::min(n, kPotentialSampleSize)) + " of " +
                   std::to_string(n) + " bodies)";
    }
    return "";
}

std::string potential_method_note(const Diagnostics& d, std::size_t n, const Params& p) {
    if (!d.has_potential || d.potential_method == PotentialMethod::exact) return "";
    std::string note = "potential " + potential_method_text(d.potential_method, n, p);
    if (d.potential_method == PotentialMethod::sampled && d.potential != 0) {
        note += ", each estimate +-" + format_g(100.0 * d.potential_error / std::abs(d.potential), 2) + "%";
    }
    return note + ": above " + std::to_string(kExactPotentialMaxN) + " bodies the energy is estimated";
}

double tree_potential(const HostState& s, const Params& p, const PotentialProgress& progress) {
    const std::size_t n = s.size();
    if (n < 2) return 0;
    Octree<double> tree;
    tree.build(s.pos_mass.data(), n, kDefaultLeafSize, true);
    TreeWalkParams w;
    w.theta = p.theta, w.G = p.G, w.softening = p.softening;
    // The targets in the tree's key order: each chunk is a compact region, whose groups walk little.
    std::vector<Vec4<double>> targets(n);
    for (std::size_t k = 0; k < n; ++k) targets[k] = {tree.x()[k], tree.y()[k], tree.z()[k], 0.0};
    std::vector<double> phi(n);
    std::vector<Vec4<double>> acc(std::min(n, kTreeChunk));
    TreeWalkScratch<double> scratch;
    for (std::size_t first = 0; first < n; first += kTreeChunk) {
        const std::size_t count = std::min(kTreeChunk, n - first);
        tree_accelerations_at(tree, targets.data() + first, count, w, acc.data(), phi.data() + first,
                              scratch);
        if (progress) progress(first + count, n);
    }
    double sum = 0;
    for (std::size_t k = 0; k < n; ++k) sum += tree.m()[k] * phi[k];
    return 0.5 * sum;  // phi already carries -G
}

PotentialSample sampled_potential(const HostState& s, const Params& p, std::size_t samples,
                                  const PotentialProgress& progress) {
    PotentialSample out;
    const std::size_t n = s.size();
    const std::size_t m = std::min(n, std::max<std::size_t>(samples, 1));
    if (n < 2) return out;
    const double eps2 = softening2<double>(p);
    const Vec4<double>* b = s.pos_mass.data();
    const std::ptrdiff_t nn = static_cast<std::ptrdiff_t>(n);
    std::vector<double> rows(m);  // m_i sum_{j != i} m_j / r_ij
    for (std::size_t first = 0; first < m; first += kSampleChunk) {
        const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(std::min(m, first + kSampleChunk));
#pragma omp parallel for schedule(dynamic, 1)
        for (std::ptrdiff_t k = static_cast<std::ptrdiff_t>(first); k < last; ++k) {
            // Evenly spaced through the index order, the middle of each of m equal stretches.
            const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(
                (static_cast<double>(k) + 0.5) * static_cast<double>(n) / static_cast<double>(m));
            const double xi = b[i].x, yi = b[i].y, zi = b[i].z;
            double row = 0;
#pragma omp simd reduction(+ : row)
            for (std::ptrdiff_t j = 0; j < i; ++j)
                row += potential_term(b[j].x - xi, b[j].y - yi, b[j].z - zi, b[j].w, eps2);
#pragma omp simd reduction(+ : row)
            for (std::ptrdiff_t j = i + 1; j < nn; ++j)
                row += potential_term(b[j].x - xi, b[j].y - yi, b[j].z - zi, b[j].w, eps2);
            rows[static_cast<std::size_t>(k)] = b[i].w * row;
        }
        if (progress) progress(static_cast<std::size_t>(last), m);
    }
    double mean = 0;
    for (double r : rows) mean += r;
    mean /= static_cast<double>(m);
    double var = 0;
    for (double r : rows) var += (r - mean) * (r - mean);
    var = m > 1 ? var / static_cast<double>(m - 1) : 0.0;
    // -G/2 sum_i m_i sum_{j != i} m_j / r_ij, the sample mean standing for all n rows.
    const double scale = 0.5 * p.G * static_cast<double>(n);
    out.potential = -scale * mean;
    const double unsampled = 1.0 - static_cast<double>(m) / static_cast<double>(n);
    out.standard_error = scale * std::sqrt(var / static_cast<double>(m) * unsampled);
    out.sampled = m;
    return out;
}

void estimate_potential(Diagnostics& d, const HostState& s, const Params& p, PotentialMethod m,
                        const PotentialProgress& progress) {
    d.potential_method = m;
    d.potential_error = 0;
    d.has_potential = true;
    switch (m) {
        case PotentialMethod::exact:
            d.potential = compute_diagnostics(s, p, true).potential;
            break;
        case PotentialMethod::tree:
            d.potential = tree_potential(s, p, progress);
            break;
        case PotentialMethod::sampled: {
            const PotentialSample e = sampled_potential(s, p, kPotentialSampleSize, progress);
            d.potential = e.potential;
            d.potential_error = e.standard_error;
            break;
        }
    }
}

Diagnostics backend_diagnostics(Backend& b, const Params& p, bool with_potential, PotentialMethod m,
                                const PotentialProgress& progress) {
    if (!with_potential || m == PotentialMethod::exact) return b.diagnostics(p, with_potential);
    Diagnostics d = b.diagnostics(p, false);
    estimate_potential(d, b.get_state(), p, m, progress);
    return d;
}

Diagnostics backend_diagnostics(Backend& b, const Params& p, bool with_potential) {
    return backend_diagnostics(b, p, with_potential, potential_method(b.size(), p, b.residency()));
}

}  // namespace nbody
