#include "body_look.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "sim/util.hpp"

namespace nbody {

template <typename T>
BodyStats compute_body_stats(const State<T>& s) {
    BodyStats st;
    std::size_t n = s.size();
    if (n == 0) return st;
    double lo = INFINITY, hi = 0;
    std::vector<float> speeds(n), masses(n);
    for (std::size_t i = 0; i < n; ++i) {
        double m = double(s.pos_mass[i].w);
        masses[i] = float(m);
        lo = std::min(lo, m);
        hi = std::max(hi, m);
        const auto& v = s.vel[i];
        speeds[i] = float(std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z));
    }
    auto k = speeds.begin() + std::ptrdiff_t(std::min(n - 1, n * 95 / 100));
    std::nth_element(speeds.begin(), k, speeds.end());
    // The median, not the mean: one central black hole must not shrink every star to a dot.
    st.median_mass = median(std::move(masses));
    st.min_mass = float(lo);
    st.max_mass = float(hi);
    st.speed_scale = *k > 0 ? *k : 1.0f;
    if (!(st.median_mass > 0)) st.median_mass = 1.0f;
    double mass = 0, cx = 0, cy = 0, cz = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double m = std::abs(double(s.pos_mass[i].w));
        mass += m, cx += m * double(s.pos_mass[i].x), cy += m * double(s.pos_mass[i].y),
            cz += m * double(s.pos_mass[i].z);
    }
    if (mass > 0) cx /= mass, cy /= mass, cz /= mass;
    std::vector<float> radii(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double dx = double(s.pos_mass[i].x) - cx, dy = double(s.pos_mass[i].y) - cy,
                     dz = double(s.pos_mass[i].z) - cz;
        radii[i] = float(std::sqrt(dx * dx + dy * dy + dz * dz));
    }
    const float r = median(std::move(radii));
    const float a = r > 0 ? st.speed_scale * st.speed_scale / r : 0.0f;
    st.accel_scale = std::isfinite(a) && a > 0 ? a : 1.0f;
    return st;
}

template BodyStats compute_body_stats(const State<float>&);
template BodyStats compute_body_stats(const State<double>&);

const char* to_string(SplatMode m) {
    switch (m) {
        case SplatMode::sprites:
            return "sprites";
        case SplatMode::compute:
            return "compute";
        default:
            return "auto";
    }
}

std::optional<SplatMode> parse_splat_mode(const std::string& s) {
    if (s == "auto") return SplatMode::automatic;
    if (s == "sprites") return SplatMode::sprites;
    if (s == "compute") return SplatMode::compute;
    return std::nullopt;
}

float default_sprite_size(std::size_t n) {
    float x = 65536.0f / float(std::max<std::size_t>(n, 1));
    if (x >= 1.0f) return std::min(24.0f, 4.0f * std::pow(x, 0.2f));
    return std::max(1.5f, 4.0f * std::cbrt(x));
}

DefaultLook default_look(std::size_t n) {
    DefaultLook l;
    l.size_px = default_sprite_size(n);
    // A handful of bodies (a planet beside its star: a mass ratio of 1e-6) must each show as a clear dot
    // with its glow; a few thousand as small visible points; beyond that, sub-pixel bodies fade.
    l.min_px = n <= 64 ? 8.0f : n <= 4096 ? 3.0f : 1.5f;
    l.min_light = n <= 64 ? 1.0f : n <= 4096 ? 0.5f : 0.0f;
    l.white = std::clamp(std::sqrt(float(n)) * 0.25f, 2.0f, 64.0f);
    // Where bodies are sub-pixel their faded light adds up to less than one sprite per pixel, so the
    // floor comes down with them; with few bodies one sprite's centre is white, as before.
    l.white_floor = n <= 4096 ? 1.0f : 0.25f;
    // A handful of bodies are already large glowing sprites: a halo would only blur them.
    l.bloom = n <= 64 ? 0.0f : 0.35f;
    return l;
}

const Rgb* ramp_stops(ColorMap m) {
    static const Rgb ember[kRampStops] = {
        {0.85f, 0.22f, 0.06f}, {1.00f, 0.52f, 0.14f}, {1.00f, 0.86f, 0.55f},
        {0.60f, 0.78f, 1.00f}, {0.32f, 0.48f, 1.00f},
    };
    // Five stops chosen by eye along a violet-teal-yellow path of rising lightness (after matplotlib's
    // viridis, not its table): each step is about as much brighter as the last.
    static const Rgb viridis[kRampStops] = {
        {0.28f, 0.05f, 0.38f}, {0.23f, 0.32f, 0.56f}, {0.13f, 0.56f, 0.55f},
        {0.36f, 0.78f, 0.38f}, {0.99f, 0.91f, 0.15f},
    };
    static const Rgb ice[kRampStops] = {
        {0.10f, 0.14f, 0.45f}, {0.12f, 0.38f, 0.80f}, {0.35f, 0.70f, 0.97f},
        {0.74f, 0.91f, 1.00f}, {1.00f, 1.00f, 1.00f},
    };
    switch (m) {
        case ColorMap::viridis:
            return viridis;
        case ColorMap::ice:
            return ice;
        default:
            return ember;
    }
}

