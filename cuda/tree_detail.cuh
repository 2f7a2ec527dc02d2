#pragma once
// Internal to the GPU tree (cuda/tree_*.cu and cuda/device_tree.cu): the device-side layout of one built
// tree and the launchers of its passes. Device pointers only; every launcher runs on `stream`.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "device_tree.hpp"
#include "sim/gravity/morton.hpp"

namespace nbody::tree_gpu {

// Levels 0..21 plus one end marker.
inline constexpr int kLevels = kMortonBitsPerAxis + 1;
// Targets per walk group: one warp.
inline constexpr int kGroup = 32;

// Each walk warp's stack: its bottom kWalkSharedStack entries in shared memory, the rest in a global slice
// of kWalkGlobalStack entries. Together they hold every stack a walk can build (tree_walk.cu).
inline constexpr int kWalkSharedStack = 512;
inline constexpr int kWalkGlobalStack = 5120;
static_assert(kDeviceTreeStackBound == kMortonBitsPerAxis * 8 * kGroup, "the bound of tree_walk.cu's proof");
static_assert(kWalkSharedStack + kWalkGlobalStack >= kDeviceTreeStackBound,
              "the walk's stack must hold the deepest stack a walk can build");

// Node storage, structure of arrays, indexed by node (root = 0). Nodes of one level are contiguous:
// level L occupies [level_start[L], level_start[L + 1]); a node's children are contiguous and in octant
// order, so the walk (parent, then children in octant order) visits cells in the same order whatever
// order the build allocated the blocks in.
struct TreeView {
    const std::uint64_t* keys = nullptr;  // sorted keys of the sources
    const float4* bodies = nullptr;       // sources in key order: (x, y, z, m)
    int4* link = nullptr;             // (first body, body count, first child, child count); leaf: 0 children
    unsigned char* level = nullptr;   // depth of each node
    float4* open = nullptr;           // (com x, y, z, opening radius l / theta + s)
    float4* mq = nullptr;             // (M, Qxx, Qyy, Qzz)
    float4* quad = nullptr;           // (Qxy, Qxz, Qyz, monopole radius l / theta^p + s)
    int* level_start = nullptr;       // kLevels + 1 entries
    int* node_count = nullptr;        // nodes allocated (may pass capacity; clamp on read)
    int* node_overflow = nullptr;     // 1 when a split found no room (the cell stayed a leaf)
    unsigned* blocks_done = nullptr;  // blocks of the current split launch that have finished
    unsigned char* cut = nullptr;     // per sorted body: 1 where a cell whose parent is big starts
    const RootCube<float>* cube = nullptr;
    int capacity = 0;  // nodes
};

// Scratch for the bounding cube: partial boxes per block, then the cube.
inline constexpr int kBoundsBlocks = 256;

// cube = bounding_cube of the n points (xyz of pos). partials holds 2 * kBoundsBlocks float4.
void launch_bounds(const float4* pos, std::size_t n, float4* partials, RootCube<float>* cube, cudaStream_t s);

// keys[i] = Morton key of pos[i] in cube (points outside clamp to its faces); idx[i] = i.
void launch_keys(const float4* pos, std::size_t n, const RootCube<float>* cube, std::uint64_t* keys,
                 std::uint32_t* idx, cudaStream_t s);

// Bytes of CUB scratch for sorting n (key, index) pairs.
std::size_t sort_scratch_bytes(std::size_t n);
// Sorts (keys_in, idx_in) by key into (keys_out, idx_out).
void sort_pairs(void* scratch, std::size_t scratch_bytes, const std::uint64_t* keys_in,
                std::uint64_t* keys_out, const std::uint32_t* idx_in, std::uint32_t* idx_out, std::size_t n,
                cudaStream_t s);

// out[i] = in[perm[i]].
void launch_gather(const float4* in, const std::uint32_t* perm, std::size_t n, float4* out, cudaStream_t s);

// Builds the octree of the n sorted keys in t (links, levels, level_start). group_cut > 0: also marks
// t.cut[i] = 1 where body i starts a child of a cell holding more than group_cut bodies (walk groups
// never span such a boundary); group_cut <= 0 leaves t.cut alone.
void launch_build(const TreeView& t, std::size_t n, int leaf_size, int group_cut, cudaStream_t s);

// The same marks for separate targets (sorted keys): cut[i] = 1 where target i lies in another cell than
// target i - 1, a target's cell being the first on its path from the root that holds at most group_cut
// bodies or has no child in the target's octant.
void launch_target_cuts(const TreeView& t, const std::uint64_t* keys, std::size_t m, int group_cut,
                        unsigned char* cut, cudaStream_t s);

// Mass, centre of mass, quadrupole, opening radius and monopole radius of every node, deepest level first.
// monopole_power <= 0: no cell is ever evaluated as a monopole alone (its radius is infinite).
void launch_moments(const TreeView& t, float theta, double monopole_power, cudaStream_t s);

// The walk. Targets in key order (xyz of targets; perm maps them back to the caller's order); acc and
// potential (may be null) in the caller's order. stack: per resident warp, stack_capacity ints (the
// global part); warps: how many walk warps to start (persistent; they take groups from *next_group,
// zeroed here).
struct WalkArgs {
    const float4* targets = nullptr;
    const std::uint32_t* perm = nullptr;
    const unsigned char* cut = nullptr;  // may be null: plain runs of 32 (tree-spec.md's groups)
    std::size_t n_targets = 0;
    float4* acc = nullptr;
    float* potential = nullptr;
    float G = 1, eps2 = 0;
    int* stack = nullptr;
    int stack_capacity = 0;  // the global slice per warp
    // Entries the walk may use: in all (<= kWalkSharedStack + stack_capacity), and in shared memory
    // (min(kWalkSharedStack, stack_limit)). Below kDeviceTreeStackBound only to test a full stack.
    int stack_limit = 0, shared_limit = 0;
    unsigned* next_group = nullptr;
    // [0] sources evaluated, summed over targets; [1] of which cells; [2] sources evaluated, summed over
    // warp walks (lanes idle or not); [3] traversal iterations; [4] of [1], cells as monopoles alone;
    // [5] nonzero when a stack was full (cells summed body by body); [6] the most entries a stack held
    // beyond shared memory.
    unsigned long long* interactions = nullptr;
    int variant = 0;  // walk kernel variant (experiments; 0 = default)
    // The backend's failure flag (may be null): the walk returns at once when *bad < bad_before.
    const unsigned long long* bad = nullptr;
    unsigned long long bad_before = 0;
};
inline constexpr int kWalkCounters = 7;  // entries of WalkArgs::interactions
void launch_walk(const TreeView& t, const WalkArgs& w, int warps, cudaStream_t s);

// Walk warps that fit on the device at once (sizes the stacks).
int walk_resident_warps();

}  // namespace nbody::tree_gpu
