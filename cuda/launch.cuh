#pragma once
// The one way kernels are launched: skips empty grids and checks the launch.
#include <cuda_runtime.h>

#include "cuda_check.hpp"

namespace nbody {

template <typename... KArgs, typename... Args>
void launch_kernel(void (*kernel)(KArgs...), dim3 grid, dim3 block, std::size_t shared_bytes,
                   cudaStream_t stream, Args&&... args) {
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0) return;
    kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
    CUDA_CHECK(cudaGetLastError());
}

// The current device's streaming multiprocessors (for grids that fill the device).
inline int current_device_sms() {
    int dev = 0, sms = 1;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return sms;
}

// Blocks of `block` threads covering n items.
inline unsigned blocks_for(std::size_t n, unsigned block) {
    return unsigned((n + block - 1) / block);
}

}  // namespace nbody
