#include "cuda_interop.hpp"

#include <epoxy/gl.h>
// After epoxy: cuda_gl_interop.h includes GL/gl.h, which epoxy's guard turns into a no-op.
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include "sim/backend.hpp"

namespace nbody {

struct CudaGlInterop::Impl {
    // Positions, velocities and (registered once asked for) accelerations.
    cudaGraphicsResource* res[3] = {nullptr, nullptr, nullptr};
    GLuint ids[3] = {0, 0, 0};
    std::uint64_t generation = 0;  // the renderer's allocation the registration belongs to; 0 = none

    void unregister() {
        for (auto*& r : res) {
            if (r) cudaGraphicsUnregisterResource(r);  // errors here only mean the context is gone
            r = nullptr;
        }
        ids[0] = ids[1] = ids[2] = 0;
        generation = 0;
    }
};

CudaGlInterop::CudaGlInterop() : impl_(std::make_unique<Impl>()) {}
CudaGlInterop::~CudaGlInterop() = default;

bool CudaGlInterop::write(Backend& backend, unsigned pos_vbo, unsigned vel_vbo, unsigned acc_vbo,
                          std::uint64_t generation, std::size_t n, const Params* acc_params,
                          std::string* why) {
    auto fail = [&](const char* what, cudaError_t e) {
        cudaGetLastError();  // clear the sticky-free error so the backend keeps working on the copy path
        if (why) *why = std::string(what) + ": " + cudaGetErrorString(e);
        return false;
    };
    Impl& s = *impl_;
    const bool with_acc = acc_params && acc_vbo != 0;
    // Ids alone are not enough: a deleted and recreated buffer often gets the same id back.
    if (s.generation != generation || s.ids[0] != pos_vbo || s.ids[1] != vel_vbo ||
        (with_acc && s.ids[2] != acc_vbo)) {
        s.unregister();
        s.generation = generation;
    }
    const GLuint want[3] = {pos_vbo, vel_vbo, acc_vbo};
    const int count = with_acc ? 3 : 2;
    for (int k = 0; k < count; ++k) {
        if (s.res[k]) continue;
        // WriteDiscard: GL's old contents are never needed, so the driver may skip preserving them.
        cudaError_t e =
            cudaGraphicsGLRegisterBuffer(&s.res[k], want[k], cudaGraphicsRegisterFlagsWriteDiscard);
        if (e != cudaSuccess) {
            s.res[k] = nullptr;
            s.unregister();
            return fail("cudaGraphicsGLRegisterBuffer failed", e);
        }
        s.ids[k] = want[k];
    }
    cudaError_t e = cudaGraphicsMapResources(count, s.res, nullptr);
    if (e != cudaSuccess) return fail("cudaGraphicsMapResources failed", e);
    void* ptr[3] = {nullptr, nullptr, nullptr};
    bool ok = true;
    for (int k = 0; k < count && ok; ++k) {
        std::size_t bytes = 0;
        e = cudaGraphicsResourceGetMappedPointer(&ptr[k], &bytes, s.res[k]);
        if (e != cudaSuccess || bytes < n * 16) ok = false;
    }
    bool wrote = false;
    try {
        wrote = ok && backend.write_positions_device(ptr[0], ptr[1]) &&
                (!with_acc || backend.write_accelerations_device(*acc_params, ptr[2]));
    } catch (...) {
        cudaGraphicsUnmapResources(count, s.res, nullptr);  // a failed force evaluation: GL gets them back
        throw;
    }
    cudaError_t e2 = cudaGraphicsUnmapResources(count, s.res, nullptr);
    if (!ok)
        return fail("cudaGraphicsResourceGetMappedPointer failed",
                    e != cudaSuccess ? e : cudaErrorInvalidValue);
    if (e2 != cudaSuccess) return fail("cudaGraphicsUnmapResources failed", e2);
    if (!wrote) {
        if (why) *why = "backend '" + backend.name() + "' cannot write device memory";
        return false;
    }
    return true;
}

void CudaGlInterop::shutdown() {
    impl_->unregister();
}

}  // namespace nbody
