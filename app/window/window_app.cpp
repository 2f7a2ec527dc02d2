#include "window_app.hpp"

// epoxy before GLFW, so GLFW does not pull in the system GL header.
#include <epoxy/gl.h>
// (keep this blank line: clang-format must not sort GLFW above epoxy)
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "app/cli/replay.hpp"
#include "app/cli/snapshot_options.hpp"
#include "backends/registry.hpp"
#include "file_actions.hpp"
#include "panel.hpp"
#include "recorder.hpp"
#include "render/body_feed.hpp"
#include "render/camera.hpp"
#include "render/gl_util.hpp"
#include "render/image.hpp"
#include "render/overlay_scale.hpp"
#include "render/particle_renderer.hpp"
#include "render/pick_renderer.hpp"
#include "render/scene_renderer.hpp"
#include "scale_bar.hpp"
#include "script_runner.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/params.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/platform/memory.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim_session.hpp"
#include "test_script.hpp"
#include "timeline_bar.hpp"
#include "ui_scale.hpp"
#include "window_files.hpp"
#include "window_jobs.hpp"

namespace nbody {

void add_window_flags(CLI::App& root, WindowOptions& o) {
    add_scenario_flags(root, o.scenario);
    add_integer_option(root, "--frames", o.frames, 0, std::numeric_limits<int>::max(),
                       "quit after this many frames (0 = run until closed)");
    add_path_option(root, "--screenshot", o.screenshot, "save the last frame, panel included, as this PNG");
    add_path_option(root, "--record", o.record,
                    "record the window into this H.264 video (needs ffmpeg) from the first frame until it "
                    "closes (or Ctrl+R): steps per frame fixed, the panel left out unless --record-panel");
    add_integer_option(root, "--record-fps", o.record_fps, 1, 240, "frame rate of the recorded video");
    root.add_flag("--record-panel", o.record_panel, "include the panel in the recorded video");
    root.add_flag("!--no-vsync", o.vsync, "render as fast as possible (vsync is on by default)");
    add_integer_option(root, "--width", o.width, 1, 16384, "window width in screen coordinates");
    add_integer_option(root, "--height", o.height, 1, 16384, "window height in screen coordinates");
    root.add_flag("--fullscreen", o.fullscreen, "start fullscreen on the primary monitor");
    root.add_flag("--hide-panel", o.hide_panel, "start with the panel hidden (H shows it)");
    root.add_option(
            "--ui-scale", o.ui_scale,
            "interface scale for a projector, 0.75..4 (Ctrl+= / Ctrl+- change it; the font is drawn at "
            "that size)")
        ->check(CLI::Range(double(kMinUiScale), double(kMaxUiScale)))
        ->type_name("S");
    add_name_option(
        root, "--splat", o.splat,
        "how bodies are drawn: sprites, compute (compute-shader splat) or auto (compute from N=262144 "
        "up, for sprites up to 4 px)");
    add_name_option(root, "--test-script", o.test_script,
                    "testing aid: 'FRAME:ACTION[=VALUE];...' with ACTION one of " + script_help() +
                        " (e.g. '10:backend=serial;20:n=256')")
        ->type_name("SCRIPT")
        ->group("Testing aids");
    add_path_option(
        root, "--replay", o.replay,
        "play back a snapshot series (a directory of .h5/.tipsy/.csv files) instead of simulating")
        ->type_name("DIR");
    add_path_option(root, "--save-on-exit", o.save_on_exit,
                    "write the bodies as the window closes to this snapshot (.h5), parameters included")
        ->type_name("FILE.h5");
}

namespace {

std::string glfw_error_text;
void on_glfw_error(int code, const char* text) {
    glfw_error_text = text ? text : ("GLFW error " + std::to_string(code));
}

// A left-button gesture in the view: a click picks, a drag orbits, a Shift+drag drops a body.
struct Gesture {
    bool active = false, add = false, moved = false;
    float x0 = 0, y0 = 0;  // window coordinates where it started
};

// Everything the window needs between frames. The loop in run() stays: poll, panel, step, draw, swap.
struct WindowApp final : ScriptWindow {
    GLFWwindow* window = nullptr;
    PanelModel model;
    PanelInfo info;
    std::string session_failure;  // the last failure the session reported: new bodies make it stale
    Camera camera;
    SceneRenderer scene;
    BodyFeed feed;
    std::unique_ptr<SimSession> session;
    ScriptRunner script;
    PendingRequests pending;
    bool force_upload = true;
    double last_frame = 0, loaded_at = 0;
    int windowed_x = 100, windowed_y = 100, windowed_w = 1600, windowed_h = 900;
    bool want_screenshot = false;
    Gesture gesture;
    std::optional<glm::vec2> pick_at;  // framebuffer pixel to pick at in the next draw
    int frame = 0;
    OpenDialog open_dialog;
    FileActions files;
    PotentialJob potential_job;
    BodyPotentialJob body_phi_job;  // colouring by potential or local density
    bool phi_densities = false;     // what the last colours asked for were (a switch announces again)
    bool phi_announced = false;     // its first result printed since the mode was chosen
    PickJob pick_job;
    bool accel_drawn = false;  // acceleration arrows were on last frame
    Recorder recorder;
    glm::ivec2 record_source{0, 0};  // the framebuffer size the recording read last
    // Scrubbing: the session's kept states (a copy taken while paused), the one shown, the budget.
    StateTimeline timeline;
    int scrub_index = -1;  // -1: the live bodies
    int timeline_budget_mib = 256;
    int timeline_budget_set = -1;
    UiLook ui_applied{0.0f, false};  // the UI scale the font atlas was built for (0: none yet)
    // Key taps shorter than a frame: ImGui 1.86 samples key states once per frame, so a press and its
    // release between two frames (a quick tap at 5 fps) would be lost. The release is held back to the
    // next frame instead (see on_key).
    GLFWkeyfun imgui_key_callback = nullptr;
    std::vector<int> pressed_this_frame;
    std::vector<std::array<int, 4>> held_releases;  // key, scancode, action, mods

