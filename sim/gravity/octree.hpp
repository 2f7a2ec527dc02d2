#pragma once
// The CPU Barnes-Hut octree (issue 15, tree-spec.md): Morton keys of the bodies, an index sort by key,
// cells split level by level while they hold more than leaf_size bodies, and each cell's mass, centre
// of mass, side, centre-of-mass offset and traceless quadrupole computed bottom-up in double. The
// caller's bodies are read, never reordered. Build and moments run on OpenMP threads.
//
// The GPU tree (cuda/) follows the same rules, so this is also its readable reference.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "morton.hpp"
#include "multipole.hpp"
#include "sim/state.hpp"

namespace nbody {

inline constexpr std::size_t kDefaultLeafSize = 16;

// One cell's walk-time data in the working precision T (moments computed in double, then rounded).
template <typename T>
struct TreeCell {
    T com_x, com_y, com_z, mass;  // centre of mass and total mass
    Quadrupole<T> quad;           // traceless, about the centre of mass
    T side;                       // side l of the cell's octree cube
    T com_offset;                 // s = |centre of mass - centre of the cube|
    std::uint32_t first_child;    // children are contiguous: [first_child, first_child + child_count)
    std::uint32_t child_count;    // 0 for a leaf
    std::uint32_t body_begin;     // the cell's bodies are [body_begin, body_end) in key order
    std::uint32_t body_end;
};

// Wall-clock seconds of the last build's phases (for benchmarks).
struct OctreeBuildTimes {
    double keys_sort = 0;  // bounding cube, keys, radix sort, bodies gathered in key order
    double cells = 0;      // level-by-level splitting
    double moments = 0;    // bottom-up mass, centre of mass, quadrupole
};

template <typename T>
class Octree {
  public:
    // Builds the tree of bodies[0, n) (position, mass). leaf_size >= 1. The arrays are reused across
    // builds, so rebuilding every step allocates nothing once N stops growing.
    // parallel = false: one thread (the serial backend).
    void build(const Vec4<T>* bodies, std::size_t n, std::size_t leaf_size = kDefaultLeafSize,
               bool parallel = true);

    std::size_t size() const { return order_.size(); }
    const RootCube<T>& cube() const { return cube_; }
    T cells_per_length() const { return cells_per_length_; }  // 2^21 / cube side, for target keys

    // Cell 0 is the root; a parent comes before its children (cells are stored level by level).
    const std::vector<TreeCell<T>>& cells() const { return cells_; }
    // Bodies in key order, structure of arrays: position and mass.
    const std::vector<T>& x() const { return x_; }
    const std::vector<T>& y() const { return y_; }
    const std::vector<T>& z() const { return z_; }
    const std::vector<T>& m() const { return m_; }
    const std::vector<std::uint64_t>& keys() const { return keys_; }
    // order()[k] = the caller's index of the k-th body in key order.
    const std::vector<std::uint32_t>& order() const { return order_; }
    // Deepest level that holds a cell (root: 0).
    int depth() const { return depth_; }
    const OctreeBuildTimes& build_times() const { return times_; }

  private:
    RootCube<T> cube_{0, 0, 0, 1};
    T cells_per_length_ = 1;
    int depth_ = 0;
    OctreeBuildTimes times_;
    std::vector<std::uint64_t> keys_, key_scratch_;
    std::vector<std::uint32_t> order_, order_scratch_;
    std::vector<T> x_, y_, z_, m_;
    std::vector<TreeCell<T>> cells_;
    std::vector<std::size_t> level_begin_;  // cells of level L are [level_begin_[L], level_begin_[L + 1])
    std::vector<std::uint32_t> child_counts_;
    // Double-precision moments during the upsweep (per cell: mass, com, quadrupole).
    std::vector<double> mass_d_, com_d_;
    std::vector<Quadrupole<double>> quad_d_;
};

// Sorts (keys, values) by key, stably, with a parallel LSD radix sort; scratch arrays are resized as
// needed. Exposed for the tests.
void radix_sort_by_key(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& values,
                       std::vector<std::uint64_t>& key_scratch, std::vector<std::uint32_t>& value_scratch,
                       int key_bits = 63, bool parallel = true);

}  // namespace nbody
