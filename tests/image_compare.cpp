#include "image_compare.hpp"

#include <stb_image.h>

#include <algorithm>
#include <cstdlib>

#include "sim/error.hpp"

namespace nbody {

Image read_png(const std::string& path) {
    int w = 0, h = 0, comp = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &comp, 4);
    if (!data) throw Error("cannot read image '" + path + "': " + stbi_failure_reason());
    Image img;
    img.width = w;
    img.height = h;
    img.rgba.assign(data, data + std::size_t(w) * std::size_t(h) * 4);
    stbi_image_free(data);
    return img;
}

double lit_fraction(const Image& img, int threshold) {
    std::size_t n = std::size_t(img.width) * std::size_t(img.height);
    if (n == 0) return 0;
    std::size_t lit = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t* p = &img.rgba[i * 4];
        if (std::max({p[0], p[1], p[2]}) > threshold) ++lit;
    }
    return double(lit) / double(n);
}

ImageDiff compare_images(const Image& a, const Image& b, int tolerance) {
    if (a.width != b.width || a.height != b.height) throw Error("compare_images: sizes differ");
    ImageDiff d;
    std::size_t n = std::size_t(a.width) * std::size_t(a.height), over = 0;
    for (std::size_t i = 0; i < n; ++i) {
        int worst = 0;
        for (int c = 0; c < 3; ++c)
            worst = std::max(worst, std::abs(int(a.rgba[i * 4 + c]) - int(b.rgba[i * 4 + c])));
        d.max_abs = std::max(d.max_abs, worst);
        if (worst > tolerance) ++over;
    }
    d.fraction_over = n ? double(over) / double(n) : 0;
    return d;
}

}  // namespace nbody
