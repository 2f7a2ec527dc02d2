// Offscreen rendering (EGL device platform, no window): what the sprites and the compute splat light up,
// camera framing, PNG I/O, the host upload path, and — on a CUDA machine — the interop path against the
// host path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <glm/gtc/matrix_transform.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "image_compare.hpp"
#include "render/body_feed.hpp"
#include "render/camera.hpp"
#include "render/frame_readback.hpp"
#include "render/gl_util.hpp"
#include "render/offscreen_context.hpp"
#include "render/overlay_scale.hpp"
#include "render/particle_renderer.hpp"
#include "render/scene_renderer.hpp"
#include "render/splat_renderer.hpp"
#include "render/tone_mapper.hpp"
#include "sim/error.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/presets.hpp"

namespace nbody {
namespace {

class Offscreen : public ::testing::Test {
  protected:
    void open(int w, int h) {
        try {
            ctx.init(w, h);
        } catch (const Error& e) {
            GTEST_SKIP() << "no EGL device to render offscreen: " << e.what();
        }
        scene.init();
    }
    void TearDown() override {
        if (!ctx.context) return;
        feed.shutdown();
        scene.shutdown();
        ctx.shutdown();
    }
    // Draws with the path ps.splat picks (auto: sprites at test sizes).
    Image render(const Camera& cam, const ParticleSettings& ps = {}, const ToneSettings& ts = {}) {
        scene.draw(cam, ps, ts, ctx.fbo, ctx.width, ctx.height);
        check_gl("test render");
        return read_framebuffer(ctx.fbo, ctx.width, ctx.height);
    }
    void upload(const State<float>& s) {
        particles.stats = compute_body_stats(s);
        particles.upload(s.pos_mass.data(), s.vel.data(), s.size());
    }

    OffscreenContext ctx;
    SceneRenderer scene;
    ParticleRenderer& particles = scene.particles;  // the tests upload into and resize it directly
    BodyFeed feed;
};

const SplatMode kPaths[] = {SplatMode::sprites, SplatMode::compute};

State<float> one_body(float x, float y, float z) {
    State<float> s;
    s.resize(1);
    s.pos_mass[0] = {x, y, z, 1.0f};
    return s;
}

// Sprites about `px` pixels wide in an image h pixels tall (the size setting is per 1080 lines).
ParticleSettings sprites(float px, int h, SplatMode path = SplatMode::sprites) {
    ParticleSettings s;
    s.splat = path;
    s.size_px = px * 1080.0f / float(h);
    s.brightness = 1.0f;
    s.color = ColorMode::white;
    return s;
}

Camera looking_down_z(float distance) {
    Camera c;
    c.yaw = 0;
    c.pitch = 0;
    c.distance = distance;
    return c;
}

// A star with one planet is framed around the star (the mass-weighted median), not halfway to the planet;
// equal masses keep the plain median.
TEST(Camera, FitCentresOnTheMassNotBetweenStarAndPlanet) {
    std::vector<Vec4<float>> b = {{0, 0, 0, 1.0f}, {1, 0, 0, 3e-6f}};
    Camera c;
    c.fit(b.data(), b.size());
    EXPECT_EQ(c.target.x, 0.0f);
    b[0].w = 1e-6f;  // now the planet holds most of the mass
    c.fit(b.data(), b.size());
    EXPECT_EQ(c.target.x, 1.0f);
    b[0].w = b[1].w = 1.0f;
    c.fit(b.data(), b.size());
    EXPECT_EQ(c.target.x, 0.5f);
}

// A resized window's frame is scaled into the video's size keeping its aspect, centred on black bars.
TEST(FrameReadback, LetterboxKeepsTheAspectAndCentres) {
    const Letterbox wide = letterbox(640, 360, 480, 300);  // 16:9 into 8:5: bars above and below
    EXPECT_EQ(wide.w, 480);
    EXPECT_EQ(wide.h, 270);
    EXPECT_EQ(wide.x, 0);
    EXPECT_EQ(wide.y, 15);
    const Letterbox tall = letterbox(300, 300, 480, 300);  // square: bars left and right
    EXPECT_EQ(tall.w, 300);
    EXPECT_EQ(tall.h, 300);
    EXPECT_EQ(tall.x, 90);
    EXPECT_EQ(tall.y, 0);
    const Letterbox same = letterbox(480, 300, 480, 300);
    EXPECT_EQ(same.x, 0);
    EXPECT_EQ(same.w, 480);
    EXPECT_EQ(same.h, 300);
}

// The read-back ring keeps its size: a white 64x32 framebuffer read into a 32x32 ring lands as a white
// 32x16 band in the middle rows, black above and below; one of the ring's own size is read as it is.
TEST_F(Offscreen, ReadbackScalesAnotherSizeIntoItsOwn) {
    open(64, 32);
    const GLfloat white[4] = {1, 1, 1, 1};
    glClearNamedFramebufferfv(ctx.fbo, GL_COLOR, 0, white);
    FrameReadback rb;
    rb.init(32, 32, 2);
    rb.capture(ctx.fbo, 64, 32);
    std::vector<std::uint8_t> px;
    ASSERT_TRUE(rb.take(px, true));
    ASSERT_EQ(px.size(), 32u * 32u * 4u);
    for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
            const std::uint8_t r = px[(std::size_t(y) * 32 + std::size_t(x)) * 4];
            ASSERT_EQ(r, (y >= 8 && y < 24) ? 255 : 0) << "pixel " << x << "," << y;
        }
    }
    rb.shutdown();
    rb.init(64, 32, 2);
    rb.capture(ctx.fbo, 64, 32);
    ASSERT_TRUE(rb.take(px, true));
    EXPECT_TRUE(std::all_of(px.begin(), px.end(), [](std::uint8_t v) { return v == 255; }));
    rb.shutdown();
}

