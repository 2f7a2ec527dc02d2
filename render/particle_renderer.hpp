#pragma once
// Draws the bodies as soft additive point sprites from two float4 vertex buffers (pos+mass, velocity).
// The CUDA backend writes these buffers in place (render/body_feed); CPU backends upload into them.
#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "render/camera.hpp"
#include "sim/state.hpp"

namespace nbody {

enum class ColorMode { speed, mass, white };

// How bodies reach the image: point sprites through the raster pipeline, or the compute splat
// (render/splat_renderer), which is faster for many small bodies on compute GPUs.
enum class SplatMode { automatic, sprites, compute };

// "auto", "sprites", "compute" (for flags and logs).
const char* to_string(SplatMode m);
std::optional<SplatMode> parse_splat_mode(const std::string& s);

struct ParticleSettings {
    float size_px = 4.0f;      // sprite diameter (pixels at 1080 lines) of a typical body at the focus distance
    float brightness = 1.0f;   // light per sprite before tone mapping
    ColorMode color = ColorMode::speed;
    float speed_max = 0.0f;    // speed at the top of the colour ramp; 0 = from the scenario (BodyStats)
    float min_px = 1.5f;       // smaller sprites are drawn at this size with their light scaled down
    float max_px = 16.0f;      // cap (pixels at 1080 lines): bodies next to the camera don't fill the screen
    SplatMode splat = SplatMode::automatic;
};

// The nominal sprite size for n bodies: 4 px up to 65536 bodies, then shrinking as n^(-1/3) so a
// million bodies stay a cloud of points rather than one white blob (and cost fewer fragments).
float default_sprite_size(std::size_t n);

// What the colour map and sprite size need from the bodies; computed once per scenario on the host,
// because with interop the positions never visit host memory.
struct BodyStats {
    float mean_mass = 1.0f;    // the median mass: the 'typical body' that gets the nominal sprite size
    float min_mass = 1.0f;
    float max_mass = 1.0f;
    float speed_scale = 1.0f;  // roughly the 95th percentile speed
};

template <typename T>
BodyStats compute_body_stats(const State<T>& s);

// Sets body_look.glsl's uniforms (locations 0-8) on program for a w x h pixel viewport.
void set_body_look_uniforms(GLuint program, const Camera& cam, const ParticleSettings& s, const BodyStats& stats,
                            int w, int h);

struct ParticleRenderer {
    GLuint program = 0;
    GLuint vao = 0;
    GLuint pos_vbo = 0;      // n float4 (x, y, z, m)
    GLuint vel_vbo = 0;      // n float4 (vx, vy, vz, 0)
    std::size_t capacity = 0;
    std::size_t count = 0;   // bodies drawn
    // Changes with every (re)allocation of the buffers, unique across renderers: drivers reuse deleted
    // buffer names, so a CUDA registration must be keyed on this, not on the ids.
    std::uint64_t generation = 0;
    BodyStats stats;

    // Compiles the sprite program and creates the vertex array. Throws nbody::Error.
    void init();
    // Makes room for n bodies (reallocating only when growing: buffer ids change then) and draws n.
    void resize(std::size_t n);
    // Copies n bodies from host memory into the buffers (glBufferSubData); returns bytes uploaded.
    std::size_t upload(const Vec4<float>* pos_mass, const Vec4<float>* vel, std::size_t n);
    // Draws `count` bodies into the bound framebuffer (additive, no depth test), viewport w x h pixels.
    void draw(const Camera& cam, const ParticleSettings& s, int w, int h) const;
    void shutdown();
};

}  // namespace nbody
