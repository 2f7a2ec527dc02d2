#pragma once
// The ImGui control panel and help overlay. It edits a plain PanelModel and reports what the user asked
// for in PanelActions; window_app carries the actions out. No simulation or GL calls here.
#include <array>
#include <cstdint>
#include <string>

#include "render/particle_renderer.hpp"
#include "render/tone_mapper.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

// What the panel edits. window_app applies changes each frame.
struct PanelModel {
    Params params;
    int steps_per_frame = 1;
    bool paused = false;
    std::string preset;
    std::int64_t n = 4096;        // bodies now
    std::int64_t n_edit = 4096;   // the N field; applied by Regenerate (after a confirmation if large)
    std::uint64_t seed = 1;
    std::string backend;
    Precision precision = Precision::f32;
    ParticleSettings particles;
    ToneSettings tone;
    bool vsync = true;
    bool fullscreen = false;
    bool show_panel = true;
    bool show_help = false;
};

struct PanelActions {
    bool regenerate = false;     // new N / preset / seed: make the preset again
    bool single_step = false;
    bool switch_backend = false; // model.backend / model.precision changed
    bool fit_camera = false;
    bool reset_camera = false;
    bool screenshot = false;
    bool vsync_changed = false;
    bool fullscreen_changed = false;
    bool pause_changed = false;
};

// A fixed-length history for the plots (oldest first when read through values()).
struct History {
    static constexpr int kLen = 240;
    std::array<float, kLen> data{};
    int next = 0, count = 0;
    void push(float v);
    float last() const { return count ? data[std::size_t((next + kLen - 1) % kLen)] : 0.0f; }
};

// Numbers the panel shows; filled by window_app each frame.
struct PanelInfo {
    History fps, ms_frame, ms_step, interactions, gflops, drift;
    double steps_per_s = 0;
    std::int64_t steps_total = 0;
    double sim_time = 0;
    std::size_t n = 0;
    bool have_energy = false;
    double kinetic = 0, potential = 0, total = 0, drift_now = 0;
    std::string gl_device;
    std::string cuda_device;        // "NVIDIA H100 — 79.1 GiB total, 78.6 GiB free", or "" without CUDA
    std::string transfer;           // "interop: 0 B copied device->host per frame", ...
    std::string interop_note;       // why interop is off, if it is
    std::string checkpoint;         // the NaN-recovery copy: size, direction, cadence (not per frame)
    std::string busy;               // "switching to cuda (float)..." while a request is in flight
    std::string message;            // last error or warning, shown in red until dismissed
    std::string screenshot_note;    // "saved shot.png"
    std::string draw_path;          // "point sprites" or "compute splat": what drew the last frame
    double interactions_per_body = 0;  // per step, as the solver counted them (N times evaluations for direct)
    bool have_force_error = false;
    std::string force_error;        // "force error: median 2.1e-04, p99 1.3e-03"
    std::string force_error_where;  // "(theta 0.60, 64 bodies, step 1200)": what it was measured on
};

// Draws the panel (if model.show_panel) and the help overlay (if model.show_help). Returns actions.
PanelActions draw_panel(PanelModel& model, PanelInfo& info);

// N above which regenerating asks for confirmation first.
inline constexpr std::int64_t kConfirmN = 65536;

}  // namespace nbody
