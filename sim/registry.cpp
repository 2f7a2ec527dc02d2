#include "registry.hpp"

#include "cpu_backend.hpp"
#include "error.hpp"
#include "util.hpp"

#ifdef NBODY_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

std::vector<BackendInfo> make_registry() {
    std::vector<BackendInfo> r;
    r.push_back({"serial", "one thread, each pair once (Newton's third law)", true, "",
                 [](Precision p) { return make_cpu_backend(CpuKind::serial, p); }});
    r.push_back({"openmp", "all CPU threads (OMP_NUM_THREADS), a full row per body, SIMD", true, "",
                 [](Precision p) { return make_cpu_backend(CpuKind::openmp, p); }});
#ifdef NBODY_HAVE_CUDA
    r.push_back(cuda_backend_info());
#else
    r.push_back({"cuda", "NVIDIA GPU, tiled all-pairs kernels", false,
                 "this build has no CUDA backend (nvcc not found or NBODY_WITH_CUDA=OFF)",
                 [](Precision) -> std::unique_ptr<Backend> {
                     throw Error("this build has no CUDA backend (nvcc not found or NBODY_WITH_CUDA=OFF)");
                 }});
#endif
    return r;
}

}  // namespace

const std::vector<BackendInfo>& builtin_backends() {
    static const std::vector<BackendInfo> registry = make_registry();
    return registry;
}

const BackendInfo* find_backend(std::string_view name) {
    for (const auto& b : builtin_backends()) {
        if (b.name == name) return &b;
    }
    return nullptr;
}

std::vector<std::string> backend_names() {
    std::vector<std::string> out;
    for (const auto& b : builtin_backends()) out.push_back(b.name);
    return out;
}

std::vector<std::string> available_backend_names() {
    std::vector<std::string> out;
    for (const auto& b : builtin_backends()) {
        if (b.available) out.push_back(b.name);
    }
    return out;
}

std::unique_ptr<Backend> create_backend(std::string_view name, Precision p) {
    const BackendInfo* b = find_backend(name);
    if (!b) throw Error("unknown backend '" + std::string(name) + "' (valid: " + join(backend_names()) + ")");
    if (!b->available) {
        throw Error(b->unavailable_reason + " (available backends: " + join(available_backend_names()) + ")");
    }
    return b->create(p);
}

}  // namespace nbody
