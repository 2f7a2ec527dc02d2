// The Hermite force+jerk of every body at once, each pair evaluated once and applied to both bodies
// (jerk_kernels.hpp, "every body at once"). Built with -ftz=true (see CMakeLists), as jerk_kernels.cu.
// Deterministic: no atomics; every sum has a fixed order.
//
// Cost per pair in float: 33 FP32 instructions for both sides (6 FADD for r and v, 3 FFMA for r^2 + eps^2,
// 2 FMUL for inv^2 and inv^3, 5 for r.v and alpha, 3 FFMA for v - alpha r, 2 FMUL for the two weights,
// 12 FFMA for the two accelerations and jerks) and one MUFU.RSQ, against 2 x 26 when each side is summed
// on its own (jerk_kernels.cu); plus 6 / K shuffles and 2 / K shared-memory loads per pair. Prediction
// (docs/PERFORMANCE.md, issue 21): ~1.4x the one-sided kernel's interactions/s.
//
// The bodies are cut into T tiles of S = B K bodies (B threads, K bodies per lane); one launch runs every
// tile pair (A, B), A < B, and every tile against itself, as pairwise_forces.cu's one-band grid schedule
// does. The block for (A, B) writes A's sums to slot B of its bodies and B's sums to slot A; tile A against
// itself (one-sided, j == i skipped by index) writes slot A. So every body gets exactly T slots, each
// written once, and a second kernel adds them in slot order and scales by G.
//
// Inside the block for (A, B): lane l of warp w holds K bodies of A in registers. B streams through
// shared memory in chunks of B bodies (K chunks). In phase p warp w takes sub-tile u = (w + p) mod W of the
// chunk; at step s lane l takes its body (l + s) mod 32 and keeps that body's sums in registers, rotating
// them one lane down after each step, so after 32 steps lane l holds body l's sums and adds them into the
// chunk's shared sums: one warp per sub-tile per phase, barriers between phases, a fixed order.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "force_kernels.hpp"
#include "jerk_kernels.hpp"
#include "launch.cuh"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"
#include "tile_pairs.cuh"

