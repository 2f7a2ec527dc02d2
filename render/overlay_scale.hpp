#pragma once
// How big the overlays are drawn for a view: arrow lengths, the trails' light and the potential grid's
// rows. The window and `nbody render` share it, so an image shows what the window shows. Plain maths,
// no GL.
#include <cstddef>

#include "body_look.hpp"
#include "camera.hpp"

namespace nbody {

struct OverlayScale {
    float vector_scale = 1.0f;  // world units of velocity arrow per unit of speed
    float accel_scale = 1.0f;   // world units of acceleration arrow per unit of acceleration
    float accel_cap = 0.0f;     // acceleration arrows saturate softly at this length (world units)
    float trail_light = 0.35f;  // light of the newest trail segment, relative to a sprite
};

// The scales for `bodies` bodies seen through `camera`; arrow_length multiplies every arrow (the panel's
// slider, 1 for the nominal length).
OverlayScale overlay_scale(const Camera& camera, std::size_t bodies, const BodyStats& stats,
                           float arrow_length = 1.0f);

// Rows of a potential grid `cols` points wide over a width x height view: square cells, at least 8 rows.
int potential_grid_rows(int cols, int width, int height);

}  // namespace nbody
