#pragma once
// CUDA–OpenGL interop: the CUDA backend writes bodies straight into the renderer's vertex buffers.
// Compiled only when NBODY_HAVE_CUDA; this header carries no CUDA or GL headers.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace nbody {

class Backend;
struct Params;

struct CudaGlInterop {
    CudaGlInterop();
    ~CudaGlInterop();
    CudaGlInterop(const CudaGlInterop&) = delete;
    CudaGlInterop& operator=(const CudaGlInterop&) = delete;

    // Registers the GL buffers (again whenever `generation` changes: the renderer bumps it on every
    // reallocation, and a recreated buffer may get its old id back), maps them, lets the backend write
    // n float4 positions+mass and velocities into them, and accelerations under *acc_params into acc_vbo
    // when acc_params is non-null (acc_vbo 0: none), unmaps. False with *why set if registration or
    // mapping fails (WSL2, hybrid laptops, VirtualGL) or the backend cannot write device memory.
    bool write(Backend& backend, unsigned pos_vbo, unsigned vel_vbo, unsigned acc_vbo,
               std::uint64_t generation, std::size_t n, const Params* acc_params, std::string* why);
    // Unregisters the buffers; call while the GL context is still current.
    void shutdown();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nbody
