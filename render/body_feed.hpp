#pragma once
// Moves the simulation's bodies into the renderer's vertex buffers each frame: through CUDA–GL interop
// when the backend lives on the GPU (no host copy), else through host memory and glBufferSubData.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "particle_renderer.hpp"
#include "sim/backend.hpp"

namespace nbody {

struct CudaGlInterop;

struct FeedStats {
    bool interop = false;                  // this frame went through interop
    std::size_t device_to_host_bytes = 0;  // read back from a GPU backend this frame
    std::size_t host_to_device_bytes = 0;  // uploaded with glBufferSubData this frame
};

struct BodyFeed {
    bool try_interop = true;      // settings: false forces the host path (for comparisons)
    bool interop_failed = false;  // interop was tried and failed: the host path is used from then on
    std::string interop_note;     // why interop is off, for the panel ("" when on or not applicable)
    FeedStats last;

    BodyFeed();
    ~BodyFeed();
    BodyFeed(const BodyFeed&) = delete;
    BodyFeed& operator=(const BodyFeed&) = delete;

    // Fills r's buffers with the backend's current bodies (resizing them to its size), and with their
    // accelerations under acc_params when that is non-null (acceleration arrows; on a GPU straight into
    // the buffer like the positions).
    FeedStats feed(Backend& backend, ParticleRenderer& r, const Params* acc_params = nullptr);
    // Host path from arrays the caller already holds (a snapshot taken off the render thread); acc may
    // be null.
    FeedStats feed_host(const Vec4<float>* pos, const Vec4<float>* vel, std::size_t n, ParticleRenderer& r,
                        std::size_t read_back_bytes, const Vec4<float>* acc = nullptr);
    // Whether feed() would use interop for this backend (GPU backend, CUDA build, not failed before).
    bool wants_interop(const Backend& backend) const;
    // Releases the interop registration; call with the GL context current.
    void shutdown();

  private:
    std::unique_ptr<CudaGlInterop> interop_;
    std::vector<Vec4<float>> pos_, vel_, acc_;
};

// True if this build can use CUDA–GL interop at all.
bool interop_built();

}  // namespace nbody
