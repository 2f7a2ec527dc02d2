// The pairwise (Newton's third law) force kernels: every pair is evaluated once and applied to both
// bodies, in float and double. Built with -ftz=true (see CMakeLists), like force_kernels.cu.
// Deterministic: no atomics; every sum has a fixed order.
//
// Bodies are split into T tiles of S = W x 32 x K bodies (W warps per block, K i-bodies per lane). A
// block evaluates one tile pair (A, B) (tile_pair below) or one tile against itself (diagonal_tile). Two
// schedules put the tile pairs on the device:
//
// - rounds: a diagonal launch WRITES acc; then T' - 1 rounds of a round-robin tournament (T' = T rounded
//   up to even, the extra tile a bye) each launch one block per tile pair, a perfect matching, so within
//   a round every tile belongs to exactly one block, which ADDS its results into both tiles with plain
//   loads and stores. Kernel boundaries order the rounds. Needs no scratch, but a round has only T / 2
//   blocks: few at moderate N.
// - grid (in bands): the tiles are grouped into G bands of M consecutive tiles. Pass 0 launches, in one
//   go, every tile pair inside each band and the T diagonal tiles; pass r (1 <= r < G', G' = G rounded up
//   to even) launches the M x M tile pairs of the band pairs of round r - 1 of a tournament over the bands.
//   The block for (A, B) WRITES A's sums to partial[B mod M][A's bodies] and B's to partial[A mod M][B's
//   bodies] (a diagonal tile A writes partial[A mod M][A's bodies]): within a pass every slot is written
//   once, no atomics. After each pass sum_band adds each body's slots in slot order into acc (pass 0
//   writes acc). M x N scratch; with one band (M = T) this is a single launch over all T (T + 1) / 2
//   blocks, and M is the largest the scratch budget allows, so every pass fills the device.
//
// Inside a block for the pair (A, B): lane l of warp w holds K bodies of A in registers. B streams
// through shared memory in chunks of W x 32 bodies (K chunks). In phase p warp w takes sub-tile
// u = (w + p) mod W of the chunk; at step s lane l takes body j = (l + s) mod 32 of it and keeps that
// body's accumulator in registers, rotating it one lane down after each step (__shfl_sync), so after
// 32 steps lane l holds body l's sum and adds it into the chunk's shared accumulator: one warp per
// sub-tile per phase, barriers between phases, a fixed order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cuda/std/limits>

#include "cuda_check.hpp"
#include "force_kernels.hpp"
#include "launch.cuh"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"
#include "tile_pairs.cuh"

