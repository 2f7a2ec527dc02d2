#pragma once
// Draws the bodies as soft additive point sprites from two float4 vertex buffers (pos+mass, velocity).
// The CUDA backend writes these buffers in place (render/body_feed); CPU backends upload into them.
#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "body_look.hpp"
#include "camera.hpp"
#include "sim/state.hpp"

namespace nbody {

// Sets body_look.glsl's uniforms (BodyLookLoc) on program for a w x h pixel viewport.
void set_body_look_uniforms(GLuint program, const Camera& cam, const ParticleSettings& s,
                            const BodyStats& stats, int w, int h);

struct ParticleRenderer {
    GLuint program = 0;
    GLuint vao = 0;
    GLuint pos_vbo = 0;      // n float4 (x, y, z, m)
    GLuint vel_vbo = 0;      // n float4 (vx, vy, vz, radius)
    GLuint acc_vbo = 0;      // n float4 (ax, ay, az, 0): filled only when acceleration arrows are asked for
    bool acc_valid = false;  // acc_vbo holds the accelerations of the bodies in pos_vbo
    std::size_t capacity = 0;
    std::size_t count = 0;  // bodies drawn
    // Changes with every (re)allocation of the buffers, unique across renderers: drivers reuse deleted
    // buffer names, so a CUDA registration must be keyed on this, not on the ids.
    std::uint64_t generation = 0;
    BodyStats stats;
    GLuint phi_buf = 0;  // each body's potential for colouring by potential (0s: none computed)

    // Compiles the sprite program and creates the vertex array. Throws nbody::Error.
    void init();
    // Makes room for n bodies (reallocating only when growing: buffer ids change then) and draws n.
    void resize(std::size_t n);
    // Copies n bodies from host memory into the buffers (glBufferSubData); returns bytes uploaded. vel and
    // acc may be null (acc null: acc_valid becomes false).
    std::size_t upload(const Vec4<float>* pos_mass, const Vec4<float>* vel, std::size_t n,
                       const Vec4<float>* acc = nullptr);
    // Draws `count` bodies into the bound framebuffer (additive, no depth test), viewport w x h pixels;
    // with discs_only, just the bodies drawn as discs of their radius (after the compute splat).
    void draw(const Camera& cam, const ParticleSettings& s, int w, int h, bool discs_only = false) const;
    // Replaces the bodies' potentials (one float each, in body order; empty: none).
    void upload_potentials(const std::vector<float>& phi);
    // Binds them where body_look.glsl reads them (storage buffer 4); every body-drawing pass calls it.
    void bind_potentials() const;
    void shutdown();
};

}  // namespace nbody
