// The tuned all-pairs force kernel and its launch-shape choice. Built with -ftz=true (see CMakeLists):
// rsqrtf then compiles to one MUFU.RSQ. No NaN/Inf checks live in this file.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cuda/std/limits>

#include "cuda_check.hpp"
#include "force_choice.hpp"
#include "force_kernels.hpp"
#include "launch.cuh"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"

namespace nbody {
namespace {

// One body-body interaction of sim/gravity/interaction.hpp (20 FLOPs by the CUDA sample's convention).
// kGuard: the self-term (r = 0, eps = 0) gives s = m * inf^3 or 0 * inf = NaN; fmin(NaN or inf, MAX)
// returns MAX, and r * MAX = 0 exactly, so the self-term drops out at the cost of one FMNMX.
template <typename T, bool kGuard>
__device__ __forceinline__ void interact(const Vec4<T>& pj, T xi, T yi, T zi, T eps2, T& ax, T& ay, T& az) {
    const T dx = pj.x - xi, dy = pj.y - yi, dz = pj.z - zi;
    T s = interaction_weight(pj.w, inv_sqrt(softened_distance2(dx, dy, dz, eps2)));
    if constexpr (kGuard) s = fmin(s, cuda::std::numeric_limits<T>::max());
    ax = fma(dx, s, ax);
    ay = fma(dy, s, ay);
    az = fma(dz, s, az);
}

// Block b = (bx, by) handles i-bodies [bx*B*K, (bx+1)*B*K) (thread t owns i = base + t + k*B, so loads
// and stores stay coalesced) against the j-tiles [by*tiles_per_split, ...) of B bodies each, staged in
// shared memory. Out-of-range j are padded with zero mass at the origin (they add exactly 0, with the
// guard also when an i-body sits at the origin); out-of-range i compute on a copy and store nothing.
// out = acc when gridDim.y == 1, else the partial sums [split][n].
template <typename T, int K, bool kGuard>
__global__ void __launch_bounds__(256)
    tiled_forces(const Vec4<T>* __restrict__ pos, std::size_t n, const Vec4<T>* __restrict__ targets,
                 std::size_t m, Vec4<T>* __restrict__ out, unsigned tiles_per_split, T G, T eps2,
                 const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    extern __shared__ __align__(32) unsigned char smem_raw[];
    Vec4<T>* tile = reinterpret_cast<Vec4<T>*>(smem_raw);
    if (bad && *bad < bad_before) return;  // the same for the whole block: no barrier is skipped by half

    const unsigned B = blockDim.x;
    const std::size_t base = std::size_t(blockIdx.x) * B * K + threadIdx.x;
    T xi[K], yi[K], zi[K], ax[K], ay[K], az[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t i = base + std::size_t(k) * B;
        const Vec4<T> p = targets[i < m ? i : m - 1];
        xi[k] = p.x, yi[k] = p.y, zi[k] = p.z;
        ax[k] = ay[k] = az[k] = T(0);
    }

    const std::size_t n_tiles = (n + B - 1) / B;
    const std::size_t t_begin = std::size_t(blockIdx.y) * tiles_per_split;
    const std::size_t t_end = n_tiles < t_begin + tiles_per_split ? n_tiles : t_begin + tiles_per_split;
    // The next tile's body is loaded into registers before the current tile is summed, so the global
    // load's latency hides behind ~B*K interactions instead of stalling the block at every tile.
    auto load_j = [&](std::size_t t) {
        const std::size_t j = t * B + threadIdx.x;
        return j < n ? pos[j] : Vec4<T>{T(0), T(0), T(0), T(0)};
    };
    Vec4<T> next = load_j(t_begin);
    for (std::size_t t = t_begin; t < t_end; ++t) {
        tile[threadIdx.x] = next;
        __syncthreads();
        if (t + 1 < t_end) next = load_j(t + 1);
            // Unrolled 16x: ptxas then spaces the MUFU.RSQs more evenly among the FP32 work, so warps queue
            // less at the MUFU (Nsight Compute, docs/CUDA_NOTES.md v5: +1.5% over 8x; 32x misses i-cache).
#pragma unroll 16
        for (unsigned jj = 0; jj < B; ++jj) {
            const Vec4<T> pj = tile[jj];
#pragma unroll
            for (int k = 0; k < K; ++k)
                interact<T, kGuard>(pj, xi[k], yi[k], zi[k], eps2, ax[k], ay[k], az[k]);
        }
        __syncthreads();
    }

    Vec4<T>* dst = out + std::size_t(blockIdx.y) * m;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const std::size_t i = base + std::size_t(k) * B;
        if (i < m) dst[i] = Vec4<T>{G * ax[k], G * ay[k], G * az[k], T(0)};
    }
}

// acc[i] = sum over splits of partial[s][i], in split order (deterministic).
template <typename T>
__global__ void sum_partials(const Vec4<T>* __restrict__ partial, Vec4<T>* __restrict__ acc, std::size_t n,
                             unsigned parts, const unsigned long long* __restrict__ bad,
                             unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    T x = 0, y = 0, z = 0;
    for (unsigned s = 0; s < parts; ++s) {
        const Vec4<T> p = partial[std::size_t(s) * n + i];
        x += p.x, y += p.y, z += p.z;
    }
    acc[i] = Vec4<T>{x, y, z, T(0)};
}

template <typename T, int K, bool kGuard>
void launch_tiled(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* out, std::size_t n, T G, T eps2,
                  const unsigned long long* bad, unsigned long long bad_before, cudaStream_t stream) {
    const unsigned B = unsigned(l.block);
    const std::size_t n_tiles = (n + B - 1) / B;
    const unsigned tiles_per_split = unsigned((n_tiles + l.splits - 1) / l.splits);
    const unsigned used_splits = unsigned((n_tiles + tiles_per_split - 1) / tiles_per_split);
    const dim3 grid(unsigned((n + std::size_t(B) * K - 1) / (std::size_t(B) * K)), used_splits);
    launch_kernel(tiled_forces<T, K, kGuard>, grid, dim3(B), B * sizeof(Vec4<T>), stream, pos, n, pos, n, out,
                  tiles_per_split, G, eps2, bad, bad_before);
}

template <typename T, bool kGuard>
void launch_tiled_k(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* out, std::size_t n, T G, T eps2,
                    const unsigned long long* bad, unsigned long long bad_before, cudaStream_t stream) {
    switch (l.bodies_per_thread) {
        case 1:
            return launch_tiled<T, 1, kGuard>(l, pos, out, n, G, eps2, bad, bad_before, stream);
        case 2:
            return launch_tiled<T, 2, kGuard>(l, pos, out, n, G, eps2, bad, bad_before, stream);
        case 4:
            return launch_tiled<T, 4, kGuard>(l, pos, out, n, G, eps2, bad, bad_before, stream);
        case 8:
            return launch_tiled<T, 8, kGuard>(l, pos, out, n, G, eps2, bad, bad_before, stream);
        default:
            throw Error("force kernel: bodies per thread must be 1, 2, 4 or 8");
    }
}

// The splits actually launched: whole tiles per split, so some requested counts collapse.
std::size_t used_splits(const ForceLaunch& l, std::size_t n) {
    if (l.kernel != ForceKernel::tuned || l.splits <= 1 || n == 0) return 1;
    const std::size_t n_tiles = (n + l.block - 1) / l.block;
    const std::size_t per = (n_tiles + l.splits - 1) / l.splits;
    return (n_tiles + per - 1) / per;
}

template <typename T>
int occupancy(int K, int block) {
    int blocks = 0;
    const std::size_t shared = std::size_t(block) * sizeof(Vec4<T>);
    switch (K) {
        case 1:
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled_forces<T, 1, false>,
                                                                     block, shared));
            break;
        case 2:
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled_forces<T, 2, false>,
                                                                     block, shared));
            break;
        case 4:
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled_forces<T, 4, false>,
                                                                     block, shared));
            break;
        default:
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled_forces<T, 8, false>,
                                                                     block, shared));
            break;
    }
    return std::max(blocks, 1);
}