namespace nbody {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr unsigned kMaxWarps = 8;  // blocks of up to 256 threads

// __launch_bounds__ per K. K <= 8: blocks of up to 256 threads, registers left to ptxas (fp32 K = 8: 103
// in the one-band grid kernel, 126 in the band pairs: 4 blocks of 128 per SM). K = 12 (fp32 only): blocks
// of up to 128 threads, 4 per SM, i.e. at most 128 registers (127, no spills in the band pairs), where
// ptxas left alone takes 184-255 and halves the blocks per SM (CUDA_NOTES v12). A minimum of 0 blocks
// is the same as none: ptxas keeps its K <= 8 schedules unchanged.
template <int K>
constexpr unsigned kPairMaxThreads = K > 8 ? 128 : 32 * kMaxWarps;
template <int K>
constexpr unsigned kPairMinBlocks = K > 8 ? 4 : 0;

// Pair index k of round r of the circle method over tp (even) tiles: tile tp - 1 stays fixed.
__device__ __forceinline__ void round_pair(unsigned r, unsigned k, unsigned tp, unsigned& a, unsigned& b) {
    const unsigned m = tp - 1;
    if (k == 0) {
        a = r, b = m;
    } else {
        a = (r + k) % m, b = (r + m - k) % m;
    }
}

// One pair, both sides: r = x_j - x_i, a_i += m_j r / |r|^3, a_j -= m_i r / |r|^3, with the factors
// m (inv inv^2): 4 multiplies per pair where (m inv) inv^2 twice takes 5 (measured +4-6%, CUDA_NOTES v8).
// A zero mass gives exactly 0 while inv^3 is finite, which force_needs_guard ensures for every pair but
// the self-term (eps^-3 far below overflow), so the padding bodies add nothing.
template <typename T, bool kGuard>
__device__ __forceinline__ void pair(const Vec4<T>& pj, T xi, T yi, T zi, T mi, T eps2, T& ax, T& ay, T& az,
                                     T& jx, T& jy, T& jz) {
    const T dx = pj.x - xi, dy = pj.y - yi, dz = pj.z - zi;
    const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
    const T inv3 = inv * (inv * inv);
    T si = pj.w * inv3, sj = mi * inv3;
    if constexpr (kGuard)
        si = fmin(si, cuda::std::numeric_limits<T>::max()),
        sj = fmin(sj, cuda::std::numeric_limits<T>::max());
    ax = fma(dx, si, ax);
    ay = fma(dy, si, ay);
    az = fma(dz, si, az);
    jx = fma(-dx, sj, jx);
    jy = fma(-dy, sj, jy);
    jz = fma(-dz, sj, jz);
}

template <typename T>
__device__ __forceinline__ Vec4<T> load_body(const Vec4<T>* pos, std::size_t i, std::size_t n) {
    return i < n ? pos[i] : Vec4<T>{T(0), T(0), T(0), T(0)};
}

// out[i] = G a (kAdd false) or out[i] += G a (kAdd true), for i < n.
template <bool kAdd, typename T>
__device__ __forceinline__ void store(Vec4<T>* out, std::size_t i, std::size_t n, T G, T ax, T ay, T az) {
    if (i >= n) return;
    if constexpr (kAdd) {
        Vec4<T> a = out[i];
        a.x += G * ax, a.y += G * ay, a.z += G * az;
        out[i] = a;
    } else {
        out[i] = Vec4<T>{G * ax, G * ay, G * az, T(0)};
    }
}

// Tile t against itself, one-sidedly (j == i skipped by index): out[i] = G a_i for the tile's bodies.
// Thread (w, l) owns i = t S + w 32 K + k 32 + l. `tile`: blockDim.x bodies of shared memory.
template <typename T, int K, bool kGuard>
__device__ __forceinline__ void diagonal_tile(const Vec4<T>* __restrict__ pos, std::size_t n, unsigned t,
                                              Vec4<T>* __restrict__ out, T G, T eps2, Vec4<T>* tile) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, B = blockDim.x;
    const std::size_t S = std::size_t(B) * K, t0 = std::size_t(t) * S;
    T xi[K], yi[K], zi[K], ax[K], ay[K], az[K];
    std::size_t idx[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        idx[k] = t0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane;
        const Vec4<T> p = load_body(pos, idx[k], n);
        xi[k] = p.x, yi[k] = p.y, zi[k] = p.z;
        ax[k] = ay[k] = az[k] = T(0);
    }
    for (unsigned c = 0; c < K; ++c) {
        const std::size_t c0 = t0 + std::size_t(c) * B;
        tile[threadIdx.x] = load_body(pos, c0 + threadIdx.x, n);
        __syncthreads();
#pragma unroll 4
        for (unsigned jj = 0; jj < B; ++jj) {
            const Vec4<T> pj = tile[jj];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const T dx = pj.x - xi[k], dy = pj.y - yi[k], dz = pj.z - zi[k];
                T r2 = softened_distance2(dx, dy, dz, eps2);
                if (c0 + jj == idx[k]) r2 = T(1);  // the self-term: r = 0, so it adds exactly 0
                T s = interaction_weight(pj.w, inv_sqrt(r2));
                if constexpr (kGuard) s = fmin(s, cuda::std::numeric_limits<T>::max());
                ax[k] = fma(dx, s, ax[k]);
                ay[k] = fma(dy, s, ay[k]);
                az[k] = fma(dz, s, az[k]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < K; ++k) store<false>(out, idx[k], n, G, ax[k], ay[k], az[k]);
}

// The tile pair (ta, tb): A's sums go to out_a[i], B's to out_b[j] (added when kAdd, written otherwise).
// Shared memory: the chunk twice per sub-tile (spos[u][0..63], so lane + s needs no wrap) and the
// chunk's j accumulators.
template <typename T, int K, bool kGuard, bool kAdd>
__device__ __forceinline__ void tile_pair(const Vec4<T>* __restrict__ pos, std::size_t n, unsigned ta,
                                          unsigned tb, Vec4<T>* __restrict__ out_a,
                                          Vec4<T>* __restrict__ out_b, T G, T eps2, Vec4<T>* spos,
                                          T (*jacc)[32 * kMaxWarps]) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, B = blockDim.x, W = B >> 5;
    const std::size_t S = std::size_t(B) * K, a0 = std::size_t(ta) * S, b0 = std::size_t(tb) * S;
    T xi[K], yi[K], zi[K], mi[K], ax[K], ay[K], az[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const Vec4<T> p = load_body(pos, a0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane, n);
        xi[k] = p.x, yi[k] = p.y, zi[k] = p.z, mi[k] = p.w;
        ax[k] = ay[k] = az[k] = T(0);
    }

    Vec4<T> next = load_body(pos, b0 + threadIdx.x, n);
    for (unsigned c = 0; c < K; ++c) {
        const std::size_t c0 = b0 + std::size_t(c) * B;
        spos[warp * 64 + lane] = next;
        spos[warp * 64 + lane + 32] = next;
        jacc[0][threadIdx.x] = jacc[1][threadIdx.x] = jacc[2][threadIdx.x] = T(0);
        __syncthreads();
        if (c + 1 < K) next = load_body(pos, c0 + B + threadIdx.x, n);
        for (unsigned p = 0; p < W; ++p) {
            const unsigned u = (warp + p) % W;
            const Vec4<T>* sp = spos + u * 64 + lane;
            T jx = T(0), jy = T(0), jz = T(0);
#pragma unroll 8
            for (unsigned s = 0; s < 32; ++s) {
                const Vec4<T> pj = sp[s];
#pragma unroll
                for (int k = 0; k < K; ++k)
                    pair<T, kGuard>(pj, xi[k], yi[k], zi[k], mi[k], eps2, ax[k], ay[k], az[k], jx, jy, jz);
                // Pass body (l + s)'s sum to lane l - 1, whose next body it is.
                jx = __shfl_sync(kFullMask, jx, (lane + 1) & 31u);
                jy = __shfl_sync(kFullMask, jy, (lane + 1) & 31u);
                jz = __shfl_sync(kFullMask, jz, (lane + 1) & 31u);
            }
            // After 32 rotations lane l holds body l's sum; warp w alone owns sub-tile u in this phase.
            jacc[0][u * 32 + lane] += jx;
            jacc[1][u * 32 + lane] += jy;
            jacc[2][u * 32 + lane] += jz;
            __syncthreads();
        }
        store<kAdd>(out_b, c0 + threadIdx.x, n, G, jacc[0][threadIdx.x], jacc[1][threadIdx.x],
                    jacc[2][threadIdx.x]);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
        store<kAdd>(out_a, a0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane, n, G, ax[k], ay[k],
                    az[k]);
    }
}

template <typename T, int K, bool kGuard>
__global__ void __launch_bounds__(kPairMaxThreads<K>, kPairMinBlocks<K>)
    pairwise_diagonal(const Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ acc, std::size_t n, T G, T eps2,
                      const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    __shared__ Vec4<T> tile[32 * kMaxWarps];
    if (bad && *bad < bad_before) return;  // the same for the whole block: no barrier is skipped by half
    diagonal_tile<T, K, kGuard>(pos, n, blockIdx.x, acc, G, eps2, tile);
}

// One round of the tournament: block k takes the tile pair k of round r and adds both sides into acc.
template <typename T, int K, bool kGuard>
__global__ void __launch_bounds__(kPairMaxThreads<K>, kPairMinBlocks<K>)
    pairwise_round(const Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ acc, std::size_t n,
                   unsigned n_tiles, unsigned tp, unsigned round, T G, T eps2,
                   const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    __shared__ Vec4<T> spos[64 * kMaxWarps];
    __shared__ T jacc[3][32 * kMaxWarps];
    if (bad && *bad < bad_before) return;
    unsigned ta = 0, tb = 0;
    round_pair(round, blockIdx.x, tp, ta, tb);
    if (ta >= n_tiles || tb >= n_tiles) return;  // a bye
    tile_pair<T, K, kGuard, true>(pos, n, ta, tb, acc, acc, G, eps2, spos, jacc);
}

// The band partner of band g in round r of the tournament over gp (even) bands (see round_pair).
__device__ __forceinline__ unsigned band_partner(unsigned g, unsigned r, unsigned gp) {
    const unsigned m = gp - 1;
    if (g == m) return r;
    if (g == r) return m;
    return (2 * r + m - g) % m;
}

// The grid schedule with one band (M = T): every tile pair and diagonal tile in one launch, blocks
// [0, n_pairs) the pairs (heavier: first), the rest the diagonal tiles. The multi-band pass-0 kernel below
// does the same per band but measured 3-4% slower at one band in fp32 (another ptxas schedule), so one
// band keeps this kernel.
template <typename T, int K, bool kGuard>
__global__ void __launch_bounds__(kPairMaxThreads<K>, kPairMinBlocks<K>)
    pairwise_grid(const Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ partial, std::size_t n,
                  unsigned n_pairs, T G, T eps2, const unsigned long long* __restrict__ bad,
                  unsigned long long bad_before) {
    __shared__ Vec4<T> spos[64 * kMaxWarps];
    __shared__ T jacc[3][32 * kMaxWarps];
    if (bad && *bad < bad_before) return;
    if (blockIdx.x < n_pairs) {
        unsigned ta = 0, tb = 0;
        grid_pair(blockIdx.x, ta, tb);
        tile_pair<T, K, kGuard, false>(pos, n, ta, tb, partial + std::size_t(tb) * n,
                                       partial + std::size_t(ta) * n, G, eps2, spos, jacc);
    } else {
        const unsigned t = blockIdx.x - n_pairs;
        diagonal_tile<T, K, kGuard>(pos, n, t, partial + std::size_t(t) * n, G, eps2, spos);
    }
}

// Pass 0 of the grid schedule (see the top of the file): band blockIdx.y of m tiles (the bodies from
// `start` on, written as a smaller problem of its own): its m (m - 1) / 2 tile pairs, then its m diagonal
// tiles. (ptxas: with the band decoded from a 1-D block index this kernel took 128-137 registers in fp32
// K = 8, a block of 128 less per SM, where the 2-D grid gives ~105.)
template <typename T, int K, bool kGuard>
__global__ void __launch_bounds__(kPairMaxThreads<K>, kPairMinBlocks<K>)
    pairwise_band_inner(const Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ partial, std::size_t n,
                        unsigned n_tiles, unsigned m, T G, T eps2, const unsigned long long* __restrict__ bad,
                        unsigned long long bad_before) {
    __shared__ Vec4<T> spos[64 * kMaxWarps];
    __shared__ T jacc[3][32 * kMaxWarps];
    if (bad && *bad < bad_before) return;
    const unsigned inner = m * (m - 1) / 2, g = blockIdx.y, k = blockIdx.x;
    const std::size_t start = std::size_t(g) * m * (blockDim.x * K);
    const unsigned tiles = min(m, n_tiles - g * m);
    const Vec4<T>* band_pos = pos + start;  // partial[slot][body] keeps its stride n
    Vec4<T>* band_partial = partial + start;
    const std::size_t band_n = n - start;
    if (k < inner) {
        unsigned ta = 0, tb = 0;
        grid_pair(k, ta, tb);
        if (tb >= tiles) return;  // the last band may be short
        tile_pair<T, K, kGuard, false>(band_pos, band_n, ta, tb, band_partial + std::size_t(tb) * n,
                                       band_partial + std::size_t(ta) * n, G, eps2, spos, jacc);
    } else {
        const unsigned t = k - inner;
        if (t >= tiles) return;
        diagonal_tile<T, K, kGuard>(band_pos, band_n, t, band_partial + std::size_t(t) * n, G, eps2, spos);
    }
}

// Pass r >= 1: the m x m tile pairs of band pair blockIdx.y of round r - 1 of the tournament over gp (even)
// bands.
template <typename T, int K, bool kGuard>
__global__ void __launch_bounds__(kPairMaxThreads<K>, kPairMinBlocks<K>)
    pairwise_band_pair(const Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ partial, std::size_t n,
                       unsigned n_tiles, unsigned m, unsigned gp, unsigned round, T G, T eps2,
                       const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    __shared__ Vec4<T> spos[64 * kMaxWarps];
    __shared__ T jacc[3][32 * kMaxWarps];
    if (bad && *bad < bad_before) return;
    unsigned ga = 0, gb = 0;
    round_pair(round, blockIdx.y, gp, ga, gb);
    const unsigned la = blockIdx.x % m, lb = blockIdx.x / m;       // consecutive blocks share tile b
    if (ga * m + la >= n_tiles || gb * m + lb >= n_tiles) return;  // past the last tile, or a bye band
    tile_pair<T, K, kGuard, false>(pos, n, ga * m + la, gb * m + lb, partial + std::size_t(lb) * n,
                                   partial + std::size_t(la) * n, G, eps2, spos, jacc);
}

// After pass `pass`: acc[i] (pass 0: =, later: +=) the sum of body i's slots from its partner band, in
// slot order. Bodies whose band had a bye in this pass are left alone.
template <typename T>
__global__ void sum_band(const Vec4<T>* __restrict__ partial, Vec4<T>* __restrict__ acc, std::size_t n,
                         std::size_t tile_size, unsigned n_tiles, unsigned m, unsigned gp, unsigned pass,
                         const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    const unsigned g = unsigned(i / tile_size) / m;
    const unsigned partner = pass == 0 ? g : band_partner(g, pass - 1, gp);
    if (std::size_t(partner) * m >= n_tiles) return;  // a bye
    const unsigned slots = min(m, n_tiles - partner * m);
    T x = 0, y = 0, z = 0;
    for (unsigned s = 0; s < slots; ++s) {
        const Vec4<T> p = partial[std::size_t(s) * n + i];
        x += p.x, y += p.y, z += p.z;
    }
    if (pass == 0) {
        acc[i] = Vec4<T>{x, y, z, T(0)};
    } else {
        Vec4<T> a = acc[i];
        a.x += x, a.y += y, a.z += z;
        acc[i] = a;
    }
}

std::size_t tile_count(const ForceLaunch& l, std::size_t n) {
    const std::size_t S = std::size_t(l.block) * l.bodies_per_thread;
    return (n + S - 1) / S;
}

// Tiles per band of the grid schedule (ForceLaunch::splits, resolved), at most the tile count.
std::size_t band_tiles(const ForceLaunch& l, std::size_t n) {
    return std::max<std::size_t>(1,
                                 std::min<std::size_t>(std::size_t(std::max(l.splits, 1)), tile_count(l, n)));
}

// `share` of `shares` (grid schedule only): the passes p with p % shares == share; acc starts at zero where
// this share does not hold pass 0 (which writes acc), so the shares' acc add up to the whole sum.
template <typename T, int K, bool kGuard>
void launch_schedule(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch, std::size_t n,
                     T G, T eps2, const unsigned long long* bad, unsigned long long bad_before,
                     cudaStream_t stream, unsigned share = 0, unsigned shares = 1) {
    const unsigned block = unsigned(l.block);
    const unsigned n_tiles = unsigned(tile_count(l, n));
    if (l.kernel == ForceKernel::pairwise_grid) {
        const unsigned m = unsigned(std::min<std::size_t>(band_tiles(l, n), n_tiles));
        const unsigned bands = (n_tiles + m - 1) / m, gp = bands + (bands & 1u);
        const std::size_t S = std::size_t(block) * K;
        if (share != 0) CUDA_CHECK(cudaMemsetAsync(acc, 0, n * sizeof(Vec4<T>), stream));
        for (unsigned pass = share; pass < (bands == 1 ? 1u : gp); pass += shares) {
            if (bands == 1) {
                const unsigned n_pairs = unsigned(std::size_t(n_tiles) * (n_tiles - 1) / 2);
                launch_kernel(pairwise_grid<T, K, kGuard>, dim3(n_pairs + n_tiles), dim3(block), 0, stream,
                              pos, scratch, n, n_pairs, G, eps2, bad, bad_before);
            } else if (pass == 0) {
                launch_kernel(pairwise_band_inner<T, K, kGuard>, dim3(m * (m - 1) / 2 + m, bands),
                              dim3(block), 0, stream, pos, scratch, n, n_tiles, m, G, eps2, bad, bad_before);
            } else {
                launch_kernel(pairwise_band_pair<T, K, kGuard>, dim3(m * m, gp / 2), dim3(block), 0, stream,
                              pos, scratch, n, n_tiles, m, gp, pass - 1, G, eps2, bad, bad_before);
            }
            launch_kernel(sum_band<T>, dim3(blocks_for(n, 256)), dim3(256), 0, stream, scratch, acc, n, S,
                          n_tiles, m, gp, pass, bad, bad_before);
        }
        return;
    }
    launch_kernel(pairwise_diagonal<T, K, kGuard>, dim3(n_tiles), dim3(block), 0, stream, pos, acc, n, G,
                  eps2, bad, bad_before);
    if (n_tiles < 2) return;
    const unsigned tp = n_tiles + (n_tiles & 1u);
    for (unsigned r = 0; r + 1 < tp; ++r) {
        launch_kernel(pairwise_round<T, K, kGuard>, dim3(tp / 2), dim3(block), 0, stream, pos, acc, n,
                      n_tiles, tp, r, G, eps2, bad, bad_before);
    }
}

template <typename T, bool kGuard>
void launch_k(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch, std::size_t n, T G,
              T eps2, const unsigned long long* bad, unsigned long long bad_before, cudaStream_t stream,
              unsigned share, unsigned shares) {
    switch (l.bodies_per_thread) {
        case 2:
            return launch_schedule<T, 2, kGuard>(l, pos, acc, scratch, n, G, eps2, bad, bad_before, stream,
                                                 share, shares);
        case 4:
            return launch_schedule<T, 4, kGuard>(l, pos, acc, scratch, n, G, eps2, bad, bad_before, stream,
                                                 share, shares);
        // fp64 at K = 8 needs ~255 registers and spills: K = 8 and 12 are not instantiated in double
        // (resolve_force_launch refuses them).
        case 8:
            if constexpr (sizeof(T) == 4) {
                return launch_schedule<T, 8, kGuard>(l, pos, acc, scratch, n, G, eps2, bad, bad_before,
                                                     stream, share, shares);
            }
            [[fallthrough]];
        case 12:
            if constexpr (sizeof(T) == 4) {
                return launch_schedule<T, 12, kGuard>(l, pos, acc, scratch, n, G, eps2, bad, bad_before,
                                                      stream, share, shares);
            }
            [[fallthrough]];
        default:
            throw Error("force kernel: pairwise bodies per thread must be 2, 4, 8 or 12");
    }
}

// The launch for one share (launch_pairwise_forces_share): bands of about tiles / (2 shares) tiles, so
// that each share gets about two passes, and at most kMaxPairwiseScratchBytes of partial sums. Every
// process must cut the same passes, so nothing here depends on the device (the single-process band does:
// its budget is a share of the device's memory).

ForceLaunch share_launch(const ForceLaunch& l, std::size_t n, int shares, std::size_t body_bytes) {
    ForceLaunch shared = l;
    const std::size_t tiles = tile_count(l, n), want = 2 * std::size_t(shares);
    const std::size_t fit =
        std::size_t(std::max(1.0, kMaxPairwiseScratchBytes / (double(n) * double(body_bytes))));
    shared.splits = int(std::min({tiles, fit, std::max<std::size_t>(1, (tiles + want - 1) / want)}));
    return shared;
}

template <typename T>
void launch_guarded(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch, std::size_t n,
                    T G, T eps2, bool guard, const unsigned long long* bad, unsigned long long bad_before,
                    void* stream, int share, int shares) {
    if (n == 0) return;
    const auto s = static_cast<cudaStream_t>(stream);
    if (guard) {
        launch_k<T, true>(l, pos, acc, scratch, n, G, eps2, bad, bad_before, s, unsigned(share),
                          unsigned(shares));
    } else {
        launch_k<T, false>(l, pos, acc, scratch, n, G, eps2, bad, bad_before, s, unsigned(share),
                           unsigned(shares));
    }
}

}  // namespace

