// Not built with -ffast-math: the bounding box must see NaN positions as they are (they map to key 0 and
// the step's finite check reports them), and the moments are summed in plain double.
#include "octree.hpp"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <string>

#include "sim/error.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

// Below this many items a loop runs on one thread: a team's start and barriers cost more than the work
// (and on a loaded machine a descheduled team member stalls every barrier).
constexpr std::ptrdiff_t kParallelMin = 8192;

}  // namespace

void radix_sort_by_key(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& values,
                       std::vector<std::uint64_t>& key_scratch, std::vector<std::uint32_t>& value_scratch,
                       int key_bits, bool parallel) {
    constexpr int kDigitBits = 11;
    constexpr std::size_t kBuckets = std::size_t(1) << kDigitBits;
    const std::size_t n = keys.size();
    assert(values.size() == n && "radix_sort_by_key: one value per key");
    key_scratch.resize(n), value_scratch.resize(n);
    if (n < 2) return;
    std::vector<std::size_t> offsets;  // [thread][bucket], then the scatter positions
    for (int shift = 0; shift < key_bits; shift += kDigitBits) {
        bool skip = false;
#pragma omp parallel if (parallel && std::ptrdiff_t(n) >= kParallelMin)
        {
            const std::size_t threads = std::size_t(omp_get_num_threads()),
                              t = std::size_t(omp_get_thread_num());
#pragma omp single
            offsets.assign(threads * kBuckets, 0);
            const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
            std::size_t* count = offsets.data() + t * kBuckets;
            for (std::size_t i = lo; i < hi; ++i) ++count[(keys[i] >> shift) & (kBuckets - 1)];
#pragma omp barrier
#pragma omp single
            {
                // Bucket-major, thread-minor exclusive scan: each thread's run of a bucket lands after
                // the lower threads' runs, which keeps the sort stable. A digit shared by every key
                // (e.g. high bits of a compact cloud) moves nothing: skip the scatter.
                std::size_t sum = 0;
                for (std::size_t b = 0; b < kBuckets; ++b) {
                    std::size_t bucket_total = 0;
                    for (std::size_t u = 0; u < threads; ++u) {
                        const std::size_t c = offsets[u * kBuckets + b];
                        offsets[u * kBuckets + b] = sum;
                        sum += c, bucket_total += c;
                    }
                    if (bucket_total == n) skip = true;
                }
            }
            if (!skip) {
                for (std::size_t i = lo; i < hi; ++i) {
                    const std::size_t dst = count[(keys[i] >> shift) & (kBuckets - 1)]++;
                    key_scratch[dst] = keys[i];
                    value_scratch[dst] = values[i];
                }
            }
        }
        if (!skip) keys.swap(key_scratch), values.swap(value_scratch);
    }
}

template <typename T>
void Octree<T>::build(const Vec4<T>* bodies, std::size_t n, std::size_t leaf_size, bool parallel) {
    assert(leaf_size >= 1 && "Octree::build: leaf_size must be at least 1");
    // Bodies and cells are indexed with 32 bits (TreeCell): beyond that the indices would wrap and the
    // walk would read the wrong bodies, so say so instead (an assert would vanish from a release build).
    constexpr std::size_t kMaxIndex = std::numeric_limits<std::uint32_t>::max();
    if (n > kMaxIndex) {
        throw Error("CPU tree: " + std::to_string(n) + " bodies is beyond the tree's 32-bit indices");
    }
    const std::ptrdiff_t nn = std::ptrdiff_t(n);
    const double t0 = now_s();
    times_ = OctreeBuildTimes{};
    keys_.resize(n), order_.resize(n), x_.resize(n), y_.resize(n), z_.resize(n), m_.resize(n);
    cells_.clear(), level_begin_.assign(1, 0), depth_ = 0;
    if (n == 0) return;

    // The root cube from the bounding box, in T: the same float cube the GPU computes. Bodies with a
    // non-finite coordinate stay out of the box: a NaN or an infinity there would put every key at 0 (one
    // leaf of all N bodies, an O(N^2) walk) at the very step whose blow-up the finiteness check is about
    // to report. Such a body still gets a key (clamped into the cube) and spreads NaN through its cells'
    // moments, as it would through the direct sum.
    constexpr T inf = std::numeric_limits<T>::infinity();
    T lo_x = inf, lo_y = inf, lo_z = inf, hi_x = -inf, hi_y = -inf, hi_z = -inf;
#pragma omp parallel for reduction(min                 \
                                   : lo_x, lo_y, lo_z) \
    reduction(max                                      \
              : hi_x, hi_y, hi_z) if (parallel && nn >= kParallelMin)
    for (std::ptrdiff_t i = 0; i < nn; ++i) {
        const Vec4<T>& b = bodies[i];
        if (!(std::isfinite(b.x) && std::isfinite(b.y) && std::isfinite(b.z))) continue;
        lo_x = std::min(lo_x, b.x), hi_x = std::max(hi_x, b.x);
        lo_y = std::min(lo_y, b.y), hi_y = std::max(hi_y, b.y);
        lo_z = std::min(lo_z, b.z), hi_z = std::max(hi_z, b.z);
    }
    if (!(lo_x <= hi_x)) lo_x = lo_y = lo_z = hi_x = hi_y = hi_z = T(0);  // no finite body at all
    cube_ = bounding_cube(lo_x, lo_y, lo_z, hi_x, hi_y, hi_z);
    cells_per_length_ = T(kMortonCells) / cube_.side;

