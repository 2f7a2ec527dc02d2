#include "block_state.hpp"

#include <algorithm>
#include <cmath>

#include "hermite.hpp"
#include "neighbour_scheme.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

// Finite in the run's precision: a float run's values narrow back to float (a double 1e300 would be inf).
bool finite(const Vec4<double>& v, Precision p) {
    if (p == Precision::f32) {
        return is_finite_bits(float(v.x)) && is_finite_bits(float(v.y)) && is_finite_bits(float(v.z)) &&
               is_finite_bits(float(v.w));
    }
    return is_finite_bits(v.x) && is_finite_bits(v.y) && is_finite_bits(v.z) && is_finite_bits(v.w);
}

std::string wrong_size(const char* what, std::size_t got, std::size_t want) {
    return std::string(what) + " has " + std::to_string(got) + " entries, expected " + std::to_string(want);
}

std::string level_problem(const char* what, const std::vector<int>& levels) {
    for (std::size_t i = 0; i < levels.size(); ++i) {
        if (levels[i] < 0 || levels[i] > kMaxBlockLevel) {
            return std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(levels[i]) +
                   " is not a level (0 to " + std::to_string(kMaxBlockLevel) + ")";
        }
    }
    return {};
}

std::string vector_problem(const char* what, const std::vector<Vec4<double>>& v, std::size_t n, Precision p) {
    if (v.size() != n) return wrong_size(what, v.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!finite(v[i], p))
            return std::string(what) + "[" + std::to_string(i) + "] is not finite in " + to_string(p);
    }
    return {};
}

}  // namespace

std::vector<std::uint32_t> used_lists(const std::vector<std::uint32_t>& lists,
                                      const std::vector<std::uint32_t>& listed, std::size_t capacity) {
    std::vector<std::uint32_t> out(lists.size(), 0);
    for (std::size_t i = 0; i < listed.size(); ++i) {
        const auto row = std::ptrdiff_t(i * capacity);
        std::copy_n(lists.begin() + row, listed[i], out.begin() + row);
    }
    return out;
}

std::string block_state_problem(const BlockState& s, std::size_t n) {
    if (s.level.size() != n) return wrong_size("Level", s.level.size(), n);
    if (std::string p = level_problem("Level", s.level); !p.empty()) return p;
    for (const auto& [what, v] : {std::pair{"Acceleration", &s.acc}, std::pair{"Jerk", &s.jerk}}) {
        if (std::string p = vector_problem(what, *v, n, s.precision); !p.empty()) return p;
    }
    const double k = s.model.neighbours;
    if (k == 0) {
        if (s.has_neighbours()) return "neighbour lists stored for a run without the neighbour scheme";
        return {};
    }
    if (!(k > 0 && k == std::floor(k) && k <= 1e6)) return "the neighbour count is not a whole number > 0";
    for (const auto& [what, v] : neighbour_vectors(s)) {
        if (std::string p = vector_problem(what, *v, n, s.precision); !p.empty()) return p;
    }
    if (s.regular_level.size() != n) return wrong_size("RegularLevel", s.regular_level.size(), n);
    if (std::string p = level_problem("RegularLevel", s.regular_level); !p.empty()) return p;
    for (std::size_t i = 0; i < n; ++i) {
        // The irregular step divides the regular one (neighbour_levels).
        if (s.level[i] < s.regular_level[i])
            return "Level[" + std::to_string(i) + "] is coarser than RegularLevel[" + std::to_string(i) + "]";
    }
    if (s.radius.size() != n) return wrong_size("Radius", s.radius.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!(is_finite_bits(s.radius[i]) && s.radius[i] > 0))
            return "Radius[" + std::to_string(i) + "] is not a finite number > 0";
    }
    const std::size_t cap = std::size_t(neighbour_capacity(int(k)));
    if (s.listed.size() != n) return wrong_size("Listed", s.listed.size(), n);
    if (s.lists.size() != n * cap) return wrong_size("Lists", s.lists.size(), n * cap);
    for (std::size_t i = 0; i < n; ++i) {
        if (s.listed[i] > cap) {
            return "Listed[" + std::to_string(i) + "] = " + std::to_string(s.listed[i]) +
                   " is more than a list holds (" + std::to_string(cap) + ")";
        }
        for (std::size_t e = 0; e < s.listed[i]; ++e) {
            const std::uint32_t j = s.lists[i * cap + e];
            if (j >= n || j == i) {
                return "Lists[" + std::to_string(i) + "][" + std::to_string(e) + "] = " + std::to_string(j) +
                       " is not another body";
            }
            // Built in ascending index order: a body listed twice would count its force twice.
            if (e > 0 && j <= s.lists[i * cap + e - 1]) {
                return "Lists[" + std::to_string(i) + "] is not in ascending order at entry " +
                       std::to_string(e);
            }
        }
    }
    return {};
}

}  // namespace nbody
