#pragma once
// Overlays drawn into the float target after the bodies: trails (a ring buffer of the last K positions
// in GL memory, filled from the body buffer by a GL copy, so a CUDA run copies nothing to the host),
// velocity arrows and acceleration arrows. All read the body buffers as storage buffers and work for every
// backend.
#include <epoxy/gl.h>

#include <cstddef>

#include "camera.hpp"
#include "overlay_scale.hpp"
#include "particle_renderer.hpp"

namespace nbody {

struct OverlaySettings {
    bool trails = false;
    int trail_length = 64;      // K: positions kept per body
    float trail_light = 0.35f;  // light of the newest segment, relative to a sprite
    bool vectors = false;
    float vector_scale = 1.0f;   // world units of arrow per unit of speed
    bool accelerations = false;  // acceleration arrows (ParticleRenderer::acc_vbo, when it is filled)
    float accel_scale = 1.0f;    // world units of arrow per unit of acceleration
    float accel_cap = 0.0f;      // > 0: acceleration arrows saturate softly at this length (world units)
    bool potential = false;      // blend SceneRenderer::potential's last grid over the picture
    float grid_spacing = 0.0f;   // > 0: the reference grid (render/grid_renderer), lines this far apart

    // Takes the lengths and light computed for the view (render/overlay_scale).
    void set_scale(const OverlayScale& s) {
        vector_scale = s.vector_scale;
        accel_scale = s.accel_scale;
        accel_cap = s.accel_cap;
        trail_light = s.trail_light;
    }
};

struct OverlayRenderer {
    GLuint trail_program = 0, vector_program = 0;
    GLuint vao = 0;   // empty: vertices come from gl_VertexID
    GLuint ring = 0;  // K * N float4
    std::size_t ring_n = 0;
    int ring_k = 0;
    int head = -1;  // slot of the newest positions
    int filled = 0;

    void init();
    // Forgets the trails (new bodies: a jump is not a path).
    void reset_trails() { filled = 0, head = -1; }
    // Appends the bodies' current positions to the ring (a GL buffer copy); call once per new update.
    void record(const ParticleRenderer& bodies, const OverlaySettings& s);
    // Draws the enabled overlays into the bound float target (additive), viewport w x h.
    void draw(const ParticleRenderer& bodies, const Camera& cam, const ParticleSettings& ps,
              const OverlaySettings& s, int w, int h) const;
    void shutdown();
};

}  // namespace nbody
