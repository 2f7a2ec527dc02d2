#pragma once
// 8-bit RGBA images: reading a framebuffer back and writing PNG (libstb's stb_image_write). The tests' image
// measures live in tests/image_compare.
#include <epoxy/gl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nbody {

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;  // top row first, 4 bytes per pixel
    const std::uint8_t* pixel(int x, int y) const {
        return &rgba[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4];
    }
};

// Reads w x h pixels of framebuffer fbo (0 = window) and flips them so row 0 is the top.
Image read_framebuffer(GLuint fbo, int w, int h);

// Writes a PNG (alpha forced opaque) under a temporary name beside path, renamed onto path when
// complete: a failure or crash never leaves a half-written image. Throws nbody::Error (one line).
void write_png(const std::string& path, const Image& img);

// The PNG file's bytes (alpha forced opaque), for callers that keep it in memory (a notebook's display).
std::vector<std::uint8_t> encode_png(const Image& img);

}  // namespace nbody