namespace nbody {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr unsigned kMaxBlock = 256;
constexpr unsigned kSumBlock = 256;
// The automatic choice: at least this many bodies, and a shape that fills the device at least once.
// Measured on the H100 (docs/PERFORMANCE.md, issue 21), whole all-active blocks in float: at 16,384
// bodies the evaluation gains ~0.08 ms (0.34 -> 0.26 ms, K = 2, 256 threads) and the host's run of that
// block (one more graph launch and read-back) costs 0.06-0.15 ms: a wash; at 32,768 it gains 0.35 ms
// (1.23 -> 0.88 ms whole block, K = 4: 2 waves).
constexpr std::size_t kMinBodies = 32768;
constexpr double kMinWaves = 1;

// One pair, both sides, for r = x_j - x_i and v = v_j - v_i: i gets m_j inv^3 (r, v - alpha r), j the same
// with -m_i (force and jerk are odd in (r, v)); alpha = 3 (r.v) inv^2 as in add_interaction_jerk.
// s[0..2] acceleration, s[3..5] jerk, both divided by G. inv^3 is formed once for both sides, where the
// one-sided kernel forms (m inv) inv^2: in float at eps = 0 it overflows for r below ~1e-13, where the
// one-sided sum could stay finite (a massless body there gets 0 x inf); unreachable at any sane scale.
template <typename T>
__device__ __forceinline__ void pair_jerk(const Vec4<T>& pj, const Vec4<T>& vj, const T (&bi)[7], T eps2,
                                          T (&si)[6], T (&sj)[6]) {
    const T dx = pj.x - bi[0], dy = pj.y - bi[1], dz = pj.z - bi[2];
    const T dvx = vj.x - bi[4], dvy = vj.y - bi[5], dvz = vj.z - bi[6];
    const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
    const T inv2 = inv * inv;
    const T inv3 = inv * inv2;
    const T alpha = T(3) * fma(dx, dvx, fma(dy, dvy, dz * dvz)) * inv2;
    const T cx = fma(-alpha, dx, dvx), cy = fma(-alpha, dy, dvy), cz = fma(-alpha, dz, dvz);
    const T wi = pj.w * inv3, wj = -(bi[3] * inv3);
    si[0] = fma(wi, dx, si[0]), si[1] = fma(wi, dy, si[1]), si[2] = fma(wi, dz, si[2]);
    si[3] = fma(wi, cx, si[3]), si[4] = fma(wi, cy, si[4]), si[5] = fma(wi, cz, si[5]);
    sj[0] = fma(wj, dx, sj[0]), sj[1] = fma(wj, dy, sj[1]), sj[2] = fma(wj, dz, sj[2]);
    sj[3] = fma(wj, cx, sj[3]), sj[4] = fma(wj, cy, sj[4]), sj[5] = fma(wj, cz, sj[5]);
}

// Body i's position+mass and velocity, zeros past the end.
template <typename T>
__device__ __forceinline__ void load_body(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                          std::size_t i, std::size_t n, Vec4<T>& x, Vec4<T>& v) {
    if (i < n) {
        x = xp[i], v = vp[i];
    } else {
        x = v = Vec4<T>{T(0), T(0), T(0), T(0)};
    }
}

// (x, y, z, m, vx, vy, vz) of body i.
template <typename T>
__device__ __forceinline__ void hold_body(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                          std::size_t i, std::size_t n, T (&b)[7]) {
    Vec4<T> x, v;
    load_body(xp, vp, i, n, x, v);
    b[0] = x.x, b[1] = x.y, b[2] = x.z, b[3] = x.w, b[4] = v.x, b[5] = v.y, b[6] = v.z;
}

// Slot `slot` of body i: the raw sums s (acceleration, jerk).
template <typename T>
__device__ __forceinline__ void store_slot(Vec4<T>* __restrict__ part, std::size_t n, unsigned n_tiles,
                                           unsigned slot, std::size_t i, const T (&s)[6]) {
    if (i >= n) return;
    part[std::size_t(slot) * n + i] = Vec4<T>{s[0], s[1], s[2], T(0)};
    part[(std::size_t(n_tiles) + slot) * n + i] = Vec4<T>{s[3], s[4], s[5], T(0)};
}

// Tile t against itself, one-sidedly: slot t of its bodies. Thread (w, l) owns i = t S + w 32 K + k 32 + l.
template <typename T, int K>
__device__ __forceinline__ void diagonal_tile(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                              std::size_t n, unsigned n_tiles, unsigned t, T eps2,
                                              Vec4<T>* __restrict__ part, Vec4<T>* sx, Vec4<T>* sv) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, B = blockDim.x;
    const std::size_t t0 = std::size_t(t) * B * K;
    T bi[K][7], si[K][6];
    std::size_t idx[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        idx[k] = t0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane;
        hold_body(xp, vp, idx[k], n, bi[k]);
#pragma unroll
        for (int c = 0; c < 6; ++c) si[k][c] = T(0);
    }
    for (unsigned c = 0; c < K; ++c) {
        const std::size_t c0 = t0 + std::size_t(c) * B;
        load_body(xp, vp, c0 + threadIdx.x, n, sx[threadIdx.x], sv[threadIdx.x]);
        __syncthreads();
        const unsigned count = c0 >= n ? 0u : n - c0 < B ? unsigned(n - c0) : B;
        for (unsigned jj = 0; jj < count; ++jj) {
            const Vec4<T> pj = sx[jj], vj = sv[jj];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                if (c0 + jj == idx[k]) continue;  // the self-term (0/0 at eps = 0)
                add_interaction_jerk(pj.x - bi[k][0], pj.y - bi[k][1], pj.z - bi[k][2], vj.x - bi[k][4],
                                     vj.y - bi[k][5], vj.z - bi[k][6], pj.w, eps2, si[k][0], si[k][1],
                                     si[k][2], si[k][3], si[k][4], si[k][5]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < K; ++k) store_slot(part, n, n_tiles, t, idx[k], si[k]);
}

// The tile pair (ta, tb), ta < tb: A's sums to slot tb of its bodies, B's to slot ta. Only tb can be the
// short last tile (kShort: its bodies past n are skipped). Shared memory: each sub-tile of the chunk twice
// (sx[u 64 .. u 64 + 63], so lane + s needs no wrap), and the chunk's sums (sums[c][body]).
template <typename T, int K, bool kShort>
__device__ __forceinline__ void tile_pair(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                          std::size_t n, unsigned n_tiles, unsigned ta, unsigned tb, T eps2,
                                          Vec4<T>* __restrict__ part, Vec4<T>* sx, Vec4<T>* sv,
                                          T (*sums)[kMaxBlock]) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, B = blockDim.x, W = B >> 5;
    const std::size_t S = std::size_t(B) * K, a0 = std::size_t(ta) * S, b0 = std::size_t(tb) * S;
    T bi[K][7], si[K][6];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        hold_body(xp, vp, a0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane, n, bi[k]);
#pragma unroll
        for (int c = 0; c < 6; ++c) si[k][c] = T(0);
    }

