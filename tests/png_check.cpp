// png_check FILE [MIN_LIT_FRACTION]: exits 0 if FILE is a readable image with at least that fraction
// (default 0.001) of non-black pixels. Used after the window and render smoke tests.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "image_compare.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: png_check FILE [MIN_LIT_FRACTION]\n");
        return 2;
    }
    double min_lit = argc > 2 ? std::atof(argv[2]) : 0.001;
    try {
        nbody::Image img = nbody::read_png(argv[1]);
        double lit = nbody::lit_fraction(img, 8);
        std::printf("%s: %dx%d, %.4f of pixels lit (need >= %.4f)\n", argv[1], img.width, img.height, lit,
                    min_lit);
        return lit >= min_lit && img.width > 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "png_check: %s\n", e.what());
        return 1;
    }
}
