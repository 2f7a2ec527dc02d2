#pragma once
// Finds the body under a pixel: draws every body's index into an integer target (nearest wins) and reads
// back a few pixels around the click. Then reads that one body's position and velocity from the vertex
// buffers: a click costs one extra pass and a 32-byte read, never the whole state, on every backend.
#include <epoxy/gl.h>

#include <cstdint>

#include "camera.hpp"
#include "particle_renderer.hpp"

namespace nbody {

struct PickedGpuBody {
    Vec4<float> pos_mass{}, vel{};
};

struct PickRenderer {
    GLuint program = 0;
    GLuint fbo = 0, ids = 0, depth = 0;  // R32UI index target and its depth buffer
    int width = 0, height = 0;
    float min_px = 9.0f;  // bodies are at least this wide for picking (pixels)
    int radius_px = 6;    // search radius around the click

    void init();
    // The index of the body nearest to pixel (x, y) (origin top-left) within radius_px, or -1.
    std::int64_t pick(const ParticleRenderer& bodies, const Camera& cam, const ParticleSettings& s, int x,
                      int y, int w, int h);
    void shutdown();
};

// Reads body i (position+mass and velocity) back from the renderer's buffers: 32 bytes.
PickedGpuBody read_body(const ParticleRenderer& bodies, std::size_t i);

}  // namespace nbody