std::size_t pairwise_scratch_count(const ForceLaunch& l, std::size_t n) {
    return l.kernel == ForceKernel::pairwise_grid && n > 0 ? band_tiles(l, n) * n : 0;
}

std::size_t pairwise_share_scratch_count(const ForceLaunch& l, std::size_t n, int shares, Precision p) {
    if (l.kernel != ForceKernel::pairwise_grid || n == 0) return 0;
    const std::size_t body_bytes = p == Precision::f32 ? sizeof(Vec4<float>) : sizeof(Vec4<double>);
    return std::size_t(share_launch(l, n, shares, body_bytes).splits) * n;
}

template <typename T>
void launch_pairwise_forces(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch,
                            std::size_t n, T G, T eps2, bool guard, const unsigned long long* bad,
                            unsigned long long bad_before, void* stream) {
    launch_guarded<T>(l, pos, acc, scratch, n, G, eps2, guard, bad, bad_before, stream, 0, 1);
}

template <typename T>
void launch_pairwise_forces_share(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch,
                                  std::size_t n, T G, T eps2, bool guard, int share, int shares,
                                  void* stream) {
    if (l.kernel != ForceKernel::pairwise_grid || shares < 1 || share < 0 || share >= shares) {
        throw Error("force kernel: a share of the work needs the pairwise grid and 0 <= share < shares");
    }
    launch_guarded<T>(share_launch(l, n, shares, sizeof(Vec4<T>)), pos, acc, scratch, n, G, eps2, guard,
                      nullptr, 0, stream, share, shares);
}

template void launch_pairwise_forces<float>(const ForceLaunch&, const Vec4<float>*, Vec4<float>*,
                                            Vec4<float>*, std::size_t, float, float, bool,
                                            const unsigned long long*, unsigned long long, void*);
template void launch_pairwise_forces<double>(const ForceLaunch&, const Vec4<double>*, Vec4<double>*,
                                             Vec4<double>*, std::size_t, double, double, bool,
                                             const unsigned long long*, unsigned long long, void*);
template void launch_pairwise_forces_share<float>(const ForceLaunch&, const Vec4<float>*, Vec4<float>*,
                                                  Vec4<float>*, std::size_t, float, float, bool, int, int,
                                                  void*);
template void launch_pairwise_forces_share<double>(const ForceLaunch&, const Vec4<double>*, Vec4<double>*,
                                                   Vec4<double>*, std::size_t, double, double, bool, int, int,
                                                   void*);

}  // namespace nbody