// The table row for n bodies in precision p (the last row whose min_n <= n).
ForceLaunch table_choice(std::size_t n, Precision p) {
    ForceLaunch l{ForceKernel::tuned, 0, 0, 0};
    for (const ForceChoice& c : kForceChoices) {
        if (c.precision == p && n >= c.min_n) l = {c.kernel, c.bodies_per_thread, c.block, 0};
    }
    return l;
}

}  // namespace

ForceLaunch resolve_force_launch(ForceLaunch req, std::size_t n, Precision p) {
    if (req.kernel == ForceKernel::automatic) {
        // The measured table (cuda/force_choice.hpp); explicit K / block in the request still win.
        const ForceLaunch c = table_choice(n, p);
        req.kernel = c.kernel;
        // K = 12 runs blocks of at most 128: an explicit larger block keeps the row's kernel at K = 8.
        if (req.bodies_per_thread == 0) {
            req.bodies_per_thread = c.bodies_per_thread == 12 && req.block > 128 ? 8 : c.bodies_per_thread;
        }
        if (req.block == 0) req.block = c.block;
    }
    if (req.kernel == ForceKernel::pairwise || req.kernel == ForceKernel::pairwise_grid) {
        const int k = req.bodies_per_thread;
        if (k != 0 && k != 2 && k != 4 && k != 8 && k != 12) {
            throw Error("force kernel: pairwise bodies per thread must be 2, 4, 8 or 12");
        }
        if (p == Precision::f64 && k >= 8) {
            throw Error(
                "force kernel: pairwise bodies per thread must be 2 or 4 in double (8 and 12 would spill)");
        }
        if (req.block != 0 && (req.block % 32 != 0 || req.block < 32 || req.block > 256)) {
            throw Error("force kernel: block size must be a multiple of 32 in [32, 256]");
        }
        // K = 12 is compiled for 4 blocks of at most 128 threads per SM (its registers capped at 128).
        if (k == 12 && req.block > 128) {
            throw Error("force kernel: pairwise K = 12 needs a block of at most 128 threads");
        }
        if (req.splits < 0) throw Error("force kernel: splits must be >= 0");
        ForceLaunch l{req.kernel, req.bodies_per_thread ? req.bodies_per_thread : 4,
                      req.block ? req.block : 128, 1};
        if (l.kernel == ForceKernel::pairwise_grid) {
            // Tiles per band: the most whose partial sums (band x N bodies) fit the scratch budget.
            const std::size_t tile = std::size_t(l.block) * l.bodies_per_thread;
            const std::size_t tiles = std::max<std::size_t>(1, (n + tile - 1) / tile);
            const double body_bytes = p == Precision::f32 ? sizeof(Vec4<float>) : sizeof(Vec4<double>);
            const double fit = max_pairwise_grid_bytes() / (double(std::max<std::size_t>(n, 1)) * body_bytes);
            const std::size_t band =
                req.splits > 0 ? std::size_t(req.splits) : std::size_t(std::max(fit, 1.0));
            l.splits = int(std::min(band, tiles));
        }
        return l;
    }
    if (req.bodies_per_thread != 0 && req.bodies_per_thread != 1 && req.bodies_per_thread != 2 &&
        req.bodies_per_thread != 4 && req.bodies_per_thread != 8) {
        throw Error("force kernel: bodies per thread must be 1, 2, 4 or 8");
    }
    if (req.block != 0 && (req.block % 32 != 0 || req.block < 32 || req.block > 256)) {
        throw Error("force kernel: block size must be a multiple of 32 in [32, 256]");
    }
    if (req.splits < 0) throw Error("force kernel: splits must be >= 0");

    ForceLaunch l = req;
    // Measured on an H200 (docs/CUDA_NOTES.md): fp32 is fastest with 8 bodies per thread at every N,
    // fp64 with 2 (more costs occupancy: 64 registers at K=2, 168 at K=8).
    if (l.bodies_per_thread == 0) l.bodies_per_thread = p == Precision::f32 ? 8 : 2;
    if (l.block == 0) l.block = 128;
    if (l.splits == 0) {
        // Pick the split count whose blocks fill whole waves of the device best: all blocks do the same
        // work, so a last wave 30% full costs as much as a full one. Fewer splits win ties (less scratch).
        const int sms = current_device_sms();
        const int per_sm = p == Precision::f32 ? occupancy<float>(l.bodies_per_thread, l.block)
                                               : occupancy<double>(l.bodies_per_thread, l.block);
        const double slots = double(sms) * per_sm;
        const std::size_t i_blocks =
            std::max<std::size_t>(1, (n + std::size_t(l.block) * l.bodies_per_thread - 1) /
                                         (std::size_t(l.block) * l.bodies_per_thread));
        const std::size_t n_tiles = std::max<std::size_t>(1, (n + l.block - 1) / l.block);
        // A single wave measured a few percent slower than several at the same modelled fill (blocks
        // start and stall at barriers in lock-step), so one wave pays a small penalty.
        double best = -1;
        l.splits = 1;
        for (int s = 1; s <= 64 && std::size_t(s) <= n_tiles; ++s) {
            ForceLaunch c = l;
            c.splits = s;
            const std::size_t used = used_splits(c, n);
            if (used != std::size_t(s)) continue;
            const double work = double(i_blocks * used);
            const double waves = std::ceil(work / slots);
            const double score = work / (waves * slots) - (waves == 1 && s > 1 ? 0.03 : 0.0);
            if (score > best + 0.02) best = score, l.splits = s;
        }
    }
    return l;
}

