#version 450 core
// How a body looks (diameter in pixels, light, colour), shared by the sprite path (particle.vert) and the
// compute splat path (splat.comp) so both draw the same picture. Compiled first: it carries #version.
// Locations are named in render/shader_locations.hpp (body_look_loc).

layout(location = 0) uniform mat4 u_view;
layout(location = 1) uniform mat4 u_proj;
layout(location = 2) uniform float u_size_px;      // diameter of a mean-mass body at the focus distance
layout(location = 3) uniform float u_focus_dist;   // camera distance to its target (world units)
layout(location = 4) uniform float u_median_mass;  // typical (median) mass
layout(location = 5) uniform float u_brightness;
layout(location = 6) uniform int u_color_mode;     // ColorMode: 0 speed, 1 mass, 2 white, 3 group, 4 accel, 5 density,
                                                   // 6 classic, 7 potential, 8 local density
layout(location = 7) uniform vec2 u_color_range;   // speed: (0, v_max); mass, accel: (log lo, log hi);
                                                   // potential: (log -phi shallow, log -phi deep)
layout(location = 8) uniform vec2 u_px_limits;     // smallest and largest sprite diameter in pixels

layout(location = 16) uniform vec3 u_ramp[5];     // the colour ramp's stops (render/body_look.cpp)
layout(location = 21) uniform float u_min_light;  // least light of a sprite shrunk below u_px_limits.x
// Radii (vel.w) drawn as discs: pixels per unit of tan(angle) (half the viewport height times the
// projection's y scale), 0 = radii not drawn (collisions off: the picture is exactly the old one).
layout(location = 22) uniform float u_radius_px;
layout(location = 23) uniform float u_disc_max_px;  // largest disc diameter (the GL point size limit)
layout(location = 48) uniform uint u_group_starts[8];  // first body of each set (BodyGroups), ascending
layout(location = 56) uniform int u_group_count;
layout(location = 57) uniform vec3 u_group_colors[8];
// Each body's potential phi (G included), for colouring by potential (ParticleRenderer::phi_buf, bound by
// ParticleRenderer::bind_potentials); 0 where none was computed (phi < 0 wherever there is mass).
layout(std430, binding = 4) readonly restrict buffer BodyPhi { float body_phi[]; };

vec3 ramp(float t) {
    t = clamp(t, 0.0, 1.0) * 4.0;
    int i = min(int(t), 3);
    return mix(u_ramp[i], u_ramp[i + 1], t - float(i));
}

struct BodyLook {
    float diameter;  // pixels, inside u_px_limits
    float energy;    // light scale (< 1 for bodies smaller than the smallest sprite), brightness excluded
    vec3 color;      // colour-map value, brightness excluded
    bool disc;       // drawn as a disc of its projected radius (draw_radius), not a soft sprite
};

// The set body `index` started in: the last set whose first body is at or before it.
int body_group(uint index) {
    int g = 0;
    for (int k = 1; k < u_group_count; ++k) g += index >= u_group_starts[k] ? 1 : 0;
    return g;
}

// acc is read only when colouring by |a| (callers without accelerations pass zero).
BodyLook body_look(vec4 pos_mass, vec3 vel, vec3 acc, uint index, vec4 view_pos) {
    BodyLook b;
    b.disc = false;
    float mass = max(pos_mass.w, 0.0);
    float depth = max(-view_pos.z, 1e-6 * u_focus_dist);
    // Size grows with the cube root of mass (radius of a body of fixed density), capped so a central
    // black hole stays a bright dot rather than a disc, and shrinks with depth.
    float d = u_size_px * min(pow(mass / u_median_mass, 1.0 / 3.0), 4.0) * (u_focus_dist / depth);
    b.energy = 1.0;
    if (d < u_px_limits.x) {
        // Sprites smaller than a pixel fade instead of vanishing or flickering: keep the area's light.
        b.energy = max((d * d) / (u_px_limits.x * u_px_limits.x), u_min_light);
        d = u_px_limits.x;
    }
    b.diameter = min(d, u_px_limits.y);

    float t = 0.5;
    float log_range = max(u_color_range.y - u_color_range.x, 1e-6);
    if (u_color_mode == 0) {
        t = length(vel) / max(u_color_range.y, 1e-30);
    } else if (u_color_mode == 1) {
        t = (log(max(mass, 1e-30)) - u_color_range.x) / log_range;
    } else if (u_color_mode == 4) {
        t = (log(max(length(acc), 1e-30)) - u_color_range.x) / log_range;
    } else if (u_color_mode == 7) {
        // Deeper in the well is hotter: log(-phi) from the shallow end (0) to the deep end (1).
        float phi = index < uint(body_phi.length()) ? body_phi[index] : 0.0;
        if (phi < 0.0) t = (log(-phi) - u_color_range.x) / log_range;
    } else if (u_color_mode == 8) {
        // Local density (the same per-body buffer): log(rho) from the sparse end (0) to the crowded (1).
        float rho = index < uint(body_phi.length()) ? body_phi[index] : 0.0;
        if (rho > 0.0) t = (log(rho) - u_color_range.x) / log_range;
    }
    if (u_color_mode == 6) {
        // The CUDA sample's single warm orange (kClassicOrange), heavy bodies included: nothing stands out.
        b.color = vec3(1.0, 0.6, 0.3);
        return b;
    }
    if (u_color_mode == 2 || u_color_mode == 5) {
        b.color = vec3(1.0);  // white; density: neutral light, coloured after accumulation
    } else if (u_color_mode == 3) {
        b.color = u_group_colors[body_group(index)];
    } else {
        b.color = ramp(t);
    }
    // Bodies far heavier than the typical one (a star among planets, a central black hole) burn white-hot
    // whatever their speed, so they stand out.
    float heavy = clamp(log(max(mass / u_median_mass, 1.0)) / log(1000.0), 0.0, 1.0);
    b.color = mix(b.color, vec3(1.0, 0.97, 0.9), 0.85 * heavy);
    return b;
}

// A body of `radius` whose disc is wider on screen than its sprite is drawn as that disc. The sphere's
// silhouette, seen from distance D, is a cone of half-angle asin(R / D): tan of it is R / sqrt(D^2 - R^2),
// so a close sphere looks larger than R / depth says. disc_diameter_px() in render/body_look.cpp mirrors it.
void draw_radius(inout BodyLook b, float radius, vec4 view_pos) {
    if (!(u_radius_px > 0.0) || !(radius > 0.0)) return;
    float d2 = dot(view_pos.xyz, view_pos.xyz) - radius * radius;
    // Inside the sphere (or at its rim) there is no disc to draw: keep the sprite.
    if (!(d2 > 0.0) || view_pos.z >= 0.0) return;
    float diameter = 2.0 * u_radius_px * radius / sqrt(d2);
    if (diameter <= b.diameter) return;
    b.diameter = min(diameter, u_disc_max_px);
    b.energy = 1.0;
    b.disc = true;
}

// A disc's light at squared radius r2 (1 = rim): a lit sphere's limb darkening, as bright at its centre as
// a sprite's core, with a sharp rim so its size reads. particle.frag repeats it.
float disc_falloff(float r2) {
    return 0.4 + 0.6 * sqrt(max(1.0 - r2, 0.0));
}

// The sprite's falloff at squared radius r2 (1 = rim): a bright Gaussian core in a wide soft glow, about
// 2% left at the rim. particle.frag repeats it (a separate stage).
float sprite_falloff(float r2) {
    return 0.7 * exp(-10.0 * r2) + 0.3 * exp(-3.0 * r2);
}
