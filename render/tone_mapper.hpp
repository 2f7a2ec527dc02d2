#pragma once
// The float render target the sprites add into, and the pass that maps it to the display's range.
#include <epoxy/gl.h>

namespace nbody {

struct ToneSettings {
    bool tone_map = true;   // logarithmic up to `white`; off: plain clamp, dense cores go flat white
    float exposure = 1.0f;  // scales the light before the curve
    float white = 64.0f;    // light (in units of one full sprite) shown as full white
    float gamma = 2.2f;     // display gamma applied after the curve
};

struct ToneMapper {
    GLuint program = 0;
    GLuint vao = 0;  // empty: the full-screen triangle comes from gl_VertexID
    GLuint fbo = 0;
    GLuint color = 0;  // RGBA16F
    int width = 0, height = 0;

    // Compiles the tone-mapping program. Throws nbody::Error.
    void init();
    // Binds the float target (resized to w x h pixels if needed) and clears it to black.
    void begin(int w, int h);
    // Tone-maps the float target into framebuffer dst_fbo (0 = the window).
    void resolve(GLuint dst_fbo, const ToneSettings& s) const;
    void shutdown();
};

}  // namespace nbody