// The classic look (the CUDA sample's): a lone sprite's core is the sample's orange itself (no tone curve,
// no gamma), and light piled up by a few bodies on one spot clips per channel to flat white.
TEST_F(Offscreen, ClassicLookIsOneOrangeAddedAndClamped) {
    open(33, 33);
    for (SplatMode path : kPaths) {
        SCOPED_TRACE(to_string(path));
        ParticleSettings ps = sprites(9.0f, 33, path);
        ps.color = ColorMode::speed;
        ToneSettings ts;
        ts.bloom = 0.5f;
        ts.auto_white = true;
        apply_classic_look(ps, ts);
        upload(one_body(0, 0, 0));
        Image img = render(looking_down_z(5.0f), ps, ts);
        const std::size_t c = (std::size_t(16) * 33 + 16) * 4;
        const double r = img.rgba[c], g = img.rgba[c + 1], b = img.rgba[c + 2];
        EXPECT_GT(r, 200.0);
        EXPECT_NEAR(g / r, kClassicOrange[1], 0.02);
        EXPECT_NEAR(b / r, kClassicOrange[2], 0.02);
        // Ten bodies on the same spot: 10x the light, every channel past 1 at the core.
        State<float> pile;
        pile.resize(10);
        for (auto& p : pile.pos_mass) p = {0, 0, 0, 1.0f};
        upload(pile);
        img = render(looking_down_z(5.0f), ps, ts);
        EXPECT_EQ(img.rgba[c], 255);
        EXPECT_EQ(img.rgba[c + 1], 255);
        EXPECT_EQ(img.rgba[c + 2], 255);
    }
}

TEST_F(Offscreen, ContextIsOpenGL45Core) {
    open(16, 16);
    EXPECT_TRUE(gl_at_least(4, 5)) << gl_description();
}

TEST_F(Offscreen, EmptySceneIsBlack) {
    open(64, 48);
    for (SplatMode path : kPaths) {
        SCOPED_TRACE(to_string(path));
        // A lit frame first: the compute path must clear its accumulation images between frames.
        upload(one_body(0, 0, 0));
        render(looking_down_z(5.0f), sprites(3.0f, 48, path));
        particles.resize(0);
        ParticleSettings ps;
        ps.splat = path;
        Image img = render(Camera{}, ps);
        ASSERT_EQ(img.rgba.size(), 64u * 48u * 4u);
        for (std::size_t i = 0; i < img.rgba.size(); i += 4) {
            ASSERT_EQ(img.rgba[i] | img.rgba[i + 1] | img.rgba[i + 2], 0) << "pixel " << i / 4;
        }
    }
}

TEST_F(Offscreen, OneBodyAtCentreLightsCentrePixelOnly) {
    open(65, 65);
    upload(one_body(0, 0, 0));
    for (SplatMode path : kPaths) {
        SCOPED_TRACE(to_string(path));
        Image img = render(looking_down_z(5.0f), sprites(3.0f, 65, path));
        const std::uint8_t* c = img.pixel(32, 32);
        EXPECT_GT(std::max({c[0], c[1], c[2]}), 60);
        EXPECT_GT(lit_fraction(img, 8), 0.0);
        EXPECT_LT(lit_fraction(img, 8), 0.01);  // a sprite a few pixels wide, nothing else
        // The centre is the brightest pixel; the corners stay black.
        for (int y = 0; y < 65; ++y) {
            for (int x = 0; x < 65; ++x) ASSERT_LE(img.pixel(x, y)[0], c[0]) << x << "," << y;
        }
        EXPECT_EQ(img.pixel(0, 0)[0], 0);
        EXPECT_EQ(img.pixel(64, 64)[0], 0);
    }
}

// A 3 px body covers the same pixels with the same falloff in both paths: the compute splat visits the
// pixel centres a point sprite would cover. Differences come only from 16-bit vs fixed-point sums.
TEST_F(Offscreen, ComputeSplatMatchesSpritesForOneBody) {
    open(65, 65);
    upload(one_body(0.013f, -0.021f, 0.0f));  // off the pixel centre, so the footprint is uneven
    Image a = render(looking_down_z(5.0f), sprites(3.0f, 65, SplatMode::sprites));
    Image b = render(looking_down_z(5.0f), sprites(3.0f, 65, SplatMode::compute));
    ImageDiff d = compare_images(a, b, 2);
    EXPECT_EQ(d.fraction_over, 0.0) << "max diff " << d.max_abs;
    EXPECT_EQ(lit_fraction(a, 8), lit_fraction(b, 8));
    EXPECT_GT(lit_fraction(b, 8), 0.0);
}

TEST_F(Offscreen, OffCentreBodyLandsWhereTheProjectionSays) {
    const int w = 160, h = 90;
    open(w, h);
    Camera cam = looking_down_z(4.0f);
    upload(one_body(0.8f, 0.5f, 0.0f));
    for (SplatMode path : kPaths) {
        SCOPED_TRACE(to_string(path));
        Image img = render(cam, sprites(3.0f, h, path));
        // Reference: glm's projection of the same point, in double-free float but independent of GL.
        glm::vec3 win = glm::project(glm::vec3(0.8f, 0.5f, 0.0f), cam.view(), cam.projection(float(w) / h),
                                     glm::vec4(0, 0, w, h));
        int px = int(win.x), py = h - 1 - int(win.y);  // image rows run top to bottom
        const std::uint8_t* p = img.pixel(px, py);
        EXPECT_GT(std::max({p[0], p[1], p[2]}), 60) << "expected light at " << px << "," << py;
        EXPECT_GT(px, w / 2);                        // right of centre
        EXPECT_LT(py, h / 2);                        // above centre
        EXPECT_EQ(img.pixel(w - 1 - px, py)[0], 0);  // not mirrored
    }
}

TEST_F(Offscreen, PresetLightsAPlausibleFraction) {
    open(256, 256);
    const std::string preset = presets().front().name;
    State<float> s = convert_state<float>(make_preset(preset, 4096, 7));
    upload(s);
    Camera cam;
    cam.fit(s.pos_mass.data(), s.size());
    Image img = render(cam);
    double lit = lit_fraction(img, 8);
    EXPECT_GT(lit, 0.02) << preset;
    EXPECT_LT(lit, 0.9) << preset;
}

