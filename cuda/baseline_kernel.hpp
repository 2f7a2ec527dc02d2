#pragma once
// The reference point for every GPU benchmark: the textbook tiled all-pairs kernel of GPU Gems 3,
// chapter 31 (Nyland, Harris, Prins) -- one body per thread, 256 threads per block, tiles of 256 bodies
// in shared memory, nothing else. No CUDA headers here.
#include <cstddef>

#include "cuda_backend.hpp"
#include "sim/state.hpp"

namespace nbody {

// acc[i] = G * sum_j m_j r_ij / (r_ij^2 + eps2)^(3/2) for device arrays pos/acc of n bodies. Like the
// textbook it relies on eps2 > 0 for the self-term (eps2 = 0 gives NaN). `stream` is a cudaStream_t.
template <typename T>
void launch_baseline_forces(const Vec4<T>* pos, Vec4<T>* acc, std::size_t n, T G, T eps2, void* stream);

// The kernel as an ExternalForceKernel, for time_force_kernels (`nbody bench`'s comparison column).
ExternalForceKernel baseline_force_kernel();

}  // namespace nbody
