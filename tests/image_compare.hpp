#pragma once
// Image measures for the render and window tests (not part of the program): load a PNG, count lit
// pixels, compare two images.
#include <string>

#include "render/image.hpp"

namespace nbody {

// Loads a PNG or other stb-readable file as RGBA. Throws nbody::Error if it cannot.
Image read_png(const std::string& path);

// Fraction of pixels whose brightest channel exceeds threshold (0..255).
double lit_fraction(const Image& img, int threshold);

// Largest per-channel difference, and the fraction of pixels differing by more than tolerance.
struct ImageDiff {
    int max_abs = 0;
    double fraction_over = 0;
};
ImageDiff compare_images(const Image& a, const Image& b, int tolerance);

}  // namespace nbody