// Every preset, drawn both ways: the compute splat's image resembles the sprites' — the same lit fraction
// within 5% (relative) and 98% of pixels within 8/255 — at the sprite size `nbody render` uses.
TEST_F(Offscreen, ComputeSplatResemblesSpritesOnPresets) {
    open(320, 180);
    for (const auto& p : presets()) {
        SCOPED_TRACE(p.name);
        if (p.natural_n) continue;  // a few bodies by design (the solar system, the figure-eight)
        State<float> s = convert_state<float>(make_preset(p.name, 20000, 5));
        upload(s);
        Camera cam;
        cam.fit(s.pos_mass.data(), s.size());
        ParticleSettings ps;
        ps.size_px = default_sprite_size(s.size());
        ps.splat = SplatMode::sprites;
        Image a = render(cam, ps);
        ps.splat = SplatMode::compute;
        Image b = render(cam, ps);
        double lit_a = lit_fraction(a, 8), lit_b = lit_fraction(b, 8);
        EXPECT_GT(lit_a, 0.005);
        EXPECT_NEAR(lit_b, lit_a, 0.05 * lit_a);
        ImageDiff d = compare_images(a, b, 8);
        EXPECT_LT(d.fraction_over, 0.02) << "max diff " << d.max_abs;
    }
}

// More light on one pixel than the fixed-point sum holds (2^32 / kSplatFixedOne bodies) saturates to
// white instead of wrapping around to a dim value. One body more than the limit, dimmed by exposure so
// that only a saturated sum reaches white.
TEST_F(Offscreen, ComputeSplatSaturatesInsteadOfWrapping) {
    open(9, 9);
    const std::size_t n = std::size_t(4294967296.0 / double(kSplatFixedOne)) + 1;
    State<float> s;
    s.resize(n);
    for (auto& p : s.pos_mass) p = {0, 0, 0, 1};
    upload(s);
    ToneSettings ts;
    ts.exposure = 1e-3f;  // the full sum maps to 262 units of light: white; a wrapped one to 0.001: black
    Image img = render(looking_down_z(5.0f), sprites(1.5f, 9, SplatMode::compute), ts);
    EXPECT_EQ(img.pixel(4, 4)[0], 255);
    EXPECT_EQ(img.pixel(0, 0)[0], 0);
}

TEST(SplatChoice, AutoPicksComputeForManySmallBodies) {
    ParticleSettings s;
    s.size_px = default_sprite_size(kSplatAutoN);
    EXPECT_FALSE(use_compute_splat(s, kSplatAutoN - 1));
    EXPECT_TRUE(use_compute_splat(s, kSplatAutoN));
    s.size_px = 2 * kSplatMaxPx;  // bigger than the splat footprint: sprites keep the look
    EXPECT_FALSE(use_compute_splat(s, 4 * kSplatAutoN));
    s.splat = SplatMode::compute;
    EXPECT_TRUE(use_compute_splat(s, 1));
    s.splat = SplatMode::sprites;
    s.size_px = 1.5f;
    EXPECT_FALSE(use_compute_splat(s, 4 * kSplatAutoN));
    EXPECT_EQ(parse_splat_mode("auto"), SplatMode::automatic);
    EXPECT_EQ(parse_splat_mode("compute"), SplatMode::compute);
    EXPECT_EQ(parse_splat_mode("sprites"), SplatMode::sprites);
    EXPECT_FALSE(parse_splat_mode("Compute").has_value());
    EXPECT_FALSE(parse_splat_mode("").has_value());
}

// The window and `nbody render` size their overlays through this one function: the scenario's fast speed
// is an arrow a tenth of the view's height among few bodies, shorter among many, times the slider.
TEST(OverlayScale, ArrowsFollowTheViewTheCrowdAndTheSlider) {
    Camera c;
    c.distance = 10.0f;
    BodyStats stats;
    stats.speed_scale = 2.0f;
    stats.accel_scale = 0.5f;
    const float view_h = c.units_per_pixel(1000) * 1000.0f;
    const OverlayScale few = overlay_scale(c, 64, stats);
    EXPECT_NEAR(few.vector_scale * stats.speed_scale, 0.1f * view_h, 1e-5f * view_h);
    EXPECT_NEAR(few.accel_scale * stats.accel_scale, 0.1f * view_h, 1e-5f * view_h);
    EXPECT_NEAR(few.accel_cap, 0.2f * view_h, 1e-5f * view_h);
    EXPECT_EQ(overlay_scale(c, 1, stats).vector_scale, few.vector_scale);  // never longer than nominal
    const OverlayScale many = overlay_scale(c, 64 * 8, stats);             // twice as crowded per axis
    EXPECT_NEAR(many.vector_scale, 0.5f * few.vector_scale, 1e-5f * few.vector_scale);
    const OverlayScale doubled = overlay_scale(c, 64, stats, 2.0f);
    EXPECT_NEAR(doubled.vector_scale, 2.0f * few.vector_scale, 1e-5f * few.vector_scale);
    EXPECT_NEAR(doubled.accel_cap, 2.0f * few.accel_cap, 1e-5f * few.accel_cap);
    c.distance = 20.0f;  // zoomed out: arrows keep their share of the view
    EXPECT_NEAR(overlay_scale(c, 64, stats).vector_scale, 2.0f * few.vector_scale, 1e-4f * few.vector_scale);
    EXPECT_EQ(overlay_scale(c, 4096, stats).trail_light, 0.6f);
    EXPECT_EQ(overlay_scale(c, 4097, stats).trail_light, 0.3f);
    stats.speed_scale = 0.0f;  // all at rest: finite, not a division by zero
    EXPECT_TRUE(std::isfinite(overlay_scale(c, 64, stats).vector_scale));
}

TEST(OverlayScale, PotentialGridHasSquareCells) {
    EXPECT_EQ(potential_grid_rows(64, 1600, 900), 36);
    EXPECT_EQ(potential_grid_rows(64, 900, 1600), 114);
    EXPECT_EQ(potential_grid_rows(16, 1600, 100), 8);  // never fewer than 8 rows
    EXPECT_EQ(potential_grid_rows(16, 0, 100), 1600);  // an empty width counts as one pixel
}

