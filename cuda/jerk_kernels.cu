// The Hermite force+jerk kernel and its launch shape (jerk_kernels.hpp). Built with -ftz=true (see
// CMakeLists), as force_kernels.cu: rsqrtf is then one MUFU.RSQ. No NaN/Inf checks live in this file.
//
// Cost per pair in float (sim/gravity/interaction.hpp's add_interaction_jerk, 42 FLOPs by its convention):
// 26 FP32 instructions (6 FADD for r and v, 3 FFMA for r^2 + eps^2, 3 FMUL for inv^2 and m inv^3, 5 for
// r.v and alpha, 3 FFMA for a, 6 FFMA for j) and one MUFU.RSQ, plus 2 / K shared-memory loads (the
// source's position and velocity, each feeding K targets) and the loop: ~27.75 issue slots per pair at
// K = 4, so 132 SMs x 128 lanes x 1.98 GHz / 27.75 = 1.2e12 pairs/s at best (docs/CUDA_NOTES.md, h1).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda_check.hpp"
#include "jerk_kernels.hpp"
#include "launch.cuh"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"

namespace nbody {
namespace {

constexpr int kMaxJerkBlock = 128;
// The split count never makes more than this many waves of blocks: beyond it the last wave's idle part
// is small anyway, and every split adds 2 m Vec4 of partial sums to write and read.
constexpr double kMaxWaves = 4;
// Below this many waves of blocks at one source tile per block, the automatic K halves (more blocks).
constexpr double kMinWaves = 4;

// One tile of B predicted sources, t0 = the first one's index, count = how many are real (B but in the
// last tile). kCareful: a target of this thread is among them (skip j == i by index) or the tile is short.
template <typename T, int K, bool kCareful>
__device__ __forceinline__ void sum_tile(const Vec4<T>* __restrict__ sx, const Vec4<T>* __restrict__ sv,
                                         unsigned count, std::uint32_t t0, const std::uint32_t (&self)[K],
                                         const T (&xi)[K], const T (&yi)[K], const T (&zi)[K],
                                         const T (&vxi)[K], const T (&vyi)[K], const T (&vzi)[K], T eps2,
                                         T (&ax)[K], T (&ay)[K], T (&az)[K], T (&jx)[K], T (&jy)[K],
                                         T (&jz)[K]) {
    constexpr int kUnroll = K >= 4 ? 4 : 8;
#pragma unroll kUnroll
    for (unsigned jj = 0; jj < count; ++jj) {
        const Vec4<T> pj = sx[jj], vj = sv[jj];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (kCareful && t0 + jj == self[k]) continue;
            add_interaction_jerk(pj.x - xi[k], pj.y - yi[k], pj.z - zi[k], vj.x - vxi[k], vj.y - vyi[k],
                                 vj.z - vzi[k], pj.w, eps2, ax[k], ay[k], az[k], jx[k], jy[k], jz[k]);
        }
    }
}

// Block (bx, by): targets [bx B K, (bx + 1) B K) of the list (thread t owns entries bx B K + t + k B, so
// the gathers and stores stay coalesced), against the sources [by per_split, (by + 1) per_split) in tiles
// of B, each staged in shared memory (position+mass, then velocity). The next tile is loaded into
// registers while the current one is summed. Out-of-range targets compute on a copy of the last one and
// store nothing. Outputs: G-scaled sums (gridDim.y == 1) or raw partial sums at [by][m].
template <typename T, int K>
__global__ void __launch_bounds__(kMaxJerkBlock)
    jerk_kernel(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp, std::size_t n,
                std::size_t per_split, const std::uint32_t* __restrict__ targets, std::size_t m, T G, T eps2,
                Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    extern __shared__ __align__(32) unsigned char smem_raw[];
    if (bad && *bad < bad_before) return;  // the same for the whole block: no barrier is skipped by half
    const unsigned B = blockDim.x;
    Vec4<T>* sx = reinterpret_cast<Vec4<T>*>(smem_raw);
    Vec4<T>* sv = sx + B;

    const std::size_t base = std::size_t(blockIdx.x) * B * K + threadIdx.x;
    std::uint32_t self[K];
    T xi[K], yi[K], zi[K], vxi[K], vyi[K], vzi[K];
    T ax[K], ay[K], az[K], jx[K], jy[K], jz[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t e = base + std::size_t(k) * B;
        self[k] = targets[e < m ? e : m - 1];
        const Vec4<T> x = xp[self[k]], v = vp[self[k]];
        xi[k] = x.x, yi[k] = x.y, zi[k] = x.z;
        vxi[k] = v.x, vyi[k] = v.y, vzi[k] = v.z;
        ax[k] = ay[k] = az[k] = jx[k] = jy[k] = jz[k] = T(0);
    }

    const std::size_t begin = std::size_t(blockIdx.y) * per_split;
    const std::size_t end = n - begin < per_split ? n : begin + per_split;
    Vec4<T> next_x{}, next_v{};
    auto load = [&](std::size_t t) {
        const std::size_t j = t + threadIdx.x;
        if (j < end) {
            next_x = xp[j], next_v = vp[j];
        } else {
            next_x = next_v = Vec4<T>{T(0), T(0), T(0), T(0)};
        }
    };
    load(begin);
    for (std::size_t t = begin; t < end; t += B) {
        sx[threadIdx.x] = next_x;
        sv[threadIdx.x] = next_v;
        __syncthreads();
        if (t + B < end) load(t + B);
        // Source indices fit 32 bits (the backend refuses N >= 2^32).
        const auto t0 = std::uint32_t(t);
        const unsigned count = end - t < B ? unsigned(end - t) : B;
        bool careful = count < B;
#pragma unroll
        for (int k = 0; k < K; ++k) careful = careful || self[k] - t0 < B;
        // Only the tiles that hold one of this thread's own bodies (or the short last one) pay for the
        // index test; with eps = 0 the self-term would be 0/0, with eps > 0 it adds exactly 0 anyway.
        if (careful) {
            sum_tile<T, K, true>(sx, sv, count, t0, self, xi, yi, zi, vxi, vyi, vzi, eps2, ax, ay, az, jx, jy,
                                 jz);
        } else {
            sum_tile<T, K, false>(sx, sv, B, t0, self, xi, yi, zi, vxi, vyi, vzi, eps2, ax, ay, az, jx, jy,
                                  jz);
        }
        __syncthreads();
    }

    const T scale = gridDim.y == 1 ? G : T(1);
    const std::size_t slot = std::size_t(blockIdx.y) * m;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t e = base + std::size_t(k) * B;
        if (e < m) {
            acc[slot + e] = Vec4<T>{scale * ax[k], scale * ay[k], scale * az[k], T(0)};
            jerk[slot + e] = Vec4<T>{scale * jx[k], scale * jy[k], scale * jz[k], T(0)};
        }
    }
}

