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

}  // namespace nbody
