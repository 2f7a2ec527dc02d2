// Integrator updates, conversions and diagnostic reductions. Built without fast-math: the finiteness
// checks here test exponent bits and must see real NaN/Inf.
#include <cuda_runtime.h>

#include <algorithm>

#include "finite_bits.cuh"
#include "launch.cuh"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"
#include "step_kernels.hpp"
#include "tile_pairs.cuh"

namespace nbody {
namespace {

constexpr unsigned kBlock = 256;

// Applies the queued kicks, drifts and dampings to body i in order, then checks the result's bits.
template <typename T>
__global__ void update_kernel(Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ vel,
                              const Vec4<T>* __restrict__ acc, std::size_t n, UpdateSequence<T> seq,
                              unsigned long long* __restrict__ bad, unsigned long long step_code) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || stops_step(*bad, step_code)) return;  // an earlier step failed, or this one stalled
    Vec4<T> x = pos[i];
    Vec4<T> v = vel[i];
    const Vec4<T> a = acc[i];
    // The same operations in the same order as the host backends (sim/cpu_backend.cpp), so float results
    // match them closely.
#pragma unroll
    for (int k = 0; k < kMaxUpdateOps; ++k) {
        if (k >= seq.count) break;
        const T h = seq.h[k];
        switch (seq.op[k]) {
            case UpdateOp::kick:
                v.x += h * a.x, v.y += h * a.y, v.z += h * a.z;
                break;
            case UpdateOp::drift:
                x.x += h * v.x, x.y += h * v.y, x.z += h * v.z;
                break;
            case UpdateOp::damp:
                v.x *= h, v.y *= h, v.z *= h;
                break;
        }
    }
    pos[i] = x;
    vel[i] = v;
    const bool ok = finite_bits(x.x) && finite_bits(x.y) && finite_bits(x.z) && finite_bits(v.x) &&
                    finite_bits(v.y) && finite_bits(v.z);
    if (!ok) atomicMin(bad, step_code | i);
}

template <typename T>
__global__ void to_float4_kernel(const Vec4<T>* __restrict__ in, Vec4<float>* __restrict__ out, std::size_t n,
                                 bool zero_w) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Vec4<T> p = in[i];
    out[i] = Vec4<float>{float(p.x), float(p.y), float(p.z), zero_w ? 0.0f : float(p.w)};
}

// Sums kRows doubles per thread over the block; thread 0 writes the block's row.
template <int kRows>
__device__ void block_sum_rows(double (&v)[kRows], double* __restrict__ out_row) {
    __shared__ double warp_sums[kBlock / 32][kRows];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        for (int off = 16; off > 0; off /= 2) v[r] += __shfl_down_sync(0xffffffffu, v[r], off);
        if (lane == 0) warp_sums[warp][r] = v[r];
    }
    __syncthreads();
    if (threadIdx.x < kRows) {
        double s = 0;
        for (unsigned w = 0; w < kBlock / 32; ++w) s += warp_sums[w][threadIdx.x];
        out_row[threadIdx.x] = s;
    }
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    moments_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel, std::size_t n,
                   double* __restrict__ partials) {
    double s[kMomentSums] = {};
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const Vec4<T> p = pos[i], v = vel[i];
        const double m = p.w, x = p.x, y = p.y, z = p.z, vx = v.x, vy = v.y, vz = v.z;
        s[0] += m;
        s[1] += 0.5 * m * (vx * vx + vy * vy + vz * vz);
        s[2] += m * vx, s[3] += m * vy, s[4] += m * vz;
        s[5] += m * (y * vz - z * vy), s[6] += m * (z * vx - x * vz), s[7] += m * (x * vy - y * vx);
        s[8] += m * x, s[9] += m * y, s[10] += m * z;
    }
    block_sum_rows<kMomentSums>(s, partials + std::size_t(blockIdx.x) * kMomentSums);
}