// The split sums of kSumTargets targets per block, each over kLanes lanes: lane l adds the splits l,
// l + kLanes, ... in order, then a fixed tree adds the lanes' sums, and the result is scaled by G. The
// order is fixed by the launch alone (no atomics): the same bits on every run. A block of 256 targets
// among a million sources has thousands of splits to add, so it takes 64 lanes a target; their loads
// are independent of the sums, so each lane keeps several in flight.
constexpr unsigned kSumTargets = 8;

template <typename T, unsigned kLanes>
__global__ void __launch_bounds__(kSumTargets* kLanes)
    sum_jerk_splits(const Vec4<T>* __restrict__ part_acc, const Vec4<T>* __restrict__ part_jerk,
                    unsigned splits, std::size_t m, T G, Vec4<T>* __restrict__ acc,
                    Vec4<T>* __restrict__ jerk, const unsigned long long* __restrict__ bad,
                    unsigned long long bad_before) {
    __shared__ Vec4<T> sums[2][kLanes][kSumTargets];
    if (bad && *bad < bad_before) return;
    const unsigned tx = threadIdx.x % kSumTargets, lane = threadIdx.x / kSumTargets;
    const std::size_t i = std::size_t(blockIdx.x) * kSumTargets + tx;
    Vec4<T> a{T(0), T(0), T(0), T(0)}, j{T(0), T(0), T(0), T(0)};
    if (i < m) {
#pragma unroll 8
        for (unsigned p = lane; p < splits; p += kLanes) {
            const Vec4<T> pa = part_acc[std::size_t(p) * m + i], pj = part_jerk[std::size_t(p) * m + i];
            a.x += pa.x, a.y += pa.y, a.z += pa.z;
            j.x += pj.x, j.y += pj.y, j.z += pj.z;
        }
    }
    sums[0][lane][tx] = a;
    sums[1][lane][tx] = j;
    __syncthreads();
#pragma unroll
    for (unsigned half = kLanes / 2; half > 0; half /= 2) {
        if (lane < half) {
            Vec4<T>& sa = sums[0][lane][tx];
            Vec4<T>& sj = sums[1][lane][tx];
            const Vec4<T> oa = sums[0][lane + half][tx], oj = sums[1][lane + half][tx];
            sa.x += oa.x, sa.y += oa.y, sa.z += oa.z;
            sj.x += oj.x, sj.y += oj.y, sj.z += oj.z;
        }
        __syncthreads();
    }
    if (lane != 0 || i >= m) return;
    a = sums[0][0][tx];
    j = sums[1][0][tx];
    acc[i] = Vec4<T>{G * a.x, G * a.y, G * a.z, T(0)};
    jerk[i] = Vec4<T>{G * j.x, G * j.y, G * j.z, T(0)};
}

