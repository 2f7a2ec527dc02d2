#pragma once
// How bodies look, without GL: the settings the panel and `nbody render` edit, the per-scenario body
// statistics the colour map and sprite size need, and the parsers for their flags. The GL side is
// render/particle_renderer and shaders/body_look.glsl.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/state.hpp"

namespace nbody {

// What a body's colour shows. `group` is the body set it started in (each galaxy its own hue, from the
// preset's BodyGroups); `accel` is |a| from the force solver (the buffers are then filled with the
// accelerations, as for arrows); `density` draws every body in neutral light and colours the image by
// the light piled up on each pixel (the projected density), in the tone-mapping pass; `classic` is one warm
// orange for every body, as NVIDIA's CUDA nbody sample draws them (Look::classic); `potential` each body's
// depth in the potential well (the window computes it now and then: app/window/sim_session).
// `local_density` each body's 3D local density (sim/local_density.hpp, computed now and then by the window).
enum class ColorMode { speed, mass, white, group, accel, density, classic, potential, local_density };

// The whole picture's style. `nbody`: float accumulation, the tone curve with automatic exposure, bloom,
// colour by ColorMode. `classic` imitates NVIDIA's CUDA nbody sample (cuda-samples 5_Domain_Specific/nbody):
// every body the same warm orange soft sprite, their light added and clamped per channel as in its 8-bit
// framebuffer, with no tone curve, no automatic exposure, no bloom and no gamma (apply_classic_look).
enum class Look { nbody, classic };
const char* to_string(Look l);
std::optional<Look> parse_look(const std::string& s);
const char* look_names();  // "nbody, classic"

// The sample's single body colour (its float-precision base colour): red full, green 0.6, blue 0.3, so a
// lone sprite is orange and overlaps clip red first, then green, and end white.
inline constexpr float kClassicOrange[3] = {1.0f, 0.6f, 0.3f};

// The ramp a quantity is mapped through: `ember` (deep red, orange, white, blue: the default, close to a
// star's colour by temperature), `viridis` (dark violet to yellow, evenly bright steps: reads in grey and
// for colour-blind eyes), `ice` (dark blue to white).
enum class ColorMap { ember, viridis, ice };

const char* to_string(ColorMode m);
std::optional<ColorMode> parse_color_mode(const std::string& s);
const char* to_string(ColorMap m);
std::optional<ColorMap> parse_color_map(const std::string& s);
// Valid names, for error messages and --help: "speed, mass, white, group, accel, density".
const char* color_mode_names();
const char* color_map_names();

// How bodies reach the image: point sprites through the raster pipeline, or the compute splat
// (render/splat_renderer), which is faster for many small bodies on compute GPUs.
enum class SplatMode { automatic, sprites, compute };

// "auto", "sprites", "compute" (for flags and logs).
const char* to_string(SplatMode m);
std::optional<SplatMode> parse_splat_mode(const std::string& s);

struct ParticleSettings {
    float size_px = 4.0f;  // sprite diameter (pixels at 1080 lines) of a typical body at the focus distance
    float brightness = 1.0f;  // light per sprite before tone mapping
    ColorMode color = ColorMode::speed;
    ColorMap colormap = ColorMap::ember;
    float speed_max = 0.0f;  // speed at the top of the colour ramp; 0 = from the scenario (BodyStats)
    float min_px = 1.5f;     // smaller sprites are drawn at this size with their light scaled down ...
    float min_light = 0.0f;  // ... but never below this fraction of a full sprite (small N: all visible)
    float max_px = 48.0f;    // cap (pixels at 1080 lines): bodies next to the camera don't fill the screen
    SplatMode splat = SplatMode::automatic;
    // Draw radii (vel.w): a body whose sphere projects wider than its sprite is drawn as a disc of that
    // size. On while collisions are on; off, radii are ignored and the picture is the one without them.
    bool draw_radii = false;
};

// On-screen diameter (pixels) of a sphere of `radius` whose centre is `distance` from the eye, in a view
// `height_px` tall with vertical field of view fov_y (radians); 0 when the eye is inside it. The disc is
// the silhouette cone's: 2 f R / sqrt(D^2 - R^2), f = height_px / (2 tan(fov_y / 2)). shaders/body_look.glsl
// (draw_radius) computes the same.
float disc_diameter_px(double radius, double distance, double fov_y, int height_px);

// The nominal sprite size for n bodies: large glowing sprites for a few bodies (a figure-eight's three
// are 24 px), 4 px at 65536, then shrinking as n^(-1/3) so a million bodies stay a cloud of points
// rather than one white blob (and cost fewer fragments).
float default_sprite_size(std::size_t n);

// The default look for n bodies: sprite size, the smallest sprite and its least light (small N: every
// body stays visible however light), and the tone mapper's white point (light that shows as white:
// few bodies reach it alone, many only where they pile up).
// The tone mapper's automatic white point and the bloom are part of it (ToneSettings::auto_white,
// white_floor, bloom): the picture holds from 1K to 64M bodies without touching the exposure.
struct DefaultLook {
    float size_px, min_px, min_light, white;
    float white_floor;  // the automatic white point never goes below this (a few bodies: one sprite)
    float bloom;        // glow strength
};
DefaultLook default_look(std::size_t n);

// Bodies [starts[g], starts[g + 1]) form set g (a galaxy of the collision, the star and the planets of
// solar): the presets' index ranges, which no backend reorders. One set when the bodies came from a file.
inline constexpr int kMaxGroups = 8;
struct BodyGroups {
    std::vector<std::size_t> starts{0};  // ascending, starts[0] = 0, at most kMaxGroups
};
// What the colour map and sprite size need from the bodies; computed once per scenario on the host,
// because with interop the positions never visit host memory.
struct BodyStats {
    float median_mass = 1.0f;  // the 'typical body' that gets the nominal sprite size
    float min_mass = 1.0f;
    float max_mass = 1.0f;
    float speed_scale = 1.0f;  // roughly the 95th percentile speed
    // A typical acceleration for arrows: speed_scale^2 over the median distance from the centre of mass
    // (v^2 / r of an orbit; the accelerations themselves never visit the host on a GPU).
    float accel_scale = 1.0f;
    // Colouring by potential: log(-phi) of the shallowest and deepest bodies (a low and a high
    // percentile), set when the window computes the bodies' potentials.
    float log_phi_shallow = 0.0f, log_phi_deep = 1.0f;
    // Colouring by local density: log(rho) of the sparse and the crowded end (percentiles), likewise.
    float log_rho_low = 0.0f, log_rho_high = 1.0f;
    BodyGroups groups;  // from the preset (compute_body_stats leaves one set: the caller knows the sets)
};

template <typename T>
BodyStats compute_body_stats(const State<T>& s);

// The colour ramp, black-body-like: deep red (slow / light) through orange and white to blue (fast /
// heavy). Defined once here; the shaders receive its stops as a uniform, the panel's legend draws it.
struct Rgb {
    float r, g, b;
};
inline constexpr int kRampStops = 5;
const Rgb* ramp_stops(ColorMap m = ColorMap::ember);    // kRampStops colours, evenly spaced over [0, 1]
Rgb ramp_color(float t, ColorMap m = ColorMap::ember);  // t clamped to [0, 1]

// Colour of set g (g wraps over kMaxGroups): well-separated hues, warm first.
Rgb group_color(int g);

// The potential-field view's colour map: dark blue (deep wells) through teal and green to yellow (shallow).
const Rgb* potential_ramp_stops();  // kRampStops colours
Rgb potential_ramp_color(float t);

// The range the ramp spans, in the units of s.color: speed (0, v_max), log mass (lo, hi), log |a| (lo, hi).
struct ColorRange {
    float lo = 0, hi = 1;
};
ColorRange color_range(const ParticleSettings& s, const BodyStats& stats);

}  // namespace nbody
