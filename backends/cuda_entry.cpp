// The registry entry "cuda" of a build with the CUDA backend. The textbook baseline kernel comes from
// bench/ and is handed to the CUDA timing code here, so the production CUDA library never links it.
#include <cstdlib>

#include "cuda/baseline_kernel.hpp"
#include "cuda/cuda_backend.hpp"
#include "registry.hpp"
#include "sim/platform/memory.hpp"

namespace nbody {

void prepare_process_for_devices() {
    // The driver reads it when it makes a context; a value the user set stays (overwrite 0).
    ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
}

BackendInfo cuda_backend_entry() {
    BackendInfo b;
    b.name = "cuda";
    b.description = "NVIDIA GPU: tiled all-pairs kernels, state kept on the device";
    b.residency = Residency::device;
    b.probe = [] {
        const std::string problem = cuda_device_problem();
        return problem.empty() ? problem : "no CUDA device: " + problem;
    };
    b.create = [](Precision p) { return make_cuda_backend(p); };
    b.device_description = [] {
        const auto d = cuda_device_info();
        if (!d) return std::string();
        return d->name + ", " + format_bytes(double(d->total_bytes)) + " total, " +
               format_bytes(double(d->free_bytes)) + " free";
    };
    b.device_name = [] {
        const auto d = cuda_device_info();
        return d ? d->name : std::string();
    };
    b.select_device = [](int index) { select_cuda_device(index); };
    b.warm_up = [] { warm_up_cuda_device(); };
    b.compare_kernels = [](std::size_t n, Precision p, int repeats) {
        const ForceKernelTiming t = time_force_kernels(n, p, repeats, baseline_force_kernel());
        return KernelComparison{t.production_ms, t.other_ms, t.production_launch};
    };
    return b;
}

}  // namespace nbody
