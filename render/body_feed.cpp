#include "body_feed.hpp"

#ifdef NBODY_HAVE_CUDA
#include "cuda_interop.hpp"
#endif

namespace nbody {

#ifdef NBODY_HAVE_CUDA
BodyFeed::BodyFeed() : interop_(std::make_unique<CudaGlInterop>()) {}
bool interop_built() {
    return true;
}
#else
// A stand-in so unique_ptr has a complete type; never constructed without CUDA.
struct CudaGlInterop {};
BodyFeed::BodyFeed() = default;
bool interop_built() {
    return false;
}
#endif

BodyFeed::~BodyFeed() = default;

bool BodyFeed::wants_interop(const Backend& backend) const {
    return interop_built() && try_interop && !interop_failed && backend.residency() == Residency::device;
}

FeedStats BodyFeed::feed(Backend& backend, ParticleRenderer& r, const Params* acc_params) {
    std::size_t n = backend.size();
    r.resize(n);
#ifdef NBODY_HAVE_CUDA
    if (wants_interop(backend) && n > 0) {
        std::string why;
        if (interop_->write(backend, r.pos_vbo, r.vel_vbo, acc_params ? r.acc_vbo : 0u, r.generation, n,
                            acc_params, &why)) {
            r.acc_valid = acc_params != nullptr;
            last = FeedStats{true, 0, 0};
            return last;
        }
        // Keep running on the copy path and say why, once; never retry every frame.
        interop_failed = true;
        interop_note = "CUDA-GL interop unavailable (" + why + "): copying through host memory";
        interop_->shutdown();
    }
#endif
    pos_.resize(n);
    vel_.resize(n);
    backend.copy_positions(pos_.data());
    backend.copy_velocities(vel_.data());
    if (acc_params) {
        acc_.resize(n);
        backend.copy_accelerations(*acc_params, acc_.data());
    }
    const bool gpu = backend.residency() == Residency::device;
    const std::size_t arrays = acc_params ? 3 : 2;
    return feed_host(pos_.data(), vel_.data(), n, r, gpu ? arrays * n * sizeof(Vec4<float>) : 0,
                     acc_params ? acc_.data() : nullptr);
}

FeedStats BodyFeed::feed_host(const Vec4<float>* pos, const Vec4<float>* vel, std::size_t n,
                              ParticleRenderer& r, std::size_t read_back_bytes, const Vec4<float>* acc) {
    last = FeedStats{};
    last.host_to_device_bytes = r.upload(pos, vel, n, acc);
    last.device_to_host_bytes = read_back_bytes;
    return last;
}

void BodyFeed::shutdown() {
#ifdef NBODY_HAVE_CUDA
    if (interop_) interop_->shutdown();
#endif
}

}  // namespace nbody
