#pragma once
// Bodies to pixels, the one pipeline the window, `nbody render` and the render tests share: the body
// buffers, drawn as point sprites or by the compute splat, into a float target that is tone-mapped out.
#include <epoxy/gl.h>

#include "camera.hpp"
#include "grid_renderer.hpp"
#include "overlay_renderer.hpp"
#include "particle_renderer.hpp"
#include "pick_renderer.hpp"
#include "potential_view.hpp"
#include "splat_renderer.hpp"
#include "tone_mapper.hpp"

namespace nbody {

struct SceneRenderer {
    ParticleRenderer particles;  // owns the position/velocity buffers that BodyFeed fills
    SplatRenderer splat;
    ToneMapper tone;
    OverlayRenderer overlays;  // trails, velocity arrows
    PickRenderer picker;
    PotentialView potential;  // the potential-field view (its grid comes from the force solver)
    GridRenderer grid;        // the optional reference grid and axes

    // Needs a current GL 4.5 context. Throws nbody::Error on a shader failure.
    void init();
    void shutdown();

    // True when draw() takes the compute-splat path for these settings and the current N.
    bool uses_compute_splat(const ParticleSettings& ps) const {
        return use_compute_splat(ps, particles.count);
    }

    // Draws the bodies seen by `camera` into framebuffer `target` (0 = the window) of w x h pixels.
    void draw(const Camera& camera, const ParticleSettings& ps, const ToneSettings& ts, GLuint target, int w,
              int h, const OverlaySettings& os = {});
};

}  // namespace nbody
