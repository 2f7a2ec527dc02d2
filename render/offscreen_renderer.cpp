#include "offscreen_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gl_util.hpp"
#include "overlay_scale.hpp"
#include "potential_view.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"

namespace nbody {

void validate_look(const FrameLook& look, int width, int height) {
    if (width < 1 || height < 1 || width > 16384 || height > 16384) {
        throw Error("--width/--height must be 1..16384 (got " + std::to_string(width) + "x" +
                    std::to_string(height) + ")");
    }
    // The flags' own ranges, for callers that do not parse flags (Python's render): NaN fails each test.
    if (!(look.zoom > 0 && look.zoom <= 1e6f)) throw Error("--zoom must be in (0, 1e6]");
    if (!(look.pitch_deg > -89.5f && look.pitch_deg < 89.5f))
        throw Error("--pitch must be in (-89.5, 89.5) degrees");
    if (!(look.yaw_deg >= -1e6f && look.yaw_deg <= 1e6f)) throw Error("--yaw must be in [-1e6, 1e6] degrees");
    if (!(look.size_px >= 0 && look.size_px <= 256)) throw Error("--size must be in (0, 256]");
    if (!(look.brightness > 0 && look.brightness <= 1e6f)) throw Error("--brightness must be in (0, 1e6]");
    if (!(look.exposure > 0 && look.exposure <= 1e6f)) throw Error("--exposure must be in (0, 1e6]");
    if (look.trails < 0 || look.trails > 4096)
        throw Error("--trails must be 0..4096 (got " + std::to_string(look.trails) + ")");
    if (look.potential != 0 && (look.potential < 16 || look.potential > 1024)) {
        throw Error("--potential must be 16..1024 (got " + std::to_string(look.potential) + ")");
    }
}

OffscreenRenderer::~OffscreenRenderer() {
    if (!ctx.context) return;
    feed.shutdown();
    scene.shutdown();
    ctx.shutdown();
}

void OffscreenRenderer::start(int w, int h, const FrameLook& look, const HostState& s, const Params& p) {
    ctx.init(w, h);
    scene.init();
    feed.try_interop = !look.host_copy;
    scene.particles.stats = compute_body_stats(s);
    const DefaultLook defaults = default_look(s.size());
    ps.size_px = look.size_px > 0 ? look.size_px : defaults.size_px;
    ps.min_px = defaults.min_px;
    ps.min_light = defaults.min_light;
    ts.white = defaults.white;
    ts.auto_white = !look.fixed_exposure;
    ts.white_floor = defaults.white_floor;
    ts.bloom = look.bloom >= 0 ? look.bloom : defaults.bloom;
    ps.brightness = look.brightness;
    ps.color = look.color;
    ps.colormap = look.colormap;
    ps.splat = look.splat;
    ts.tone_map = look.tone_map;
    ts.exposure = look.exposure;
    if (look.look == Look::classic) apply_classic_look(ps, ts);
    camera.yaw = look.yaw_deg * 3.14159265f / 180.0f;
    camera.pitch = look.pitch_deg * 3.14159265f / 180.0f;
    {
        State<float> fs = convert_state<float>(s);
        camera.fit(fs.pos_mass.data(), fs.size());
        camera.distance /= look.zoom;
    }
    zoom = look.zoom;
    params = p;
    // Bodies with size are drawn at their radius where it outgrows the sprite (docs/DEMOS.md).
    ps.draw_radii = p.collisions != CollisionMode::off;
    os.trails = look.trails > 0;
    os.trail_length = std::max(2, look.trails);
    os.vectors = look.vectors;
    os.accelerations = look.acc_vectors;
    os.potential = look.potential > 0;
    potential_res = look.potential;
    // As the window draws them at the nominal arrow length, so an image matches what the window shows.
    os.set_scale(overlay_scale(camera, s.size(), scene.particles.stats));
}

void OffscreenRenderer::draw() {
    scene.draw(camera, ps, ts, ctx.fbo, ctx.width, ctx.height, os);
}

FeedStats OffscreenRenderer::update(Backend& b) {
    FeedStats fs = feed.feed(b, scene.particles, wants_accelerations() ? &params : nullptr);
    if (os.trails) scene.overlays.record(scene.particles, os);
    if (potential_res > 0) {
        int rows = potential_grid_rows(potential_res, ctx.width, ctx.height);
        auto targets = potential_grid_points(camera, potential_res, rows, ctx.width, ctx.height);
        std::vector<double> phi = b.field_at(params, targets, true).potential;
        scene.potential.upload(std::vector<float>(phi.begin(), phi.end()), potential_res, rows);
    }
    return fs;
}

void OffscreenRenderer::frame_bodies(Backend& b, float ease) {
    std::vector<Vec4<float>> pos(b.size());
    b.copy_positions(pos.data());
    Camera fitted = camera;
    fitted.fit(pos.data(), pos.size());
    fitted.distance /= zoom;
    camera.target += (fitted.target - camera.target) * ease;
    camera.distance *= std::pow(fitted.distance / camera.distance, ease);
    os.set_scale(overlay_scale(camera, b.size(), scene.particles.stats));  // arrows follow the view
}

Image OffscreenRenderer::frame(Backend& b) {
    update(b);
    draw();
    check_gl("rendering a frame");
    return read_framebuffer(ctx.fbo, ctx.width, ctx.height);
}

}  // namespace nbody