#pragma omp parallel for if (parallel && nn >= kParallelMin)
    for (std::ptrdiff_t i = 0; i < nn; ++i) {
        keys_[i] = morton_key(bodies[i].x, bodies[i].y, bodies[i].z, cube_, cells_per_length_);
        order_[i] = std::uint32_t(i);
    }
    radix_sort_by_key(keys_, order_, key_scratch_, order_scratch_, 63, parallel);
#pragma omp parallel for if (parallel && nn >= kParallelMin)
    for (std::ptrdiff_t k = 0; k < nn; ++k) {
        const Vec4<T>& b = bodies[order_[k]];
        x_[k] = b.x, y_[k] = b.y, z_[k] = b.z, m_[k] = b.w;
    }

    const double t1 = now_s();
    times_.keys_sort = t1 - t0;

    // Cells level by level: a cell at depth L with more than leaf_size bodies (and L < 21) gets one child
    // per non-empty octant; the octants' body ranges are found by binary search in the sorted keys.
    cells_.push_back(TreeCell<T>{});
    cells_[0].body_begin = 0, cells_[0].body_end = std::uint32_t(n);
    level_begin_.push_back(1);
    const std::uint64_t* keys = keys_.data();
    auto octant_bounds = [keys](const TreeCell<T>& c, int level, std::uint32_t bounds[9]) {
        bounds[0] = c.body_begin;
        for (unsigned o = 1; o < 8; ++o) {
            bounds[o] = std::uint32_t(
                std::partition_point(keys + bounds[o - 1], keys + c.body_end,
                                     [&](std::uint64_t k) { return morton_octant(k, level) < o; }) -
                keys);
        }
        bounds[8] = c.body_end;
    };
    for (int level = 0;; ++level) {
        const std::size_t lb = level_begin_[std::size_t(level)], le = level_begin_[std::size_t(level) + 1];
        const std::ptrdiff_t count = std::ptrdiff_t(le - lb);
        child_counts_.resize(std::size_t(count) + 1);
#pragma omp parallel for schedule(dynamic, 256) if (parallel && count >= kParallelMin / 16)
        for (std::ptrdiff_t c = 0; c < count; ++c) {
            const TreeCell<T>& cell = cells_[lb + std::size_t(c)];
            std::uint32_t children = 0;
            if (cell.body_end - cell.body_begin > leaf_size && level < kMortonBitsPerAxis) {
                std::uint32_t bounds[9];
                octant_bounds(cell, level, bounds);
                for (int o = 0; o < 8; ++o) children += bounds[o + 1] > bounds[o] ? 1 : 0;
            }
            child_counts_[std::size_t(c)] = children;
        }
        std::size_t total = 0;
        for (std::ptrdiff_t c = 0; c < count; ++c) {
            TreeCell<T>& cell = cells_[lb + std::size_t(c)];
            cell.first_child = std::uint32_t(le + total);
            cell.child_count = child_counts_[std::size_t(c)];
            total += child_counts_[std::size_t(c)];
        }
        if (le + total > kMaxIndex) {
            throw Error("CPU tree: more than " + std::to_string(kMaxIndex) +
                        " cells, beyond the tree's 32-bit indices");
        }
        if (total == 0) break;
        depth_ = level + 1;
        cells_.resize(le + total);
        level_begin_.push_back(le + total);
#pragma omp parallel for schedule(dynamic, 256) if (parallel && count >= kParallelMin / 16)
        for (std::ptrdiff_t c = 0; c < count; ++c) {
            const TreeCell<T>& cell = cells_[lb + std::size_t(c)];
            if (cell.child_count == 0) continue;
            std::uint32_t bounds[9];
            octant_bounds(cell, level, bounds);
            std::uint32_t next = cell.first_child;
            for (int o = 0; o < 8; ++o) {
                if (bounds[o + 1] == bounds[o]) continue;
                TreeCell<T>& child = cells_[next++];
                child = TreeCell<T>{};
                child.body_begin = bounds[o], child.body_end = bounds[o + 1];
            }
        }
    }

    const double t2 = now_s();
    times_.cells = t2 - t1;

    // Moments bottom-up in double: a leaf from its bodies, a parent from its children with the
    // parallel-axis shift of their quadrupoles.
    const std::size_t cell_count = cells_.size();
    mass_d_.resize(cell_count), com_d_.resize(3 * cell_count), quad_d_.resize(cell_count);
    const RootCube<double> cube_d{double(cube_.lo_x), double(cube_.lo_y), double(cube_.lo_z),
                                  double(cube_.side)};
    for (int level = depth_; level >= 0; --level) {
        const std::ptrdiff_t lb = std::ptrdiff_t(level_begin_[std::size_t(level)]),
                             le = std::ptrdiff_t(level_begin_[std::size_t(level) + 1]);
#pragma omp parallel for schedule(dynamic, 64) if (parallel && le - lb >= kParallelMin / 64)
        for (std::ptrdiff_t c = lb; c < le; ++c) {
            TreeCell<T>& cell = cells_[std::size_t(c)];
            double gx, gy, gz, side;  // the cell's cube: centre and side
            morton_cell_geometry(keys_[cell.body_begin], level, cube_d, gx, gy, gz, side);
            double M = 0, cx = 0, cy = 0, cz = 0;
            Quadrupole<double> q;
            if (cell.child_count == 0) {
                for (std::uint32_t k = cell.body_begin; k < cell.body_end; ++k) {
                    const double mk = double(m_[k]);
                    M += mk, cx += mk * double(x_[k]), cy += mk * double(y_[k]), cz += mk * double(z_[k]);
                }
            } else {
                for (std::uint32_t h = cell.first_child; h < cell.first_child + cell.child_count; ++h) {
                    const double mh = mass_d_[h];
                    M += mh, cx += mh * com_d_[3 * h], cy += mh * com_d_[3 * h + 1],
                        cz += mh * com_d_[3 * h + 2];
                }
            }
            // Massless cells (test particles only) sit at their cube's centre and pull with nothing.
            if (M > 0) {
                cx /= M, cy /= M, cz /= M;
            } else {
                cx = gx, cy = gy, cz = gz;
            }
            if (cell.child_count == 0) {
                for (std::uint32_t k = cell.body_begin; k < cell.body_end; ++k) {
                    add_point_quadrupole(q, double(m_[k]), double(x_[k]) - cx, double(y_[k]) - cy,
                                         double(z_[k]) - cz);
                }
            } else {
                for (std::uint32_t h = cell.first_child; h < cell.first_child + cell.child_count; ++h) {
                    add_shifted_quadrupole(q, quad_d_[h], mass_d_[h], com_d_[3 * h] - cx,
                                           com_d_[3 * h + 1] - cy, com_d_[3 * h + 2] - cz);
                }
            }
            mass_d_[std::size_t(c)] = M, quad_d_[std::size_t(c)] = q;
            double* com = com_d_.data() + 3 * std::size_t(c);
            com[0] = cx, com[1] = cy, com[2] = cz;
            cell.com_x = T(cx), cell.com_y = T(cy), cell.com_z = T(cz), cell.mass = T(M);
            cell.quad = Quadrupole<T>{T(q.xx), T(q.yy), T(q.zz), T(q.xy), T(q.xz), T(q.yz)};
            cell.side = T(side);
            cell.com_offset =
                T(std::sqrt((cx - gx) * (cx - gx) + (cy - gy) * (cy - gy) + (cz - gz) * (cz - gz)));
        }
    }
    times_.moments = now_s() - t2;
}

template class Octree<float>;
template class Octree<double>;

}  // namespace nbody
