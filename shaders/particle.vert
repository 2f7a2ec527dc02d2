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
    if (u_discs_only != 0) {
        // Most bodies cannot be discs: a disc is wider than its sprite, which is at least the smaller of
        // u_px_limits. Those are dropped before the look is worked out (the margin keeps every disc).
        float radius = a_vel.w;
        float d2 = dot(view_pos.xyz, view_pos.xyz) - radius * radius;
        bool maybe = u_radius_px > 0.0 && radius > 0.0 && d2 > 0.0 && view_pos.z < 0.0 &&
                     2.0 * u_radius_px * radius / sqrt(d2) * 1.001 > min(u_px_limits.x, u_px_limits.y);
        if (!maybe) {
            gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
            gl_PointSize = 1.0;
            v_disc = 0;
            v_color = vec3(0.0);
            return;
        }
    }
    BodyLook b = body_look(a_pos_mass, a_vel.xyz, a_acc.xyz, uint(gl_VertexID), view_pos);
    draw_radius(b, a_vel.w, view_pos);
    gl_PointSize = b.diameter;
    v_disc = b.disc ? 1 : 0;
    // Outside the clip volume: the point is dropped before rasterization.
    if (u_discs_only != 0 && !b.disc) gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
    v_color = b.color * u_brightness * b.energy;
}
