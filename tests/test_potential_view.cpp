// The potential-field view (render/potential_view): its colours span the whole slice, the bottom of the
// deepest well included, as the colour bar beside it says (issue 23: the well's bottom and the corners
// were a flat grey that was not on the bar).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "render/body_look.hpp"
#include "render/gl_util.hpp"
#include "render/image.hpp"
#include "render/offscreen_context.hpp"
#include "render/potential_view.hpp"
#include "sim/error.hpp"

namespace nbody {
namespace {

// A softened point mass at the grid's centre: one deep, narrow well.
std::vector<float> well(int n, float softening) {
    std::vector<float> phi(std::size_t(n) * std::size_t(n));
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            float x = (float(i) + 0.5f) / float(n) - 0.5f, y = (float(j) + 0.5f) / float(n) - 0.5f;
            phi[std::size_t(j) * std::size_t(n) + std::size_t(i)] =
                -1.0f / std::sqrt(x * x + y * y + softening * softening);
        }
    }
    return phi;
}

TEST(PotentialRange, SpansTheWholeGrid) {
    const std::vector<float> phi = well(64, 0.002f);
    const PotentialRange r = potential_range(phi);
    float lo = phi[0], hi = phi[0];
    for (float x : phi) lo = std::min(lo, x), hi = std::max(hi, x);
    EXPECT_EQ(r.lo, lo);
    EXPECT_EQ(r.hi, hi);
    EXPECT_TRUE(r.log_depth);
    // Deeper is lower on the map, all the way down.
    EXPECT_LT(potential_shade(lo, r), potential_shade(0.5f * lo, r));
    EXPECT_LT(potential_shade(0.5f * lo, r), potential_shade(hi, r));
}

// Drawn over black: the well's bottom has the bar's left-end colour and a corner its right-end colour.
TEST(PotentialView, BottomOfTheWellAndTheRimHaveTheColourBarsEnds) {
    OffscreenContext ctx;
    try {
        ctx.init(128, 128);
    } catch (const Error& e) {
        GTEST_SKIP() << "no EGL device to render offscreen: " << e.what();
    }
    PotentialView view;
    view.init();
    const int n = 64;
    view.upload(well(n, 0.01f), n, n);
    glBindFramebuffer(GL_FRAMEBUFFER, ctx.fbo);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    view.draw(ctx.fbo, ctx.width, ctx.height);
    check_gl("drawing the potential view");
    const Image img = read_framebuffer(ctx.fbo, ctx.width, ctx.height);
    auto expect_colour = [&](int x, int y, Rgb want, const char* where) {
        const std::uint8_t* p = img.pixel(x, y);
        const float o = view.opacity;
        EXPECT_NEAR(p[0] / 255.0, want.r * o, 0.06) << where;
        EXPECT_NEAR(p[1] / 255.0, want.g * o, 0.06) << where;
        EXPECT_NEAR(p[2] / 255.0, want.b * o, 0.06) << where;
    };
    expect_colour(64, 64, potential_ramp_color(0.0f), "the bottom of the well");
    expect_colour(0, 0, potential_ramp_color(1.0f), "a corner");
    expect_colour(127, 127, potential_ramp_color(1.0f), "the other corner");
    view.shutdown();
    ctx.shutdown();
}

}  // namespace
}  // namespace nbody