    void open(const WindowOptions& o);
    void start(const Scenario& sc, std::int64_t n);
    void feed_script_input();
    void handle_mouse();
    void save_snapshot(const std::string& path) override;
    void open_file(const std::string& path, bool refit);
    void on_drop(int count, const char** paths);
    void replay_show(std::size_t frame, bool refit);
    void write_captured(const PendingRequest& r, const SessionResult& res);
    void apply(const PanelActions& a) override;
    void regenerate(bool with_preset_params);
    void switch_backend();
    void take_results();
    void tag_with_script_step(PendingRequest& r) const;
    void fit_camera();
    void upload_bodies();
    void draw();
    void update_picked();
    void update_potential(int fw, int fh);
    void update_body_potentials();
    void update_info(double frame_ms);
    void update_clock(const SessionStats& st);
    OverlaySettings overlay_settings() const;
    ScaleBar view_scale_bar(int fh) const;
    bool save_screenshot(const std::string& path);
    void start_recording();
    void camera_path_actions(const PanelActions& a);
    void follow_camera_path();
    void scrub();
    void stop_recording();
    void capture_video_frame(bool panel_drawn);
    void set_fullscreen(bool on);
    void window_to_fb(float& x, float& y) const;
    void apply_default_look(std::size_t n) {
        DefaultLook l = default_look(n);
        model.particles.size_px = l.size_px;
        model.particles.min_px = l.min_px;
        model.particles.min_light = l.min_light;
        model.tone.white = l.white;
        model.tone.auto_white = true;
        model.tone.white_floor = l.white_floor;
        model.tone.adapt = 0.15f;  // eases over a few frames: a spreading cloud never flickers
        model.tone.bloom = l.bloom;
        if (model.look == Look::classic) apply_classic_look(model.particles, model.tone);
    }
    // The panel's look: classic sets the CUDA sample's; back to nbody restores the defaults for N.
    void apply_look() {
        if (model.look == Look::nbody) {
            model.particles.color = ColorMode::speed;
            model.tone = ToneSettings{};
        }
        apply_default_look(session ? session->size() : std::size_t(model.n));
    }
    void close();
    void on_key(int key, int scancode, int action, int mods);
    void release_held_keys();

    // What a test script may do (ScriptWindow).
    PanelModel& panel_model() override { return model; }
    SimSession& simulation() override { return *session; }
    void settle() override;
    glm::vec2 window_position(const glm::vec3& world) const override;
    void drop_file(const std::string& path) override;
    bool seek_replay(std::size_t k) override;
    bool resize_window(int w, int h) override;
    bool closing() const override { return glfwWindowShouldClose(window); }
    const PanelInfo& panel_info_now() override;
    ReplayTimeline* replay_timeline() override { return files.replay(); }
    std::size_t replay_shown() const override { return files.shown_frame(); }
    void advance_replay(double dt);
};

void WindowApp::on_key(int key, int scancode, int action, int mods) {
    if (action == GLFW_PRESS) pressed_this_frame.push_back(key);
    if (action == GLFW_RELEASE &&
        std::find(pressed_this_frame.begin(), pressed_this_frame.end(), key) != pressed_this_frame.end()) {
        held_releases.push_back({key, scancode, action, mods});
        return;
    }
    if (imgui_key_callback) imgui_key_callback(window, key, scancode, action, mods);
}

// Call before polling the next frame's events: the taps of the last frame have been seen down once.
void WindowApp::release_held_keys() {
    pressed_this_frame.clear();
    std::vector<std::array<int, 4>> held;
    held.swap(held_releases);
    for (const auto& k : held) {
        if (imgui_key_callback) imgui_key_callback(window, k[0], k[1], k[2], k[3]);
    }
}

void WindowApp::open(const WindowOptions& o) {
    const char* x11 = std::getenv("DISPLAY");
    const char* wl = std::getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wl || !*wl)) {
        throw Error(
            "no display (DISPLAY and WAYLAND_DISPLAY are unset): use `nbody render --out FILE.png` to "
            "render offscreen, or `nbody run` to simulate headless");
    }
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        throw Error(
            "cannot open a window (" + glfw_error_text +
            "): use `nbody render --out FILE.png` to render offscreen, or `nbody run` to simulate headless");
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);  // HiDPI: window size in logical units
    window = glfwCreateWindow(o.width, o.height, "nbody", nullptr, nullptr);
    if (!window) {
        glfwTerminate();
        throw Error("cannot create an OpenGL 4.5 core window (" + glfw_error_text + "): try `nbody render`");
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(o.vsync ? 1 : 0);
    glfwSetWindowUserPointer(window, this);
    glfwSetDropCallback(window, [](GLFWwindow* w, int count, const char** paths) {
        static_cast<WindowApp*>(glfwGetWindowUserPointer(w))->on_drop(count, paths);
    });

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // never write imgui.ini into the user's directory
    float xs = 1, ys = 1;
    glfwGetWindowContentScale(window, &xs, &ys);
    ImGui::StyleColorsDark();
    // HiDPI and --ui-scale: the font is rasterised at the scale (ui_scale.cpp) before the first frame.
    model.ui.scale = std::clamp(o.ui_scale * std::max(xs, 1.0f), kMinUiScale, kMaxUiScale);
    // Keys, mouse and wheel all reach the app through ImGui's IO (app/window/keys, handle_mouse), so tests
    // can drive them the same way.
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    imgui_key_callback =
        glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
            static_cast<WindowApp*>(glfwGetWindowUserPointer(w))->on_key(key, scancode, action, mods);
        });
    ImGui_ImplOpenGL3_Init("#version 450 core");
    apply_ui_scale(model.ui, ui_applied, info.ui_font);

    scene.init();
    info.gl_device = gl_description();
    model.vsync = o.vsync;
    model.show_panel = !o.hide_panel;
    if (o.fullscreen) set_fullscreen(true);
}

void WindowApp::start(const Scenario& sc, std::int64_t n) {
    model.params = sc.params;
    model.backend = sc.backend;
    model.precision = sc.precision;
    model.n = model.n_edit = n;
    apply_default_look(std::size_t(n));
    session = std::make_unique<SimSession>(sc.state, sc.params, sc.backend, sc.precision);
    scene.particles.stats = compute_body_stats(sc.state);
    scene.particles.stats.groups.starts = preset_group_starts(sc.preset, sc.state.size());
    State<float> fs = convert_state<float>(sc.state);
    camera.fit(fs.pos_mass.data(), fs.size());
    loaded_at = now_s();
    for (const auto& b : builtin_backends()) {
        if (!b.available() || !b.device_description) continue;
        const std::string d = b.device_description();
        if (!d.empty()) info.cuda_device += (info.cuda_device.empty() ? "" : "\n") + b.name + ": " + d;
    }
}

void WindowApp::window_to_fb(float& x, float& y) const {
    int w, h, fw, fh;
    glfwGetWindowSize(window, &w, &h);
    glfwGetFramebufferSize(window, &fw, &fh);
    x *= float(fw) / float(std::max(w, 1));
    y *= float(fh) / float(std::max(h, 1));
}

// Between ImGui_ImplGlfw_NewFrame (which reads the real devices) and ImGui::NewFrame.
void WindowApp::feed_script_input() {
    const ScriptInput* scripted = script.input(frame);
    if (!scripted) return;
    ImGuiIO& io = ImGui::GetIO();
    const ScriptInput& in = *scripted;
    io.MousePos = ImVec2(in.x, in.y);
    io.MouseDown[0] = in.down;
    io.KeyShift = in.shift;
    // A key is down for one frame; release what the previous frame held.
    for (int k : {32, 45, 47, 61, 65, 66, 70, 71, 72, 76, 80, 82, 83, 84, 86, 256, 268, 290})
        io.KeysDown[k] = false;
    if (in.key >= 0) io.KeysDown[in.key] = true;
}

