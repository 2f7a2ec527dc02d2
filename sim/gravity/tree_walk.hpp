#pragma once
// The CPU Barnes-Hut walk (tree-spec.md): targets in key order are cut into groups of group_size; each
// group walks the octree once, collecting the cells accepted by the opening rule (evaluated as monopole
// + quadrupole) and the bodies of the leaves it opens (evaluated pair by pair), then every target of
// the group sums both lists. Groups run on OpenMP threads; results land in the caller's order.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "octree.hpp"
#include "sim/params.hpp"  // kDefaultTheta

namespace nbody {

inline constexpr std::size_t kDefaultGroupSize = 32;

struct TreeWalkParams {
    double theta = kDefaultTheta;  // opening angle in (0, 1]; -> 0 opens every cell (the direct sum)
    double G = 1.0;
    double softening = 0.0;  // Plummer epsilon, as in the direct sum
    std::size_t group_size = kDefaultGroupSize;
    // Accepted cells beyond the opening rule at theta^monopole_power act as monopoles (multipole.hpp);
    // <= 0: every accepted cell is evaluated with its quadrupole.
    double monopole_power = kMonopolePower;
    bool parallel = true;  // false: one thread (the serial backend)
};

// Interactions actually evaluated: target-body pairs of opened leaves and target-cell multipoles.
struct TreeWalkCounts {
    std::uint64_t body_body = 0;
    std::uint64_t body_cell = 0;      // accepted cells, monopole + quadrupole or monopole alone
    std::uint64_t body_monopole = 0;  // of which monopole alone
    std::uint64_t total() const { return body_body + body_cell; }
};

// Reused arrays for targets that are not the tree's own bodies (keys, order, sorted coordinates).
template <typename T>
struct TreeWalkScratch {
    std::vector<std::uint64_t> keys, key_scratch;
    std::vector<std::uint32_t> order, order_scratch;
    std::vector<T> x, y, z;
};

// Acceleration of every body of the tree (caller's order, G applied; w = 0), and its potential
// phi = -G sum ... when `potential` is not null.
template <typename T>
TreeWalkCounts tree_accelerations(const Octree<T>& tree, const TreeWalkParams& p, Vec4<T>* acc, T* potential);

// Acceleration (and optionally potential) at arbitrary points targets[0, count) (x, y, z; w ignored),
// in the order given. A point exactly on a body feels nothing from that body (tree-spec.md).
template <typename T>
TreeWalkCounts tree_accelerations_at(const Octree<T>& tree, const Vec4<T>* targets, std::size_t count,
                                     const TreeWalkParams& p, Vec4<T>* acc, T* potential,
                                     TreeWalkScratch<T>& scratch);

}  // namespace nbody
