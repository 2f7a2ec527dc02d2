#pragma once
// An owning, typed device allocation. Moving transfers ownership; the destructor frees (and only logs
// on failure). Allocation failure throws nbody::Error naming the bytes asked for.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "sim/platform/memory.hpp"

namespace nbody {

template <typename T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) { resize(count); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }

    // Reallocates when the count changes; the contents are not kept.
    void resize(std::size_t count) {
        if (count == count_) return;
        release();
        if (count == 0) return;
        const std::size_t bytes = count * sizeof(T);
        void* p = nullptr;
        const cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();  // clear the sticky-free error so later calls still work
            std::size_t free_b = 0, total_b = 0;
            CUDA_CHECK_LOG(cudaMemGetInfo(&free_b, &total_b));
            throw Error("device out of memory: needed " + format_bytes(double(bytes)) + " more (" +
                        format_bytes(double(free_b)) + " free of " + format_bytes(double(total_b)) +
                        "): " + cudaGetErrorString(e));
        }
        ptr_ = static_cast<T*>(p);
        count_ = count;
    }

    // Copies count items between host memory and the start of this buffer (blocking; count <= size()).
    void copy_from_host(const T* src, std::size_t count) {
        if (count > 0) CUDA_CHECK(cudaMemcpy(ptr_, src, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_to_host(T* dst, std::size_t count) const {
        if (count > 0) CUDA_CHECK(cudaMemcpy(dst, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

  private:
    void release() {
        if (ptr_) CUDA_CHECK_LOG(cudaFree(ptr_));
        ptr_ = nullptr;
        count_ = 0;
    }

    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace nbody