double max_pairwise_grid_bytes() {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return std::min(double(total_bytes) / 16, kMaxPairwiseScratchBytes);
}

std::string to_string(const ForceLaunch& l) {
    if (l.kernel == ForceKernel::pairwise || l.kernel == ForceKernel::pairwise_grid) {
        return std::string(l.kernel == ForceKernel::pairwise ? "pairwise" : "pairwise-grid") +
               " K=" + std::to_string(l.bodies_per_thread) + " block=" + std::to_string(l.block) +
               (l.kernel == ForceKernel::pairwise_grid ? " band=" + std::to_string(l.splits) : "");
    }
    return "tuned K=" + std::to_string(l.bodies_per_thread) + " block=" + std::to_string(l.block) +
           " splits=" + std::to_string(l.splits);
}

std::size_t force_scratch_count(const ForceLaunch& l, std::size_t n) {
    if (l.kernel == ForceKernel::pairwise_grid) return pairwise_scratch_count(l, n);
    const std::size_t s = used_splits(l, n);
    return s > 1 ? s * n : 0;
}

bool force_needs_guard(double eps2, double max_mass, Precision p) {
    const double limit = p == Precision::f32 ? 1e30 : 1e300;
    if (!(eps2 > 0)) return true;
    // The largest per-pair factor is m / eps^3 (at r = 0); keep it far from overflow, flush-to-zero too.
    // The pairwise kernels form eps^-3 on its own before the mass multiplies it, so that must stay finite
    // as well (hence a mass of at least 1 in the bound).
    if (p == Precision::f32 && eps2 < 1e-30) return true;
    return !(std::max(max_mass, 1.0) * std::pow(eps2, -1.5) < limit);
}