TEST_F(Offscreen, ToneMappingKeepsDenseCoresBelowClipping) {
    open(33, 33);
    State<float> s;
    s.resize(40);  // 40 bodies on one spot: 40 times the light one sprite gives, below the white point
    for (auto& p : s.pos_mass) p = {0, 0, 0, 1};
    upload(s);
    ToneSettings clamp_only;
    clamp_only.tone_map = false;
    Image clamped = render(looking_down_z(5.0f), sprites(9.0f, 33), clamp_only);
    Image mapped = render(looking_down_z(5.0f), sprites(9.0f, 33));
    // Clamping: the whole sprite saturates to one flat disc; the curve keeps a gradient from core to rim.
    EXPECT_EQ(clamped.pixel(16, 16)[0], 255);
    EXPECT_LT(mapped.pixel(16, 16)[0], 255);
    EXPECT_GT(mapped.pixel(16, 16)[0], mapped.pixel(19, 16)[0]);
    auto white = [](const Image& img) {
        int k = 0;
        for (std::size_t i = 0; i < img.rgba.size(); i += 4)
            k += img.rgba[i] == 255 && img.rgba[i + 1] == 255;
        return k;
    };
    EXPECT_GT(white(clamped), white(mapped));
}

// The demo look at large N: a dense disk of 60,000 bodies in a small image, where the fixed white point
// from N saturates most of the disk to one flat colour (the "beige ellipse"), keeps a gradient with the
// white point measured from the image: few lit pixels reach full brightness.
TEST_F(Offscreen, AutoExposureKeepsStructureWhereAFixedWhiteSaturates) {
    open(160, 90);
    State<float> s = convert_state<float>(make_preset("disk", 60000, 3));
    upload(s);
    Camera cam;
    cam.fit(s.pos_mass.data(), s.size());
    ParticleSettings ps;
    ps.size_px = 4.0f;
    ps.brightness = 1000.0f;  // the light of a much larger N on a 1080p screen, where the fixed white clips
    ToneSettings fixed;
    fixed.white = default_look(s.size()).white;
    ToneSettings automatic = fixed;
    automatic.auto_white = true;
    automatic.white_floor = default_look(s.size()).white_floor;
    auto saturated_share = [](const Image& img) {
        int lit = 0, full = 0;
        for (std::size_t i = 0; i < img.rgba.size(); i += 4) {
            const int peak = std::max({img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]});
            lit += peak > 8;
            full += peak >= 250;
        }
        return lit > 0 ? double(full) / lit : 1.0;
    };
    const double fixed_share = saturated_share(render(cam, ps, fixed));
    const Image adapted = render(cam, ps, automatic);
    EXPECT_GT(fixed_share, 0.3);
    EXPECT_LT(saturated_share(adapted), 0.05);
    EXPECT_GT(lit_fraction(adapted, 8), 0.05);  // and the disk is still there
    // The measured white point is light that many sprites pile up, far above one sprite's.
    EXPECT_GT(scene.tone.exposure.read().white, 4.0f);
}

// A handful of bodies never blow up: the white point stays at its floor (one sprite), so one body
// looks as it does with the fixed white point of few bodies.
TEST_F(Offscreen, AutoExposureFloorKeepsFewBodiesAsBefore) {
    open(64, 64);
    upload(one_body(0, 0, 0));
    ToneSettings ts;
    ts.auto_white = true;
    ts.white_floor = 1.0f;
    render(looking_down_z(5.0f), sprites(12.0f, 64), ts);
    EXPECT_FLOAT_EQ(scene.tone.exposure.read().white, 1.0f);
}

// Colour by set: the two galaxies of the collision in their own hues, from the preset's index ranges.
TEST_F(Offscreen, GroupColoursTellTheSetsApart) {
    open(64, 32);
    State<float> s;
    s.resize(2);
    s.pos_mass[0] = {-1.0f, 0, 0, 1};
    s.pos_mass[1] = {1.0f, 0, 0, 1};
    upload(s);
    particles.stats.groups.starts = preset_group_starts("collision", 2);
    ParticleSettings ps = sprites(8.0f, 32);
    ps.color = ColorMode::group;
    const Camera cam = looking_down_z(4.0f);
    Image img = render(cam, ps);
    const glm::vec3 a = cam.project({-1, 0, 0}, 64, 32), b = cam.project({1, 0, 0}, 64, 32);
    const auto* pa = img.pixel(int(a.x), int(a.y));
    const auto* pb = img.pixel(int(b.x), int(b.y));
    EXPECT_GT(int(pa[0]), int(pa[2]) + 10);  // set 1 warm (gold)
    EXPECT_GT(int(pb[2]), int(pb[0]) + 10);  // set 2 cool (sky blue)
}

// Density colour: the bodies draw neutral light and the tone mapper colours the pile-up, so a dense spot
// and a lone body get different colours of the ramp even though every body looks the same.
TEST_F(Offscreen, DensityColourFollowsThePileUp) {
    open(64, 32);
    State<float> s;
    s.resize(41);
    for (int i = 0; i < 40; ++i) s.pos_mass[std::size_t(i)] = {-1.0f, 0, 0, 1};
    s.pos_mass[40] = {1.0f, 0, 0, 1};
    upload(s);
    ParticleSettings ps = sprites(8.0f, 32);
    ps.color = ColorMode::density;
    ToneSettings ts;
    ts.white = 40.0f;
    const Camera cam = looking_down_z(4.0f);
    Image img = render(cam, ps, ts);
    const glm::vec3 a = cam.project({-1, 0, 0}, 64, 32), b = cam.project({1, 0, 0}, 64, 32);
    const auto* dense = img.pixel(int(a.x), int(a.y));
    const auto* lone = img.pixel(int(b.x), int(b.y));
    // ember: blue-white at the top, red-orange low down.
    EXPECT_GT(int(dense[2]), int(lone[2]) + 40);
    EXPECT_GT(int(lone[0]), int(lone[2]));
}

