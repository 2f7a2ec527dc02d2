// The registry entry "cuda" of a build without the CUDA backend: listed, never available.
#include "registry.hpp"
#include "sim/error.hpp"

namespace nbody {

void prepare_process_for_devices() {}

BackendInfo cuda_backend_entry() {
    static const char* kWhy = "this build has no CUDA backend (nvcc not found or NBODY_WITH_CUDA=OFF)";
    BackendInfo b;
    b.name = "cuda";
    b.description = "NVIDIA GPU: tiled all-pairs kernels, state kept on the device";
    b.residency = Residency::device;
    b.probe = [] { return std::string(kWhy); };
    b.create = [](Precision) -> std::unique_ptr<Backend> { throw Error(kWhy); };
    return b;
}

}  // namespace nbody