Rgb group_color(int g) {
    // Gold and sky blue first: the two galaxies of the collision read as warm and cold at a glance.
    static const Rgb hues[kMaxGroups] = {
        {1.00f, 0.70f, 0.32f}, {0.42f, 0.64f, 1.00f}, {1.00f, 0.42f, 0.62f}, {0.45f, 0.95f, 0.55f},
        {0.80f, 0.55f, 1.00f}, {0.40f, 0.95f, 0.95f}, {1.00f, 0.95f, 0.45f}, {0.95f, 0.95f, 0.95f},
    };
    return hues[((g % kMaxGroups) + kMaxGroups) % kMaxGroups];
}

namespace {
struct Named {
    const char* name;
    int value;
};
constexpr Named kColorModes[] = {{"speed", int(ColorMode::speed)},
                                 {"mass", int(ColorMode::mass)},
                                 {"white", int(ColorMode::white)},
                                 {"group", int(ColorMode::group)},
                                 {"accel", int(ColorMode::accel)},
                                 {"density", int(ColorMode::density)},
                                 {"classic", int(ColorMode::classic)},
                                 {"potential", int(ColorMode::potential)},
                                 {"local_density", int(ColorMode::local_density)}};
constexpr Named kColorMaps[] = {
    {"ember", int(ColorMap::ember)}, {"viridis", int(ColorMap::viridis)}, {"ice", int(ColorMap::ice)}};
}  // namespace

const char* to_string(ColorMode m) {
    for (const auto& e : kColorModes)
        if (e.value == int(m)) return e.name;
    return "speed";
}

std::optional<ColorMode> parse_color_mode(const std::string& s) {
    for (const auto& e : kColorModes)
        if (s == e.name) return ColorMode(e.value);
    return std::nullopt;
}

const char* to_string(ColorMap m) {
    for (const auto& e : kColorMaps)
        if (e.value == int(m)) return e.name;
    return "ember";
}

std::optional<ColorMap> parse_color_map(const std::string& s) {
    for (const auto& e : kColorMaps)
        if (s == e.name) return ColorMap(e.value);
    return std::nullopt;
}

const char* color_mode_names() {
    return "speed, mass, white, group, accel, density, classic, potential, local_density";
}

const char* to_string(Look l) {
    return l == Look::classic ? "classic" : "nbody";
}

std::optional<Look> parse_look(const std::string& s) {
    if (s == "nbody") return Look::nbody;
    if (s == "classic") return Look::classic;
    return std::nullopt;
}

const char* look_names() {
    return "nbody, classic";
}

const char* color_map_names() {
    return "ember, viridis, ice";
}

namespace {
Rgb lerp_stops(const Rgb* s, float t) {
    float x = std::clamp(t, 0.0f, 1.0f) * float(kRampStops - 1);
    int i = std::min(int(x), kRampStops - 2);
    float f = x - float(i);
    return {s[i].r + (s[i + 1].r - s[i].r) * f, s[i].g + (s[i + 1].g - s[i].g) * f,
            s[i].b + (s[i + 1].b - s[i].b) * f};
}
}  // namespace

const Rgb* potential_ramp_stops() {
    static const Rgb stops[kRampStops] = {
        {0.05f, 0.03f, 0.25f}, {0.10f, 0.25f, 0.60f}, {0.10f, 0.55f, 0.60f},
        {0.45f, 0.78f, 0.35f}, {0.98f, 0.90f, 0.25f},
    };
    return stops;
}

Rgb potential_ramp_color(float t) {
    return lerp_stops(potential_ramp_stops(), t);
}

Rgb ramp_color(float t, ColorMap m) {
    return lerp_stops(ramp_stops(m), t);
}

float disc_diameter_px(double radius, double distance, double fov_y, int height_px) {
    const double d2 = distance * distance - radius * radius;
    if (!(radius > 0) || !(d2 > 0)) return 0.0f;
    const double f = 0.5 * double(height_px) / std::tan(0.5 * fov_y);
    return float(2.0 * f * radius / std::sqrt(d2));
}

ColorRange color_range(const ParticleSettings& s, const BodyStats& stats) {
    if (s.color == ColorMode::mass) {
        return {std::log(std::max(stats.min_mass, 1e-30f)), std::log(std::max(stats.max_mass, 1e-30f))};
    }
    if (s.color == ColorMode::potential) return {stats.log_phi_shallow, stats.log_phi_deep};
    if (s.color == ColorMode::local_density) return {stats.log_rho_low, stats.log_rho_high};
    if (s.color == ColorMode::accel) {
        // Two and a half decades around the typical |a|: the core's pull and the outskirts' both show.
        const float a = std::log(std::max(stats.accel_scale, 1e-30f));
        return {a - 2.3f * 1.5f, a + 2.3f};
    }
    return {0.0f, s.speed_max > 0 ? s.speed_max : 1.5f * stats.speed_scale};
}

}  // namespace nbody