// Bloom spreads light beyond the sprite; off, the pixels outside it stay black.
TEST_F(Offscreen, BloomGlowsAroundBrightBodiesAndSwitchesOff) {
    open(64, 64);
    State<float> s;
    s.resize(50);
    for (auto& p : s.pos_mass) p = {0, 0, 0, 1};
    upload(s);
    ToneSettings ts;
    Image plain = render(looking_down_z(5.0f), sprites(6.0f, 64), ts);
    ts.bloom = 1.0f;
    Image glow = render(looking_down_z(5.0f), sprites(6.0f, 64), ts);
    EXPECT_EQ(plain.pixel(32, 40)[0], 0);
    EXPECT_GT(glow.pixel(32, 40)[0], 0);
}

// A big body (radius in vel.w) next to a point, with radii drawn (collisions on).
State<float> big_and_small(float radius) {
    State<float> s;
    s.resize(2);
    s.pos_mass[0] = {0.0f, 0.0f, 0.0f, 1.0f};
    s.vel[0].w = radius;
    s.pos_mass[1] = {0.7f, 0.7f, 0.0f, 1.0f};
    return s;
}

// Lit pixels in a run through (x, y) along (dx, dy), both ways from it.
int lit_run(const Image& img, int x, int y, int dx, int dy) {
    auto lit = [&](int i, int j) {
        if (i < 0 || j < 0 || i >= img.width || j >= img.height) return false;
        const std::uint8_t* p = img.pixel(i, j);
        return std::max({p[0], p[1], p[2]}) > 8;
    };
    int n = lit(x, y) ? 1 : 0;
    for (int k = 1; lit(x + k * dx, y + k * dy); ++k) ++n;
    for (int k = 1; lit(x - k * dx, y - k * dy); ++k) ++n;
    return n;
}

// A sphere of radius 0.6 seen from 2 away fills the silhouette cone's disc: 2 f R / sqrt(D^2 - R^2)
// pixels wide, 5% wider than R / depth says. The reference is the tangent point of that cone projected by
// glm, independent of the shader and of disc_diameter_px (which must agree with both).
TEST_F(Offscreen, RadiusIsDrawnAsADiscOfItsProjectedSize) {
    const int w = 256, h = 256;
    open(w, h);
    const float R = 0.6f, D = 2.0f;
    Camera cam = looking_down_z(D);
    upload(big_and_small(R));
    const float alpha = std::asin(R / D), along = std::sqrt(D * D - R * R);
    const glm::vec3 tangent(along * std::sin(alpha), 0.0f, D - along * std::cos(alpha));
    const glm::vec3 rim = glm::project(tangent, cam.view(), cam.projection(1.0f), glm::vec4(0, 0, w, h));
    const float expected = 2.0f * (rim.x - 0.5f * float(w));
    EXPECT_NEAR(disc_diameter_px(R, D, cam.fov_y, h), expected, 0.01f);
    ASSERT_GT(expected, 2.0f * R / D * 0.5f * float(h) / std::tan(0.5f * cam.fov_y) + 6.0f);
    ParticleSettings off = sprites(4.0f, h);
    for (SplatMode path : kPaths) {
        SCOPED_TRACE(to_string(path));
        ParticleSettings on = sprites(4.0f, h, path);
        on.draw_radii = true;
        Image img = render(cam, on);
        EXPECT_NEAR(lit_run(img, w / 2, h / 2, 1, 0), expected, 2.0f);
        EXPECT_NEAR(lit_run(img, w / 2, h / 2, 0, 1), expected, 2.0f);
        // Lit like a sphere: brightest in the middle, the rim darker but well lit, nothing beyond it.
        const int r = int(expected / 2);
        EXPECT_GT(img.pixel(w / 2, h / 2)[0], img.pixel(w / 2 + r - 2, h / 2)[0]);
        EXPECT_GT(img.pixel(w / 2 + r - 2, h / 2)[0], 40);
        EXPECT_EQ(img.pixel(w / 2 + r + 3, h / 2)[0], 0);
        // The point beside it is still its 4 px sprite.
        glm::vec3 s = glm::project(glm::vec3(0.7f, 0.7f, 0.0f), cam.view(), cam.projection(1.0f),
                                   glm::vec4(0, 0, w, h));
        EXPECT_NEAR(lit_run(img, int(s.x), h - 1 - int(s.y), 1, 0), 4, 2);
        // The picker hits the drawn disc: a click well inside it, far outside any sprite, finds body 0.
        EXPECT_EQ(scene.picker.pick(particles, cam, on, w / 2 + r - 4, h / 2, w, h), 0);
        EXPECT_EQ(scene.picker.pick(particles, cam, off, w / 2 + r - 4, h / 2, w, h), -1);
    }
}

// Radii drawn or not, bodies whose radius is smaller than their sprite, and every body while radii are
// not drawn (collisions off), give the very image of bodies without radii.
TEST_F(Offscreen, RadiiChangeNothingUnlessADiscOutgrowsItsSprite) {
    const int w = 128, h = 96;
    open(w, h);
    Camera cam = looking_down_z(4.0f);
    for (SplatMode path : kPaths) {
        SCOPED_TRACE(to_string(path));
        ParticleSettings off = sprites(6.0f, h, path), on = off;
        on.draw_radii = true;
        upload(big_and_small(0.0f));
        const Image points = render(cam, off);
        EXPECT_EQ(compare_images(render(cam, on), points, 0).fraction_over, 0.0);
        upload(big_and_small(0.01f));  // a disc of about 2 px: under the 6 px sprite
        EXPECT_EQ(compare_images(render(cam, on), points, 0).fraction_over, 0.0);
        upload(big_and_small(0.5f));  // a disc of about 30 px, not drawn while radii are off
        EXPECT_EQ(compare_images(render(cam, off), points, 0).fraction_over, 0.0);
        EXPECT_GT(lit_fraction(render(cam, on), 8), 2.0 * lit_fraction(points, 8));
    }
}