void WindowApp::handle_mouse() {
    ImGuiIO& io = ImGui::GetIO();
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    if (!io.WantCaptureMouse && io.MouseWheel != 0.0f) camera.zoom(io.MouseWheel);
    if (io.MouseClicked[0] && !io.WantCaptureMouse) {
        gesture = Gesture{true, io.KeyShift, false, io.MousePos.x, io.MousePos.y};
    }
    if (gesture.active && io.MouseDown[0]) {
        float dx = io.MousePos.x - gesture.x0, dy = io.MousePos.y - gesture.y0;
        if (dx * dx + dy * dy > 9.0f) gesture.moved = true;
        if (gesture.add) {
            // The velocity to be given, as a line from the drop point.
            ImGui::GetForegroundDrawList()->AddLine(ImVec2(gesture.x0, gesture.y0), io.MousePos,
                                                    IM_COL32(120, 200, 255, 255), 2.0f);
            ImGui::GetForegroundDrawList()->AddCircle(ImVec2(gesture.x0, gesture.y0), 6.0f,
                                                      IM_COL32(120, 200, 255, 255));
        } else if (gesture.moved) {
            camera.orbit(io.MouseDelta.x, io.MouseDelta.y);
        }
    }
    if (gesture.active && !io.MouseDown[0]) {
        gesture.active = false;
        float x0 = gesture.x0, y0 = gesture.y0, x1 = io.MousePos.x, y1 = io.MousePos.y;
        window_to_fb(x0, y0);
        window_to_fb(x1, y1);
        if (gesture.add) {
            glm::vec3 p0 = camera.unproject_on_focus_plane(x0, y0, fw, fh);
            glm::vec3 p1 = camera.unproject_on_focus_plane(x1, y1, fw, fh);
            // Dragging a quarter of the view's height gives the scenario's fast (95th percentile) speed.
            float quarter = 0.25f * camera.units_per_pixel(fh) * float(fh);
            glm::vec3 v = (p1 - p0) * (info.stats.speed_scale / std::max(quarter, 1e-30f));
            double m = model.add_mass > 0 ? model.add_mass : double(info.stats.median_mass);
            PendingRequest r;
            r.label = "adding a body...";
            if (script.current()) r.script_action = script.current()->text();
            r.id = session->add_body({p0.x, p0.y, p0.z, m}, {v.x, v.y, v.z, 0.0});
            pending.add(std::move(r));
        } else if (!gesture.moved) {
            pick_at = glm::vec2(x0, y0);
        }
    }
    if (!io.WantCaptureMouse && (io.MouseDown[1] || io.MouseDown[2]))
        camera.pan(io.MouseDelta.x, io.MouseDelta.y, fh);
}

void WindowApp::apply(const PanelActions& a) {
    if (a.pause_changed) session->set_paused(model.paused);
    if (a.look_changed) apply_look();
    camera_path_actions(a);
    if ((a.toggle_record || a.start_record) && !recorder.active()) {
        start_recording();
    } else if ((a.toggle_record || a.stop_record) && recorder.active()) {
        stop_recording();
    }
    if (a.single_step) {
        model.paused = true;
        session->set_paused(true);
        session->request_single_step();
    }
    if (a.reverse) {
        PendingRequest r;
        r.label = "reversing time...";
        tag_with_script_step(r);  // a refused reversal (an adaptive integrator) fails a scripted action
        r.id = session->reverse();
        pending.add(std::move(r));
    }
    if (a.load_preset) regenerate(true);
    if (a.regenerate) regenerate(false);
    if (a.switch_backend) switch_backend();
    if (a.fit_camera) fit_camera();
    if (a.reset_camera) camera.reset();
    if (a.screenshot) want_screenshot = true;
    if (a.vsync_changed) glfwSwapInterval(model.vsync ? 1 : 0);
    if (a.fullscreen_changed) set_fullscreen(model.fullscreen);
    if (a.quit) glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (a.save_snapshot) {
        // Into the snapshots directory, made on first use.
        std::error_code ec;
        std::filesystem::create_directories(snapshot_directory(), ec);
        if (ec) {
            info.message = "cannot make the snapshots directory " + snapshot_directory() + ": " +
                           ec.message() + " (set NBODY_SNAPSHOT_DIR)";
        } else {
            save_snapshot(default_snapshot_name());
        }
    }
    if (a.open_file) open_dialog.visible = true;
    if (a.close_dialog) open_dialog.visible = false;
}

// New bodies from the preset: with its own dt, softening, G and damping (a preset choice) or keeping the
// panel's (a new N or seed).
void WindowApp::regenerate(bool with_preset_params) {
    HostState s;
    const PresetInfo* preset = find_preset(model.preset);
    try {
        std::int64_t n = model.n_edit;
        // A preset chosen brings its own N where it has one (solar: the Sun and 8 planets), as it brings dt.
        if (preset && with_preset_params)
            n = preset->natural_n ? std::int64_t(preset->natural_n)
                                  : std::max<std::int64_t>(n, std::int64_t(preset->min_n));
        if (preset && preset->fixed_n) n = std::int64_t(preset->natural_n);  // a system of these bodies
        s = make_preset(model.preset, std::size_t(n), model.seed);
    } catch (const std::exception& e) {
        info.message = e.what();
        model.n_edit = model.n;
        if (script.current()) script.fail(e.what());
        return;
    }
    // The body stats and the framing come from the host copy now; applied once the load succeeds.
    PendingRequest r = load_request("loading " + std::to_string(s.size()) + " bodies...", s, camera, true);
    r.stats.groups.starts = preset_group_starts(model.preset, s.size());
    r.from_preset = true;
    if (with_preset_params && preset) {
        Params p = preset->params;
        p.integrator = model.params.integrator;  // the user's choice of method stays
        r.params = p;
    }
    tag_with_script_step(r);
    r.id = session->load_state(std::move(s), 0, r.params);
    pending.add(std::move(r));
}

// Ctrl+S: the exact bodies are copied between two steps (capture_state), then written here.
void WindowApp::save_snapshot(const std::string& path) {
    PendingRequest r;
    r.label = "saving " + path + "...";
    r.save_path = path;
    tag_with_script_step(r);
    r.id = session->capture_state();
    pending.add(std::move(r));
}

void WindowApp::write_captured(const PendingRequest& r, const SessionResult& res) {
    try {
        const SavedSnapshot saved = files.save(r.save_path, res, model.preset, model.seed);
        for (const std::string& note : saved.notes) info.message = note;
        info.screenshot_note = "saved snapshot " + r.save_path;
        std::cout << "nbody: saved snapshot " << r.save_path << " (" << res.state->size() << " bodies, step "
                  << saved.step << ")" << std::endl;
    } catch (const std::exception& e) {
        info.message = e.what();
        if (r.script_frame > 0) script.request_failed(r.script_frame, r.script_action, e.what());
    }
}

