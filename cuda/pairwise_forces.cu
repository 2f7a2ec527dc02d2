// The pairwise (Newton's third law) fp32 force kernel: every pair is evaluated once and applied to both
// bodies. Built with -ftz=true (see CMakeLists), like force_kernels.cu. Deterministic: no atomics.
//
// Bodies are split into T tiles of S = W x 32 x K bodies (W warps per block, K i-bodies per lane). A
// diagonal launch sums each tile against itself one-sidedly and WRITES acc; then T' - 1 rounds of a
// round-robin tournament (T' = T rounded up to even, the extra tile is a bye) each launch one block per
// tile pair, a perfect matching, so within a round every tile belongs to exactly one block, which ADDS
// its results into both tiles with plain loads and stores. Kernel boundaries order the rounds.
//
// Inside a block for the pair (A, B): lane l of warp w holds K bodies of A in registers. B streams
// through shared memory in chunks of W x 32 bodies (K chunks). In phase p warp w takes sub-tile
// u = (w + p) mod W of the chunk; at step s lane l takes body j = (l + s) mod 32 of it and keeps that
// body's accumulator in registers, rotating it one lane down after each step (__shfl_sync), so after
// 32 steps lane l holds body l's sum and adds it into the chunk's shared accumulator: one warp per
// sub-tile per phase, barriers between phases, a fixed order.
#include <cuda_runtime.h>

#include <cfloat>

#include "cuda/force_kernels.hpp"
#include "cuda/launch.cuh"
#include "sim/interaction.hpp"

