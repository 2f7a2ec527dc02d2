#include "image.hpp"

#include <stb_image_write.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "sim/error.hpp"
#include "sim/platform/atomic_file.hpp"

namespace nbody {

Image read_framebuffer(GLuint fbo, int w, int h) {
    Image img;
    img.width = w;
    img.height = h;
    img.rgba.resize(std::size_t(w) * std::size_t(h) * 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    if (fbo == 0) glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, img.rgba.data());
    // GL's row 0 is the bottom; PNG's is the top.
    std::size_t row = std::size_t(w) * 4;
    std::vector<std::uint8_t> tmp(row);
    for (int y = 0; y < h / 2; ++y) {
        std::uint8_t* a = &img.rgba[std::size_t(y) * row];
        std::uint8_t* b = &img.rgba[std::size_t(h - 1 - y) * row];
        std::memcpy(tmp.data(), a, row);
        std::memcpy(a, b, row);
        std::memcpy(b, tmp.data(), row);
    }
    return img;
}

void write_png(const std::string& path, const Image& img) {
    std::vector<std::uint8_t> opaque = img.rgba;
    for (std::size_t i = 3; i < opaque.size(); i += 4) opaque[i] = 255;
    AtomicFile file(path);
    auto put = [](void* ctx, void* data, int size) {
        static_cast<std::ostream*>(ctx)->write(static_cast<const char*>(data), std::streamsize(size));
    };
    if (!stbi_write_png_to_func(put, &file.stream(), img.width, img.height, 4, opaque.data(),
                                img.width * 4)) {
        throw Error("cannot write PNG '" + path + "': encoding failed");
    }
    file.commit();
}

std::vector<std::uint8_t> encode_png(const Image& img) {
    std::vector<std::uint8_t> opaque = img.rgba;
    for (std::size_t i = 3; i < opaque.size(); i += 4) opaque[i] = 255;
    std::vector<std::uint8_t> out;
    auto put = [](void* ctx, void* data, int size) {
        auto* bytes = static_cast<const std::uint8_t*>(data);
        static_cast<std::vector<std::uint8_t>*>(ctx)->insert(
            static_cast<std::vector<std::uint8_t>*>(ctx)->end(), bytes, bytes + size);
    };
    if (!stbi_write_png_to_func(put, &out, img.width, img.height, 4, opaque.data(), img.width * 4)) {
        throw Error("cannot encode a PNG of " + std::to_string(img.width) + "x" + std::to_string(img.height));
    }
    return out;
}

}  // namespace nbody
