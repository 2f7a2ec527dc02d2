// Picking (compiled after body_look.glsl): each body as a point of at least u_pick_min_px pixels,
// carrying its index, so a click finds the body under the cursor on every backend (the buffers are the
// ones the sprites draw from, filled by interop or upload). Location: pick_loc in shader_locations.hpp.
layout(location = 0) in vec4 a_pos_mass;
layout(location = 1) in vec4 a_vel;

layout(location = 24) uniform float u_pick_min_px;

flat out uint v_id;

void main() {
    vec4 view_pos = u_view * vec4(a_pos_mass.xyz, 1.0);
    gl_Position = u_proj * view_pos;
    BodyLook b = body_look(a_pos_mass, a_vel.xyz, vec3(0.0), uint(gl_VertexID), view_pos);
    draw_radius(b, a_vel.w, view_pos);  // a click on any part of a drawn disc finds its body
    gl_PointSize = max(b.diameter, u_pick_min_px);
    v_id = uint(gl_VertexID) + 1u;  // 0 = no body
}
