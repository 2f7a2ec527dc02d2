#pragma once
// Checking CUDA runtime calls: every call goes through CUDA_CHECK, which throws nbody::Error naming the
// file, line, the call's text and CUDA's message. Destructors use CUDA_CHECK_LOG, which only prints.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "sim/error.hpp"

namespace nbody::cuda_detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
    throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + ": " + call + ": " +
                cudaGetErrorString(e));
}

}  // namespace nbody::cuda_detail

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        const cudaError_t nbody_cuda_err_ = (call);                                             \
        if (nbody_cuda_err_ != cudaSuccess) {                                                   \
            ::nbody::cuda_detail::throw_cuda_error(nbody_cuda_err_, #call, __FILE__, __LINE__); \
        }                                                                                       \
    } while (0)

#define CUDA_CHECK_LOG(call)                                                                        \
    do {                                                                                            \
        const cudaError_t nbody_cuda_err_ = (call);                                                 \
        if (nbody_cuda_err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "nbody: CUDA error at %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(nbody_cuda_err_));                                      \
        }                                                                                           \
    } while (0)
