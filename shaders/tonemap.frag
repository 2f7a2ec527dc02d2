#version 450 core
// Maps the additive float image to display range. The logarithmic curve keeps a gradient up to `white`
// (in units of one sprite's light), so dense cores where thousands of sprites overlap don't clip to flat
// white; without it the light is only clamped. Locations: tonemap_loc in render/shader_locations.hpp.
in vec2 v_uv;
layout(location = 0) out vec4 o_color;

layout(binding = 0) uniform sampler2D u_hdr;
layout(location = 0) uniform float u_exposure;
layout(location = 1) uniform int u_tone_map;   // 0 clamp, 1 logarithmic
layout(location = 2) uniform float u_gamma;
layout(location = 3) uniform float u_white;   // light that maps to full white (tone mapping on)

void main() {
    vec3 hdr = texelFetch(u_hdr, ivec2(gl_FragCoord.xy), 0).rgb * u_exposure;
    vec3 ldr = u_tone_map != 0 ? min(log(vec3(1.0) + 4.0 * hdr) / log(1.0 + 4.0 * u_white), vec3(1.0)) : clamp(hdr, 0.0, 1.0);
    o_color = vec4(pow(ldr, vec3(1.0 / u_gamma)), 1.0);
}
