#pragma once
// Draws the potential-field view: a grid of potential values (computed elsewhere, by the force solver at
// target points) shown across the viewport as a colour map with contour lines, blended over the picture.
// The grid is the slice through the camera's target that faces the camera, so it covers what is seen.
#include <epoxy/gl.h>

#include <vector>

#include "body_look.hpp"
#include "camera.hpp"
#include "sim/state.hpp"

namespace nbody {

// The grid's target points: cols x rows points across a w x h viewport, row 0 at the bottom, on the
// plane through cam.target facing the camera (world coordinates; w of each point 0).
std::vector<Vec4<double>> potential_grid_points(const Camera& cam, int cols, int rows, int w, int h);

// The colour map spans the whole grid, the bottom of the deepest well included (what a lesson shows). The
// wells under the bodies are arbitrarily deep with little softening, so where phi < 0 everywhere (always,
// for gravity) the colours follow log(-phi): equal colour steps are equal ratios of depth, and the rim
// keeps its detail however deep the wells.
struct PotentialRange {
    float lo = -1, hi = 0;  // the deepest and the highest phi of the grid: the colour bar's ends
    bool log_depth = true;  // colours by log(-phi) (else linear in phi)
};
PotentialRange potential_range(const std::vector<float>& phi);
// Where phi sits on the colour map, as a coordinate the shader maps linearly from shade(lo) to shade(hi).
float potential_shade(float phi, const PotentialRange& r);

struct PotentialView {
    GLuint program = 0;
    GLuint vao = 0;
    GLuint texture = 0;
    int cols = 0, rows = 0;
    PotentialRange range;
    float opacity = 0.55f;
    float levels = 12.0f;

    void init();
    // Uploads a cols x rows grid (row 0 at the bottom).
    void upload(const std::vector<float>& phi, int cols_, int rows_);
    // Blends the view over framebuffer `target` (w x h); nothing before the first upload.
    void draw(GLuint target, int w, int h) const;
    void shutdown();
};

}  // namespace nbody