template <typename T>
void launch_forces(const ForceLaunch& l, const Vec4<T>* pos, Vec4<T>* acc, Vec4<T>* scratch, std::size_t n,
                   T G, T eps2, bool guard, const unsigned long long* bad, unsigned long long bad_before,
                   void* stream_ptr) {
    if (n == 0) return;
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    if (l.kernel == ForceKernel::pairwise || l.kernel == ForceKernel::pairwise_grid) {
        launch_pairwise_forces<T>(l, pos, acc, scratch, n, G, eps2, guard, bad, bad_before, stream_ptr);
        return;
    }
    const std::size_t splits = used_splits(l, n);
    Vec4<T>* out = splits > 1 ? scratch : acc;
    if (guard) {
        launch_tiled_k<T, true>(l, pos, out, n, G, eps2, bad, bad_before, stream);
    } else {
        launch_tiled_k<T, false>(l, pos, out, n, G, eps2, bad, bad_before, stream);
    }
    if (splits > 1) {
        launch_kernel(sum_partials<T>, dim3(blocks_for(n, 256)), dim3(256), 0, stream, scratch, acc, n,
                      unsigned(splits), bad, bad_before);
    }
}

template <typename T>
void launch_forces_at_targets(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m,
                              Vec4<T>* acc, T G, T eps2, void* stream) {
    if (m == 0) return;
    // K = 4 in float, 2 in double: the shapes the tuned table picks at large N (register budget).
    constexpr int K = sizeof(T) == 4 ? 4 : 2;
    constexpr unsigned B = 128;
    const dim3 grid(unsigned((m + std::size_t(B) * K - 1) / (std::size_t(B) * K)), 1);
    const unsigned all_tiles = unsigned(std::max<std::size_t>(1, (n + B - 1) / B));
    launch_kernel(tiled_forces<T, K, true>, grid, dim3(B), B * sizeof(Vec4<T>),
                  static_cast<cudaStream_t>(stream), pos, n, targets, m, acc, all_tiles, G, eps2, nullptr,
                  0ull);
}

template void launch_forces_at_targets<float>(const Vec4<float>*, std::size_t, const Vec4<float>*,
                                              std::size_t, Vec4<float>*, float, float, void*);
template void launch_forces_at_targets<double>(const Vec4<double>*, std::size_t, const Vec4<double>*,
                                               std::size_t, Vec4<double>*, double, double, void*);

template void launch_forces<float>(const ForceLaunch&, const Vec4<float>*, Vec4<float>*, Vec4<float>*,
                                   std::size_t, float, float, bool, const unsigned long long*,
                                   unsigned long long, void*);
template void launch_forces<double>(const ForceLaunch&, const Vec4<double>*, Vec4<double>*, Vec4<double>*,
                                    std::size_t, double, double, bool, const unsigned long long*,
                                    unsigned long long, void*);

}  // namespace nbody
