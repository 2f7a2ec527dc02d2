#include "registry.hpp"

#include "sim/cpu_backend.hpp"
#include "sim/error.hpp"
#include "sim/util.hpp"

namespace nbody {

// Defined in cuda_entry.cpp when the build has CUDA, else in no_cuda_entry.cpp.
BackendInfo cuda_backend_entry();

const std::string& BackendInfo::unavailable_reason() const {
    std::call_once(answer_->once, [this] {
        if (probe) answer_->reason = probe();
    });
    return answer_->reason;
}

namespace {

std::vector<BackendInfo> make_registry() {
    std::vector<BackendInfo> r;
    BackendInfo serial;
    serial.name = "serial";
    serial.description = "one thread, each pair once (Newton's third law)";
    serial.create = [](Precision p) { return make_cpu_backend(CpuKind::serial, p); };
    r.push_back(serial);
    BackendInfo openmp;
    openmp.name = "openmp";
    openmp.description = "all CPU threads (OMP_NUM_THREADS), a full row per body, SIMD";
    openmp.create = [](Precision p) { return make_cpu_backend(CpuKind::openmp, p); };
    openmp.uses_threads = true;
    r.push_back(openmp);
    r.push_back(cuda_backend_entry());
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

const BackendInfo& default_interactive_backend() {
    for (const auto& b : builtin_backends()) {
        if (b.residency == Residency::device && b.available()) return b;
    }
    return *find_backend("openmp");
}

const BackendInfo* first_device_backend() {
    for (const auto& b : builtin_backends()) {
        if (b.residency == Residency::device) return &b;
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
        if (b.available()) out.push_back(b.name);
    }
    return out;
}

std::unique_ptr<Backend> create_backend(std::string_view name, Precision p) {
    const BackendInfo* b = find_backend(name);
    if (!b) throw Error("unknown backend '" + std::string(name) + "' (valid: " + join(backend_names()) + ")");
    if (!b->available()) {
        throw Error(b->unavailable_reason() + " (available backends: " + join(available_backend_names()) +
                    ")");
    }
    return b->create(p);
}

}  // namespace nbody
