#pragma once
// `nbody` with no subcommand: the interactive window (GLFW, OpenGL 4.5 core, ImGui panel).
#include <string>

#include "app/cli/scenario_flags.hpp"

namespace CLI {
class App;
}

namespace nbody {

struct WindowOptions {
    ScenarioOptions scenario;
    int frames = 0;          // > 0: quit after this many frames (tests, README images)
    std::string screenshot;  // PNG of the last frame, panel included (with --frames)
    bool vsync = true;
    int width = 1600, height = 900;  // window size in screen coordinates (HiDPI scales the framebuffer)
    bool fullscreen = false;
    bool hide_panel = false;
    float ui_scale = 1.0f;       // --ui-scale: the interface's scale (times the monitor's content scale)
    std::string splat = "auto";  // how bodies are drawn: auto, sprites, compute
    // Testing aid: "FRAME:ACTION;..." with ACTION backend=NAME, precision=float|double, n=N, preset=NAME,
    // pause, run, step, fit. Runs each action at that frame, as if done in the panel.
    std::string test_script;
    std::string replay;  // a snapshot series' directory to play back (no simulation); `nbody play DIR`
    std::string record;  // record the window from the first frame into this video (stopped at the end)
    int record_fps = 30;
    bool record_panel = false;  // the panel in the video
    // An HDF5 snapshot of the bodies as the window closes (the Python module's show() reads it back).
    std::string save_on_exit;
};

// Default N for the window: interactive on CPU backends; larger when the CUDA backend runs it.
inline constexpr std::int64_t kDefaultWindowN = 4096;
inline constexpr std::int64_t kDefaultWindowNCuda = 65536;

// Adds the window's flags (scenario flags, --frames, --screenshot, --no-vsync, ...) to the root command.
void add_window_flags(CLI::App& root, WindowOptions& o);

// Opens the window and runs until closed (or --frames). Throws nbody::Error with one line when there is
// no display or no OpenGL 4.5 context ("no display: use `nbody render` or `nbody run`").
int run_window_app(const WindowOptions& o);

}  // namespace nbody