// The potential's pair sum, each pair once (half the work of summing every body against all others, and
// a grid of many short items instead of one block of targets per SM: PERFORMANCE.md "Fourteenth pass").
// The bodies are cut into tiles of kBlock; work item k is a tile pair (a, b) with a < b (grid_pair's order),
// or, past the T (T - 1) / 2 of those, one tile against itself (the pairs j > i within it). A fixed grid of
// min(items, kPotentialRows) blocks takes items k = block, block + grid, ...: thread t adds m_i sum_j m_j /
// r_ij for target i = a kBlock + t over the staged tile b, and each block's total goes to its row. The grid
// and the order of every sum depend on n alone: the same bits on every run and device. A diagnostic, so
// double arithmetic throughout and explicit index tests rather than the force kernels' tricks.
template <typename T>
__global__ void __launch_bounds__(kBlock) potential_kernel(const Vec4<T>* __restrict__ pos, std::size_t n,
                                                           double eps2, double* __restrict__ partials) {
    __shared__ double tile[kBlock][4];
    const unsigned long long tiles = (n + kBlock - 1) / kBlock;
    const unsigned long long pairs = tiles * (tiles - 1) / 2, items = pairs + tiles;
    double total = 0;
    for (unsigned long long k = blockIdx.x; k < items; k += gridDim.x) {
        unsigned a = 0, b = 0;
        if (k < pairs) {
            grid_pair(k, a, b);
        } else {
            a = b = unsigned(k - pairs);
        }
        const std::size_t i = std::size_t(a) * kBlock + threadIdx.x;
        const std::size_t j = std::size_t(b) * kBlock + threadIdx.x;
        const Vec4<T> pj = pos[j < n ? j : n - 1];
        tile[threadIdx.x][0] = pj.x, tile[threadIdx.x][1] = pj.y, tile[threadIdx.x][2] = pj.z;
        tile[threadIdx.x][3] = pj.w;
        __syncthreads();
        if (i < n) {
            const Vec4<T> pi = pos[i];
            const double xi = pi.x, yi = pi.y, zi = pi.z;
            const std::size_t first = std::size_t(b) * kBlock;
            const unsigned count = n - first < kBlock ? unsigned(n - first) : kBlock;
            double phi = 0;
            // Within one tile only the sources after the target: each pair once, never the body itself.
            for (unsigned c = a == b ? threadIdx.x + 1 : 0; c < count; ++c)
                phi += potential_term(tile[c][0] - xi, tile[c][1] - yi, tile[c][2] - zi, tile[c][3], eps2);
            total += double(pi.w) * phi;
        }
        __syncthreads();
    }
    double v[1] = {total};
    block_sum_rows<1>(v, partials + blockIdx.x);
}

}  // namespace

template <typename T>
void launch_update(Vec4<T>* pos, Vec4<T>* vel, const Vec4<T>* acc, std::size_t n,
                   const UpdateSequence<T>& seq, unsigned long long* bad, std::uint64_t step, void* stream) {
    launch_kernel(update_kernel<T>, dim3(blocks_for(n, kBlock)), dim3(kBlock), 0,
                  static_cast<cudaStream_t>(stream), pos, vel, acc, n, seq, bad, bad_code(step, 0));
}

template <typename T>
void launch_to_float4(const Vec4<T>* in, Vec4<float>* out, std::size_t n, bool zero_w, void* stream) {
    launch_kernel(to_float4_kernel<T>, dim3(blocks_for(n, kBlock)), dim3(kBlock), 0,
                  static_cast<cudaStream_t>(stream), in, out, n, zero_w);
}

template <typename T>
int launch_moments(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n, double* partials, int max_rows,
                   void* stream) {
    if (n == 0) return 0;
    const unsigned rows = std::min<unsigned>(blocks_for(n, kBlock), unsigned(max_rows));
    launch_kernel(moments_kernel<T>, dim3(rows), dim3(kBlock), 0, static_cast<cudaStream_t>(stream), pos, vel,
                  n, partials);
    return int(rows);
}

template <typename T>
int launch_potential(const Vec4<T>* pos, std::size_t n, double eps2, double* partials, int max_rows,
                     void* stream) {
    if (n == 0) return 0;
    const unsigned long long tiles = (n + kBlock - 1) / kBlock;
    const unsigned rows =
        unsigned(std::min<unsigned long long>(tiles * (tiles + 1) / 2, (unsigned long long)kPotentialRows));
    if (rows > unsigned(max_rows))
        throw Error("potential: the reduction buffer is smaller than kPotentialRows");
    launch_kernel(potential_kernel<T>, dim3(rows), dim3(kBlock), 0, static_cast<cudaStream_t>(stream), pos, n,
                  eps2, partials);
    return int(rows);
}

#define NBODY_INSTANTIATE(T)                                                                             \
    template void launch_update<T>(Vec4<T>*, Vec4<T>*, const Vec4<T>*, std::size_t,                      \
                                   const UpdateSequence<T>&, unsigned long long*, std::uint64_t, void*); \
    template void launch_to_float4<T>(const Vec4<T>*, Vec4<float>*, std::size_t, bool, void*);           \
    template int launch_moments<T>(const Vec4<T>*, const Vec4<T>*, std::size_t, double*, int, void*);    \
    template int launch_potential<T>(const Vec4<T>*, std::size_t, double, double*, int, void*);
NBODY_INSTANTIATE(float)
NBODY_INSTANTIATE(double)
#undef NBODY_INSTANTIATE

}  // namespace nbody