template <typename T, int K>
void launch_k(const JerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
              const std::uint32_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
              const unsigned long long* bad, unsigned long long bad_before, cudaStream_t s) {
    const unsigned B = unsigned(l.block);
    const std::size_t tiles = std::max<std::size_t>(1, (n + B - 1) / B);
    const std::size_t per_split = ((tiles + l.splits - 1) / l.splits) * B;
    const unsigned splits = unsigned((n + per_split - 1) / per_split);
    const dim3 grid(unsigned((m + std::size_t(B) * K - 1) / (std::size_t(B) * K)), std::max(1u, splits));
    launch_kernel(jerk_kernel<T, K>, grid, dim3(B), 2 * B * sizeof(Vec4<T>), s, xp, vp, n, per_split, targets,
                  m, G, eps2, acc, jerk, bad, bad_before);
}

// The splits actually launched: whole tiles per split, so some requested counts collapse.
std::size_t used_splits(const JerkLaunch& l, std::size_t n) {
    const std::size_t tiles = std::max<std::size_t>(1, (n + l.block - 1) / l.block);
    const std::size_t per = (tiles + l.splits - 1) / l.splits;
    return (tiles + per - 1) / per;
}

template <typename T>
int occupancy(int K, int block) {
    int blocks = 0;
    const std::size_t shared = 2 * std::size_t(block) * sizeof(Vec4<T>);
    switch (K) {
        case 1:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, jerk_kernel<T, 1>, block, shared));
            break;
        case 2:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, jerk_kernel<T, 2>, block, shared));
            break;
        default:
            CUDA_CHECK(
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, jerk_kernel<T, 4>, block, shared));
            break;
    }
    return std::max(blocks, 1);
}

}  // namespace

JerkLaunch resolve_jerk_launch(JerkLaunch req, std::size_t m, std::size_t n, Precision p) {
    const int k = req.bodies_per_thread;
    if (k != 0 && k != 1 && k != 2 && k != 4) throw Error("jerk kernel: bodies per thread must be 1, 2 or 4");
    if (req.block != 0 && req.block != 32 && req.block != 64 && req.block != 128) {
        throw Error("jerk kernel: block size must be 32, 64 or 128");
    }
    if (req.splits < 0) throw Error("jerk kernel: splits must be >= 0");
    JerkLaunch l = req;
    // Fewer targets than lanes leave lanes idle: smaller blocks first (a warp computes for its idle lanes
    // too), then fewer targets per thread.
    if (l.block == 0) l.block = m <= 32 ? 32 : m <= 64 ? 64 : 128;
    int dev = 0, sms = 1;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // Blocks the device runs at once with K targets per thread.
    auto slots_for = [&](int K) {
        return double(sms) *
               (p == Precision::f32 ? occupancy<float>(K, l.block) : occupancy<double>(K, l.block));
    };
    const std::size_t tiles = std::max<std::size_t>(1, (n + l.block - 1) / l.block);
    auto x_blocks_for = [&](int K) {
        return std::max<std::size_t>(1, (m + std::size_t(l.block) * K - 1) / (std::size_t(l.block) * K));
    };
    if (l.bodies_per_thread == 0) {
        l.bodies_per_thread = p == Precision::f32 ? 4 : 2;
        while (l.bodies_per_thread > 1 && std::size_t(l.block) * l.bodies_per_thread > m)
            l.bodies_per_thread /= 2;
        // A mid-sized block (hundreds to a few thousand targets among 65,536 sources) cannot fill the
        // device with K = 4 even at one source tile per block: fewer targets per thread give more blocks
        // (and, with fewer registers, more of them resident). Measured on the H200 (docs/PERFORMANCE.md,
        // issue 21): 819 targets among 65,536 in float took 0.145 ms at K=4 and 0.093 ms at K=1.
        while (l.bodies_per_thread > 1 &&
               double(x_blocks_for(l.bodies_per_thread) * tiles) < kMinWaves * slots_for(l.bodies_per_thread))
            l.bodies_per_thread /= 2;
    }
    if (l.splits == 0) {
        // The split count whose blocks fill whole waves of the device best (all blocks do nearly the same
        // work, so a last wave 30% full costs as much as a full one), as resolve_force_launch does.
        const double slots = slots_for(l.bodies_per_thread);
        const std::size_t x_blocks = x_blocks_for(l.bodies_per_thread);
        const std::size_t most =
            std::min(tiles, std::max<std::size_t>(1, std::size_t(kMaxWaves * slots / double(x_blocks))));
        double best = -1;
        l.splits = 1;
        // Each distinct tiles-per-split gives one launched split count.
        for (std::size_t per = (tiles + most - 1) / most; per <= tiles;) {
            const std::size_t used = (tiles + per - 1) / per;
            const double work = double(x_blocks * used);
            const double waves = std::ceil(work / slots);
            // A single wave measured a few percent slower than several at the same fill (force_kernels.cu).
            const double score = work / (waves * slots) - (waves == 1 && used > 1 ? 0.03 : 0.0);
            // From many splits to few: a count within 0.02 of the best so far wins (less scratch).
            if (score > best - 0.02) best = std::max(best, score), l.splits = int(used);
            // The next per that launches fewer splits.
            if (used == 1) break;
            per = (tiles + used - 2) / (used - 1);
        }
    }
    return l;
}

