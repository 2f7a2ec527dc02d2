#include "overlay_scale.hpp"

#include <algorithm>
#include <cmath>

namespace nbody {

OverlayScale overlay_scale(const Camera& camera, std::size_t bodies, const BodyStats& stats,
                           float arrow_length) {
    OverlayScale s;
    // The scenario's fast speed draws an arrow a tenth of the view's height long, shorter among many
    // bodies so they do not hide each other; accelerations the same way from the typical acceleration.
    const float view_h = camera.units_per_pixel(1000) * 1000.0f;
    const float crowd = std::min(1.0f, std::cbrt(64.0f / float(std::max<std::size_t>(bodies, 1))));
    s.vector_scale = arrow_length * 0.1f * crowd * view_h / std::max(stats.speed_scale, 1e-30f);
    s.accel_scale = arrow_length * 0.1f * crowd * view_h / std::max(stats.accel_scale, 1e-30f);
    // Accelerations span orders of magnitude (close pairs): at most ~2 typical lengths.
    s.accel_cap = arrow_length * 0.2f * crowd * view_h;
    // Among many bodies the trails pile up: each gets less light.
    s.trail_light = bodies <= 4096 ? 0.6f : 0.3f;
    return s;
}

int potential_grid_rows(int cols, int width, int height) {
    return std::max(8, int(std::lround(double(cols) * height / std::max(width, 1))));
}

}  // namespace nbody
