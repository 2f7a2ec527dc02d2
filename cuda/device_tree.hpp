#pragma once
// The Barnes-Hut octree on the GPU (issue 15; the rules are those of the shared tree specification that
// the CPU tree in sim/ follows too). Host-facing: no CUDA headers, device pointers in and out, the
// stream as a void* (a cudaStream_t).
//
// One evaluation, all on the stream with no host round trip: bounding cube (two-pass reduction), 63-bit
// Morton keys, CUB radix sort of (key, index), bodies gathered in key order, a level-by-level octree build
// (one launch per level, children found by binary search on the sorted keys), moments bottom-up (mass,
// centre of mass, traceless quadrupole, opening radius l / theta + s), then a walk in which one warp
// walks once for 32 consecutive targets in key order, gathering interaction lists in shared memory and
// evaluating them with sim/gravity/interaction.hpp. Results land in the caller's order.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "sim/gravity/morton.hpp"     // kMortonBitsPerAxis
#include "sim/gravity/multipole.hpp"  // kMonopolePower
#include "sim/state.hpp"

namespace nbody {

// The most entries a walk's stack ever holds: 8 children of each of the 32 cells popped at once, for each
// level 1..21 below the root (the proof is in cuda/tree_walk.cu). The walk's stack has room for them all.
inline constexpr int kDeviceTreeStackBound = kMortonBitsPerAxis * 8 * 32;

struct DeviceTreeSettings {
    int leaf_size = 16;  // a cell splits while it holds more bodies than this (and its keys differ)
    // Walk groups: runs of 32 consecutive targets in key order (tree-spec.md), additionally cut where a
    // target enters another child of a cell holding more than group_cut bodies (0: never cut). Without
    // the cut, a run that straddles the boundary of two big sparse cells (a Plummer sphere's outskirts)
    // gets a box spanning the system and walks it as a direct sum; see docs/CUDA_NOTES.md.
    int group_cut = 1024;
    // Accepted cells beyond the opening rule at theta^monopole_power are evaluated as monopoles alone, as
    // on the CPU tree (sim/gravity/multipole.hpp); <= 0: always with the quadrupole.
    double monopole_power = kMonopolePower;
    // Walk kernel variant, for experiments (docs/CUDA_NOTES.md): 0 default, 1 cell loop unrolled 8 times.
    int walk_variant = 0;
    // Guard the body-body term against r = 0 with eps = 0 (a target that is also a source). Needed only
    // when eps^2 == 0 or m / eps^3 can overflow a float; evaluate() turns it on by itself for eps^2 == 0.
    // Record CUDA events between the passes so phase_ms() can say where the time went (benchmarks).
    bool time_phases = false;
    // Tests only: caps each walk's stack at this many entries (> 0) so that it fills, to check what the
    // walk does then (it sums the cells it cannot descend into body by body: exact, slower). 0: the whole
    // stack, which no tree can fill (kDeviceTreeStackBound).
    int walk_stack_limit = 0;
};

// Milliseconds of each pass of the last evaluation (time_phases only): cube + keys + sort + gather,
// octree build, moments, target sort (at_points only), walk.
struct DeviceTreePhases {
    float sort = 0, build = 0, moments = 0, targets = 0, walk = 0;
};

// What the last build made, and what the walks did since reset_interactions() (read from the device only
// when asked: stats() synchronises the stream). Neither storage limit ever makes a force wrong: a cell
// the build had no room to split stays an over-full leaf, and a cell the walk has no stack room to descend
// into is summed body by body; both are exact, only slower.
struct DeviceTreeStats {
    std::size_t nodes = 0, leaves = 0;
    int depth = 0;                        // deepest level holding a node (root = 0)
    bool node_overflow = false;           // node storage ran out: some cells stayed leaves (slower, exact)
    bool stack_overflow = false;          // a walk's stack was full: cells summed body by body (slower,
                                          // exact; only under DeviceTreeSettings::walk_stack_limit)
    int stack_peak = 0;                   // most entries a walk's stack held, where more than its 512
                                          // in shared memory (0: none spilled); <= kDeviceTreeStackBound
    unsigned long long interactions = 0;  // body-body + body-cell, summed over targets since reset
    unsigned long long cell_interactions = 0;      // of which body-cell
    unsigned long long monopole_interactions = 0;  // of which the cell as a monopole alone
    unsigned long long warp_evaluations = 0;       // sources evaluated summed over warp walks (lane use)
    unsigned long long walk_iterations = 0;        // traversal steps of up to 32 nodes, summed over walks
};

class DeviceTree {
  public:
    // Sizes every buffer for up to max_sources sources and max_targets separate targets (0: none) on the
    // current device; throws nbody::Error when the device cannot hold them. Larger inputs later grow the
    // buffers (an allocation outside any step).
    explicit DeviceTree(std::size_t max_sources, std::size_t max_targets = 0, DeviceTreeSettings s = {});
    ~DeviceTree();
    DeviceTree(const DeviceTree&) = delete;
    DeviceTree& operator=(const DeviceTree&) = delete;

    // acc[i] = G * (tree sum at body i), i in the caller's order; acc[i].w = 0. potential (may be null):
    // potential[i] = G * phi_i (negative), the self term excluded. pos_mass = (x, y, z, m) on the device.
    // theta in [0, 1]; theta = 0 opens every cell (the direct sum). Everything runs on `stream`.
    // bad (may be null): a backend's failure flag; the walk is skipped when *bad < bad_before (an earlier
    // step already failed; see cuda/step_kernels.hpp).
    void accelerations(const Vec4<float>* pos_mass, std::size_t n, Vec4<float>* acc, float* potential,
                       float G, float eps2, float theta, void* stream,
                       const unsigned long long* bad = nullptr, unsigned long long bad_before = 0);

    // The same field at m arbitrary points (xyz; w ignored), sources unchanged: potential views, error
    // samples. Builds the tree of the sources first.
    void at_points(const Vec4<float>* pos_mass, std::size_t n, const Vec4<float>* points, std::size_t m,
                   Vec4<float>* acc, float* potential, float G, float eps2, float theta, void* stream);

    // Zeroes the interaction counters and the walk's stack statistics (on the stream).
    void reset_interactions(void* stream);
    // Synchronises the stream and reads the counters.
    DeviceTreeStats stats(void* stream) const;

    // Synchronises the stream; zeros unless settings.time_phases.
    DeviceTreePhases phase_ms(void* stream) const;

    // Device bytes held now.
    std::size_t device_bytes() const;

    // Device bytes a tree for these sizes would hold (to check against free memory before allocating).
    static std::size_t device_bytes_for(std::size_t max_sources, std::size_t max_targets = 0,
                                        DeviceTreeSettings s = {});

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nbody
