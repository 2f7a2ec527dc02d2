// Velocity or acceleration arrows (compiled after body_look.glsl): GL_LINES, 6 vertices per body (shaft,
// two barbs of the head), no vertex attributes. Length: |v| (or |a|) times u_vec_scale world units.
// Locations: vector_loc.
layout(std430, binding = 0) readonly restrict buffer PosMass { vec4 pos_mass[]; };
layout(std430, binding = 1) readonly restrict buffer Vel { vec4 vel[]; };
layout(std430, binding = 2) readonly restrict buffer Acc { vec4 acc[]; };

layout(location = 40) uniform float u_vec_scale;
layout(location = 41) uniform int u_vec_kind;  // 0: velocity, in the body's colour; 1: acceleration
layout(location = 42) uniform float u_vec_cap;  // > 0: lengths saturate softly at this (world units)

out vec3 v_color;

void main() {
    uint body = uint(gl_VertexID) / 6u;
    uint k = uint(gl_VertexID) % 6u;
    vec4 pm = pos_mass[body];
    vec3 v = vel[body].xyz;
    vec3 arrow = u_vec_kind == 1 ? acc[body].xyz : v;
    vec3 tail = (u_view * vec4(pm.xyz, 1.0)).xyz;
    vec3 w = arrow * u_vec_scale;
    // Accelerations span decades (1/r^2 near a star): linear for typical ones, then saturating, so the
    // inner bodies' arrows do not cover the picture.
    float len = length(w);
    if (u_vec_cap > 0.0 && len > 0.0) w *= u_vec_cap * tanh(len / u_vec_cap) / len;
    vec3 tip = (u_view * vec4(pm.xyz + w, 1.0)).xyz;
    vec3 d = tip - tail;
    // The barbs lie in the screen plane: across the shaft and the view direction.
    vec3 side = cross(d, vec3(0.0, 0.0, 1.0));
    side = length(side) > 0.0 ? normalize(side) * length(d) : vec3(0.0);
    vec3 p;
    if (k == 0u) p = tail;
    else if (k == 1u || k == 2u || k == 4u) p = tip;
    else if (k == 3u) p = tip - 0.25 * d + 0.12 * side;
    else p = tip - 0.25 * d - 0.12 * side;
    gl_Position = u_proj * vec4(p, 1.0);
    BodyLook b = body_look(pm, v, vec3(0.0), body, vec4(tail, 1.0));
    // Accelerations in one colour of their own (green-cyan, off the body ramp), so both kinds can be
    // told apart when drawn together.
    vec3 c = u_vec_kind == 1 ? vec3(0.2, 1.0, 0.4) : mix(b.color, vec3(1.0), 0.3);
    v_color = c * (k == 0u ? 0.35 : 1.0);
}
