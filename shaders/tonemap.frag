#version 450 core
// Maps the additive float image to display range. The logarithmic curve keeps a gradient up to `white`
// (in units of one sprite's light), so dense cores where thousands of sprites overlap don't clip to flat
// white; without it the light is only clamped. The white point is fixed (u_white) or adapted to the image
// (render/auto_exposure: read from its buffer). Bloom adds the image's coarser mip levels, a soft glow
// around bright regions. Density colouring maps the light on each pixel (bodies drawn in neutral light)
// through the colour ramp. Locations: tonemap_loc in render/shader_locations.hpp.
in vec2 v_uv;
layout(location = 0) out vec4 o_color;

layout(binding = 0) uniform sampler2D u_hdr;
layout(std430, binding = 3) readonly restrict buffer Exposure { float auto_white; };
layout(location = 0) uniform float u_exposure;
layout(location = 1) uniform int u_tone_map;   // 0 clamp, 1 logarithmic
layout(location = 2) uniform float u_gamma;
layout(location = 3) uniform float u_white;    // light that maps to full white (tone mapping on)
layout(location = 4) uniform int u_auto_white;  // 1: the white point from the exposure buffer
layout(location = 5) uniform float u_bloom;     // glow strength, 0 = off
layout(location = 6) uniform int u_bloom_levels;
layout(location = 7) uniform int u_density;     // 1: colour by the light on the pixel through u_ramp
layout(location = 8) uniform vec3 u_ramp[5];
layout(location = 13) uniform int u_round_bloom;  // 1: each level read through a ring of taps (discs drawn)
// 1: alpha is how much the picture covers what is already there (its brightest channel), for blending over
// a background (the reference grid) that bodies must hide; 0: opaque.
layout(location = 14) uniform int u_cover;

vec3 ramp(float t) {
    t = clamp(t, 0.0, 1.0) * 4.0;
    int i = min(int(t), 3);
    return mix(u_ramp[i], u_ramp[i + 1], t - float(i));
}

void main() {
    vec3 hdr = texelFetch(u_hdr, ivec2(gl_FragCoord.xy), 0).rgb;
    if (u_bloom > 0.0) {
        // Each level averages 2^l x 2^l pixels, so a point's glow spreads wider and fainter level by level;
        // the weights favour the near levels so the glow hugs its source.
        vec2 uv = gl_FragCoord.xy / vec2(textureSize(u_hdr, 0));
        vec3 glow = vec3(0.0);
        // Coarse levels are only bilinear between texels 2^l pixels apart: their weights fall fast, or
        // the log curve would show their piecewise-linear edges in the faint glow.
        vec2 texel = 1.0 / vec2(textureSize(u_hdr, 0));
        for (int l = 1; l <= u_bloom_levels; ++l) {
            vec3 level = textureLod(u_hdr, uv, float(l)).rgb;
            if (u_round_bloom != 0) {
                // A flat, sharp-edged disc turns the box-filtered levels into a square halo; eight taps on a
                // ring one level texel out round it. Soft sprites never show it: left as they were.
                vec2 step = texel * float(1 << l);
                for (int k = 0; k < 8; ++k) {
                    float a = 0.7854 * float(k);
                    level += textureLod(u_hdr, uv + step * vec2(cos(a), sin(a)), float(l)).rgb;
                }
                level /= 9.0;
            }
            glow += level / float(1 << l);
        }
        hdr += u_bloom * glow;
    }
    float white = u_auto_white != 0 ? max(auto_white, 1e-6) : u_white;
    hdr *= u_exposure;
    vec3 ldr;
    if (u_density != 0) {
        float light = max(hdr.r, max(hdr.g, hdr.b));
        float t = log(1.0 + 4.0 * light) / log(1.0 + 4.0 * white);
        // Empty sky stays black: the ramp's dark end would otherwise tint it.
        ldr = ramp(t) * clamp(t * 4.0, 0.0, 1.0);
    } else if (u_tone_map == 0) {
        ldr = clamp(hdr, 0.0, 1.0);
    } else if (u_auto_white != 0) {
        // Relative to the measured white: about three decades below it stay visible, the hue is kept
        // (the curve scales the brightest channel) and only the top of the range burns towards white.
        float peak = max(hdr.r, max(hdr.g, hdr.b));
        float level = min(log(1.0 + 32.0 * peak / white) / log(33.0), 1.0);
        ldr = peak > 0.0 ? hdr / peak * level : vec3(0.0);
        ldr = mix(ldr, vec3(level), smoothstep(0.75, 1.0, level) * 0.7);
    } else {
        ldr = min(log(vec3(1.0) + 4.0 * hdr) / log(1.0 + 4.0 * white), vec3(1.0));
    }
    vec3 shown = pow(ldr, vec3(1.0 / u_gamma));
    o_color = vec4(shown, u_cover != 0 ? clamp(max(shown.r, max(shown.g, shown.b)), 0.0, 1.0) : 1.0);
}
