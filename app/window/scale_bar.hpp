#pragma once
// The scale bar in the view's corner: a round length (1, 2 or 5 times a power of ten) in the scenario's
// units, at most a given number of pixels long, so a class can read distances off the picture.
#include <string>

namespace nbody {

struct ScaleBar {
    double length = 0;  // in world units
    float pixels = 0;   // on screen
    std::string label;  // "2 AU", "0.5"
};

// The longest round length that fits in max_pixels at units_per_pixel world units per pixel (at the
// camera's focus distance); unit is appended to the label ("" for N-body units).
ScaleBar nice_scale_bar(double units_per_pixel, float max_pixels, const std::string& unit);

// Draws it (ImGui foreground list) with its right end at (right, bottom), in window coordinates.
void draw_scale_bar(const ScaleBar& bar, float right, float bottom);

}  // namespace nbody