    Vec4<T> next_x, next_v;
    load_body(xp, vp, b0 + threadIdx.x, n, next_x, next_v);
    for (unsigned c = 0; c < K; ++c) {
        const std::size_t c0 = b0 + std::size_t(c) * B;
        sx[warp * 64 + lane] = sx[warp * 64 + lane + 32] = next_x;
        sv[warp * 64 + lane] = sv[warp * 64 + lane + 32] = next_v;
#pragma unroll
        for (int q = 0; q < 6; ++q) sums[q][threadIdx.x] = T(0);
        __syncthreads();
        if (c + 1 < K) load_body(xp, vp, c0 + B + threadIdx.x, n, next_x, next_v);
        for (unsigned p = 0; p < W; ++p) {
            const unsigned u = (warp + p) % W;
            const Vec4<T>* px = sx + u * 64 + lane;
            const Vec4<T>* pv = sv + u * 64 + lane;
            const std::size_t j0 = c0 + std::size_t(u) * 32;
            T sj[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
#pragma unroll 4
            for (unsigned s = 0; s < 32; ++s) {
                const Vec4<T> pj = px[s], vj = pv[s];
                if (!kShort || j0 + ((lane + s) & 31u) < n) {
#pragma unroll
                    for (int k = 0; k < K; ++k) pair_jerk(pj, vj, bi[k], eps2, si[k], sj);
                }
                // Pass body (l + s)'s sums to lane l - 1, whose next body it is.
#pragma unroll
                for (int q = 0; q < 6; ++q) sj[q] = __shfl_sync(kFullMask, sj[q], (lane + 1) & 31u);
            }
            // After 32 rotations lane l holds body l's sums; warp w alone owns sub-tile u in this phase.
#pragma unroll
            for (int q = 0; q < 6; ++q) sums[q][u * 32 + lane] += sj[q];
            __syncthreads();
        }
        T mine[6];
#pragma unroll
        for (int q = 0; q < 6; ++q) mine[q] = sums[q][threadIdx.x];
        store_slot(part, n, n_tiles, ta, c0 + threadIdx.x, mine);
    }
#pragma unroll
    for (int k = 0; k < K; ++k)
        store_slot(part, n, n_tiles, tb, a0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane, si[k]);
}

// Blocks [0, n_pairs): the tile pairs in grid_pair's order (heavier first); then the T diagonal tiles.
template <typename T, int K>
__global__ void __launch_bounds__(kMaxBlock)
    pair_jerk_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, std::size_t n,
                     unsigned n_tiles, unsigned n_pairs, T eps2, Vec4<T>* __restrict__ part,
                     const std::uint32_t* __restrict__ live) {
    __shared__ Vec4<T> sx[2 * kMaxBlock], sv[2 * kMaxBlock];
    __shared__ T sums[6][kMaxBlock];
    if (live && !*live) return;  // the same for the whole block: no barrier is skipped by half
    if (blockIdx.x < n_pairs) {
        unsigned ta = 0, tb = 0;
        grid_pair(blockIdx.x, ta, tb);
        if ((std::size_t(tb) + 1) * blockDim.x * K > n) {
            tile_pair<T, K, true>(xp, vp, n, n_tiles, ta, tb, eps2, part, sx, sv, sums);
        } else {
            tile_pair<T, K, false>(xp, vp, n, n_tiles, ta, tb, eps2, part, sx, sv, sums);
        }
    } else {
        diagonal_tile<T, K>(xp, vp, n, n_tiles, blockIdx.x - n_pairs, eps2, part, sx, sv);
    }
}

