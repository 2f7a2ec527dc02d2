#version 450 core
// The potential-field view: the gravitational potential sampled on a grid across the viewport (a slice
// through the camera's target, facing it), coloured from deep wells (dark blue) to the rim (yellow), with
// contour lines; blended over the tone-mapped bodies. Locations: potential_loc in shader_locations.hpp.
in vec2 v_uv;
layout(location = 0) out vec4 o_color;

layout(binding = 0) uniform sampler2D u_phi;      // R32F, row 0 at the bottom: potential_shade(phi)
layout(location = 0) uniform vec2 u_range;        // shades of the grid's lowest and highest phi
layout(location = 1) uniform float u_opacity;
layout(location = 2) uniform float u_levels;      // contour lines across the range
layout(location = 3) uniform vec3 u_ramp[5];      // render/potential_view.cpp

vec3 ramp(float t) {
    t = clamp(t, 0.0, 1.0) * 4.0;
    int i = min(int(t), 3);
    return mix(u_ramp[i], u_ramp[i + 1], t - float(i));
}

void main() {
    float phi = texture(u_phi, v_uv).r;
    float t = clamp((phi - u_range.x) / max(u_range.y - u_range.x, 1e-30), 0.0, 1.0);
    float f = t * u_levels;
    float d = abs(fract(f - 0.5) - 0.5) / max(fwidth(f), 1e-6);
    // Lines closer than a few pixels (steep wells) fade out rather than merge into a grey disc; none at
    // the map's two ends, where a flat patch (the bottom of a well, the rim) would be all line.
    float line = (1.0 - clamp(d - 0.5, 0.0, 1.0)) * clamp(1.5 - 4.0 * fwidth(f), 0.0, 1.0);
    line *= step(0.5, f) * step(f, u_levels - 0.5);
    vec3 c = mix(ramp(t), vec3(1.0), 0.6 * line);
    o_color = vec4(c, u_opacity);
}
