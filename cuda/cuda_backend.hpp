#pragma once
// The CUDA backend: the bodies live on the GPU between steps. No CUDA headers here, so sim/ and app/ can
// include this from plain C++.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "cuda/force_kernels.hpp"
#include "sim/backend.hpp"
#include "sim/registry.hpp"

namespace nbody {

// The registry entry "cuda": available when a CUDA device is usable (checked once, without throwing);
// otherwise unavailable_reason is "no CUDA device: <CUDA's reason>". create() throws nbody::Error then.
BackendInfo cuda_backend_info();

// A CUDA backend whose force evaluation uses `launch` (zero fields chosen per N; see force_kernels.hpp).
// The registry uses the default; tests and benchmarks force kernel variants and launch shapes with it.
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

// Median milliseconds of one force evaluation (all N^2 interactions) with the tuned kernel at its
// automatic launch shape and with the baseline kernel, on the same random bodies, timed with CUDA events
// after warm-up in this process. interactions/s = n^2 / (ms / 1000). Throws nbody::Error without a device.
struct ForceKernelTiming {
    double tuned_ms = 0, baseline_ms = 0;
    std::string tuned_launch;  // the launch shape the tuned kernel used, e.g. "tuned K=4 block=128 splits=2"
};
ForceKernelTiming time_force_kernels(std::size_t n, Precision p, int repeats);

// Median milliseconds of one force evaluation with an explicit launch (fields may be 0 = automatic).
double time_force_launch(const ForceLaunch& launch, std::size_t n, Precision p, int repeats);

}  // namespace nbody
