#include "find_contacts.hpp"

#include <algorithm>
#include <cmath>

#include "contact.hpp"

namespace nbody {
namespace {

// Cells per axis fit 21 bits, so (ix, iy, iz) packs into one 64-bit key without collisions.
constexpr std::int64_t kCellsPerAxis = std::int64_t(1) << 21;
// A body whose swept extent exceeds this many times the median is tested against all others.
constexpr double kLargeFactor = 8.0;

struct Swept {
    double cx, cy, cz, extent;
    bool finite;
};

template <typename T>
Swept swept_sphere(const Vec4<T>& x, const Vec4<T>& v, double dt) {
    const double vx = v.x, vy = v.y, vz = v.z;
    const double speed = std::sqrt(vx * vx + vy * vy + vz * vz);
    Swept s{double(x.x) - 0.5 * dt * vx, double(x.y) - 0.5 * dt * vy, double(x.z) - 0.5 * dt * vz,
            double(v.w) + 0.5 * dt * speed, true};
    s.finite = std::isfinite(s.cx) && std::isfinite(s.cy) && std::isfinite(s.cz) && std::isfinite(s.extent);
    return s;
}

template <typename T>
bool test_pair(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t a, std::size_t b, double dt,
               std::vector<Contact>& out) {
    const std::size_t i = std::min(a, b), j = std::max(a, b);
    const Vec4<T>&xi = pos[i], &xj = pos[j], &vi = vel[i], &vj = vel[j];
    const double s = swept_contact_time(double(xi.x) - double(xj.x), double(xi.y) - double(xj.y),
                                        double(xi.z) - double(xj.z), double(vi.x) - double(vj.x),
                                        double(vi.y) - double(vj.y), double(vi.z) - double(vj.z),
                                        double(vi.w) + double(vj.w), dt);
    if (s < 0) return false;
    out.push_back({i, j, s});
    return true;
}

bool spheres_overlap(const Swept& a, const Swept& b) {
    const double dx = a.cx - b.cx, dy = a.cy - b.cy, dz = a.cz - b.cz, r = a.extent + b.extent;
    return dx * dx + dy * dy + dz * dz <= r * r;
}

}  // namespace

template <typename T>
std::vector<Contact> find_contacts(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n, double dt) {
    std::vector<Contact> out;
    if (n < 2) return out;
    std::vector<Swept> sw(n);
    std::vector<double> extents;
    extents.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        sw[i] = swept_sphere(pos[i], vel[i], dt);
        if (sw[i].finite) extents.push_back(sw[i].extent);
    }
    if (extents.size() < 2) return out;
    auto mid = extents.begin() + std::ptrdiff_t(extents.size() / 2);
    std::nth_element(extents.begin(), mid, extents.end());
    const double large = kLargeFactor * *mid;

    // The grid over the ordinary bodies; the large ones are listed apart.
    std::vector<std::size_t> big;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double max_extent = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!sw[i].finite) continue;
        if (sw[i].extent > large && *mid > 0) {
            big.push_back(i);
            continue;
        }
        max_extent = std::max(max_extent, sw[i].extent);
        const double c[3] = {sw[i].cx, sw[i].cy, sw[i].cz};
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], c[k]), hi[k] = std::max(hi[k], c[k]);
    }
    // Two swept spheres that overlap have centres within 2 * max_extent: neighbouring cells at most.
    double cell = 2 * max_extent;
    for (int k = 0; k < 3; ++k)
        if (hi[k] >= lo[k]) cell = std::max(cell, (hi[k] - lo[k]) / double(kCellsPerAxis - 2));
    if (!(cell > 0)) cell = 1;  // all points at rest: only coincident bodies touch, all in one cell

    auto coord = [&](double c, int k) { return std::int64_t(std::floor((c - lo[k]) / cell)); };
    auto key_of = [](std::int64_t x, std::int64_t y, std::int64_t z) {
        return (std::uint64_t(x) << 42) | (std::uint64_t(y) << 21) | std::uint64_t(z);
    };
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed;  // (cell key, body)
    keyed.reserve(n);
    std::vector<char> in_grid(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (!sw[i].finite || (sw[i].extent > large && *mid > 0)) continue;
        in_grid[i] = 1;
        keyed.push_back(
            {key_of(coord(sw[i].cx, 0), coord(sw[i].cy, 1), coord(sw[i].cz, 2)), std::uint32_t(i)});
    }
    std::sort(keyed.begin(), keyed.end());

    // Cells: runs of equal keys; each cell looks up its 27 neighbours once.
    std::vector<std::uint64_t> cell_keys;
    std::vector<std::size_t> cell_start;
    for (std::size_t k = 0; k < keyed.size(); ++k) {
        if (k == 0 || keyed[k].first != keyed[k - 1].first) {
            cell_keys.push_back(keyed[k].first);
            cell_start.push_back(k);
        }
    }
    cell_start.push_back(keyed.size());
    for (std::size_t a = 0; a < cell_keys.size(); ++a) {
        const std::uint64_t key = cell_keys[a];
        const std::int64_t c[3] = {std::int64_t(key >> 42), std::int64_t((key >> 21) & (kCellsPerAxis - 1)),
                                   std::int64_t(key & (kCellsPerAxis - 1))};
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
            for (std::int64_t dy = -1; dy <= 1; ++dy) {
                for (std::int64_t dz = -1; dz <= 1; ++dz) {
                    const std::int64_t x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                    if (x < 0 || y < 0 || z < 0 || x >= kCellsPerAxis || y >= kCellsPerAxis ||
                        z >= kCellsPerAxis)
                        continue;
                    const std::uint64_t k = key_of(x, y, z);
                    const auto it = std::lower_bound(cell_keys.begin(), cell_keys.end(), k);
                    if (it == cell_keys.end() || *it != k) continue;
                    const std::size_t b = std::size_t(it - cell_keys.begin());
                    for (std::size_t p = cell_start[a]; p < cell_start[a + 1]; ++p) {
                        const std::size_t i = keyed[p].second;
                        for (std::size_t q = cell_start[b]; q < cell_start[b + 1]; ++q) {
                            const std::size_t j = keyed[q].second;
                            if (j > i && spheres_overlap(sw[i], sw[j])) test_pair(pos, vel, i, j, dt, out);
                        }
                    }
                }
            }
        }
    }
    // The large bodies against everyone (each large pair once).
    for (const std::size_t b : big) {
        for (std::size_t j = 0; j < n; ++j) {
            if (j == b || !sw[j].finite || (!in_grid[j] && j < b)) continue;
            if (spheres_overlap(sw[b], sw[j])) test_pair(pos, vel, b, j, dt, out);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

template <typename T>
std::vector<Contact> find_contacts_all_pairs(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n,
                                             double dt) {
    std::vector<Contact> out;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) test_pair(pos, vel, i, j, dt, out);
    std::sort(out.begin(), out.end());
    return out;
}

template std::vector<Contact> find_contacts(const Vec4<float>*, const Vec4<float>*, std::size_t, double);
template std::vector<Contact> find_contacts(const Vec4<double>*, const Vec4<double>*, std::size_t, double);
template std::vector<Contact> find_contacts_all_pairs(const Vec4<float>*, const Vec4<float>*, std::size_t,
                                                      double);
template std::vector<Contact> find_contacts_all_pairs(const Vec4<double>*, const Vec4<double>*, std::size_t,
                                                      double);

}  // namespace nbody
