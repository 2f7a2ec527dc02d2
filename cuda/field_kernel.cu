// Acceleration and potential at arbitrary target points (the potential-field view, force-error samples):
// one target per thread against tiles of the bodies in shared memory. Not a hot path; plainly written.
#include <cuda_runtime.h>

#include "cuda/field_kernel.hpp"
#include "cuda/launch.cuh"
#include "sim/interaction.hpp"

namespace nbody {
namespace {

constexpr unsigned kFieldBlock = 128;

template <typename T>
__global__ void __launch_bounds__(kFieldBlock)
    field_kernel(const Vec4<T>* __restrict__ pos, std::size_t n, const Vec4<T>* __restrict__ targets,
                 std::size_t m, T G, T eps2, Vec4<T>* __restrict__ acc, T* __restrict__ potential) {
    __shared__ Vec4<T> tile[kFieldBlock];
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const Vec4<T> q = targets[i < m ? i : m - 1];
    T ax = 0, ay = 0, az = 0, phi = 0;
    for (std::size_t t = 0; t < n; t += kFieldBlock) {
        const std::size_t j = t + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : Vec4<T>{T(0), T(0), T(0), T(0)};
        __syncthreads();
        const unsigned count = n - t < kFieldBlock ? unsigned(n - t) : kFieldBlock;
        for (unsigned k = 0; k < count; ++k) {
            const Vec4<T> pj = tile[k];
            const T dx = pj.x - q.x, dy = pj.y - q.y, dz = pj.z - q.z;
            if (dx == T(0) && dy == T(0) && dz == T(0)) continue;  // a body at the target: self
            const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
            const T w = interaction_weight(pj.w, inv);
            ax = fma(dx, w, ax), ay = fma(dy, w, ay), az = fma(dz, w, az);
            phi = fma(pj.w, inv, phi);
        }
        __syncthreads();
    }
    if (i >= m) return;
    if (acc) acc[i] = Vec4<T>{G * ax, G * ay, G * az, T(0)};
    if (potential) potential[i] = -G * phi;
}

}  // namespace

template <typename T>
void launch_field(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m, T G, T eps2,
                  Vec4<T>* acc, T* potential, void* stream) {
    if (m == 0) return;
    launch_kernel(field_kernel<T>, dim3(blocks_for(m, kFieldBlock)), dim3(kFieldBlock), 0,
                  static_cast<cudaStream_t>(stream), pos, n, targets, m, G, eps2, acc, potential);
}

template void launch_field<float>(const Vec4<float>*, std::size_t, const Vec4<float>*, std::size_t, float,
                                  float, Vec4<float>*, float*, void*);
template void launch_field<double>(const Vec4<double>*, std::size_t, const Vec4<double>*, std::size_t, double,
                                   double, Vec4<double>*, double*, void*);

}  // namespace nbody