// Ctrl+O, a dropped file, or a replay frame: the bodies replace the current ones in the current backend.
// A snapshot's parameters (dt, G, softening, integrator) come with it.
void WindowApp::open_file(const std::string& path, bool refit) {
    OpenedFile f;
    try {
        f = files.open(path, model.params, session->precision());
    } catch (const std::exception& e) {
        info.message = e.what();
        if (script.current()) script.fail(e.what());
        return;
    }
    for (const std::string& note : f.notes) info.message = note;
    if (f.params) model.params = *f.params;
    PendingRequest r = load_request("loading " + path + "...", f.state, camera, refit);
    r.opened = path;
    r.from_preset = false;
    tag_with_script_step(r);
    r.id = session->load_state(std::move(f.state), f.step, f.params, std::move(f.block));
    pending.add(std::move(r));
}

void WindowApp::on_drop(int count, const char** paths) {
    if (count < 1 || !paths || !paths[0]) return;
    if (count > 1) info.message = "opened only the first of " + std::to_string(count) + " dropped files";
    if (files.replaying()) {
        info.message = "replay mode: files cannot be opened (start `nbody --input FILE` to simulate one)";
        return;
    }
    open_file(paths[0], true);
}

void WindowApp::replay_show(std::size_t shown, bool refit) {
    files.set_shown_frame(shown);
    open_file(files.replay_path(shown), refit);
    std::cout << "nbody: replay: snapshot " << shown << " of " << files.replay_size() << ": "
              << files.replay_path(shown) << std::endl;
}

void WindowApp::switch_backend() {
    PendingRequest r;
    r.label = "switching to " + model.backend + " (" + to_string(model.precision) + ")...";
    tag_with_script_step(r);
    r.id = session->switch_backend(model.backend, model.precision);
    pending.add(std::move(r));
}

// A request queued by a script action carries it, so its failure counts against the script.
void WindowApp::tag_with_script_step(PendingRequest& r) const {
    if (const ScriptStep* step = script.current()) {
        r.script_frame = step->frame;
        r.script_action = step->text();
    }
}

// Applies the outcome of finished requests (the simulation thread runs them between steps).
void WindowApp::take_results() {
    // Merges removed bodies: the picked one follows its index (or its survivor), the trails (rows by
    // index) start again, N follows.
    const std::vector<CollisionEvent> merges = session->take_merges();
    if (!merges.empty()) {
        if (model.selected >= 0)
            model.selected = std::int64_t(remap_after_merges(std::size_t(model.selected), merges));
        scene.overlays.reset_trails();
        model.n = model.n_edit = std::int64_t(session->size());
    }
    for (const SessionResult& res : session->take_results()) {
        std::optional<PendingRequest> taken = pending.take(res.id);
        if (!taken) continue;
        const PendingRequest& r = *taken;
        if (!res.error.empty()) {
            info.message = res.error;
            if (r.n) model.n_edit = model.n;
            if (r.script_frame > 0) script.request_failed(r.script_frame, r.script_action, res.error);
        } else if (!r.save_path.empty()) {
            write_captured(r, res);
        } else if (r.n) {
            if (!r.opened.empty() && !files.replaying()) {
                info.screenshot_note = "opened " + r.opened;
                std::cout << "nbody: opened " << r.opened << " (" << *r.n << " bodies)" << std::endl;
            }
            model.n = model.n_edit = *r.n;
            // A failure of the old bodies (a stall, a blow-up) says nothing of these; other notes stay.
            if (!session_failure.empty() && info.message == session_failure) info.message.clear();
            session_failure.clear();
            apply_default_look(std::size_t(*r.n));
            scene.particles.stats = r.stats;
            scene.particles.upload_potentials({});  // other bodies: the next evaluation colours them
            float shift = camera.shift_x;
            camera = r.camera;
            camera.shift_x = shift;
            if (r.params) {
                model.params = *r.params;
                session->set_params(model.params);
            }
            model.selected = -1;
            if (r.from_preset) model.bodies_from_preset = *r.from_preset;
            loaded_at = now_s();
            info.drift = History{};  // |dE/E| is measured from the new bodies' energy: the old curve goes
            scene.overlays.reset_trails();
        } else if (res.kind == SessionResult::Kind::add_body) {
            model.n = model.n_edit = std::int64_t(session->size());
            model.selected = model.n - 1;  // the new body, so its numbers show at once
        }
        if (res.kind == SessionResult::Kind::switch_backend) scene.overlays.reset_trails();
        force_upload = true;
    }
    // The fields show what the session really runs once nothing is in flight (a failed request reverts).
    if (pending.empty()) {
        model.backend = session->backend_name();
        model.precision = session->precision();
    }
    info.busy = pending.busy_label();
}

void WindowApp::fit_camera() {
    // The newest bodies, or the last checkpoint while a GPU step runs: never an empty fit.
    std::vector<Vec4<float>> pos = session->positions_for_fit();
    if (!pos.empty()) camera.fit(pos.data(), pos.size());
    force_upload = true;
}

void WindowApp::upload_bodies() {
    FeedStats fs;
    // Acceleration arrows: host backends put the accelerations in the snapshot, a GPU backend writes them
    // into the GL buffer with the positions.
    // Colouring by |a| needs them too.
    if (scrub_index >= 0) return;  // a kept state is on screen until the run resumes or goes on
    const bool want_accelerations = model.accel_vectors || model.particles.color == ColorMode::accel;
    if (want_accelerations != accel_drawn) {
        accel_drawn = want_accelerations;
        session->set_draw_accelerations(accel_drawn);
        force_upload = true;
    }
    const Params acc_params = model.params;
    bool updated = session->with_newest_bodies(
        force_upload, [&](Backend* b, const Vec4<float>* pos, const Vec4<float>* vel, const Vec4<float>* acc,
                          std::size_t n) {
            fs = b ? feed.feed(*b, scene.particles, accel_drawn ? &acc_params : nullptr)
                   : feed.feed_host(pos, vel, n, scene.particles, 0, acc);
        });
    if (updated) {
        force_upload = false;
        scene.overlays.record(scene.particles, overlay_settings());
    }
    const std::string& name = model.backend;
    if (fs.interop) {
        info.transfer = "interop: 0 B copied device->host per frame (kernel writes the vertex buffer)";
    } else if (updated) {
        info.transfer =
            "host copy: " + format_bytes(double(fs.host_to_device_bytes)) + " uploaded" +
            (fs.device_to_host_bytes ? ", " + format_bytes(double(fs.device_to_host_bytes)) + " device->host"
                                     : std::string()) +
            " per update (" + name + ")";
    }
    info.interop_note = feed.interop_note;
}

