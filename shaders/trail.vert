// Trails (compiled after body_look.glsl): GL_LINES with no vertex attributes. Vertex v draws one end of
// segment v/2 of body (v/2) % N, between its positions `age` and `age + 1` updates ago, read from the
// ring of the last K positions (slot s holds all N bodies). Locations: trail_loc in shader_locations.hpp.
layout(std430, binding = 0) readonly restrict buffer Ring { vec4 ring[]; };
layout(std430, binding = 1) readonly restrict buffer Vel { vec4 vel[]; };

layout(location = 32) uniform uint u_n;       // bodies per slot
layout(location = 33) uniform uint u_k;       // slots in the ring
layout(location = 34) uniform uint u_head;    // slot of the newest positions
layout(location = 35) uniform uint u_filled;  // slots written so far (<= u_k)
layout(location = 36) uniform float u_trail_light;

out vec3 v_color;

void main() {
    uint seg = uint(gl_VertexID) / 2u;
    uint body = seg % u_n;
    uint age = seg / u_n + uint(gl_VertexID) % 2u;  // 0 = newest
    uint slot = (u_head + u_k - age) % u_k;
    vec4 pm = ring[slot * u_n + body];
    vec4 view_pos = u_view * vec4(pm.xyz, 1.0);
    gl_Position = u_proj * view_pos;
    BodyLook b = body_look(pm, vel[body].xyz, vec3(0.0), body, view_pos);
    float fade = 1.0 - float(age) / float(max(u_filled, 1u));
    v_color = b.color * (u_trail_light * u_brightness * fade * fade);
}
