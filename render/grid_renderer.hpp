#pragma once
// An optional reference grid in the plane z = 0 with the x and y axes, drawn under the tone-mapped picture
// (SceneRenderer: bodies cover it; exposure never dims it) in the scenario's length units: its spacing is the
// caller's (the window passes the scale bar's length, which the bar then names).
#include <epoxy/gl.h>

#include "camera.hpp"

namespace nbody {

struct GridRenderer {
    GLuint program = 0;
    GLuint vao = 0;  // empty: vertices come from gl_VertexID

    void init();
    // Draws lines `spacing` world units apart around the camera's target into framebuffer `target`
    // (w x h), 2 * half_lines + 1 each way, and the two axes. Nothing for spacing <= 0.
    void draw(const Camera& cam, float spacing, GLuint target, int w, int h, int half_lines = 24) const;
    void shutdown();
};

}  // namespace nbody