// The potential view's grid: the slice the camera looks at, RES x (RES h/w) target points evaluated by
// the session's force solver where the bodies live (a GPU gets the targets and returns the potentials),
// waited for off this thread; the last finished grid is drawn meanwhile. Refreshed a few times a second,
// less often when one evaluation is slow (it holds up the steps).
void WindowApp::update_potential(int fw, int fh) {
    if (std::optional<PotentialGrid> grid = potential_job.take_finished()) {
        if (grid->error.empty()) {
            scene.potential.upload(grid->phi, grid->cols, grid->rows);
            info.potential_min = scene.potential.range.lo;
            info.potential_max = scene.potential.range.hi;
            info.potential_log = scene.potential.range.log_depth;
            char buf[192];
            std::snprintf(buf, sizeof buf, "%dx%d targets x %zu bodies: %.0f ms (%s force solver on %s)",
                          grid->cols, grid->rows, info.n, grid->ms, to_string(model.params.force),
                          model.backend.c_str());
            info.potential_note = buf;
        } else {
            info.potential_note = grid->error;
        }
    }
    if (!model.potential || !potential_job.due()) return;
    int cols = std::clamp(model.potential_res, 8, 1024);
    int rows = potential_grid_rows(cols, fw, fh);
    potential_job.start(*session, potential_grid_points(camera, cols, rows, fw, fh), cols, rows);
}

// Colouring by potential or by local density: every body's phi from the session's force solver where
// the bodies live (the direct sum or the tree, as the forces; on a GPU the field kernel), or its local
// density (sim/local_density.hpp, from a host copy), waited for off this thread and refreshed as
// BodyPotentialJob allows (the panel says how often). The colours span the 1st to 99th percentile of
// log(-phi) or log(rho), so one deep central mass or one dense knot does not wash out the rest.
void WindowApp::update_body_potentials() {
    const bool densities = model.particles.color == ColorMode::local_density;
    const bool wanted = densities || model.particles.color == ColorMode::potential;
    if (std::optional<BodyPotentials> p = body_phi_job.take_finished()) {
        if (!p->error.empty()) {
            info.phi_note = p->error;
        } else if (p->densities == densities && p->phi.size() == scene.particles.count && !p->phi.empty()) {
            scene.particles.upload_potentials(p->phi);
            std::vector<float> logs;
            logs.reserve(p->phi.size());
            for (const float v : p->phi) {
                const float x = densities ? v : -v;
                if (x > 0) logs.push_back(std::log(x));
            }
            if (!logs.empty()) {
                std::sort(logs.begin(), logs.end());
                const float lo = logs[logs.size() / 100], hi = logs[logs.size() - 1 - logs.size() / 100];
                float& low =
                    densities ? scene.particles.stats.log_rho_low : scene.particles.stats.log_phi_shallow;
                float& high =
                    densities ? scene.particles.stats.log_rho_high : scene.particles.stats.log_phi_deep;
                low = lo;
                high = std::max(hi, lo + 1e-3f);
            }
            char buf[192];
            if (densities) {
                std::snprintf(buf, sizeof buf,
                              "local densities of %zu bodies every %.1f s (last took %.0f ms, host grid)",
                              p->phi.size(), body_phi_job.interval_s(), p->ms);
            } else {
                std::snprintf(buf, sizeof buf,
                              "potentials of %zu bodies every %.1f s (last took %.0f ms, %s on %s)",
                              p->phi.size(), body_phi_job.interval_s(), p->ms, to_string(model.params.force),
                              model.backend.c_str());
            }
            info.phi_note = buf;
            if (!phi_announced) {
                std::cout << "nbody: colour by " << (densities ? "local density" : "potential") << ": " << buf
                          << std::endl;
            }
            phi_announced = true;
        }
    }
    if (!wanted || densities != phi_densities) phi_announced = false;
    phi_densities = densities;
    if (!wanted || !body_phi_job.due()) return;
    body_phi_job.start(*session, densities);
}

OverlaySettings WindowApp::overlay_settings() const {
    OverlaySettings os;
    os.potential = model.potential;
    os.trails = model.trails;
    os.trail_length = model.trail_length;
    os.vectors = model.vectors;
    os.accelerations = model.accel_vectors;
    os.set_scale(overlay_scale(camera, scene.particles.count, info.stats, model.vector_scale));
    if (model.grid) {
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(window, &fw, &fh);
        os.grid_spacing = float(view_scale_bar(fh).length);
    }
    return os;
}

// The scale bar for a framebuffer fh pixels tall: at most 15% of the window's width, in the scenario's units.
ScaleBar WindowApp::view_scale_bar(int fh) const {
    int w = 0, h = 0;
    glfwGetWindowSize(window, &w, &h);
    const float px_per_fb = float(h) / float(std::max(fh, 1));
    return nice_scale_bar(double(camera.units_per_pixel(fh)) / double(px_per_fb), 0.15f * float(w),
                          info.length_unit);
}

// The selected body's numbers: one body read back from the vertex buffers (32 bytes, every backend).
void WindowApp::update_picked() {
    PickedBody& p = info.picked;
    if (model.selected < 0 || std::size_t(model.selected) >= scene.particles.count) {
        p = PickedBody{};
        model.selected = -1;
        return;
    }
    PickedGpuBody b = read_body(scene.particles, std::size_t(model.selected));
    bool same = p.valid && p.index == model.selected;
    p.valid = true;
    p.index = model.selected;
    p.mass = b.pos_mass.w;
    p.pos[0] = b.pos_mass.x, p.pos[1] = b.pos_mass.y, p.pos[2] = b.pos_mass.z;
    p.vel[0] = b.vel.x, p.vel[1] = b.vel.y, p.vel[2] = b.vel.z;
    p.radius = b.vel.w;  // the velocity buffer's fourth lane (no shader reads it)
    p.kinetic = 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1] + p.vel[2] * p.vel[2]);
    // Its potential energy sums over all N bodies: by the force solver where the bodies live, a few times
    // a second, waited for off this thread.
    if (!same) p.have_potential = false;
    std::optional<PickEnergy> e = pick_job.take_finished();
    if (e && e->index == p.index) {
        p.have_potential = e->energy.has_value();
        if (e->energy) p.potential = *e->energy;
    }
    if (pick_job.due(same, frame)) pick_job.start(*session, p.index, frame);
    if (model.follow_selected) camera.target = glm::vec3(b.pos_mass.x, b.pos_mass.y, b.pos_mass.z);
}

void WindowApp::draw() {
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    if (fw <= 0 || fh <= 0) return;  // minimised
    info.draw_path = scene.uses_compute_splat(model.particles) ? "compute splat" : "point sprites";
    // Radii are drawn while collisions use them (the picker too, so a click on a disc finds its body).
    model.particles.draw_radii = model.params.collisions != CollisionMode::off;
    if (pick_at) {
        model.selected = scene.picker.pick(scene.particles, camera, model.particles, int(pick_at->x),
                                           int(pick_at->y), fw, fh);
        if (model.selected < 0) model.follow_selected = false;
        pick_at.reset();
    }
    update_picked();
    update_potential(fw, fh);
    update_body_potentials();
    scene.draw(camera, model.particles, model.tone, 0, fw, fh, overlay_settings());
    capture_video_frame(false);
    if (model.show_panel || model.grid) {
        // A scale bar in the lower right corner, in the scenario's units (above a replay's timeline); H
        // hides it with the panel, for a clean picture, unless the grid is on: then it names the spacing.
        int w, h;
        glfwGetWindowSize(window, &w, &h);
        ScaleBar bar = view_scale_bar(fh);
        if (model.grid) bar.label = "grid " + bar.label;
        draw_scale_bar(bar, float(w) - 20.0f, float(h) - (files.replaying() ? 90.0f : 20.0f));
    }
    if (info.picked.valid) {
        // A ring around the selected body (ImGui draws in window coordinates).
        glm::vec3 s =
            camera.project(glm::vec3(info.picked.pos[0], info.picked.pos[1], info.picked.pos[2]), fw, fh);
        int w, h;
        glfwGetWindowSize(window, &w, &h);
        float sx = float(w) / float(fw), sy = float(h) / float(fh);
        if (s.z >= 0 && s.z <= 1) {
            ImGui::GetBackgroundDrawList()->AddCircle(ImVec2(s.x * sx, s.y * sy), 10.0f,
                                                      IM_COL32(90, 220, 255, 230), 24, 1.5f);
        }
    }
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    capture_video_frame(true);
}

