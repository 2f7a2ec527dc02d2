#pragma once
// Picks the tone mapper's white point from the image itself, on the GPU: a histogram of the light on
// the lit pixels, then the light below which a given share of them lie. Nothing is read back, so the
// window's frame never waits on it; the tone-mapping pass reads the result from the same buffer.
#include <epoxy/gl.h>

namespace nbody {

// The storage buffer both passes and the tone mapper share (binding 3; layout in the shaders).
struct ExposureBuffer {
    float white;   // the white point in use (adapted over frames)
    float target;  // this frame's measurement
    GLuint lit;    // lit pixels counted
    GLuint pad;
    GLuint bins[64];
};
inline constexpr GLuint kExposureBinding = 3;

struct AutoExposure {
    GLuint histogram_program = 0;
    GLuint white_program = 0;
    GLuint buffer = 0;
    bool primed = false;  // the buffer holds a white point from an earlier frame

    // Compiles both passes. Throws nbody::Error.
    void init();
    // Measures the float image `hdr` (w x h) and moves the white point towards `percentile` of its lit
    // pixels by `adapt` (1: at once) in log space, never below min_white. Leaves the buffer bound.
    void update(GLuint hdr, int w, int h, float percentile, float adapt, float min_white);
    // Forgets the adapted value: the next update jumps (a new scenario, a cut in a video).
    void reset() { primed = false; }
    // Reads the white point back (for tests and the panel's readout; stalls the pipeline).
    ExposureBuffer read() const;
    void shutdown();
};

}  // namespace nbody
