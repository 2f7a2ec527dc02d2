#pragma once
// The float render target the sprites add into, and the pass that maps it to the display's range.
#include <epoxy/gl.h>

#include "auto_exposure.hpp"
#include "body_look.hpp"

namespace nbody {

struct ToneSettings {
    bool tone_map = true;   // logarithmic up to `white`; off: plain clamp, dense cores go flat white
    float exposure = 1.0f;  // scales the light before the curve
    float white = 64.0f;    // light (in units of one full sprite) shown as full white
    float gamma = 2.2f;     // display gamma applied after the curve
    // The white point from the image (render/auto_exposure) instead of `white`: the light below which
    // `white_percentile` of the lit pixels lie, never below `white_floor`, reached by `adapt` of the way
    // per frame (1: at once; the window and videos ease towards it).
    bool auto_white = false;
    float white_percentile = 0.995f;
    float white_floor = 1.0f;
    float adapt = 1.0f;
    float bloom = 0.0f;        // glow strength (0: off): the image's coarser mip levels added back
    bool round_bloom = false;  // read the levels through a ring of taps: round halos around drawn discs
    bool density = false;      // colour each pixel by its light through `density_map` (ColorMode::density)
    ColorMap density_map = ColorMap::ember;
};

// Look::classic on top of whatever was set: bodies in the sample's orange (ColorMode::classic), the light
// clamped per channel (no tone curve), no automatic exposure, no bloom, no gamma, exposure 1, so one
// sprite's core is the orange itself and a few overlapping ones clip to white.
void apply_classic_look(ParticleSettings& ps, ToneSettings& ts);

struct ToneMapper {
    GLuint program = 0;
    GLuint vao = 0;  // empty: the full-screen triangle comes from gl_VertexID
    GLuint fbo = 0;
    GLuint color = 0;  // RGBA16F, with mip levels for the bloom
    int width = 0, height = 0;
    int levels = 1;
    AutoExposure exposure;

    // Compiles the tone-mapping program. Throws nbody::Error.
    void init();
    // Binds the float target (resized to w x h pixels if needed) and clears it to black.
    void begin(int w, int h);
    // Tone-maps the float target into framebuffer dst_fbo (0 = the window); measures the exposure and
    // builds the bloom levels first when s asks for them. over_background: blended over what dst_fbo holds
    // (the picture + background * (1 - its brightest channel): lit bodies hide it, dark sky shows it);
    // otherwise it replaces every pixel.
    void resolve(GLuint dst_fbo, const ToneSettings& s, bool over_background = false);
    void shutdown();
};

}  // namespace nbody