// What the panel's clock line shows: N, t, the step index, the direction of time.
void WindowApp::update_clock(const SessionStats& st) {
    info.n = session->size();
    info.steps_total = st.steps_total;
    info.sim_time = st.sim_time;
    info.reversed = st.reversed;
    info.dt = model.params.dt;
    const PresetInfo* preset = model.bodies_from_preset ? find_preset(model.preset) : nullptr;
    info.length_unit = preset ? preset->length_unit : std::string();
    info.time_unit = preset ? preset->time_unit : std::string();
    info.mass_unit = preset ? preset->mass_unit : std::string();
    info.adaptive = integrator_info(model.params.integrator).adaptive;
    info.max_step_share = st.max_step_share;
    info.max_step_blocks = st.max_step_blocks;
}

void WindowApp::update_info(double frame_ms) {
    SessionStats st = session->stats();
    info.n = session->size();
    info.fps.push(frame_ms > 0 ? float(1000.0 / frame_ms) : 0.0f);
    info.ms_frame.push(float(frame_ms));
    info.ms_step.push(float(st.ms_per_step));
    double inter = st.steps_per_s * st.interactions_per_step;
    info.interactions.push(float(inter));
    // An adaptive integrator's pairs carry the jerk too (42 flops by the same convention, not 20).
    const bool adaptive = integrator_info(model.params.integrator).adaptive;
    info.gflops.push(float(inter * (adaptive ? kFlopsPerJerkInteraction : kFlopsPerInteraction) * 1e-9));
    info.steps_per_s = st.steps_per_s;
    update_clock(st);
    info.blocks_total = st.blocks_total;
    info.body_updates_total = st.body_updates_total;
    info.neighbour_updates_total = st.neighbour_updates_total;
    info.level_counts = st.level_counts;
    info.merges_total = st.merges_total;
    info.bounces_total = st.bounces_total;
    info.energy_lost = st.energy_lost;
    info.run_wall_s = now_s() - loaded_at;
    info.stats = scene.particles.stats;
    if (st.have_diag) {
        info.have_energy = true;
        info.kinetic = st.diag.kinetic;
        info.potential = st.diag.potential;
        info.total = st.diag.total();
        info.drift_now = st.energy_drift;
        info.energy_note = st.potential_note;
    }
    info.drift.push(float(st.energy_drift));
    const double n = double(session->size());
    info.interactions_per_body = n > 0 ? st.interactions_per_step / n : 0;
    info.have_force_error = st.have_force_error && force_algorithm_info(model.params.force).approximate;
    if (info.have_force_error) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "force error: median %.1e, p99 %.1e", st.force_error.median,
                      st.force_error.p99);
        info.force_error = buf;
        std::snprintf(buf, sizeof buf, "(%s, %zu bodies, step %lld)", st.force_error_settings.c_str(),
                      st.force_error.count, static_cast<long long>(st.force_error_step));
        info.force_error_where = buf;
    }
    if (st.checkpoint_bytes > 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "checkpoint (NaN recovery): %s %s every %.1f s (%.1f ms each)",
                      format_bytes(double(st.checkpoint_bytes)).c_str(),
                      st.checkpoint_from_device ? "device->host" : "host copy", st.checkpoint_interval_s,
                      st.checkpoint_ms);
        info.checkpoint = buf;
    }
    std::string msg = session->take_message();
    if (!msg.empty()) {
        info.message = session_failure = msg;
        // Scripted runs (the Xvfb tests) see what the panel shows in red.
        if (!script.empty()) std::cout << "nbody: frame " << frame << ": message: " << msg << std::endl;
    }
    model.paused = session->paused();
    info.recording = recorder.active();
    info.record_frames = recorder.frames_captured();
    info.record_fps = recorder.settings.fps;
    info.record_path = recorder.path();
}

bool WindowApp::save_screenshot(const std::string& path) {
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    try {
        write_png(path, read_framebuffer(0, fw, fh));
        info.screenshot_note = "saved " + path;
        return true;
    } catch (const Error& e) {
        info.message = e.what();
        return false;
    }
}

void WindowApp::set_fullscreen(bool on) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    if (on && monitor) {
        glfwGetWindowPos(window, &windowed_x, &windowed_y);
        glfwGetWindowSize(window, &windowed_w, &windowed_h);
        const GLFWvidmode* mode = glfwGetVideoMode(monitor);
        glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window, nullptr, windowed_x, windowed_y, windowed_w, windowed_h, 0);
    }
    glfwSwapInterval(model.vsync ? 1 : 0);
}

void WindowApp::camera_path_actions(const PanelActions& a) {
    CameraPath& path = model.camera_path;
    if (a.add_camera_key) {
        const std::size_t i = path.add(camera, model.new_key_time);
        char note[160];
        std::snprintf(note, sizeof note, "camera key %zu of %zu at %.2f s", i + 1, path.keys.size(),
                      model.new_key_time);
        info.screenshot_note = note;
        std::cout << "nbody: " << note << std::endl;
        model.new_key_time = path.duration() + 2.0;
    }
    if (a.goto_camera_key >= 0 && std::size_t(a.goto_camera_key) < path.keys.size()) {
        const float shift = camera.shift_x;
        camera = path.sample(path.keys[std::size_t(a.goto_camera_key)].time, camera);
        camera.shift_x = shift;
    }
    try {
        if (a.save_camera_path) {
            save_camera_path(path, model.camera_path_file);
            info.screenshot_note = "saved camera path (" + std::to_string(path.keys.size()) + " keys) to " +
                                   std::filesystem::absolute(model.camera_path_file).string();
            std::cout << "nbody: " << info.screenshot_note << std::endl;
        }
        if (a.load_camera_path) {
            path = load_camera_path(model.camera_path_file);
            model.new_key_time = path.duration() + 2.0;
            info.screenshot_note = "loaded camera path (" + std::to_string(path.keys.size()) +
                                   " keys) from " + model.camera_path_file;
            std::cout << "nbody: " << info.screenshot_note << std::endl;
        }
    } catch (const std::exception& e) {
        info.message = e.what();
        if (script.current()) script.fail(e.what());
    }
}