// acc[i], jerk[i] = G x the sum of body i's T slots, in slot order.
template <typename T>
__global__ void __launch_bounds__(kSumBlock)
    sum_slots_kernel(const Vec4<T>* __restrict__ part, std::size_t n, unsigned n_tiles, T G,
                     Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                     const std::uint32_t* __restrict__ live) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (live && !*live)) return;
    T s[6] = {T(0), T(0), T(0), T(0), T(0), T(0)};
#pragma unroll 8
    for (unsigned t = 0; t < n_tiles; ++t) {
        const Vec4<T> a = part[std::size_t(t) * n + i], j = part[(std::size_t(n_tiles) + t) * n + i];
        s[0] += a.x, s[1] += a.y, s[2] += a.z, s[3] += j.x, s[4] += j.y, s[5] += j.z;
    }
    acc[i] = Vec4<T>{G * s[0], G * s[1], G * s[2], T(0)};
    jerk[i] = Vec4<T>{G * s[3], G * s[4], G * s[5], T(0)};
}

std::size_t tiles_of(const PairJerkLaunch& l, std::size_t n) {
    const std::size_t S = std::size_t(l.block) * l.bodies_per_thread;
    return std::max<std::size_t>(1, (n + S - 1) / S);
}

template <typename T>
int resident_blocks(int K, int block) {
    int blocks = 0;
    switch (K) {
        case 1:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pair_jerk_kernel<T, 1>, block, 0));
            break;
        case 2:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pair_jerk_kernel<T, 2>, block, 0));
            break;
        default:
            if constexpr (sizeof(T) == 4) {
                CUDA_CHECK(
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pair_jerk_kernel<T, 4>, block, 0));
            }
            break;
    }
    return std::max(blocks, 1);
}

template <typename T, int K>
void launch_k(const PairJerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n, T eps2,
              Vec4<T>* part, const std::uint32_t* live, cudaStream_t s) {
    const unsigned tiles = unsigned(tiles_of(l, n));
    const unsigned pairs = unsigned(std::size_t(tiles) * (tiles - 1) / 2);
    launch_kernel(pair_jerk_kernel<T, K>, dim3(pairs + tiles), dim3(unsigned(l.block)), 0, s, xp, vp, n,
                  tiles, pairs, eps2, part, live);
}

}  // namespace

