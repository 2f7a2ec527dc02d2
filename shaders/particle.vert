// One point sprite per body (compiled after body_look.glsl, which has #version, uniforms and the look).
// Positions+mass and velocities come straight from the simulation's float4 buffers (the CUDA backend
// writes them in place), so nothing is repacked on the CPU.
layout(location = 0) in vec4 a_pos_mass;  // x, y, z, m
layout(location = 1) in vec4 a_vel;       // vx, vy, vz, radius (0: a point)
layout(location = 2) in vec4 a_acc;       // ax, ay, az, 0: filled when colouring by |a|, else unread

layout(location = 25) uniform int u_discs_only;  // 1: only discs (after the compute splat drew the rest)

out vec3 v_color;
flat out int v_disc;

void main() {
    vec4 view_pos = u_view * vec4(a_pos_mass.xyz, 1.0);
    gl_Position = u_proj * view_pos;
    BodyLook b = body_look(a_pos_mass, a_vel.xyz, a_acc.xyz, uint(gl_VertexID), view_pos);
    draw_radius(b, a_vel.w, view_pos);
    gl_PointSize = b.diameter;
    v_disc = b.disc ? 1 : 0;
    // Outside the clip volume: the point is dropped before rasterization.
    if (u_discs_only != 0 && !b.disc) gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
    v_color = b.color * u_brightness * b.energy;
}
