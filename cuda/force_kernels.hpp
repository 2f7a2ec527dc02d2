#pragma once
// The all-pairs force kernels' host interface (internal to cuda/ and its tests; no CUDA headers).
//
// The tuned kernel gives each thread K i-bodies (so every shared-memory load of a j-body feeds K
// interactions) and can split each body's j-sum over `splits` blocks, which write partial sums that a
// second kernel adds in a fixed order (deterministic). Splitting is what fills 132 SMs at N = 16K.
#include <cstddef>
#include <string>

#include "sim/state.hpp"

namespace nbody {

enum class ForceKernel {
    automatic,      // resolve_force_launch picks from the measured table in cuda/force_choice.hpp
    tuned,          // cuda/force_kernels.cu: one-sided tiles, K bodies per thread, optional j-splits
    pairwise,       // cuda/pairwise_forces.cu: each pair once, one launch per tournament round (no scratch)
    pairwise_grid,  // the same tile pairs in bands of `splits` tiles, partial sums per partner tile, few
                    // launches
};

// A launch shape. Zero fields are chosen by resolve_force_launch from N, the precision and the device.
struct ForceLaunch {
    ForceKernel kernel = ForceKernel::automatic;
    int bodies_per_thread = 0;  // K: 1, 2, 4 or 8; the pairwise kernels 2, 4, 8 or 12 (8 and 12: fp32;
                                // 12: blocks of at most 128)
    int block = 0;              // threads per block: a multiple of 32 in [32, 256]
    int splits = 0;             // tuned: blocks sharing one body's j-sum (1 = no partial sums);
                                // pairwise_grid: tiles per band (partial sums kept per body at once)
};

// Fills the zero fields of `req` for n bodies on the current device; throws nbody::Error on a bad
// explicit value (K not in {1,2,4,8}, or {2,4,8,12} for the pairwise kernels (8 and 12 in fp32 only, 12
// with blocks of at most 128), block not a multiple of 32 in [32, 256], splits < 0).
ForceLaunch resolve_force_launch(ForceLaunch req, std::size_t n, Precision p);

// "tuned K=4 block=128 splits=8".
std::string to_string(const ForceLaunch& l);

// Vec4<T> elements of scratch the launch needs for its partial sums (0 when splits == 1).
std::size_t force_scratch_count(const ForceLaunch& l, std::size_t n);

// Whether the kernel must clamp the per-pair factor to stay finite for the self-term (eps = 0, or an
// eps so small that m / eps^3 overflows T). Decided on the host from eps^2 and the largest mass.
bool force_needs_guard(double eps2, double max_mass, Precision p);

// acc[i] = G * sum_{j != i} m_j (x_j - x_i) / (|x_j - x_i|^2 + eps2)^(3/2), all pointers on the device.
// `bad` (may be null): the device's failure flag (see step_kernels.hpp); the kernels return at once when
// *bad < bad_before, i.e. when an earlier step already failed. `stream` is a cudaStream_t. The launch `l`
// must be resolved; scratch holds force_scratch_count(l, n) items.
template <typename T>
void launch_forces(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch, std::size_t n,
                   T G, T eps2, bool guard, const unsigned long long* bad, unsigned long long bad_before,
                   void* stream);

// acc[i] = G * sum_j m_j (x_j - targets_i) / (|x_j - targets_i|^2 + eps2)^(3/2) for m targets that are
// not the sources (a rank's own slice against every body under MPI): the tuned tiled kernel, several
// targets per thread, one launch, no scratch. A source exactly at a target adds 0 (the guard is always
// on: the sources' largest mass is not known here). Worth it from a few thousand targets; fewer leave
// SMs idle (use launch_field, which splits the sources).
template <typename T>
void launch_forces_at_targets(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m,
                              Vec4<T>* acc, T G, T eps2, void* stream);

// The pairwise kernels (cuda/pairwise_forces.cu), called by launch_forces for ForceKernel::pairwise (a
// diagonal launch, then one launch per round of a round-robin tournament over the tiles) and
// ForceKernel::pairwise_grid (all tile pairs in passes over bands of tiles, partial sums into scratch, a
// fixed-order sum after each pass).
template <typename T>
void launch_pairwise_forces(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch,
                            std::size_t n, T G, T eps2, bool guard, const unsigned long long* bad,
                            unsigned long long bad_before, void* stream);

// One share of launch_pairwise_forces' work for processes that each hold all n bodies (MPI ranks on their
// own GPUs): the grid schedule's passes p with p % shares == share, on bands of about tiles / (2 shares)
// tiles (about two passes per share; fewer where the tiles are few) whatever the device, so that every
// process cuts the same passes. acc gets that share's partial sums for all n bodies (0 where it has none):
// the shares' acc added up are the accelerations. `l`: a resolved pairwise_grid launch; scratch holds
// pairwise_share_scratch_count(l, n, shares, precision) items.
template <typename T>
void launch_pairwise_forces_share(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch,
                                  std::size_t n, T G, T eps2, bool guard, int share, int shares,
                                  void* stream);
std::size_t pairwise_share_scratch_count(const ForceLaunch& l, std::size_t n, int shares, Precision p);
// Vec4 elements of scratch a pairwise launch needs: band tiles x n for pairwise_grid, else 0.
std::size_t pairwise_scratch_count(const ForceLaunch& l, std::size_t n);

// The scratch budget of the grid schedule's partial sums on the current device (1/16 of its memory, at
// most 2 GiB): the automatic band size is the most tiles whose partial sums fit it.
double max_pairwise_grid_bytes();
// The most partial sums any grid launch keeps at once (its single-process budget's cap, and a share's).
inline constexpr double kMaxPairwiseScratchBytes = 2.0 * (1u << 30);

}  // namespace nbody
