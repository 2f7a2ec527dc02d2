#version 450 core
// Soft round sprite; blending is additive (ONE, ONE) into a float target, so dense cores add up and the
// tone-mapping pass decides how they saturate. Same falloff as sprite_falloff() in body_look.glsl.
in vec3 v_color;
layout(location = 0) out vec4 o_color;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    o_color = vec4(v_color * (0.7 * exp(-10.0 * r2) + 0.3 * exp(-3.0 * r2)), 1.0);
}
