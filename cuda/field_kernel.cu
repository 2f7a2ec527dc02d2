// Acceleration and potential at arbitrary target points: the potential-field view, a picked body's
// energy, force-error samples, and, under MPI, every force evaluation of a rank's slice against all
// bodies. One target per thread against tiles of the bodies in shared memory. Few targets (a pick, a
// 128^2 grid) would leave most SMs idle, so the sources are then split over grid.y: each split writes
// its partial sums and a second pass adds them in split order (no atomics: the result is the same on
// every run).
#include <cuda_runtime.h>

#include <algorithm>

#include "device_buffer.hpp"
#include "field_kernel.hpp"
#include "launch.cuh"
#include "sim/gravity/interaction.hpp"

namespace nbody {
namespace {

constexpr unsigned kFieldBlock = 128;
// Blocks that keep every SM of a large GPU busy for a few waves (132 SMs x 4 resident blocks).
constexpr std::size_t kWantedBlocks = 528;

// Sums over sources [begin, end) into (a, phi); writes them scaled by G (one split) or raw to the
// split's partial slot (several splits).
template <typename T, bool kPotential>
__global__ void __launch_bounds__(kFieldBlock)
    field_kernel(const Vec4<T>* __restrict__ pos, std::size_t n, std::size_t per_split,
                 const Vec4<T>* __restrict__ targets, std::size_t m, T G, T eps2, Vec4<T>* __restrict__ acc,
                 T* __restrict__ potential) {
    __shared__ Vec4<T> tile[kFieldBlock];
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t begin = std::size_t(blockIdx.y) * per_split;
    const std::size_t end = begin + per_split < n ? begin + per_split : n;
    const Vec4<T> q = targets[i < m ? i : m - 1];
    T ax = 0, ay = 0, az = 0, phi = 0;
    for (std::size_t t = begin; t < end; t += kFieldBlock) {
        const std::size_t j = t + threadIdx.x;
        tile[threadIdx.x] = j < end ? pos[j] : Vec4<T>{T(0), T(0), T(0), T(0)};
        __syncthreads();
        const unsigned count = end - t < kFieldBlock ? unsigned(end - t) : kFieldBlock;
#pragma unroll 4
        for (unsigned k = 0; k < count; ++k) {
            const Vec4<T> pj = tile[k];
            const T dx = pj.x - q.x, dy = pj.y - q.y, dz = pj.z - q.z;
            if (dx == T(0) && dy == T(0) && dz == T(0)) continue;  // a body at the target: self
            const T inv = inv_sqrt(softened_distance2(dx, dy, dz, eps2));
            const T w = interaction_weight(pj.w, inv);
            ax = fma(dx, w, ax), ay = fma(dy, w, ay), az = fma(dz, w, az);
            if (kPotential) phi = fma(pj.w, inv, phi);
        }
        __syncthreads();
    }
    if (i >= m) return;
    const T scale = gridDim.y == 1 ? G : T(1);
    const std::size_t slot = std::size_t(blockIdx.y) * m + i;
    if (acc) acc[slot] = Vec4<T>{scale * ax, scale * ay, scale * az, T(0)};
    if (kPotential) potential[slot] = -scale * phi;
}

// Adds the splits' partial sums of target i in split order and scales by G.
template <typename T>
__global__ void sum_field_splits(const Vec4<T>* __restrict__ part_acc, const T* __restrict__ part_phi,
                                 unsigned splits, std::size_t m, T G, Vec4<T>* __restrict__ acc,
                                 T* __restrict__ potential) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= m) return;
    if (acc) {
        T x = 0, y = 0, z = 0;
        for (unsigned s = 0; s < splits; ++s) {
            const Vec4<T> a = part_acc[std::size_t(s) * m + i];
            x += a.x, y += a.y, z += a.z;
        }
        acc[i] = Vec4<T>{G * x, G * y, G * z, T(0)};
    }
    if (potential) {
        T phi = 0;
        for (unsigned s = 0; s < splits; ++s) phi += part_phi[std::size_t(s) * m + i];
        potential[i] = G * phi;
    }
}

}  // namespace

template <typename T>
void launch_field(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m, T G, T eps2,
                  Vec4<T>* acc, T* potential, void* stream) {
    if (m == 0) return;
    const auto s = static_cast<cudaStream_t>(stream);
    const unsigned blocks = blocks_for(m, kFieldBlock);
    const std::size_t tiles = std::max<std::size_t>(1, (n + kFieldBlock - 1) / kFieldBlock);
    const std::size_t want = std::min(tiles, (kWantedBlocks + blocks - 1) / blocks);
    // Whole tiles per split, so that every split but the last is full.
    const std::size_t per_split = ((tiles + want - 1) / want) * kFieldBlock;
    const unsigned splits = unsigned((n + per_split - 1) / per_split);
    auto field = [&](Vec4<T>* a, T* phi, unsigned ny) {
        const dim3 grid(blocks, std::max(1u, ny));
        if (phi) {
            launch_kernel(field_kernel<T, true>, grid, dim3(kFieldBlock), 0, s, pos, n, per_split, targets, m,
                          G, eps2, a, phi);
        } else {
            launch_kernel(field_kernel<T, false>, grid, dim3(kFieldBlock), 0, s, pos, n, per_split, targets,
                          m, G, eps2, a, phi);
        }
    };
    if (splits <= 1) {
        field(acc, potential, 1);
        return;
    }
    // Scratch for the partial sums; the destructor's free waits for the kernels (not a per-step path:
    // splits only happen for few targets).
    DeviceBuffer<Vec4<T>> part_acc(acc ? splits * m : 0);
    DeviceBuffer<T> part_phi(potential ? splits * m : 0);
    field(acc ? part_acc.data() : nullptr, potential ? part_phi.data() : nullptr, splits);
    launch_kernel(sum_field_splits<T>, dim3(blocks_for(m, 256)), dim3(256), 0, s, part_acc.data(),
                  part_phi.data(), splits, m, G, acc, potential);
    if (s != nullptr) CUDA_CHECK(cudaStreamSynchronize(s));
}

template void launch_field<float>(const Vec4<float>*, std::size_t, const Vec4<float>*, std::size_t, float,
                                  float, Vec4<float>*, float*, void*);
template void launch_field<double>(const Vec4<double>*, std::size_t, const Vec4<double>*, std::size_t, double,
                                   double, Vec4<double>*, double*, void*);

}  // namespace nbody
