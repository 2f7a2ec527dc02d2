#pragma once
// `nbody render`: simulate and render images without any window or X server (EGL device platform).
#include <cstdint>
#include <optional>
#include <string>

#include "scenario_flags.hpp"

namespace CLI {
class App;
}

namespace nbody {

struct RenderOptions {
    ScenarioOptions scenario;
    std::optional<std::int64_t> steps;  // simulation steps in total; unset: the preset's demo_steps, else 100
    int width = 1920, height = 1080;
    std::string out = "nbody.png";  // a .png file (the last frame), or a directory with --every
    std::int64_t every = 0;         // > 0: a frame every this many steps (numbered PNGs, or video frames)
    std::string video;              // .mp4 through an ffmpeg pipe (needs ffmpeg on PATH)
    int fps = 30;                   // video frame rate
    float size_px = 0.0f;           // 0: default_sprite_size(N)
    float brightness = 1.0f;
    float exposure = 1.0f;
    std::string look = "nbody";   // Look by name
    std::string color = "speed";  // ColorMode by name
    std::string colormap = "ember";
    float bloom = -1.0f;          // < 0: the default look's
    bool fixed_exposure = false;  // the fixed white point of before (no automatic exposure)
    bool auto_frame = false;      // with --every/--video: refit the camera to the bodies every frame
    std::string camera_path;      // a camera path (JSON): frame k shows its view at k / fps seconds
    bool no_tone_map = false;
    float yaw_deg = 34.0f, pitch_deg = 26.0f, zoom = 1.0f;
    bool host_copy = false;      // never use CUDA–GL interop (for comparisons)
    int bench_frames = 0;        // > 0: also time this many full frames and draw-only frames
    bool quiet = false;          // no progress line
    bool bench_paused = false;   // time only drawing (no steps), e.g. at N = 1M where a step takes long
    std::string splat = "auto";  // auto, sprites, compute (how bodies are drawn)
    std::string replay;          // a snapshot series' directory: one frame per snapshot, no simulation
    int trails = 0;              // > 0: trails of this many positions (recorded every steps/trails steps)
    bool vectors = false;        // velocity arrows
    bool acc_vectors = false;    // acceleration arrows
    int potential = 0;           // > 0: the potential-field view on a grid this many points wide
    bool pick = false;           // with --bench-frames: pick the body at the image centre every frame
    std::string bench_record;    // with --bench-frames: record the timed full frames as the window does
};

inline constexpr std::int64_t kDefaultRenderN = 16384;

// Adds the `render` subcommand and its flags to root; returns it.
CLI::App* add_render_command(CLI::App& root, RenderOptions& o);

// Runs it. Returns the exit code; throws nbody::Error (one line) on bad input or no EGL device.
int run_render_command(const RenderOptions& o);

}  // namespace nbody