// A disc's bloom is round: at the same distance from its centre the halo is as bright along a diagonal
// as along an axis (box-filtered levels alone make it a square, brighter towards the corners).
TEST_F(Offscreen, BloomAroundADiscIsRound) {
    const int w = 256, h = 256;
    open(w, h);
    Camera cam = looking_down_z(4.0f);
    upload(big_and_small(0.3f));
    ParticleSettings ps = sprites(4.0f, h);
    ps.draw_radii = true;
    ToneSettings ts;
    ts.auto_white = true;
    ts.bloom = 0.35f;
    Image img = render(cam, ps, ts);
    const float r = 0.5f * disc_diameter_px(0.3, 4.0, cam.fov_y, h);
    for (float out : {3.0f, 6.0f, 9.0f}) {
        SCOPED_TRACE(out);
        const float d = r + out, q = d / std::sqrt(2.0f);
        const int axis = img.pixel(w / 2 + int(d), h / 2)[0];
        const int diagonal = img.pixel(w / 2 + int(q), h / 2 + int(q))[0];
        EXPECT_GT(axis, 0);
        EXPECT_NEAR(diagonal, axis, 0.25 * axis + 3);
    }
}

TEST_F(Offscreen, BadShaderThrowsWithTheCompilerLog) {
    open(8, 8);
    try {
        compile_program("#version 450 core\nvoid main() { this is not glsl; }\n",
                        "#version 450 core\nvoid main() {}\n", "broken");
        FAIL() << "expected nbody::Error";
    } catch (const Error& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("broken"), std::string::npos) << msg;
        EXPECT_NE(msg.find("failed to compile"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << "error must be one line";
    }
}

TEST_F(Offscreen, HostFeedFillsBuffersWithTheBackendState) {
    open(8, 8);
    HostState hs = make_preset(presets().front().name, 300, 3);
    auto backend = create_backend("serial", Precision::f32);
    backend->set_state(hs);
    FeedStats st = feed.feed(*backend, particles);
    EXPECT_FALSE(st.interop);
    EXPECT_EQ(st.device_to_host_bytes, 0u);
    EXPECT_EQ(st.host_to_device_bytes, 2 * 300 * sizeof(Vec4<float>));
    std::vector<Vec4<float>> gl_pos(300), want(300);
    glGetNamedBufferSubData(particles.pos_vbo, 0, GLsizeiptr(300 * sizeof(Vec4<float>)), gl_pos.data());
    backend->copy_positions(want.data());
    for (std::size_t i = 0; i < 300; ++i) {
        ASSERT_EQ(gl_pos[i].x, want[i].x) << i;
        ASSERT_EQ(gl_pos[i].w, want[i].w) << i;
    }
}

// Acceleration arrows need the accelerations in the GL buffer: written only when asked for, equal to the
// backend's own (the host path; CudaInteropWritesAccelerations checks the GPU's).
TEST_F(Offscreen, HostFeedWritesAccelerationsOnlyWhenAsked) {
    open(8, 8);
    HostState hs = make_preset(presets().front().name, 300, 3);
    auto backend = create_backend("serial", Precision::f32);
    backend->set_state(hs);
    FeedStats st = feed.feed(*backend, particles);
    EXPECT_FALSE(particles.acc_valid);
    Params p;
    st = feed.feed(*backend, particles, &p);
    EXPECT_TRUE(particles.acc_valid);
    EXPECT_EQ(st.host_to_device_bytes, 3 * 300 * sizeof(Vec4<float>));
    std::vector<Vec4<float>> gl_acc(300);
    glGetNamedBufferSubData(particles.acc_vbo, 0, GLsizeiptr(300 * sizeof(Vec4<float>)), gl_acc.data());
    const std::vector<Vec4<double>> want = backend->accelerations(p);
    for (std::size_t i = 0; i < 300; ++i) {
        ASSERT_EQ(gl_acc[i].x, float(want[i].x)) << i;
        ASSERT_EQ(gl_acc[i].y, float(want[i].y)) << i;
        ASSERT_EQ(gl_acc[i].w, 0.0f) << i;
    }
    feed.feed(*backend, particles);
    EXPECT_FALSE(particles.acc_valid);
}

// Two bodies pulling on each other, drawn white: acceleration arrows add green lines between them (their
// own colour), velocity arrows of bodies at rest add nothing, and with the arrows off nothing is green.
TEST_F(Offscreen, AccelerationArrowsAreDrawnInTheirOwnColour) {
    open(160, 90);
    HostState hs;
    hs.resize(2);
    hs.pos_mass[0] = {-1, 0, 0, 1};
    hs.pos_mass[1] = {1, 0, 0, 1};
    auto backend = create_backend("serial", Precision::f32);
    backend->set_state(hs);
    Params p;
    p.softening = 0.01;
    feed.feed(*backend, particles, &p);
    particles.stats = compute_body_stats(hs);
    Camera cam = looking_down_z(6.0f);
    ParticleSettings ps = sprites(3, 90);
    auto green = [&](const OverlaySettings& os) {
        scene.draw(cam, ps, ToneSettings{}, ctx.fbo, ctx.width, ctx.height, os);
        Image img = read_framebuffer(ctx.fbo, ctx.width, ctx.height);
        int k = 0;
        for (std::size_t i = 0; i < img.rgba.size(); i += 4) {
            k += img.rgba[i + 1] > img.rgba[i] + 20 && img.rgba[i + 1] > img.rgba[i + 2] + 10;
        }
        return k;
    };
    OverlaySettings off;
    off.vectors = true;  // zero velocities: zero-length arrows
    EXPECT_EQ(green(off), 0);
    OverlaySettings on = off;
    on.accelerations = true;
    on.accel_scale = 1.5f;  // |a| = 1/4 at distance 2: arrows 0.375 long, pointing at each other
    EXPECT_GT(green(on), 10);
}

// The reference grid (X) lies under the bodies: a body where the axes cross keeps every channel it has
// without the grid (the axes' red and green drawn over it cut its blue to a quarter), while the grid still
// lights the empty sky along the x axis.
TEST_F(Offscreen, GridIsDrawnUnderTheBodies) {
    const int w = 160, h = 90;
    open(w, h);
    upload(one_body(0, 0, 0));
    const Camera cam = looking_down_z(4.0f);
    ParticleSettings ps = sprites(9.0f, h);
    OverlaySettings plain, grid;
    grid.grid_spacing = 0.5f;
    scene.draw(cam, ps, ToneSettings{}, ctx.fbo, w, h, plain);
    const Image bodies = read_framebuffer(ctx.fbo, w, h);
    scene.draw(cam, ps, ToneSettings{}, ctx.fbo, w, h, grid);
    const Image both = read_framebuffer(ctx.fbo, w, h);
    check_gl("grid test");
    int body_pixels = 0;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const std::uint8_t* b = bodies.pixel(x, y);
            if (std::max({b[0], b[1], b[2]}) < 40) continue;
            ++body_pixels;
            const std::uint8_t* g = both.pixel(x, y);
            for (int c = 0; c < 3; ++c)
                ASSERT_GE(int(g[c]), int(b[c]) - 2) << "channel " << c << " at " << x << "," << y;
        }
    }
    EXPECT_GT(body_pixels, 4);
    // The x axis (red) through the middle row, far from the body.
    const std::uint8_t* axis = both.pixel(10, h / 2);
    EXPECT_GT(int(axis[0]), int(axis[2]) + 40) << "no red axis at the left edge";
    EXPECT_EQ(bodies.pixel(10, h / 2)[0], 0);
}

