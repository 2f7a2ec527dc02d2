#version 450 core
// Auto exposure, pass 1: a histogram of how much light each lit pixel of the float image holds, in
// half-stop bins of log2 over [-16, 16) (units of one full sprite). The brightest channel, not luminance,
// so a saturated blue core counts as bright as it will look. Each work group counts into shared memory
// and adds its non-empty bins once. Buffer layout: render/auto_exposure.hpp (ExposureBuffer).
layout(local_size_x = 16, local_size_y = 16) in;

layout(binding = 0) uniform sampler2D u_hdr;
layout(std430, binding = 3) restrict buffer Exposure {
    float white;  // the adapted white point (light shown as full white)
    float target;
    uint lit;     // lit pixels in the last histogram
    uint pad;
    uint bins[64];
};

shared uint local_bins[64];

void main() {
    uint li = gl_LocalInvocationIndex;
    if (li < 64u) local_bins[li] = 0u;
    barrier();
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (all(lessThan(p, textureSize(u_hdr, 0)))) {
        vec3 c = texelFetch(u_hdr, p, 0).rgb;
        float light = max(c.r, max(c.g, c.b));
        // 2^-16: below what 8 bits of output can show at any white point worth having.
        if (light > 1.0 / 65536.0) {
            int bin = clamp(int(floor((log2(light) + 16.0) * 2.0)), 0, 63);
            atomicAdd(local_bins[bin], 1u);
        }
    }
    barrier();
    if (li < 64u && local_bins[li] > 0u) atomicAdd(bins[li], local_bins[li]);
}
