// An `ffmpeg` stand-in for the lent GPU machine, which has no Debian packages: Debian's ffmpeg needs about
// 240 MB of libraries, more than a device call may carry, while libx264 alone is 2 MB with no dependencies.
// It takes the command line nbody gives ffmpeg for H.264 (app/cli/video_encoder.cpp: rawvideo rgba frames
// of `-s WxH` at `-r FPS` on stdin, the output path last), converts each frame to yuv420p (BT.601, limited
// range, as ffmpeg's default rgba -> yuv420p conversion) and encodes it with libx264 into an Annex-B H.264
// elementary stream written to that path. That file is raw H.264 whatever its name: put it in an MP4
// container without re-encoding with `ffmpeg -f h264 -r FPS -i FILE -c copy out.mp4` (Debian's ffmpeg,
// here). A bench tool, not part of the build (production code never includes bench/):
//   g++ -O2 -std=c++20 bench/x264_stand_in.cpp -lx264 -o .device/bin/ffmpeg   (needs libx264-dev)
//   X264_CRF=23 (default) chooses the quality; the speed is ffmpeg's -preset when given, else X264_PRESET
//   (default fast).
#include <cstdint>  // before x264.h, which uses its types without including it
// (x264.h after this comment, so that include sorting keeps it second)
#include <x264.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int fail(const std::string& what) {
    std::fprintf(stderr, "x264_stand_in: %s\n", what.c_str());
    return 1;
}

// One 8-bit BT.601 limited-range value from a weighted sum scaled by 256.
std::uint8_t clamp_byte(int v) {
    return std::uint8_t(v < 0 ? 0 : v > 255 ? 255 : v);
}

void rgba_to_i420(const std::uint8_t* rgba, int w, int h, x264_picture_t& pic) {
    std::uint8_t* Y = pic.img.plane[0];
    std::uint8_t* U = pic.img.plane[1];
    std::uint8_t* V = pic.img.plane[2];
    const int sy = pic.img.i_stride[0], su = pic.img.i_stride[1], sv = pic.img.i_stride[2];
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const std::uint8_t* p = rgba + (std::size_t(y) * w + x) * 4;
            Y[y * sy + x] = clamp_byte(((66 * p[0] + 129 * p[1] + 25 * p[2] + 128) >> 8) + 16);
        }
    }
    // Chroma from the mean of each 2x2 block.
    for (int y = 0; y < h / 2; ++y) {
        for (int x = 0; x < w / 2; ++x) {
            int r = 0, g = 0, b = 0;
            for (int dy = 0; dy < 2; ++dy) {
                for (int dx = 0; dx < 2; ++dx) {
                    const std::uint8_t* p = rgba + (std::size_t(2 * y + dy) * w + 2 * x + dx) * 4;
                    r += p[0], g += p[1], b += p[2];
                }
            }
            r = (r + 2) / 4, g = (g + 2) / 4, b = (b + 2) / 4;
            U[y * su + x] = clamp_byte(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
            V[y * sv + x] = clamp_byte(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
        }
    }
}

bool write_nals(FILE* out, x264_nal_t* nal, int count) {
    for (int k = 0; k < count; ++k) {
        if (std::fwrite(nal[k].p_payload, 1, std::size_t(nal[k].i_payload), out) !=
            std::size_t(nal[k].i_payload))
            return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    int w = 0, h = 0, fps = 30;
    const char* preset = std::getenv("X264_PRESET") ? std::getenv("X264_PRESET") : "fast";
    for (int k = 1; k + 1 < argc; ++k) {
        if (std::strcmp(argv[k], "-s") == 0 && std::sscanf(argv[k + 1], "%dx%d", &w, &h) != 2)
            return fail("bad -s " + std::string(argv[k + 1]));
        if (std::strcmp(argv[k], "-r") == 0) fps = std::atoi(argv[k + 1]);
        if (std::strcmp(argv[k], "-preset") == 0) preset = argv[k + 1];
    }
    if (argc < 2 || w <= 0 || h <= 0 || w % 2 || h % 2 || fps <= 0)
        return fail("usage: as ffmpeg is called by nbody (-s WxH with even sizes, -r FPS, output last)");
    const char* path = argv[argc - 1];

    x264_param_t param;
    if (x264_param_default_preset(&param, preset, nullptr) < 0) return fail("unknown preset");
    param.i_width = w, param.i_height = h;
    param.i_csp = X264_CSP_I420;
    param.i_fps_num = std::uint32_t(fps), param.i_fps_den = 1;
    param.i_timebase_num = 1, param.i_timebase_den = std::uint32_t(fps);
    param.rc.i_rc_method = X264_RC_CRF;
    param.rc.f_rf_constant = std::getenv("X264_CRF") ? float(std::atof(std::getenv("X264_CRF"))) : 23.0f;
    // No B-frames: a raw stream carries no timestamps, and with B-frames ffmpeg's copy into MP4 drops the
    // last frames; without them every frame keeps its place.
    param.i_bframe = 0;
    param.b_annexb = 1;
    param.b_repeat_headers = 1;
    param.i_log_level = X264_LOG_ERROR;
    if (x264_param_apply_profile(&param, "high") < 0) return fail("profile");
    x264_t* enc = x264_encoder_open(&param);
    if (!enc) return fail("x264_encoder_open failed");
    FILE* out = std::fopen(path, "wb");
    if (!out) return fail(std::string("cannot write ") + path);

    x264_picture_t pic, pic_out;
    if (x264_picture_alloc(&pic, X264_CSP_I420, w, h) < 0) return fail("x264_picture_alloc");
    std::vector<std::uint8_t> frame(std::size_t(w) * h * 4);
    x264_nal_t* nal = nullptr;
    int nals = 0;
    std::int64_t frames = 0;
    while (std::fread(frame.data(), 1, frame.size(), stdin) == frame.size()) {
        rgba_to_i420(frame.data(), w, h, pic);
        pic.i_pts = frames++;
        if (x264_encoder_encode(enc, &nal, &nals, &pic, &pic_out) < 0) return fail("encode");
        if (!write_nals(out, nal, nals)) return fail("write");
    }
    while (x264_encoder_delayed_frames(enc) > 0) {
        if (x264_encoder_encode(enc, &nal, &nals, nullptr, &pic_out) < 0) return fail("flush");
        if (!write_nals(out, nal, nals)) return fail("write");
    }
    x264_picture_clean(&pic);
    x264_encoder_close(enc);
    if (std::fclose(out) != 0) return fail("close");
    std::fprintf(stderr, "x264_stand_in: %lld frames of %dx%d at %d fps -> %s\n", (long long)frames, w, h,
                 fps, path);
    return 0;
}