TEST_F(Offscreen, PngRoundTripAndUnwritablePath) {
    open(20, 10);
    State<float> s = one_body(0, 0, 0);
    upload(s);
    Image img = render(looking_down_z(3.0f));
    std::string path = ::testing::TempDir() + "nbody_render_roundtrip.png";
    write_png(path, img);
    Image back = read_png(path);
    ASSERT_EQ(back.width, 20);
    ASSERT_EQ(back.height, 10);
    EXPECT_EQ(compare_images(img, back, 0).max_abs, 0);
    std::remove(path.c_str());
    EXPECT_THROW(write_png("/nonexistent-dir/x.png", img), Error);
    EXPECT_THROW(read_png("/nonexistent-dir/x.png"), Error);
}

TEST_F(Offscreen, PngIsWrittenAtomicallyAndTargetsAreCheckedUpFront) {
    open(20, 10);
    State<float> s = one_body(0, 0, 0);
    upload(s);
    Image img = render(looking_down_z(3.0f));
    namespace fs = std::filesystem;
    fs::path dir = fs::path(::testing::TempDir()) / "nbody_png_atomic";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string path = (dir / "shot.png").string();
    write_png(path, img);
    write_png(path, img);  // over an existing file
    // Only the target remains: the temporary beside it was renamed, not left behind.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0], "shot.png");
    EXPECT_EQ(compare_images(read_png(path), img, 0).max_abs, 0);

    EXPECT_NO_THROW(check_output_path(path, "--out"));
    EXPECT_NO_THROW(check_output_path("relative-name.png", "--out"));
    EXPECT_THROW(check_output_path("/nonexistent-dir/x.png", "--out"), Error);
    EXPECT_THROW(check_output_path(dir.string(), "--out"), Error);  // a directory, not a file
    try {
        check_output_path("/nonexistent-dir/x.png", "--screenshot");
        FAIL() << "no throw";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--screenshot"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

// Drivers hand a deleted buffer's name to the next buffer: CUDA registrations must follow allocations.
TEST_F(Offscreen, BufferGenerationChangesWithEveryAllocation) {
    open(8, 8);
    particles.resize(100);
    std::uint64_t g1 = particles.generation;
    EXPECT_NE(g1, 0u);
    particles.resize(50);  // shrinking keeps the buffers
    EXPECT_EQ(particles.generation, g1);
    particles.resize(100);
    EXPECT_EQ(particles.generation, g1);
    particles.resize(101);  // growing reallocates, maybe under the same names
    EXPECT_NE(particles.generation, g1);
    std::uint64_t g2 = particles.generation;
    // A fresh renderer (same names, likely) never repeats a generation either.
    particles.shutdown();
    particles.init();
    particles.resize(10);
    EXPECT_NE(particles.generation, g1);
    EXPECT_NE(particles.generation, g2);
}

// The CUDA interop tests run only where the CUDA backend is built and has a device.
#define SKIP_WITHOUT_CUDA_INTEROP()                                                                \
    do {                                                                                           \
        const BackendInfo* cuda_info = find_backend("cuda");                                       \
        if (!interop_built() || !cuda_info || !cuda_info->available()) {                           \
            GTEST_SKIP() << "no CUDA backend here: "                                               \
                         << (cuda_info ? cuda_info->unavailable_reason() : "not built with CUDA"); \
        }                                                                                          \
    } while (false)

// On a CUDA machine: interop writes the same bytes and renders the same image as the host path, and
// copies nothing device -> host.
TEST_F(Offscreen, CudaInteropMatchesHostPath) {
    SKIP_WITHOUT_CUDA_INTEROP();
    open(480, 270);
    HostState hs = make_preset(presets().front().name, 65536, 11);
    auto backend = create_backend("cuda", Precision::f32);
    backend->set_state(hs);
    backend->step(Params{}, 2);
    particles.stats = compute_body_stats(hs);
    Camera cam;
    State<float> fs = convert_state<float>(hs);
    cam.fit(fs.pos_mass.data(), fs.size());

    FeedStats st = feed.feed(*backend, particles);
    ASSERT_TRUE(st.interop) << feed.interop_note;
    EXPECT_EQ(st.device_to_host_bytes, 0u);
    EXPECT_EQ(st.host_to_device_bytes, 0u);
    std::size_t n = backend->size();
    std::vector<Vec4<float>> gl_pos(n), gl_vel(n), want_pos(n), want_vel(n);
    glGetNamedBufferSubData(particles.pos_vbo, 0, GLsizeiptr(n * 16), gl_pos.data());
    glGetNamedBufferSubData(particles.vel_vbo, 0, GLsizeiptr(n * 16), gl_vel.data());
    backend->copy_positions(want_pos.data());
    backend->copy_velocities(want_vel.data());
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(gl_pos[i].x, want_pos[i].x) << i;
        ASSERT_EQ(gl_pos[i].y, want_pos[i].y) << i;
        ASSERT_EQ(gl_pos[i].z, want_pos[i].z) << i;
        ASSERT_EQ(gl_pos[i].w, want_pos[i].w) << i;
        ASSERT_EQ(gl_vel[i].x, want_vel[i].x) << i;
    }
    Image via_interop = render(cam);

    BodyFeed host_feed;
    host_feed.try_interop = false;
    FeedStats hst = host_feed.feed(*backend, particles);
    EXPECT_FALSE(hst.interop);
    EXPECT_GT(hst.device_to_host_bytes, 0u);
    Image via_host = render(cam);
    ImageDiff d = compare_images(via_interop, via_host, 2);
    EXPECT_LT(d.fraction_over, 1e-4) << "max diff " << d.max_abs;
    EXPECT_GT(lit_fraction(via_interop, 8), 0.01);

    // The compute splat reads the same buffers: interop-fed bodies give the host path's image exactly
    // (integer sums do not depend on the order of the atomics).
    ParticleSettings compute;
    compute.splat = SplatMode::compute;
    Image compute_host = render(cam, compute);
    feed.feed(*backend, particles);
    Image compute_interop = render(cam, compute);
    EXPECT_EQ(compare_images(compute_interop, compute_host, 0).max_abs, 0);
    EXPECT_NEAR(lit_fraction(compute_interop, 8), lit_fraction(via_interop, 8),
                0.05 * lit_fraction(via_interop, 8));
}

// On a CUDA machine: acceleration arrows get the device's accelerations through interop, with nothing
// copied to the host, equal to the backend's own copy.
// The radius reaches the shaders from the velocity buffer's w lane, which the CUDA backend writes (its
// device collisions merge bodies and grow their radii): interop draws the discs the host copy draws.
TEST_F(Offscreen, CudaInteropDrawsRadii) {
    SKIP_WITHOUT_CUDA_INTEROP();
    open(480, 270);
    HostState hs = make_preset("impact", 4096, 5);
    auto backend = create_backend("cuda", Precision::f32);
    backend->set_state(hs);
    Params p;
    p.collisions = CollisionMode::merge;
    backend->step(p, 2);
    particles.stats = compute_body_stats(hs);
    Camera cam;
    State<float> fs = convert_state<float>(hs);
    cam.fit(fs.pos_mass.data(), fs.size());
    cam.distance /= 3;  // the big planet (radius 0.1) well wider than its sprite
    ParticleSettings ps;
    ps.draw_radii = true;

    FeedStats st = feed.feed(*backend, particles);
    ASSERT_TRUE(st.interop) << feed.interop_note;
    const std::size_t n = backend->size();
    std::vector<Vec4<float>> gl_vel(n), want_vel(n);
    glGetNamedBufferSubData(particles.vel_vbo, 0, GLsizeiptr(n * 16), gl_vel.data());
    backend->copy_velocities(want_vel.data());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(gl_vel[i].w, want_vel[i].w) << i;
    ASSERT_GT(want_vel[0].w, 0.0f);
    Image via_interop = render(cam, ps);
    ParticleSettings points = ps;
    points.draw_radii = false;
    EXPECT_GT(lit_fraction(via_interop, 8), lit_fraction(render(cam, points), 8));

    BodyFeed host_feed;
    host_feed.try_interop = false;
    host_feed.feed(*backend, particles);
    ImageDiff d = compare_images(via_interop, render(cam, ps), 2);
    EXPECT_LT(d.fraction_over, 1e-4) << "max diff " << d.max_abs;
    host_feed.shutdown();
}

TEST_F(Offscreen, CudaInteropWritesAccelerations) {
    SKIP_WITHOUT_CUDA_INTEROP();
    open(64, 64);
    HostState hs = make_preset(presets().front().name, 5000, 8);
    auto backend = create_backend("cuda", Precision::f32);
    backend->set_state(hs);
    Params p;
    FeedStats st = feed.feed(*backend, particles, &p);
    ASSERT_TRUE(st.interop) << feed.interop_note;
    EXPECT_EQ(st.device_to_host_bytes, 0u);
    EXPECT_TRUE(particles.acc_valid);
    const std::size_t n = backend->size();
    std::vector<Vec4<float>> gl_acc(n), want(n);
    glGetNamedBufferSubData(particles.acc_vbo, 0, GLsizeiptr(n * 16), gl_acc.data());
    backend->copy_accelerations(p, want.data());
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(gl_acc[i].x, want[i].x) << i;
        ASSERT_EQ(gl_acc[i].z, want[i].z) << i;
        ASSERT_EQ(gl_acc[i].w, 0.0f) << i;
    }
    feed.feed(*backend, particles);
    EXPECT_FALSE(particles.acc_valid);
}

// On a CUDA machine: the buffers grow (deleted and recreated, names often reused) and interop still writes
// the new buffers, not a stale registration of the old ones.
TEST_F(Offscreen, CudaInteropFollowsBufferReallocation) {
    SKIP_WITHOUT_CUDA_INTEROP();
    open(64, 64);
    for (std::size_t n : {1000u, 50000u, 70000u}) {
        HostState hs = make_preset(presets().front().name, n, 5);
        auto backend = create_backend("cuda", Precision::f32);
        backend->set_state(hs);
        std::uint64_t before = particles.generation;
        FeedStats st = feed.feed(*backend, particles);
        ASSERT_TRUE(st.interop) << "N=" << n << ": " << feed.interop_note;
        EXPECT_NE(particles.generation, before);
        std::vector<Vec4<float>> gl_pos(n), want(n);
        glGetNamedBufferSubData(particles.pos_vbo, 0, GLsizeiptr(n * 16), gl_pos.data());
        backend->copy_positions(want.data());
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(gl_pos[i].x, want[i].x) << "N=" << n << " body " << i;
            ASSERT_EQ(gl_pos[i].w, want[i].w) << "N=" << n << " body " << i;
        }
    }
}

}  // namespace
}  // namespace nbody