PairJerkLaunch plan_pair_jerks(PairJerkLaunch req, std::size_t n, Precision p) {
    const bool f32 = p == Precision::f32;
    const int k = req.bodies_per_thread;
    if (k != 0 && k != 1 && k != 2 && !(k == 4 && f32))
        throw Error(f32 ? "pairwise jerk kernel: bodies per thread must be 1, 2 or 4"
                        : "pairwise jerk kernel: bodies per thread must be 1 or 2 in double");
    if (req.block != 0 && req.block != 64 && req.block != 128 && req.block != 256)
        throw Error("pairwise jerk kernel: block size must be 64, 128 or 256");
    if ((k == 0) != (req.block == 0))
        throw Error("pairwise jerk kernel: give both bodies per thread and block size, or neither");
    if (req.off || n == 0) return PairJerkLaunch{0, 0, true};
    const int sms = current_device_sms();
    const std::size_t body_bytes = f32 ? sizeof(Vec4<float>) : sizeof(Vec4<double>);
    const double budget = max_pairwise_grid_bytes();
    auto fits = [&](const PairJerkLaunch& l) {
        return 2 * double(tiles_of(l, n)) * double(n) * double(body_bytes) <= budget;
    };
    // An explicit shape is taken as it is (the benchmark's sweeps, the tests' small N) if it fits.
    if (k != 0) {
        const PairJerkLaunch l{k, req.block, false};
        return fits(l) ? l : PairJerkLaunch{0, 0, true};
    }
    if (n < kMinBodies) return PairJerkLaunch{0, 0, true};
    // The shapes from the fastest per pair (more bodies per thread: fewer shuffles and shared loads per
    // pair; double at K = 4 would spill); the first that fills the device and fits the budget.
    const int shapes[][2] = {{4, 256}, {2, 256}, {2, 128}};
    for (const auto& shape : shapes) {
        const PairJerkLaunch l{shape[0], shape[1], false};
        if ((!f32 && l.bodies_per_thread == 4) || !fits(l)) continue;
        const double tiles = double(tiles_of(l, n));
        const double slots = double(sms) * (f32 ? resident_blocks<float>(l.bodies_per_thread, l.block)
                                                : resident_blocks<double>(l.bodies_per_thread, l.block));
        if (tiles * (tiles + 1) / 2 >= kMinWaves * slots) return l;
    }
    return PairJerkLaunch{0, 0, true};
}

std::string to_string(const PairJerkLaunch& l) {
    if (l.off) return "off";
    return "pairwise K=" + std::to_string(l.bodies_per_thread) + " block=" + std::to_string(l.block);
}

std::size_t pair_jerk_scratch_count(const PairJerkLaunch& l, std::size_t n) {
    return l.off || n == 0 ? 0 : 2 * tiles_of(l, n) * n;
}

template <typename T>
void launch_pair_jerks(const PairJerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n, T G,
                       T eps2, Vec4<T>* acc, Vec4<T>* jerk, Vec4<T>* scratch, const std::uint32_t* live,
                       void* stream) {
    if (l.off) throw Error("pairwise jerk kernel: launched while off");
    if (n == 0) return;
    const auto s = static_cast<cudaStream_t>(stream);
    switch (l.bodies_per_thread) {
        case 1:
            launch_k<T, 1>(l, xp, vp, n, eps2, scratch, live, s);
            break;
        case 2:
            launch_k<T, 2>(l, xp, vp, n, eps2, scratch, live, s);
            break;
        case 4:
            if constexpr (sizeof(T) == 4) {
                launch_k<T, 4>(l, xp, vp, n, eps2, scratch, live, s);
                break;
            }
            [[fallthrough]];
        default:
            throw Error("pairwise jerk kernel: bodies per thread must be 1, 2 or 4 (4: float)");
    }
    launch_kernel(sum_slots_kernel<T>, dim3(blocks_for(n, kSumBlock)), dim3(kSumBlock), 0, s, scratch, n,
                  unsigned(tiles_of(l, n)), G, acc, jerk, live);
}

template void launch_pair_jerks<float>(const PairJerkLaunch&, const Vec4<float>*, const Vec4<float>*,
                                       std::size_t, float, float, Vec4<float>*, Vec4<float>*, Vec4<float>*,
                                       const std::uint32_t*, void*);
template void launch_pair_jerks<double>(const PairJerkLaunch&, const Vec4<double>*, const Vec4<double>*,
                                        std::size_t, double, double, Vec4<double>*, Vec4<double>*,
                                        Vec4<double>*, const std::uint32_t*, void*);

}  // namespace nbody
