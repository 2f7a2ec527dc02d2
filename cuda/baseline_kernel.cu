// GPU Gems 3 ch. 31's kernel, written from the chapter's description: each thread owns one body and
// walks the bodies tile by tile; a tile of p = blockDim.x bodies is loaded into shared memory, one body
// per thread, and every thread sums its body's interactions with the whole tile. Built with default
// flags (no flush-to-zero), as the textbook is. Tails are padded with zero-mass bodies so any N works.
#include <cuda_runtime.h>

#include "baseline_kernel.hpp"
#include "launch.cuh"

namespace nbody {
namespace {

constexpr unsigned kBaselineBlock = 256;

// The chapter's bodyBodyInteraction: r = b_j - b_i, distSixth = (r^2 + eps^2)^3, s = m_j / sqrt(distSixth).
__device__ __forceinline__ float inv_sqrt(float x) {
    return rsqrtf(x);
}
__device__ __forceinline__ double inv_sqrt(double x) {
    return rsqrt(x);
}

template <typename T>
__device__ __forceinline__ void body_body(const Vec4<T>& bi, const Vec4<T>& bj, T eps2, T& ax, T& ay, T& az) {
    const T rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
    const T dist_sqr = rx * rx + ry * ry + rz * rz + eps2;
    const T dist_sixth = dist_sqr * dist_sqr * dist_sqr;
    const T s = bj.w * inv_sqrt(dist_sixth);
    ax += rx * s;
    ay += ry * s;
    az += rz * s;
}

template <typename T>
__global__ void baseline_forces(const Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ acc, std::size_t n,
                                T G, T eps2) {
    __shared__ Vec4<T> tile[kBaselineBlock];
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const Vec4<T> bi = pos[i < n ? i : n - 1];
    T ax = 0, ay = 0, az = 0;
    for (std::size_t t = 0; t < n; t += kBaselineBlock) {
        const std::size_t j = t + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : Vec4<T>{T(0), T(0), T(0), T(0)};
        __syncthreads();
        for (unsigned k = 0; k < kBaselineBlock; ++k) body_body(bi, tile[k], eps2, ax, ay, az);
        __syncthreads();
    }
    if (i < n) acc[i] = Vec4<T>{G * ax, G * ay, G * az, T(0)};
}

}  // namespace

template <typename T>
void launch_baseline_forces(const Vec4<T>* pos, Vec4<T>* acc, std::size_t n, T G, T eps2, void* stream) {
    if (n == 0) return;
    launch_kernel(baseline_forces<T>, dim3(blocks_for(n, kBaselineBlock)), dim3(kBaselineBlock), 0,
                  static_cast<cudaStream_t>(stream), pos, acc, n, G, eps2);
}

ExternalForceKernel baseline_force_kernel() {
    ExternalForceKernel k;
    k.name = "GPU Gems 3 baseline K=1 block=256";
    k.f32 = launch_baseline_forces<float>;
    k.f64 = launch_baseline_forces<double>;
    return k;
}

template void launch_baseline_forces<float>(const Vec4<float>*, Vec4<float>*, std::size_t, float, float,
                                            void*);
template void launch_baseline_forces<double>(const Vec4<double>*, Vec4<double>*, std::size_t, double, double,
                                             void*);

}  // namespace nbody
