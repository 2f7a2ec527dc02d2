#pragma once
// An owning page-locked host allocation (cudaMallocHost): copies between it and the device run at full
// bus speed and can be asynchronous. A distributed run stages its positions through these (no
// CUDA-aware MPI is assumed). Growing reallocates; the contents are not kept.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "sim/platform/memory.hpp"

namespace nbody {

template <typename T>
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    ~PinnedBuffer() { release(); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    // At least count items (reallocated only when larger).
    void reserve(std::size_t count) {
        if (count <= count_) return;
        release();
        void* p = nullptr;
        const cudaError_t e = cudaMallocHost(&p, count * sizeof(T));
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            throw Error("pinned host memory: could not lock " + format_bytes(double(count * sizeof(T))) +
                        ": " + cudaGetErrorString(e));
        }
        ptr_ = static_cast<T*>(p);
        count_ = count;
    }

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }

  private:
    void release() {
        if (ptr_) CUDA_CHECK_LOG(cudaFreeHost(ptr_));
        ptr_ = nullptr;
        count_ = 0;
    }

    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace nbody
