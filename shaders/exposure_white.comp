#version 450 core
// Auto exposure, pass 2 (one invocation): the white point is the light below which u_percentile of the
// lit pixels lie, so the densest few per mille of the picture (cores) reach white and everything else
// keeps a gradient, whether 1K sprites or 64M sub-pixel bodies made the image. Moves towards it by
// u_adapt of the way in log space per frame (1: at once), so a video does not flicker; clears the bins.
layout(local_size_x = 1) in;

layout(std430, binding = 3) restrict buffer Exposure {
    float white;
    float target;
    uint lit;
    uint pad;
    uint bins[64];
};

layout(location = 0) uniform float u_percentile;
layout(location = 1) uniform float u_adapt;
layout(location = 2) uniform float u_min_white;  // floor: a few lone bodies never blow up to white discs

void main() {
    uint total = 0u;
    for (int i = 0; i < 64; ++i) total += bins[i];
    float t = u_min_white;
    if (total > 0u) {
        uint want = uint(ceil(float(total) * u_percentile));
        uint seen = 0u;
        int b = 63;
        for (int i = 0; i < 64; ++i) {
            seen += bins[i];
            if (seen >= want) {
                b = i;
                break;
            }
        }
        t = max(exp2(float(b + 1) * 0.5 - 16.0), u_min_white);  // the bin's upper edge
    }
    target = t;
    lit = total;
    white = (u_adapt >= 1.0 || !(white > 0.0)) ? t : exp(mix(log(white), log(t), u_adapt));
    for (int i = 0; i < 64; ++i) bins[i] = 0u;
}
