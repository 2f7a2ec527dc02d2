#pragma once
// The Hermite integrator's force+jerk kernel (cuda/jerk_kernels.cu): acceleration and jerk of m target
// bodies, given as indices into the n source bodies, against every source but itself. Host interface,
// no CUDA headers; all pointers are device pointers, `stream` is a cudaStream_t.
//
// One kernel serves both regimes. Each thread owns K targets (thread t of block x: targets
// x*B*K + t + k*B) and sums them against tiles of B predicted sources (position+mass and velocity)
// staged in shared memory. grid.y splits the sources into `splits` contiguous ranges of whole tiles:
//   many targets (all bodies active): few splits, only enough to fill the last wave of the device;
//   few targets (a block of 256 among a million): thousands of splits, so that every SM has work.
// With splits > 1 each split writes its partial sums and a second kernel adds them in split order: the
// result does not depend on the scheduling (the same bits on every run with the same launch).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "neighbour_kernels.hpp"
#include "sim/state.hpp"

namespace nbody {

// A launch shape; zero fields are chosen by resolve_jerk_launch.
struct JerkLaunch {
    int bodies_per_thread = 0;  // K: 1, 2 or 4
    int block = 0;              // B: threads per block and sources per shared-memory tile: 32, 64 or 128
    int splits = 0;             // source ranges (grid.y); 1: no partial sums
};

// Fills the zero fields for m targets among n sources in precision p on the current device: K (4 in
// float, 2 in double) and B (128) shrink while the targets would leave lanes idle (m < B K); the split
// count is the one whose blocks fill whole waves of the device best, among those giving at most 4 waves
// (fewer splits win near-ties: less partial-sum traffic). Throws nbody::Error on a bad explicit value.
JerkLaunch resolve_jerk_launch(JerkLaunch req, std::size_t m, std::size_t n, Precision p);

// "K=4 block=128 splits=6".
std::string to_string(const JerkLaunch& l);

// Vec4 elements of scratch a resolved launch needs for m targets: 2 splits m when splits > 1, else 0.
std::size_t jerk_scratch_count(const JerkLaunch& l, std::size_t m);

// acc[k] = G sum_{j != i} m_j r / (r^2 + eps2)^{3/2} and jerk[k] its time derivative
// (sim/gravity/interaction.hpp's add_interaction_jerk), for i = targets[k], k < m, r = xp[j] - xp[i],
// v = vp[j] - vp[i]. The source j == i is skipped by its index, so eps2 = 0 is fine. `l` resolved for
// (m, n); scratch holds jerk_scratch_count(l, m) items. `bad` (may be null): the failure flag
// (step_kernels.hpp); the kernels return at once when *bad < bad_before (an earlier step failed).
template <typename T>
void launch_jerks(const JerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
                  const std::uint32_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
                  Vec4<T>* scratch, const unsigned long long* bad, unsigned long long bad_before,
                  void* stream);

// ---- The device-planned launch, for the block loop that runs with no host round trip per block
// (hermite_steps.cu): the active count is known only on the device when its kernels start, so the launch
// is fixed (one wave of resident blocks per K, replayable in a CUDA graph) and each kernel reads the count
// and its plan from device memory. An item (a group of B K targets against one split of the sources) sums
// exactly as the host-shaped launch's block does, so for the same K, B and splits both give the same bits.

// The plan for every active count up to m_max (and above the previous entry's).
struct JerkPlan {
    std::uint32_t m_max = 0;
    std::int32_t bodies_per_thread = 1;  // K
    std::uint32_t splits = 1;            // source ranges launched (whole tiles each)
    std::uint64_t per_split = 0;         // sources per range, a multiple of the block
    std::int32_t lanes = 1;              // K = 1 only: threads per target, each summing its part of a tile
};

// The table for n sources: entries ascending in m_max, the last at n, each the plan for counts up to m_max.
struct JerkPlans {
    std::vector<JerkPlan> entries;
    int block = 0;            // threads per block, the same for every count
    int grid[3] = {0, 0, 0};  // blocks launched for K = 1, 2, 4 (0: no count uses that K)
    int sum_grid = 0;         // blocks of the split-sum kernel (every one an SM holds)
    bool summed = false;      // some count uses more than one split
    std::size_t scratch = 0;  // Vec4 elements of partial sums the largest plan needs
};
// The plan of one evaluation as the device chose it for its count (device memory, one per caller).
struct JerkChosen {
    std::uint32_t m;
    std::int32_t bodies_per_thread;
    std::uint32_t splits;
    std::uint32_t next_item;  // the items handed out so far
    std::uint64_t per_split;
    std::int32_t lanes;
    // With JerkLists: 1 where this evaluation builds the lists as it sums (lists_inline) or leaves them to
    // the list search (lists_separate), and the evaluations that built them so far (never reset).
    std::uint32_t lists_inline, lists_separate;
    std::uint64_t inline_count;
};

// The neighbour scheme's lists built by the planned evaluation as it sums (a plan with one thread a
// target: K = 1, no lanes, blocks of kJerkListBlock, and m x splits <= items): each target's sources of
// every split searched (list_tile.cuh, the list search's test) into ranges[(q splits + split) capacity]
// and counted at counts[q splits + split], for launch_join_ranges to join (neighbour_kernels.hpp). `lists`:
// the radius, regular level and capacity of each target; dt the max step; `items` the (target, split)
// ranges the scratch holds.
struct JerkLists {
    DeviceNeighbourLists lists;
    double dt = 0;
    std::uint32_t* ranges = nullptr;
    std::uint32_t* counts = nullptr;
    std::uint64_t items = 0;
};
inline constexpr int kJerkListBlock = 128;
// The most (target, split) ranges an evaluation with lists of the plans would use: the scratch that lets
// every count build its lists (its entries: this times the capacity).
std::size_t jerk_list_items(const JerkPlans& plans);
// Zero fields of `requested` automatic: K = 1 (one force+jerk launch per evaluation; with the items handed
// out by a counter it was the fastest K at every count measured), block 128, splits for at least 4 waves
// of items, and up to 1,024 targets 8, 4 or 2 threads sharing each target's tiles. Throws nbody::Error on a
// bad explicit value.
JerkPlans make_jerk_plans(const JerkLaunch& requested, std::size_t n, Precision p);
// "K=4 block=128 splits=6".
std::string to_string(const JerkPlan& e, int block);

// The force+jerk of the *active targets (a device count) as launch_jerks computes them, with the plan the
// table gives for that count (chosen on the device into *chosen); `device_plans` is a device copy of
// plans.entries, scratch holds plans.scratch items. Nothing runs when *active is 0.
// With `lists` (may be null), an evaluation whose plan has one thread a target also searches each
// target's sources for its neighbour list (JerkLists; chosen->lists_inline says so on the device).
template <typename T>
void launch_planned_jerks(const JerkPlans& plans, const JerkPlan* device_plans, JerkChosen* chosen,
                          const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n, const std::uint32_t* targets,
                          const std::uint32_t* active, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
                          Vec4<T>* scratch, void* stream, const JerkLists* lists = nullptr);

// ---- Every body at once, each pair once (cuda/pairwise_jerks.cu), for the blocks where all bodies are
// active: a start, and the last block of every max step. The kernels above sum each target against every
// source, so a pair is evaluated twice when both are targets; here a block takes two tiles of bodies and
// applies each pair to both (Newton's third law: the jerk is odd in r and v as the force is), as
// pairwise_forces.cu does for the force alone. Each body's sums from its partner tiles go to one slot each
// and are added in slot order: the same bits on every run, no atomics. Not the same bits as launch_jerks.

// K bodies per thread and B threads per block (tiles of B K bodies); both zero: chosen by plan_pair_jerks.
// `off`: never use the pairwise kernel (the benchmark's comparison).
struct PairJerkLaunch {
    int bodies_per_thread = 0;  // K: 1, 2 or 4 (4: float only)
    int block = 0;              // B: 64, 128 or 256
    bool off = false;
};

// The launch for all n bodies in precision p, or one with off set where the pairwise kernel should not
// run: fewer than 32,768 bodies or too few tile pairs to fill the device (the planned one-sided kernel
// serves small n faster; neither checked for an explicit K and B), or more partial sums than the pairwise
// force kernels' budget (max_pairwise_grid_bytes: 1/16 of the device's memory, at most 2 GiB; large n).
// Depends on n, p and the device alone, so a run and its restart on one device choose alike. Throws
// nbody::Error on a bad explicit value.
PairJerkLaunch plan_pair_jerks(PairJerkLaunch req, std::size_t n, Precision p);
// "pairwise K=4 block=256", or "off".
std::string to_string(const PairJerkLaunch& l);
// Vec4 elements of scratch a launch needs for n bodies: 2 x tiles x n.
std::size_t pair_jerk_scratch_count(const PairJerkLaunch& l, std::size_t n);

// acc[i], jerk[i] as launch_jerks gives them for the targets 0..n-1 in body order (G included, j == i
// skipped by index), each pair evaluated once. `live` (may be null): nothing runs when *live is 0 (the
// block clock's, hermite_steps.cu). scratch holds pair_jerk_scratch_count(l, n) items.
template <typename T>
void launch_pair_jerks(const PairJerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n, T G,
                       T eps2, Vec4<T>* acc, Vec4<T>* jerk, Vec4<T>* scratch, const std::uint32_t* live,
                       void* stream);

}  // namespace nbody
