#pragma once
// Images of a backend's bodies with no window: an EGL context, the scene renderer and the body feed, set
// up from one FrameLook. `nbody render` draws its frames with it, the Python module its render().
#include <string>

#include "body_feed.hpp"
#include "body_look.hpp"
#include "camera.hpp"
#include "image.hpp"
#include "offscreen_context.hpp"
#include "overlay_renderer.hpp"
#include "scene_renderer.hpp"
#include "sim/backend.hpp"
#include "tone_mapper.hpp"

namespace nbody {

// How an image looks: `nbody render`'s appearance flags (docs/CLI.md), the same defaults.
struct FrameLook {
    Look look = Look::nbody;  // classic: the CUDA sample's (overrides color, bloom, exposure, tone map)
    float size_px = 0.0f;     // 0: default_sprite_size(N)
    float brightness = 1.0f;
    float exposure = 1.0f;
    ColorMode color = ColorMode::speed;
    ColorMap colormap = ColorMap::ember;
    float bloom = -1.0f;          // < 0: the default look's for N
    bool fixed_exposure = false;  // the fixed white point (no automatic exposure from the image)
    SplatMode splat = SplatMode::automatic;
    bool tone_map = true;
    float yaw_deg = 34.0f, pitch_deg = 26.0f, zoom = 1.0f;
    bool host_copy = false;  // never use CUDA-GL interop (for comparisons)
    int trails = 0;          // > 0: trails of this many positions
    bool vectors = false;    // velocity arrows
    bool acc_vectors = false;
    int potential = 0;  // > 0: the potential-field view on a grid this many points wide
};

// Throws nbody::Error with the render command's words for a look it refuses (size, zoom, pitch, trails,
// potential grid) or an image size outside 1..16384.
void validate_look(const FrameLook& look, int width, int height);

// Offscreen GL state and the bodies' source, torn down in reverse on every path out.
struct OffscreenRenderer {
    OffscreenContext ctx;
    SceneRenderer scene;
    BodyFeed feed;
    Camera camera;
    ParticleSettings ps;
    ToneSettings ts;
    OverlaySettings os;
    int potential_res = 0;
    Params params;
    float zoom = 1.0f;  // the look's: frame_bodies keeps it

    OffscreenRenderer() = default;
    OffscreenRenderer(const OffscreenRenderer&) = delete;
    OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;
    ~OffscreenRenderer();

    // Opens a w x h context and sets the look, with a camera that fits the bodies of s (their colour
    // scale too); p is what acceleration arrows and the potential view evaluate. Throws nbody::Error
    // (one line) where no EGL device can be opened.
    void start(int w, int h, const FrameLook& look, const HostState& s, const Params& p);

    bool compute_path() const { return scene.uses_compute_splat(ps); }
    // Colouring by |a| needs the accelerations in the buffers, as the arrows do.
    bool wants_accelerations() const { return os.accelerations || ps.color == ColorMode::accel; }
    // Frames the bodies as they are now (Camera::fit: the bulk, not the farthest escaper), moving `ease`
    // of the way from the current view (1: at once), keeping the direction and the zoom factor.
    void frame_bodies(Backend& b, float ease);
    void draw();
    // The bodies (and their accelerations, for arrows) into the GL buffers, and the trail ring and the
    // potential grid from them when enabled. The grid is evaluated by the backend's force solver: on a
    // GPU only the targets go up and the potentials come back.
    FeedStats update(Backend& b);
    // update, draw, read back: one RGBA image, top row first.
    Image frame(Backend& b);
};

}  // namespace nbody