// While the path plays, the camera is the path's view at path_time: one video frame's worth per frame
// while recording (so the flight is exact in the video), wall time otherwise.
void WindowApp::follow_camera_path() {
    if (!model.path_playing) return;
    const float shift = camera.shift_x;
    camera = model.camera_path.sample(model.path_time, camera);
    camera.shift_x = shift;
    if (model.path_time >= model.camera_path.duration()) model.path_playing = false;
    model.path_time += recorder.active() ? 1.0 / recorder.settings.fps : std::min(0.1, now_s() - last_frame);
}

// While paused: the scrub bar over the kept states. Moving it shows a kept state (the session is not
// touched); "Resume from here" loads it into the session with its step count.
void WindowApp::scrub() {
    if (timeline_budget_mib != timeline_budget_set) {
        // A state every frame's worth of steps: scrubbing moves frame by frame through what was seen.
        session->set_timeline(std::max(1, model.steps_per_frame), std::size_t(timeline_budget_mib) << 20);
        timeline_budget_set = timeline_budget_mib;
    }
    if (!model.paused || files.replay()) {
        if (scrub_index >= 0) {
            force_upload = true;            // the live bodies back on screen
            scene.overlays.reset_trails();  // a jump in time: no streak from the kept state to them
        }
        scrub_index = -1;
        timeline.clear();  // the session's own copy stays; this one would hold dropped states' memory
        return;
    }
    timeline = session->timeline();
    if (timeline.size() < 2) return;
    int index = scrub_index < 0 ? int(timeline.size()) - 1 : scrub_index;
    const TimelineBarResult r = draw_timeline_bar(timeline, index, timeline_budget_mib);
    if (r.moved) {
        scrub_index = index;
        scene.overlays.reset_trails();  // trails belong to the live run, not to a kept state
        // A state kept on the device is read back for showing only (one state, while paused).
        const State<float> s = convert_state<float>(timeline.at(std::size_t(index)).state->to_host());
        feed.feed_host(s.pos_mass.data(), s.vel.data(), s.size(), scene.particles, 0);
    }
    if (r.resume) {
        PendingRequest req =
            load_request("resuming from step " + std::to_string(timeline.at(std::size_t(index)).step),
                         timeline.at(std::size_t(index)).state->to_host(), camera, false);
        req.stats = scene.particles.stats;  // the same bodies: keep the colour scale and sets
        tag_with_script_step(req);
        req.id = session->resume_from_timeline(std::size_t(index));
        pending.add(std::move(req));
        scrub_index = -1;
        force_upload = true;
    }
}

void WindowApp::start_recording() {
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    recorder.settings.fps = model.record_fps;
    recorder.settings.include_panel = model.record_panel;
    try {
        recorder.start(model.record_path, fw, fh);
        record_source = {fw, fh};
        info.record_note.clear();
        std::cout << "nbody: recording " << fw << "x" << fh << " at " << model.record_fps << " fps, "
                  << model.steps_per_frame << " steps per frame, to " << model.record_path << std::endl;
    } catch (const std::exception& e) {
        info.message = std::string("cannot record: ") + e.what();
        if (script.current()) script.fail(info.message);
    }
}

void WindowApp::stop_recording() {
    const std::string outcome = recorder.stop();
    info.record_note = outcome;
    std::cout << "nbody: " << outcome << std::endl;
    if (outcome.rfind("recording failed", 0) == 0) {
        info.message = outcome;
        if (!script.empty()) script.fail(outcome);
    }
}

// Called twice a frame: after the scene (panel_drawn false) and after the panel; the video takes the
// frame at the point its settings ask for.
void WindowApp::capture_video_frame(bool panel_drawn) {
    if (!recorder.active() || panel_drawn != recorder.settings.include_panel) return;
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    if (fw != record_source.x || fh != record_source.y) {
        // The video keeps its size: a resized window's frames are scaled into it (Recorder::capture).
        if (fw != recorder.width() || fh != recorder.height()) {
            std::cout << "nbody: the window is " << fw << "x" << fh << " now; the video stays "
                      << recorder.width() << "x" << recorder.height() << ", the frames scaled into it"
                      << std::endl;
        } else if (record_source.x > 0) {
            std::cout << "nbody: the window is the video's size again" << std::endl;
        }
        record_source = {fw, fh};
    }
    if (!recorder.error().empty() || !recorder.capture(0, fw, fh)) {
        if (recorder.active()) stop_recording();
        info.record_note = recorder.last_message();
        info.message = recorder.last_message();
    }
}

void WindowApp::close() {
    if (recorder.active()) stop_recording();
    potential_job.wait();  // these read the session
    body_phi_job.wait();
    pick_job.wait();
    session.reset();  // stop the simulation thread before its backend's context goes away
    feed.shutdown();
    scene.shutdown();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

const PanelInfo& WindowApp::panel_info_now() {
    SessionStats st = session->stats();
    update_clock(st);
    if (st.have_diag) {
        info.have_energy = true;
        info.kinetic = st.diag.kinetic;
        info.potential = st.diag.potential;
        info.total = st.diag.total();
        info.drift_now = st.energy_drift;
        info.energy_note = st.potential_note;
    }
    return info;
}

// Replay mode, once a frame: the timeline moves on by the wall time since the last frame, also while a
// snapshot is still loading (slow loads skip snapshots rather than slow the replay down), and the
// snapshot it has reached is loaded once the last load is done.
void WindowApp::advance_replay(double dt) {
    ReplayTimeline& t = *files.replay();
    const std::size_t shown = files.shown_frame();
    std::optional<std::size_t> seek =
        draw_replay_bar(t, files.replay_path(shown), files.shown_time(), model.panel_width);
    if (seek) {
        t.seek(*seek);
    } else {
        t.tick(dt);
    }
    if (pending.empty() && t.current() != shown) replay_show(t.current(), false);
    model.paused = true;  // a replay never simulates
    session->set_paused(true);
}

void WindowApp::settle() {
    session->wait_for_requests();
    take_results();
}

glm::vec2 WindowApp::window_position(const glm::vec3& world) const {
    int w, h, fw, fh;
    glfwGetWindowSize(window, &w, &h);
    glfwGetFramebufferSize(window, &fw, &fh);
    glm::vec3 p = camera.project(world, fw, fh);
    return {p.x * float(w) / float(fw), p.y * float(h) / float(fh)};
}

bool WindowApp::resize_window(int w, int h) {
    glfwSetWindowSize(window, w, h);
    // The X server takes the size at once without a window manager; one that negotiates gets a second.
    for (int tries = 0; tries < 100; ++tries) {
        int ww, wh;
        glfwGetWindowSize(window, &ww, &wh);
        if (ww == w && wh == h) return true;
        glfwWaitEventsTimeout(0.01);
    }
    return false;
}

void WindowApp::drop_file(const std::string& path) {
    const char* paths[] = {path.c_str()};
    on_drop(1, paths);  // what GLFW's drop callback calls
}

bool WindowApp::seek_replay(std::size_t k) {
    if (!files.replaying()) return false;
    if (auto f = files.replay()->seek(k)) replay_show(*f, false);
    return true;
}

}  // namespace

