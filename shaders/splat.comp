// Compute splat (compiled after body_look.glsl): one thread per body projects it and adds its light into
// three r32ui layers (R, G, B in fixed point) with image atomics. It visits the same pixels a point sprite
// of that diameter would cover (centres inside the square, falloff by radius), so small bodies look as
// they do in the sprite path; the raster pipeline, which is a small part of a compute GPU, is bypassed.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly restrict buffer PosMass { vec4 pos_mass[]; };
layout(std430, binding = 1) readonly restrict buffer Vel { vec4 vel[]; };
layout(std430, binding = 2) readonly restrict buffer Acc { vec4 acc[]; };  // read when colouring by |a|
layout(r32ui, binding = 0) uniform restrict uimage2DArray u_accum;

layout(location = 9) uniform uint u_count;
layout(location = 10) uniform vec2 u_viewport;     // pixels
layout(location = 11) uniform float u_fixed_one;   // fixed-point value of one unit of light
layout(location = 12) uniform float u_max_px;      // footprint cap; larger bodies keep their light

// Adds q, saturating: a wrapped sum would turn the densest pixel black. Every add that wraps is followed
// by its own max, so the final value is all ones whatever the order.
void add_light(ivec3 at, uint q) {
    if (q == 0u) return;
    uint old = imageAtomicAdd(u_accum, at, q);
    if (old + q < old) imageAtomicMax(u_accum, at, 0xFFFFFFFFu);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_count) return;
    vec4 pm = pos_mass[i];
    vec4 view_pos = u_view * vec4(pm.xyz, 1.0);
    vec4 clip = u_proj * view_pos;
    // Outside the near/far planes or behind the eye: the sprite path clips these too.
    if (!(clip.w > 0.0) || abs(clip.z) > clip.w) return;
    vec2 win = (clip.xy / clip.w * 0.5 + 0.5) * u_viewport;

    BodyLook b = body_look(pm, vel[i].xyz, acc[i].xyz, i, view_pos);
    // Discs are many pixels wide, beyond this path's footprint cap: the sprite pass draws them after it.
    draw_radius(b, vel[i].w, view_pos);
    if (b.disc) return;
    float d = b.diameter;
    float energy = b.energy;
    if (d > u_max_px) {
        // Bounded work per thread: a big sprite shrinks to the cap and keeps its light (area ~ d^2).
        energy *= (d * d) / (u_max_px * u_max_px);
        d = u_max_px;
    }
    float r = 0.5 * d;
    // Pixels whose centres (x + 0.5) lie within r of the body on each axis, clipped to the viewport.
    ivec2 lo = max(ivec2(ceil(win - r - 0.5)), ivec2(0));
    ivec2 hi = min(ivec2(floor(win + r - 0.5)), ivec2(u_viewport) - 1);
    vec3 light = b.color * energy * u_fixed_one;
    for (int y = lo.y; y <= hi.y; ++y) {
        for (int x = lo.x; x <= hi.x; ++x) {
            vec2 p = (vec2(x, y) + 0.5 - win) / r;
            float r2 = dot(p, p);
            if (r2 > 1.0) continue;
            uvec3 q = uvec3(light * sprite_falloff(r2) + 0.5);
            add_light(ivec3(x, y, 0), q.r);
            add_light(ivec3(x, y, 1), q.g);
            add_light(ivec3(x, y, 2), q.b);
        }
    }
}
