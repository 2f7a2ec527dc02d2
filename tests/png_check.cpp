// png_check FILE [MIN_FRACTION [lit|green]]: exits 0 if FILE is a readable image with at least that
// fraction (default 0.001) of non-black pixels (lit), or of clearly green ones (green: the acceleration
// arrows' colour, which bodies never have). Used after the window and render smoke tests.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "image_compare.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: png_check FILE [MIN_FRACTION [lit|green]]\n");
        return 2;
    }
    double min_lit = argc > 2 ? std::atof(argv[2]) : 0.001;
    try {
        nbody::Image img = nbody::read_png(argv[1]);
        const bool green = argc > 3 && std::strcmp(argv[3], "green") == 0;
        double lit = 0;
        if (green) {
            std::size_t k = 0;
            for (std::size_t i = 0; i + 3 < img.rgba.size(); i += 4) {
                const int r = img.rgba[i], g = img.rgba[i + 1], b = img.rgba[i + 2];
                k += g > r + 20 && g > b + 10;
            }
            lit = img.rgba.empty() ? 0 : double(k) / double(img.rgba.size() / 4);
        } else {
            lit = nbody::lit_fraction(img, 8);
        }
        std::printf("%s: %dx%d, %.4f of pixels %s (need >= %.4f)\n", argv[1], img.width, img.height, lit,
                    green ? "green" : "lit", min_lit);
        return lit >= min_lit && img.width > 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "png_check: %s\n", e.what());
        return 1;
    }
}