int run_window_app(const WindowOptions& o) {
    check_thread_count(0);  // OMP_NUM_THREADS within bounds
    // A device-resident backend draws through interop and can afford more bodies by default.
    const BackendInfo* chosen =
        o.scenario.backend.empty() ? &default_interactive_backend() : find_backend(o.scenario.backend);
    const bool on_device = chosen && chosen->available() && chosen->residency == Residency::device;
    std::int64_t default_n = on_device ? kDefaultWindowNCuda : kDefaultWindowN;
    std::vector<std::string> replay_files;
    Scenario sc;
    if (!o.replay.empty()) {
        replay_files = list_snapshot_series(o.replay);
        sc = replay_scenario(replay_files);
    } else {
        sc = resolve_scenario(o.scenario, default_n);
    }

    auto splat = parse_splat_mode(o.splat);
    if (!splat) throw Error("unknown --splat '" + o.splat + "' (valid: auto, sprites, compute)");
    // Fail now, not after the run, if the screenshot cannot be written there.
    if (!o.screenshot.empty()) check_output_path(o.screenshot, "--screenshot");
    if (!o.record.empty()) {
        require_ffmpeg("--record");
        check_output_path(o.record, "--record");
    }
    if (!o.save_on_exit.empty()) {
        if (require_format("--save-on-exit", o.save_on_exit) != FileFormat::hdf5)
            throw Error("--save-on-exit '" + o.save_on_exit + "': needs an HDF5 snapshot (.h5)");
        check_output_path(o.save_on_exit, "--save-on-exit");
    }
    WindowApp app;
    app.model.particles.splat = *splat;
    app.script = ScriptRunner(parse_script(o.test_script));
    app.model.preset = o.scenario.preset.empty() ? presets().front().name : o.scenario.preset;
    app.model.bodies_from_preset = o.scenario.input.empty() && o.scenario.restart.empty() && o.replay.empty();
    app.model.seed = o.scenario.seed;
    app.open(o);
    bool quit_by_user = false;
    try {
        app.start(sc, std::int64_t(sc.state.size()));
        if (!replay_files.empty()) {
            app.files.start_replay(std::move(replay_files), sc.state.t);
            app.model.replay = true;
            app.model.paused = true;
            app.session->set_paused(true);
            std::cout << "nbody: replay: " << app.files.replay_size() << " snapshots in " << o.replay
                      << std::endl;
        }
        if (!o.record.empty()) {
            app.model.record_path = o.record;
            app.model.record_fps = o.record_fps;
            app.model.record_panel = o.record_panel;
            app.start_recording();
            if (!app.recorder.active()) throw Error(app.info.message);
        }
        app.last_frame = now_s();
        double replay_clock = app.last_frame;  // the replay's wall clock, read at the same point each frame
        for (app.frame = 1; !glfwWindowShouldClose(app.window); ++app.frame) {
            app.release_held_keys();
            glfwPollEvents();
            app.take_results();
            app.script.run(app.frame, app);
            apply_ui_scale(app.model.ui, app.ui_applied, app.info.ui_font);  // between frames, if changed
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            app.feed_script_input();
            ImGui::NewFrame();
            app.model.dialog_open = app.open_dialog.visible;
            app.apply(draw_panel(app.model, app.info));
            quit_by_user = glfwWindowShouldClose(app.window);
            if (auto path = draw_open_dialog(app.open_dialog)) app.open_file(*path, true);
            const double frame_start = now_s();
            if (app.files.replaying()) app.advance_replay(frame_start - replay_clock);
            replay_clock = frame_start;
            app.scrub();
            app.handle_mouse();
            // The scene centres in the part of the window the panel leaves free.
            int ww, wh;
            glfwGetWindowSize(app.window, &ww, &wh);
            // A recording without the panel centres the scene in the video instead.
            const bool video_without_panel = app.recorder.active() && !app.recorder.settings.include_panel;
            app.camera.shift_x =
                video_without_panel ? 0.0f : 0.5f * app.model.panel_width / float(std::max(ww, 1));
            app.session->set_params(app.model.params);
            app.session->set_steps_per_frame(app.model.steps_per_frame);
            app.session->frame_tick();
            // A video frame is exactly steps_per_frame steps after the last: wait for them (the window
            // draws slower while recording a slow simulation; the video does not).
            if (app.recorder.active()) {
                app.session->wait_for_frame_steps();
                app.force_upload = true;
            }
            app.upload_bodies();
            app.follow_camera_path();
            app.draw();
            bool last = o.frames > 0 && app.frame >= o.frames;
            if (app.want_screenshot) {
                app.want_screenshot = false;
                app.save_screenshot(default_screenshot_name());
            }
            const std::string scripted = app.script.take_screenshot();
            if (!scripted.empty() && !app.save_screenshot(scripted)) app.script.fail(app.info.message);
            if (last && !o.screenshot.empty() && !app.save_screenshot(o.screenshot))
                throw Error(app.info.message);
            glfwSwapBuffers(app.window);
            double t = now_s();
            app.update_info(1e3 * (t - app.last_frame));
            app.last_frame = t;
            if (last) break;
        }
        // A snapshot asked for on the way out ("Save snapshot and quit") is written before the window goes;
        // for a script, the outcome of every request counts, even one still in flight.
        app.session->wait_for_requests();
        app.take_results();
        if (!o.save_on_exit.empty()) {
            // As Ctrl+S saves: the exact bodies captured between two steps, written by take_results.
            app.info.message.clear();
            app.save_snapshot(o.save_on_exit);
            app.session->wait_for_requests();
            app.take_results();
            if (!std::filesystem::exists(o.save_on_exit))
                throw Error("--save-on-exit '" + o.save_on_exit + "': " + app.info.message);
        }
    } catch (...) {
        app.close();
        throw;
    }
    std::string backend = app.session->backend_name();
    Precision precision = app.session->precision();
    std::size_t n = app.session->size();
    const Params params = app.model.params;
    const std::string force_error = app.info.have_force_error
                                        ? app.info.force_error + " " + app.info.force_error_where
                                        : "force error: not measured";
    int frame = app.frame;
    app.close();
    if (app.script.empty()) return 0;
    if (force_algorithm_info(params.force).approximate) {
        std::cout << "nbody: force=" << to_string(params.force) << " " << describe_settings(params) << ", "
                  << force_error << std::endl;
    }
    // One line for the smoke test to match; a failed scripted action fails the run.
    if (quit_by_user) std::cout << "nbody: quit at frame " << frame << std::endl;
    std::cout << "nbody: test-script done: backend=" << backend << " precision=" << to_string(precision)
              << " n=" << n << ", " << app.script.failures() << " of " << app.script.actions()
              << " actions failed" << std::endl;
    return app.script.failures() > 0 ? 1 : 0;
}

}  // namespace nbody
