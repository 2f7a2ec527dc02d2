#pragma once
// 8-bit RGBA images: reading a framebuffer back, writing PNG (libstb's stb_image_write), simple measures.
#include <epoxy/gl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nbody {

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;  // top row first, 4 bytes per pixel
    const std::uint8_t* pixel(int x, int y) const { return &rgba[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4]; }
};

// Reads w x h pixels of framebuffer fbo (0 = window) and flips them so row 0 is the top.
Image read_framebuffer(GLuint fbo, int w, int h);

// Writes a PNG (alpha forced opaque) under a temporary name beside path, renamed onto path when
// complete: a failure or crash never leaves a half-written image. Throws nbody::Error (one line).
void write_png(const std::string& path, const Image& img);

// Throws nbody::Error (one line naming `flag`) unless a file can be written at path: its directory exists
// and is writable, and path is not a directory. For checking output paths before a long run.
void check_output_path(const std::string& path, const std::string& flag);

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
