#pragma once
// The compute splat path: a compute shader reads the bodies' float4 buffers, projects each body and adds
// its light into fixed-point integer images with atomics; a second pass turns that into the tone mapper's
// float image. On compute GPUs (H100/H200) only a few TPCs can rasterize, so a million point sprites are
// fragment-bound there, while compute work spreads over every SM.
#include <epoxy/gl.h>

#include <cstddef>

#include "camera.hpp"
#include "particle_renderer.hpp"
#include "tone_mapper.hpp"

namespace nbody {

// SplatMode::automatic picks the compute splat from this many bodies up (smaller sprites, more of them).
inline constexpr std::size_t kSplatAutoN = 262144;
// Footprint cap of the compute splat (pixels): bodies drawn larger shrink to it and keep their light.
inline constexpr float kSplatMaxPx = 4.0f;
// Fixed-point value of one unit of light (one full-brightness sprite centre): 2^14 keeps light down to
// 6e-5 and overflows only after 262,144 full-brightness bodies on one pixel (it saturates then).
inline constexpr float kSplatFixedOne = 16384.0f;

// True if s.splat (auto: N >= kSplatAutoN and a nominal size within kSplatMaxPx) asks for the compute path.
bool use_compute_splat(const ParticleSettings& s, std::size_t n);

struct SplatRenderer {
    GLuint splat_program = 0;
    GLuint resolve_program = 0;
    GLuint accum = 0;  // r32ui 2D array, 3 layers: R, G, B light in fixed point
    int width = 0, height = 0;

    // Compiles both compute programs. Throws nbody::Error with the compiler's log.
    void init();
    // Splats bodies.count bodies from bodies' buffers into tone's float target (after tone.begin; it is
    // overwritten, not added to). Throws nbody::Error if the w x h accumulation images cannot be made.
    void draw(const ParticleRenderer& bodies, const Camera& cam, const ParticleSettings& s,
              const ToneMapper& tone);
    void shutdown();
};

}  // namespace nbody