std::string to_string(const JerkLaunch& l) {
    return "K=" + std::to_string(l.bodies_per_thread) + " block=" + std::to_string(l.block) +
           " splits=" + std::to_string(l.splits);
}

std::size_t jerk_scratch_count(const JerkLaunch& l, std::size_t m) {
    return l.splits > 1 ? 2 * std::size_t(l.splits) * m : 0;
}

template <typename T>
void launch_jerks(const JerkLaunch& l, const Vec4<T>* xp, const Vec4<T>* vp, std::size_t n,
                  const std::uint32_t* targets, std::size_t m, T G, T eps2, Vec4<T>* acc, Vec4<T>* jerk,
                  Vec4<T>* scratch, const unsigned long long* bad, unsigned long long bad_before,
                  void* stream) {
    if (m == 0) return;
    const auto s = static_cast<cudaStream_t>(stream);
    const std::size_t splits = n == 0 ? 1 : used_splits(l, n);
    Vec4<T>* a = splits > 1 ? scratch : acc;
    Vec4<T>* j = splits > 1 ? scratch + splits * m : jerk;
    switch (l.bodies_per_thread) {
        case 1:
            launch_k<T, 1>(l, xp, vp, n, targets, m, G, eps2, a, j, bad, bad_before, s);
            break;
        case 2:
            launch_k<T, 2>(l, xp, vp, n, targets, m, G, eps2, a, j, bad, bad_before, s);
            break;
        case 4:
            launch_k<T, 4>(l, xp, vp, n, targets, m, G, eps2, a, j, bad, bad_before, s);
            break;
        default:
            throw Error("jerk kernel: bodies per thread must be 1, 2 or 4");
    }
    if (splits > 1) {
        // Few splits (many targets): 8 lanes a target; many: 64 (32 KiB of shared memory in double).
        const dim3 grid(blocks_for(m, kSumTargets));
        if (splits < 64) {
            launch_kernel(sum_jerk_splits<T, 8>, grid, dim3(kSumTargets * 8), 0, s, a, j, unsigned(splits), m,
                          G, acc, jerk, bad, bad_before);
        } else {
            launch_kernel(sum_jerk_splits<T, 64>, grid, dim3(kSumTargets * 64), 0, s, a, j, unsigned(splits),
                          m, G, acc, jerk, bad, bad_before);
        }
    }
}

template void launch_jerks<float>(const JerkLaunch&, const Vec4<float>*, const Vec4<float>*, std::size_t,
                                  const std::uint32_t*, std::size_t, float, float, Vec4<float>*, Vec4<float>*,
                                  Vec4<float>*, const unsigned long long*, unsigned long long, void*);
template void launch_jerks<double>(const JerkLaunch&, const Vec4<double>*, const Vec4<double>*, std::size_t,
                                   const std::uint32_t*, std::size_t, double, double, Vec4<double>*,
                                   Vec4<double>*, Vec4<double>*, const unsigned long long*,
                                   unsigned long long, void*);

}  // namespace nbody
