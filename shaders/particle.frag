#version 450 core
// Soft round sprite; blending is additive (ONE, ONE) into a float target, so dense cores add up and the
// tone-mapping pass decides how they saturate. Same falloffs as sprite_falloff() and disc_falloff() in
// body_look.glsl (a separate stage, so repeated here).
in vec3 v_color;
flat in int v_disc;
layout(location = 0) out vec4 o_color;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    float f = v_disc != 0 ? 0.4 + 0.6 * sqrt(max(1.0 - r2, 0.0)) : 0.7 * exp(-10.0 * r2) + 0.3 * exp(-3.0 * r2);
    o_color = vec4(v_color * f, 1.0);
}
