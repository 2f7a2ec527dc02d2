#pragma once
// The CUDA backend: the bodies live on the GPU between steps. No CUDA headers here, so plain C++ (the
// backend registry, tests, benchmarks) can include this.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "force_kernels.hpp"
#include "sim/backend.hpp"

namespace nbody {

// "" when a CUDA device is usable, else CUDA's reason in plain words (never throws).
std::string cuda_device_problem();

// Makes this process's next CUDA work use device `index` modulo the devices present (a distributed run:
// one GPU per process on a node). Does nothing without a device.
void select_cuda_device(int index);

// Creates the current device's context now (the ~0.1 s a first CUDA call takes), so that a backend made
// afterwards, on any thread, finds it made; for a thread of its own while the host reads its input.
// Never throws; a failure is left for creating the backend to report.
void warm_up_cuda_device();

// A CUDA backend whose direct-sum solver uses `launch` (zero fields chosen per N; see force_kernels.hpp).
// Tests and benchmarks force kernel variants and launch shapes with it.
// Throws nbody::Error("no CUDA device: ...") when there is none.
std::unique_ptr<Backend> make_cuda_backend(Precision p, const ForceLaunch& launch = {});

struct CudaDeviceInfo {
    std::string name;
    std::size_t total_bytes = 0, free_bytes = 0;  // device memory
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;  // compute capability
};

// The current device, or nullopt when there is none (never throws).
std::optional<CudaDeviceInfo> cuda_device_info();

// A force kernel from outside the production library, for timing comparisons: bench/ injects the
// textbook baseline this way. acc = G sum_j m_j r / (r^2 + eps2)^{3/2}; device pointers; stream as void*.
struct ExternalForceKernel {
    std::string name;
    void (*f32)(const Vec4<float>* pos, Vec4<float>* acc, std::size_t n, float G, float eps2,
                void* stream) = nullptr;
    void (*f64)(const Vec4<double>* pos, Vec4<double>* acc, std::size_t n, double G, double eps2,
                void* stream) = nullptr;
};

// Median milliseconds of one force evaluation (all N^2 interactions) with the production kernel at its
// automatic launch shape (tuned or pairwise, as a step uses) and with `other`, on the same random bodies,
// timed with CUDA events after warm-up in this process. interactions/s = n^2 / (ms / 1000).
// Throws nbody::Error without a device.
struct ForceKernelTiming {
    double production_ms = 0, other_ms = 0;
    std::string production_launch;  // e.g. "tuned K=4 block=128 splits=2" or "pairwise K=8 block=128"
};
ForceKernelTiming time_force_kernels(std::size_t n, Precision p, int repeats,
                                     const ExternalForceKernel& other);

// Median milliseconds of one force evaluation with an explicit launch (fields may be 0 = automatic).
double time_force_launch(const ForceLaunch& launch, std::size_t n, Precision p, int repeats);

}  // namespace nbody
