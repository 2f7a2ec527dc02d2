#pragma once
// The neighbour scheme's kernels (cuda/neighbour_kernels.cu; the physics is
// sim/integrate/neighbour_scheme.hpp's): building each target body's neighbour list against every
// predicted body, and the irregular force and jerk of a target from its list. Host interface, no CUDA
// headers; every pointer is a device pointer, `stream` a cudaStream_t. The target count is read from
// device memory (`count`, the block clock's) so that the launches replay in a CUDA graph; with
// count == nullptr it is `m` and the targets are 0..m-1 (a start: every body).
#include <cstddef>
#include <cstdint>

#include "sim/state.hpp"

namespace nbody {

// A device count up to this many targets takes the split search (few targets); above, the search of
// many.
inline constexpr std::uint32_t kNeighbourSplitMax = 2048;

// Where a neighbour list lives: `capacity` entries per body (body i's at list[i * capacity]), `listed[i]`
// of them used, `radius[i]` its sphere (double), `regular_level[i]` for the look-ahead.
struct DeviceNeighbourLists {
    std::uint32_t* list = nullptr;
    std::uint32_t* listed = nullptr;
    double* radius = nullptr;
    const int* regular_level = nullptr;
    int k = 0, capacity = 0;
    // Scratch of the split searches: neighbour_split_items(n, capacity) x capacity entries and
    // neighbour_split_items(n, capacity) counts.
    std::uint32_t* split_list = nullptr;
    std::uint32_t* split_count = nullptr;
};

// Where the irregular sums and the correction find a body's predicted state: in xp, vp (predicted for the
// whole block by select), or, where `pos` is set, predicted on the fly from the body's own state to the
// block clock's *tick (hermite_predict, as select does: the same bits), so that a block with no regular
// step predicts only the bodies it touches.
template <typename T>
struct PredictOnTheFly {
    const Vec4<T>*pos = nullptr, *vel = nullptr, *acc = nullptr, *jerk = nullptr;
    const int* level = nullptr;
    const std::int64_t* due = nullptr;
    const std::int64_t* tick = nullptr;
    double dt = 0;
};

// Items (target, source range) of the split searches, the most they use at once for n bodies and lists of
// `capacity`: the scratch they need.
std::size_t neighbour_split_items(std::size_t n, int capacity);

// For each target i: every other body within its radius (within_radius, look-ahead from its regular
// level and dt), ascending index, the first `capacity` listed (build) or only counted (!build), then its
// radius for next time (next_neighbour_radius with `factor`). Many targets (a device count above
// kNeighbourSplitMax, or a fixed m: a start): one target per thread against every body, every thread of
// a block reading the same staged source at once,
// the sources split into ranges where the targets alone would not fill the device. Few targets (a block
// with a few bodies at their regular step): each target's sources split into ranges searched by a warp
// each. Split ranges are joined in range order (the same list). Nothing runs when *live is 0 (live may be
// null).
template <typename T>
void launch_neighbour_lists(bool build, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
                            const std::uint32_t* targets, const std::uint32_t* count, std::size_t m,
                            const DeviceNeighbourLists& lists, double dt, double factor,
                            const std::uint32_t* live, void* stream);

// The lists of the targets (a device count) from ranges searched elsewhere (the planned force+jerk kernel
// with lists, jerk_kernels.hpp): target q's *splits ranges in order, range r's entries at
// ranges[(q *splits + r) capacity], its count at counts[q *splits + r]; the first `capacity` kept, the
// radius from the total (next_neighbour_radius with `factor`). Nothing runs when *live is 0.
void launch_join_ranges(const std::uint32_t* targets, const std::uint32_t* count, const std::uint32_t* splits,
                        const std::uint32_t* ranges, const std::uint32_t* counts,
                        const DeviceNeighbourLists& lists, double factor, const std::uint32_t* live,
                        void* stream);

// a[q], j[q]: G times the force and jerk on target q from the bodies in its list (add_interaction_jerk at
// the predicted states), in list order within each lane, lanes added in a fixed tree: the same bits on
// every run, whatever the grid. One warp per target. `grid`: its blocks at most; 0: a small grid, for
// blocks of a few due bodies, which then cost little more than one launch.
template <typename T>
void launch_irregular(const Vec4<T>* xp, const Vec4<T>* vp, const PredictOnTheFly<T>& fly, std::size_t n,
                      const std::uint32_t* targets, const std::uint32_t* count, std::size_t m,
                      const DeviceNeighbourLists& lists, T G, T eps2, Vec4<T>* a, Vec4<T>* j,
                      const std::uint32_t* live, void* stream, unsigned grid = 0);

// The blocks of launch_irregular that fill this device once (every SM as full as the kernel allows): for
// the blocks with regular steps, whose thousands of due bodies are each a chain of dependent loads
// (latency-bound: more warps at once, not more work per warp). Asks the device; call outside capture.
template <typename T>
unsigned irregular_full_grid();

}  // namespace nbody