namespace nbody {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// Pair index k of round r of the circle method over tp (even) tiles: tile tp - 1 stays fixed.
__device__ __forceinline__ void round_pair(unsigned r, unsigned k, unsigned tp, unsigned& a, unsigned& b) {
    const unsigned m = tp - 1;
    if (k == 0) {
        a = r, b = m;
    } else {
        a = (r + k) % m, b = (r + m - k) % m;
    }
}

// One pair, both sides: r = x_j - x_i, a_i += m_j r / |r|^3, a_j -= m_i r / |r|^3. The factors are
// (m inv) inv^2 as in the one-sided kernel, so a zero mass gives exactly 0 whenever inv^2 is finite.
template <bool kGuard>
__device__ __forceinline__ void pair(float4 pj, float xi, float yi, float zi, float mi, float eps2, float& ax,
                                     float& ay, float& az, float& jx, float& jy, float& jz) {
    const float dx = pj.x - xi, dy = pj.y - yi, dz = pj.z - zi;
    const float inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
    float si = interaction_weight(pj.w, inv), sj = interaction_weight(mi, inv);
    if constexpr (kGuard) si = fminf(si, FLT_MAX), sj = fminf(sj, FLT_MAX);
    ax = fmaf(dx, si, ax);
    ay = fmaf(dy, si, ay);
    az = fmaf(dz, si, az);
    jx = fmaf(-dx, sj, jx);
    jy = fmaf(-dy, sj, jy);
    jz = fmaf(-dz, sj, jz);
}

__device__ __forceinline__ float4 load_body(const float4* pos, std::size_t i, std::size_t n) {
    return i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
}

// Diagonal tiles: block A sums tile A against itself one-sidedly (j == i skipped by index) and writes
// acc = G a. Thread (w, l) owns i = A S + w 32 K + k 32 + l.
template <int K, bool kGuard>
__global__ void __launch_bounds__(256)
    pairwise_diagonal(const float4* __restrict__ pos, float4* __restrict__ acc, std::size_t n, float G,
                      float eps2, const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    __shared__ float4 tile[256];
    if (bad && *bad < bad_before) return;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, B = blockDim.x;
    const std::size_t S = std::size_t(B) * K, t0 = std::size_t(blockIdx.x) * S;
    float xi[K], yi[K], zi[K], ax[K], ay[K], az[K];
    std::size_t idx[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        idx[k] = t0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane;
        const float4 p = load_body(pos, idx[k], n);
        xi[k] = p.x, yi[k] = p.y, zi[k] = p.z;
        ax[k] = ay[k] = az[k] = 0.f;
    }
    for (unsigned c = 0; c < K; ++c) {
        const std::size_t c0 = t0 + std::size_t(c) * B;
        tile[threadIdx.x] = load_body(pos, c0 + threadIdx.x, n);
        __syncthreads();
#pragma unroll 4
        for (unsigned jj = 0; jj < B; ++jj) {
            const float4 pj = tile[jj];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const float dx = pj.x - xi[k], dy = pj.y - yi[k], dz = pj.z - zi[k];
                float r2 = softened_distance2(dx, dy, dz, eps2);
                if (c0 + jj == idx[k]) r2 = 1.f;  // the self-term: r = 0, so it adds exactly 0
                float s = interaction_weight(pj.w, inv_sqrt(r2));
                if constexpr (kGuard) s = fminf(s, FLT_MAX);
                ax[k] = fmaf(dx, s, ax[k]);
                ay[k] = fmaf(dy, s, ay[k]);
                az[k] = fmaf(dz, s, az[k]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
        if (idx[k] < n) acc[idx[k]] = make_float4(G * ax[k], G * ay[k], G * az[k], 0.f);
    }
}

// One round: block k takes the tile pair k of round r (see round_pair) and adds both sides into acc.
// Shared memory: the chunk twice per sub-tile (spos[u][0..63], so lane + s needs no wrap) and the
// chunk's j accumulators.
template <int K, bool kGuard>
__global__ void __launch_bounds__(256)
    pairwise_round(const float4* __restrict__ pos, float4* __restrict__ acc, std::size_t n, unsigned n_tiles,
                   unsigned tp, unsigned round, float G, float eps2,
                   const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    __shared__ float4 spos[8 * 64];
    __shared__ float jacc[3][256];
    if (bad && *bad < bad_before) return;  // the same for the whole block
    unsigned ta = 0, tb = 0;
    round_pair(round, blockIdx.x, tp, ta, tb);
    if (ta >= n_tiles || tb >= n_tiles) return;  // a bye

    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, B = blockDim.x, W = B >> 5;
    const std::size_t S = std::size_t(B) * K, a0 = std::size_t(ta) * S, b0 = std::size_t(tb) * S;
    float xi[K], yi[K], zi[K], mi[K], ax[K], ay[K], az[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const float4 p = load_body(pos, a0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane, n);
        xi[k] = p.x, yi[k] = p.y, zi[k] = p.z, mi[k] = p.w;
        ax[k] = ay[k] = az[k] = 0.f;
    }

    float4 next = load_body(pos, b0 + threadIdx.x, n);
    for (unsigned c = 0; c < K; ++c) {
        const std::size_t c0 = b0 + std::size_t(c) * B;
        spos[warp * 64 + lane] = next;
        spos[warp * 64 + lane + 32] = next;
        jacc[0][threadIdx.x] = jacc[1][threadIdx.x] = jacc[2][threadIdx.x] = 0.f;
        __syncthreads();
        if (c + 1 < K) next = load_body(pos, c0 + B + threadIdx.x, n);
        for (unsigned p = 0; p < W; ++p) {
            const unsigned u = (warp + p) % W;
            const float4* sp = spos + u * 64 + lane;
            float jx = 0.f, jy = 0.f, jz = 0.f;
#pragma unroll 8
            for (unsigned s = 0; s < 32; ++s) {
                const float4 pj = sp[s];
#pragma unroll
                for (int k = 0; k < K; ++k)
                    pair<kGuard>(pj, xi[k], yi[k], zi[k], mi[k], eps2, ax[k], ay[k], az[k], jx, jy, jz);
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
        const std::size_t j = c0 + threadIdx.x;
        if (j < n) {
            float4 a = acc[j];
            a.x += G * jacc[0][threadIdx.x], a.y += G * jacc[1][threadIdx.x], a.z += G * jacc[2][threadIdx.x];
            acc[j] = a;
        }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t i = a0 + std::size_t(warp) * 32 * K + std::size_t(k) * 32 + lane;
        if (i < n) {
            float4 a = acc[i];
            a.x += G * ax[k], a.y += G * ay[k], a.z += G * az[k];
            acc[i] = a;
        }
    }
}

template <int K, bool kGuard>
void launch_all(unsigned block, const float4* pos, float4* acc, std::size_t n, float G, float eps2,
                const unsigned long long* bad, unsigned long long bad_before, cudaStream_t stream) {
    const std::size_t S = std::size_t(block) * K;
    const unsigned n_tiles = unsigned((n + S - 1) / S);
    launch_kernel(pairwise_diagonal<K, kGuard>, dim3(n_tiles), dim3(block), 0, stream, pos, acc, n, G, eps2,
                  bad, bad_before);
    if (n_tiles < 2) return;
    const unsigned tp = n_tiles + (n_tiles & 1u);
    for (unsigned r = 0; r + 1 < tp; ++r) {
        launch_kernel(pairwise_round<K, kGuard>, dim3(tp / 2), dim3(block), 0, stream, pos, acc, n, n_tiles,
                      tp, r, G, eps2, bad, bad_before);
    }
}

template <bool kGuard>
void launch_k(int K, unsigned block, const float4* pos, float4* acc, std::size_t n, float G, float eps2,
              const unsigned long long* bad, unsigned long long bad_before, cudaStream_t stream) {
    switch (K) {
        case 2:
            return launch_all<2, kGuard>(block, pos, acc, n, G, eps2, bad, bad_before, stream);
        case 4:
            return launch_all<4, kGuard>(block, pos, acc, n, G, eps2, bad, bad_before, stream);
        default:
            return launch_all<8, kGuard>(block, pos, acc, n, G, eps2, bad, bad_before, stream);
    }
}

}  // namespace

void launch_pairwise_forces(const ForceLaunch& l, const Vec4<float>* pos, Vec4<float>* acc, std::size_t n,
                            float G, float eps2, bool guard, const unsigned long long* bad,
                            unsigned long long bad_before, void* stream) {
    static_assert(sizeof(Vec4<float>) == sizeof(float4), "Vec4<float> must match float4");
    const auto* p = reinterpret_cast<const float4*>(pos);
    auto* a = reinterpret_cast<float4*>(acc);
    const auto s = static_cast<cudaStream_t>(stream);
    const unsigned block = unsigned(l.block);
    if (guard) {
        launch_k<true>(l.bodies_per_thread, block, p, a, n, G, eps2, bad, bad_before, s);
    } else {
        launch_k<false>(l.bodies_per_thread, block, p, a, n, G, eps2, bad, bad_before, s);
    }
}

}  // namespace nbody
