#pragma once
// Uniform locations of the shaders in shaders/, named once: each value must match the shader's
// `layout(location = N)`, which the shader's comments point back to.
#include <epoxy/gl.h>

namespace nbody {

// shaders/body_look.glsl (sprites and compute splat share these).
namespace body_look_loc {
inline constexpr GLint view = 0;
inline constexpr GLint proj = 1;
inline constexpr GLint size_px = 2;
inline constexpr GLint focus_dist = 3;
inline constexpr GLint median_mass = 4;
inline constexpr GLint brightness = 5;
inline constexpr GLint color_mode = 6;
inline constexpr GLint color_range = 7;
inline constexpr GLint px_limits = 8;
inline constexpr GLint ramp = 16;  // vec3[kRampStops]: 16..20
inline constexpr GLint min_light = 21;
inline constexpr GLint radius_px = 22;  // 0: radii not drawn
inline constexpr GLint disc_max_px = 23;
inline constexpr GLint group_starts = 48;  // uint[kMaxGroups]: 48..55
inline constexpr GLint group_count = 56;
inline constexpr GLint group_colors = 57;  // vec3[kMaxGroups]: 57..64
}  // namespace body_look_loc

// shaders/splat.comp (after body_look's).
namespace splat_loc {
inline constexpr GLint count = 9;
inline constexpr GLint viewport = 10;
inline constexpr GLint fixed_one = 11;
inline constexpr GLint max_px = 12;
}  // namespace splat_loc

// shaders/particle.vert (after body_look's).
namespace particle_loc {
inline constexpr GLint discs_only = 25;
}  // namespace particle_loc

// shaders/pick.vert (after body_look's).
namespace pick_loc {
inline constexpr GLint min_px = 24;
}  // namespace pick_loc

// shaders/trail.vert (after body_look's).
namespace trail_loc {
inline constexpr GLint n = 32;
inline constexpr GLint k = 33;
inline constexpr GLint head = 34;
inline constexpr GLint filled = 35;
inline constexpr GLint light = 36;
}  // namespace trail_loc

// shaders/grid.vert (a program of its own).
namespace grid_loc {
inline constexpr GLint view = 0;
inline constexpr GLint proj = 1;
inline constexpr GLint center = 2;
inline constexpr GLint spacing = 3;
inline constexpr GLint half = 4;
}  // namespace grid_loc

// shaders/vector.vert (after body_look's).
namespace vector_loc {
inline constexpr GLint scale = 40;
inline constexpr GLint kind = 41;  // 0 velocity, 1 acceleration
inline constexpr GLint cap = 42;
}  // namespace vector_loc

// shaders/potential.frag.
namespace potential_loc {
inline constexpr GLint range = 0;
inline constexpr GLint opacity = 1;
inline constexpr GLint levels = 2;
inline constexpr GLint ramp = 3;  // vec3[kRampStops]: 3..7
}  // namespace potential_loc

// shaders/splat_resolve.comp.
namespace splat_resolve_loc {
inline constexpr GLint scale = 0;
}  // namespace splat_resolve_loc

// shaders/tonemap.frag.
namespace tonemap_loc {
inline constexpr GLint exposure = 0;
inline constexpr GLint tone_map = 1;
inline constexpr GLint gamma = 2;
inline constexpr GLint white = 3;
inline constexpr GLint auto_white = 4;
inline constexpr GLint bloom = 5;
inline constexpr GLint bloom_levels = 6;
inline constexpr GLint density = 7;
inline constexpr GLint ramp = 8;  // vec3[kRampStops]: 8..12
inline constexpr GLint round_bloom = 13;
inline constexpr GLint cover = 14;
}  // namespace tonemap_loc
// shaders/exposure_white.comp.
namespace exposure_white_loc {
inline constexpr GLint percentile = 0;
inline constexpr GLint adapt = 1;
inline constexpr GLint min_white = 2;
}  // namespace exposure_white_loc

}  // namespace nbody
