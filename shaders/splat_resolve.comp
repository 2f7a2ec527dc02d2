#version 450 core
// Turns the fixed-point light of the compute splat into the float image the tone mapper reads, so both
// drawing paths share one tone-mapping pass.
layout(local_size_x = 16, local_size_y = 16) in;

layout(r32ui, binding = 0) readonly restrict uniform uimage2DArray u_accum;
layout(rgba16f, binding = 1) writeonly restrict uniform image2D u_hdr;

layout(location = 0) uniform float u_scale;  // brightness / fixed-point value of one unit of light

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(u_hdr)))) return;
    uvec3 q = uvec3(imageLoad(u_accum, ivec3(p, 0)).r, imageLoad(u_accum, ivec3(p, 1)).r,
                    imageLoad(u_accum, ivec3(p, 2)).r);
    // 65504: the largest half float, so a saturated pixel stays finite.
    imageStore(u_hdr, p, vec4(min(vec3(q) * u_scale, vec3(65504.0)), 1.0));
}
