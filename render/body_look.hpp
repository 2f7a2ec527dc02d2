#pragma once
// How bodies look, without GL: the settings the panel and `nbody render` edit, the per-scenario body
// statistics the colour map and sprite size need, and the parsers for their flags. The GL side is
// render/particle_renderer and shaders/body_look.glsl.
#include <cstddef>
#include <optional>
#include <string>

#include "sim/state.hpp"

namespace nbody {

enum class ColorMode { speed, mass, white };

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
    float speed_max = 0.0f;  // speed at the top of the colour ramp; 0 = from the scenario (BodyStats)
    float min_px = 1.5f;     // smaller sprites are drawn at this size with their light scaled down ...
    float min_light = 0.0f;  // ... but never below this fraction of a full sprite (small N: all visible)
    float max_px = 48.0f;    // cap (pixels at 1080 lines): bodies next to the camera don't fill the screen
    SplatMode splat = SplatMode::automatic;
};

// The nominal sprite size for n bodies: large glowing sprites for a few bodies (a figure-eight's three
// are 24 px), 4 px at 65536, then shrinking as n^(-1/3) so a million bodies stay a cloud of points
// rather than one white blob (and cost fewer fragments).
float default_sprite_size(std::size_t n);

// The default look for n bodies: sprite size, the smallest sprite and its least light (small N: every
// body stays visible however light), and the tone mapper's white point (light that shows as white:
// few bodies reach it alone, many only where they pile up).
struct DefaultLook {
    float size_px, min_px, min_light, white;
};
DefaultLook default_look(std::size_t n);

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
};

template <typename T>
BodyStats compute_body_stats(const State<T>& s);

// The colour ramp, black-body-like: deep red (slow / light) through orange and white to blue (fast /
// heavy). Defined once here; the shaders receive its stops as a uniform, the panel's legend draws it.
struct Rgb {
    float r, g, b;
};
inline constexpr int kRampStops = 5;
const Rgb* ramp_stops();  // kRampStops colours, evenly spaced over [0, 1]
Rgb ramp_color(float t);  // t clamped to [0, 1]

// The potential-field view's colour map: dark blue (deep wells) through teal and green to yellow (shallow).
const Rgb* potential_ramp_stops();  // kRampStops colours
Rgb potential_ramp_color(float t);

// The top of the colour ramp in the units of s.color: speed (v_max) or log mass range (lo, hi).
struct ColorRange {
    float lo = 0, hi = 1;
};
ColorRange color_range(const ParticleSettings& s, const BodyStats& stats);

}  // namespace nbody
