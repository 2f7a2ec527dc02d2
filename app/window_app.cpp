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
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "panel.hpp"
#include "render/body_feed.hpp"
#include "render/camera.hpp"
#include "render/gl_util.hpp"
#include "render/image.hpp"
#include "render/particle_renderer.hpp"
#include "render/scene_renderer.hpp"
#include "replay.hpp"
#include "sim/atomic_file.hpp"
#include "sim/error.hpp"
#include "sim/integrators.hpp"
#include "sim/interaction.hpp"
#include "sim/memory.hpp"
#include "sim/presets.hpp"
#include "backends/registry.hpp"
#include "sim/snapshot.hpp"
#include "sim/util.hpp"
#include "sim_session.hpp"
#include "snapshot_options.hpp"
#include "test_script.hpp"
#include "window_files.hpp"


namespace nbody {

void add_window_flags(CLI::App& root, WindowOptions& o) {
    add_scenario_flags(root, o.scenario);
    add_integer_option(root, "--frames", o.frames, 0, std::numeric_limits<int>::max(),
                       "quit after this many frames (0 = run until closed)");
    add_path_option(root, "--screenshot", o.screenshot, "save the last frame, panel included, as this PNG");
    root.add_flag("!--no-vsync", o.vsync, "render as fast as possible (vsync is on by default)");
    add_integer_option(root, "--width", o.width, 1, 16384, "window width in screen coordinates");
    add_integer_option(root, "--height", o.height, 1, 16384, "window height in screen coordinates");
    root.add_flag("--fullscreen", o.fullscreen, "start fullscreen on the primary monitor");
    root.add_flag("--hide-panel", o.hide_panel, "start with the panel hidden (H shows it)");
    add_name_option(
        root, "--splat", o.splat,
        "how bodies are drawn: sprites, compute (compute-shader splat) or auto (compute from N=262144 "
        "up, for sprites up to 4 px)");
    add_name_option(root, "--test-script", o.test_script,
                    "testing aid: 'FRAME:ACTION[=VALUE];...' with ACTION one of " + script_help() +
                        " (e.g. '10:backend=serial;20:n=256')")
        ->type_name("SCRIPT")
        ->group("Testing aids");
    add_path_option(root, "--replay", o.replay,
                    "play back a snapshot series (a directory of .h5/.tipsy/.csv files) instead of simulating")
        ->type_name("DIR");
}

namespace {

std::string glfw_error_text;
void on_glfw_error(int code, const char* text) {
    glfw_error_text = text ? text : ("GLFW error " + std::to_string(code));
}

// A load or switch queued on the simulation thread; what to apply when it succeeds.
struct PendingRequest {
    std::uint64_t id = 0;
    std::string label;     // "regenerating 4096 bodies", "switching to cuda (float)"
    int script_frame = 0;  // > 0: queued by --test-script at this frame
    std::string script_action;
    std::optional<std::int64_t> n;  // load: the new N, its body stats and the framed camera
    BodyStats stats;
    Camera camera;
    std::string save_path;  // capture: where the snapshot goes
    std::string opened;     // load of a file: its name (shown once loaded)
};

// Everything the window needs between frames. The loop in run() stays: poll, panel, step, draw, swap.
struct WindowApp {
    GLFWwindow* window = nullptr;
    PanelModel model;
    PanelInfo info;
    Camera camera;
    SceneRenderer scene;
    BodyFeed feed;
    std::unique_ptr<SimSession> session;
    std::vector<ScriptStep> script;
    const ScriptStep* script_step = nullptr;  // the script action being applied, if any
    int script_actions = 0, script_failures = 0;
    std::vector<PendingRequest> pending;
    bool force_upload = true;
    double last_frame = 0, last_x = 0, last_y = 0;
    int windowed_x = 100, windowed_y = 100, windowed_w = 1600, windowed_h = 900;
    bool want_screenshot = false;
    OpenDialog open_dialog;
    std::int64_t step_offset = 0;            // the loaded snapshot's step: saved snapshots count on from it
    std::unique_ptr<ReplayTimeline> replay;  // set in replay mode (no simulation)
    std::vector<std::string> replay_files;
    double replay_time = 0;  // the shown snapshot's simulated time

    void open(const WindowOptions& o);
    void start(const Scenario& sc, std::int64_t n);
    void handle_mouse();
    void on_key(int key, int mods);
    void save_snapshot(const std::string& path);
    void open_file(const std::string& path, bool refit);
    void on_drop(int count, const char** paths);
    void replay_show(std::size_t frame, bool refit);
    void write_captured(const PendingRequest& r, const SessionResult& res);
    void apply(const PanelActions& a);
    void run_script(int frame);
    void regenerate();
    void switch_backend();
    void take_results();
    void script_failed(int frame, const std::string& action, const std::string& why);
    void fit_camera();
    void upload_bodies();
    void draw();
    void update_info(double frame_ms);
    bool save_screenshot(const std::string& path);
    void set_fullscreen(bool on);
    void close();
};

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
    // Installed before ImGui's, which chains to them; keys are ignored while ImGui has the keyboard.
    glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int, int action, int mods) {
        if (action == GLFW_PRESS && !ImGui::GetIO().WantCaptureKeyboard) {
            static_cast<WindowApp*>(glfwGetWindowUserPointer(w))->on_key(key, mods);
        }
    });
    glfwSetDropCallback(window, [](GLFWwindow* w, int count, const char** paths) {
        static_cast<WindowApp*>(glfwGetWindowUserPointer(w))->on_drop(count, paths);
    });
    glfwSetScrollCallback(window, [](GLFWwindow* w, double, double dy) {
        if (!ImGui::GetIO().WantCaptureMouse)
            static_cast<WindowApp*>(glfwGetWindowUserPointer(w))->camera.zoom(float(dy));
    });

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // never write imgui.ini into the user's directory
    float xs = 1, ys = 1;
    glfwGetWindowContentScale(window, &xs, &ys);
    ImGui::StyleColorsDark();
    if (xs > 1.01f) {
        ImGui::GetStyle().ScaleAllSizes(xs);
        io.FontGlobalScale = xs;
    }
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 450 core");

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
    model.particles.size_px = default_sprite_size(std::size_t(n));
    session = std::make_unique<SimSession>(sc.state, sc.params, sc.backend, sc.precision);
    scene.particles.stats = compute_body_stats(sc.state);
    State<float> fs = convert_state<float>(sc.state);
    camera.fit(fs.pos_mass.data(), fs.size());
    for (const auto& b : builtin_backends()) {
        if (!b.available || !b.device_description) continue;
        const std::string d = b.device_description();
        if (!d.empty()) info.cuda_device += (info.cuda_device.empty() ? "" : "\n") + b.name + ": " + d;
    }
}

void WindowApp::handle_mouse() {
    double x, y;
    glfwGetCursorPos(window, &x, &y);
    float dx = float(x - last_x), dy = float(y - last_y);
    last_x = x;
    last_y = y;
    if (ImGui::GetIO().WantCaptureMouse) return;
    int w, h;
    glfwGetWindowSize(window, &w, &h);
    if (glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS) camera.orbit(dx, dy);
    if (glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
        glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS) {
        camera.pan(dx, dy, h);
    }
}

void WindowApp::on_key(int key, int mods) {
    if (mods & GLFW_MOD_CONTROL) {
        if (key == GLFW_KEY_S) save_snapshot(default_snapshot_name());
        if (key == GLFW_KEY_O) open_dialog.visible = true;
        return;
    }
    PanelActions a;
    switch (key) {
        case GLFW_KEY_SPACE:
            model.paused = !model.paused;
            a.pause_changed = true;
            break;
        case GLFW_KEY_S:
            a.single_step = true;
            break;
        case GLFW_KEY_H:
            model.show_panel = !model.show_panel;
            break;
        case GLFW_KEY_F:
            model.fullscreen = !model.fullscreen;
            a.fullscreen_changed = true;
            break;
        case GLFW_KEY_P:
            a.screenshot = true;
            break;
        case GLFW_KEY_R:
            a.reset_camera = true;
            break;
        case GLFW_KEY_F1:
        case GLFW_KEY_SLASH:
            model.show_help = !model.show_help;
            break;
        case GLFW_KEY_ESCAPE:
            glfwSetWindowShouldClose(window, GLFW_TRUE);
            break;
        default:
            break;
    }
    apply(a);
}

void WindowApp::apply(const PanelActions& a) {
    if (a.pause_changed) session->set_paused(model.paused);
    if (a.single_step) {
        model.paused = true;
        session->set_paused(true);
        session->request_single_step();
    }
    if (a.regenerate) regenerate();
    if (a.switch_backend) switch_backend();
    if (a.fit_camera) fit_camera();
    if (a.reset_camera) camera.reset();
    if (a.screenshot) want_screenshot = true;
    if (a.vsync_changed) glfwSwapInterval(model.vsync ? 1 : 0);
    if (a.fullscreen_changed) set_fullscreen(model.fullscreen);
}

void WindowApp::script_failed(int frame, const std::string& action, const std::string& why) {
    ++script_failures;
    std::cout << "nbody: test-script: frame " << frame << ": " << action << " FAILED: " << why << std::endl;
}

void WindowApp::regenerate() {
    HostState s;
    try {
        s = make_preset(model.preset, std::size_t(model.n_edit), model.seed);
    } catch (const std::exception& e) {
        info.message = e.what();
        model.n_edit = model.n;
        if (script_step) script_failed(script_step->frame, script_step->text(), e.what());
        return;
    }
    // The body stats and the framing come from the host copy now; applied once the load succeeds.
    PendingRequest r;
    r.label = "regenerating " + std::to_string(s.size()) + " bodies...";
    r.n = std::int64_t(s.size());
    r.stats = compute_body_stats(s);
    State<float> fs = convert_state<float>(s);
    r.camera = camera;
    r.camera.fit(fs.pos_mass.data(), fs.size());
    if (script_step) {
        r.script_frame = script_step->frame;
        r.script_action = script_step->text();
    }
    r.id = session->load_state(std::move(s));
    pending.push_back(std::move(r));
}

// Ctrl+S: the exact bodies are copied between two steps (capture_state), then written here.
void WindowApp::save_snapshot(const std::string& path) {
    PendingRequest r;
    r.label = "saving " + path + "...";
    r.save_path = path;
    if (script_step) {
        r.script_frame = script_step->frame;
        r.script_action = script_step->text();
    }
    r.id = session->capture_state();
    pending.push_back(std::move(r));
}

void WindowApp::write_captured(const PendingRequest& r, const SessionResult& res) {
    Scenario sc;
    sc.params = res.params;
    sc.precision = res.precision;
    sc.preset = model.preset;
    sc.seed = model.seed;
    try {
        const Snapshot snap = make_snapshot(sc, *res.state, step_offset + res.steps_total);
        for (const std::string& note : write_snapshot(r.save_path, snap)) info.message = note;
        info.screenshot_note = "saved snapshot " + r.save_path;
        std::cout << "nbody: saved snapshot " << r.save_path << " (" << res.state->size() << " bodies, step "
                  << snap.info.step << ")" << std::endl;
    } catch (const std::exception& e) {
        info.message = e.what();
        if (r.script_frame > 0) script_failed(r.script_frame, r.script_action, e.what());
    }
}

// Ctrl+O, a dropped file, or a replay frame: the bodies replace the current ones in the current backend.
// A snapshot's parameters (dt, G, softening, integrator) come with it.
void WindowApp::open_file(const std::string& path, bool refit) {
    Snapshot snap;
    try {
        snap = read_snapshot(path);
        validate_state(snap.state, snap.info.has_params ? snap.info.params : model.params,
                       session->precision());
    } catch (const std::exception& e) {
        info.message = e.what();
        if (script_step) script_failed(script_step->frame, script_step->text(), e.what());
        return;
    }
    for (const std::string& note : snap.notes) info.message = note;
    if (snap.info.has_params && !replay) {
        model.params = snap.info.params;
        step_offset = snap.info.step;
    } else if (!replay) {
        step_offset = 0;
    }
    replay_time = snap.state.t;
    PendingRequest r;
    r.label = "loading " + path + "...";
    r.opened = path;
    r.n = std::int64_t(snap.state.size());
    r.stats = compute_body_stats(snap.state);
    r.camera = camera;
    if (refit) {
        State<float> fs = convert_state<float>(snap.state);
        r.camera.fit(fs.pos_mass.data(), fs.size());
    }
    if (script_step) {
        r.script_frame = script_step->frame;
        r.script_action = script_step->text();
    }
    r.id = session->load_state(std::move(snap.state));
    pending.push_back(std::move(r));
}

void WindowApp::on_drop(int count, const char** paths) {
    if (count < 1 || !paths || !paths[0]) return;
    if (count > 1) info.message = "opened only the first of " + std::to_string(count) + " dropped files";
    if (replay) {
        info.message = "replay mode: files cannot be opened (start `nbody --input FILE` to simulate one)";
        return;
    }
    open_file(paths[0], true);
}

void WindowApp::replay_show(std::size_t frame, bool refit) {
    open_file(replay_files[frame], refit);
    std::cout << "nbody: replay: snapshot " << frame << " of " << replay_files.size() << ": "
              << replay_files[frame] << std::endl;
}

void WindowApp::switch_backend() {
    PendingRequest r;
    r.label = "switching to " + model.backend + " (" + to_string(model.precision) + ")...";
    if (script_step) {
        r.script_frame = script_step->frame;
        r.script_action = script_step->text();
    }
    r.id = session->switch_backend(model.backend, model.precision);
    pending.push_back(std::move(r));
}

// Applies the outcome of finished loads and switches (the simulation thread runs them between steps).
void WindowApp::take_results() {
    for (const SessionResult& res : session->take_results()) {
        auto it = std::find_if(pending.begin(), pending.end(),
                               [&](const PendingRequest& p) { return p.id == res.id; });
        if (it == pending.end()) continue;
        PendingRequest r = std::move(*it);
        pending.erase(it);
        if (!res.error.empty()) {
            info.message = res.error;
            if (r.n) model.n_edit = model.n;
            if (r.script_frame > 0) script_failed(r.script_frame, r.script_action, res.error);
        } else if (!r.save_path.empty()) {
            write_captured(r, res);
        } else if (r.n) {
            model.n = *r.n;
            model.particles.size_px = default_sprite_size(std::size_t(*r.n));
            scene.particles.stats = r.stats;
            camera = r.camera;
            if (!r.opened.empty() && !replay) {
                info.screenshot_note = "opened " + r.opened;
                std::cout << "nbody: opened " << r.opened << " (" << *r.n << " bodies)" << std::endl;
            }
        }
        force_upload = true;
    }
    // The fields show what the session really runs once nothing is in flight (a failed request reverts).
    if (pending.empty()) {
        model.backend = session->backend_name();
        model.precision = session->precision();
    }
    info.busy = pending.empty() ? std::string() : pending.front().label;
}

void WindowApp::fit_camera() {
    // The newest bodies, or the last checkpoint while a GPU step runs: never an empty fit.
    std::vector<Vec4<float>> pos = session->positions_for_fit();
    if (!pos.empty()) camera.fit(pos.data(), pos.size());
    force_upload = true;
}

void WindowApp::upload_bodies() {
    FeedStats fs;
    bool updated = session->with_newest_bodies(
        force_upload, [&](Backend* b, const Vec4<float>* pos, const Vec4<float>* vel, std::size_t n) {
            fs = b ? feed.feed(*b, scene.particles) : feed.feed_host(pos, vel, n, scene.particles, 0);
        });
    if (updated) force_upload = false;
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

void WindowApp::draw() {
    int fw, fh;
    glfwGetFramebufferSize(window, &fw, &fh);
    if (fw <= 0 || fh <= 0) return;  // minimised
    info.draw_path = scene.uses_compute_splat(model.particles) ? "compute splat" : "point sprites";
    scene.draw(camera, model.particles, model.tone, 0, fw, fh);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void WindowApp::update_info(double frame_ms) {
    SessionStats st = session->stats();
    double n = double(session->size());
    info.n = session->size();
    info.fps.push(frame_ms > 0 ? float(1000.0 / frame_ms) : 0.0f);
    info.ms_frame.push(float(frame_ms));
    info.ms_step.push(float(st.ms_per_step));
    double inter = st.steps_per_s * st.interactions_per_step;
    info.interactions.push(float(inter));
    info.gflops.push(float(inter * kFlopsPerInteraction * 1e-9));
    info.steps_per_s = st.steps_per_s;
    info.steps_total = st.steps_total;
    info.sim_time = st.sim_time;
    if (st.have_diag) {
        info.have_energy = true;
        info.kinetic = st.diag.kinetic;
        info.potential = st.diag.potential;
        info.total = st.diag.total();
        info.drift_now = st.energy_drift;
    }
    info.drift.push(float(st.energy_drift));
    info.interactions_per_body = n > 0 ? st.interactions_per_step / n : 0;
    info.have_force_error = st.have_force_error && model.params.force != ForceAlgorithm::direct;
    if (info.have_force_error) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "force error: median %.1e, p99 %.1e", st.force_error.median,
                      st.force_error.p99);
        info.force_error = buf;
        std::snprintf(buf, sizeof buf, "(theta %.2f, %zu bodies, step %lld)", st.force_error_theta,
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
    if (!msg.empty()) info.message = msg;
    model.paused = session->paused();
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

void WindowApp::run_script(int frame) {
    for (const ScriptStep& s : script) {
        if (s.frame != frame) continue;
        ++script_actions;
        script_step = &s;
        PanelActions a;
        if (s.action == "backend") {
            model.backend = s.value;
            a.switch_backend = true;
        } else if (s.action == "precision") {
            model.precision = *parse_precision(s.value);  // checked by parse_script
            a.switch_backend = true;
        } else if (s.action == "force") {
            model.params.force = *parse_force_algorithm(s.value);  // checked by parse_script
        } else if (s.action == "theta") {
            model.params.theta = std::stod(s.value);  // checked by parse_script
        } else if (s.action == "n") {
            model.n_edit = std::stoll(s.value);
            a.regenerate = true;
        } else if (s.action == "preset") {
            model.preset = s.value;
            a.regenerate = true;
        } else if (s.action == "pause" || s.action == "run") {
            model.paused = s.action == "pause";
            a.pause_changed = true;
        } else if (s.action == "step") {
            a.single_step = true;
        } else if (s.action == "fit") {
            a.fit_camera = true;
        } else if (s.action == "save") {
            save_snapshot(s.value);
        } else if (s.action == "drop") {
            const char* paths[] = {s.value.c_str()};
            on_drop(1, paths);  // what GLFW's drop callback calls
        } else if (s.action == "seek") {
            if (!replay) {
                script_failed(frame, s.text(), "not in replay mode");
            } else if (auto f = replay->seek(std::size_t(std::max(0LL, std::stoll(s.value))))) {
                replay_show(*f, false);
            }
        }
        std::cout << "nbody: frame " << frame << ": " << s.action << (s.value.empty() ? "" : "=" + s.value)
                  << std::endl;
        apply(a);
        script_step = nullptr;
    }
}

void WindowApp::close() {
    session.reset();  // stop the simulation thread before its backend's context goes away
    feed.shutdown();
    scene.shutdown();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

}  // namespace

int run_window_app(const WindowOptions& o) {
    check_thread_count(0);  // OMP_NUM_THREADS within bounds
    // A device-resident backend draws through interop and can afford more bodies by default.
    const BackendInfo* chosen =
        o.scenario.backend.empty() ? &default_interactive_backend() : find_backend(o.scenario.backend);
    const bool on_device = chosen && chosen->available && chosen->residency == Residency::device;
    std::int64_t default_n = on_device ? kDefaultWindowNCuda : kDefaultWindowN;
    std::vector<std::string> replay_files;
    Scenario sc;
    if (!o.replay.empty()) {
        // Replay: no simulation; the first snapshot sets the scene, the session stays paused.
        replay_files = list_snapshot_series(o.replay);
        Snapshot first = read_snapshot(replay_files.front());
        sc.state = std::move(first.state);
        sc.params = first.info.params;
        sc.backend = "serial";
        sc.precision = Precision::f64;
        validate_state(sc.state, sc.params, sc.precision);
    } else {
        sc = resolve_scenario(o.scenario, default_n);
    }

    auto splat = parse_splat_mode(o.splat);
    if (!splat) throw Error("unknown --splat '" + o.splat + "' (valid: auto, sprites, compute)");
    // Fail now, not after the run, if the screenshot cannot be written there.
    if (!o.screenshot.empty()) check_output_path(o.screenshot, "--screenshot");
    WindowApp app;
    app.model.particles.splat = *splat;
    app.script = parse_script(o.test_script);
    app.model.preset = o.scenario.preset.empty() ? presets().front().name : o.scenario.preset;
    app.model.seed = o.scenario.seed;
    app.open(o);
    try {
        app.start(sc, std::int64_t(sc.state.size()));
        if (!replay_files.empty()) {
            app.replay = std::make_unique<ReplayTimeline>(replay_files.size());
            app.replay_files = std::move(replay_files);
            app.replay_time = sc.state.t;
            app.model.paused = true;
            app.session->set_paused(true);
            std::cout << "nbody: replay: " << app.replay_files.size() << " snapshots in " << o.replay
                      << std::endl;
        }
        app.last_frame = now_s();
        for (int frame = 1; !glfwWindowShouldClose(app.window); ++frame) {
            glfwPollEvents();
            app.handle_mouse();
            app.take_results();
            app.run_script(frame);
            ImGui_ImplOpenGL3_NewFrame();
            ImGui_ImplGlfw_NewFrame();
            ImGui::NewFrame();
            app.apply(draw_panel(app.model, app.info));
            if (auto path = draw_open_dialog(app.open_dialog)) app.open_file(*path, true);
            if (app.replay) {
                const std::string& file = app.replay_files[app.replay->current()];
                std::optional<std::size_t> show = draw_replay_bar(*app.replay, file, app.replay_time);
                if (!show && app.pending.empty()) show = app.replay->tick(now_s() - app.last_frame);
                if (show) app.replay_show(*show, false);
                app.model.paused = true;  // a replay never simulates
                app.session->set_paused(true);
            }
            app.session->set_params(app.model.params);
            app.session->set_steps_per_frame(app.model.steps_per_frame);
            app.session->frame_tick();
            app.upload_bodies();
            app.draw();
            bool last = o.frames > 0 && frame >= o.frames;
            if (app.want_screenshot) {
                app.want_screenshot = false;
                std::time_t t = std::time(nullptr);
                char name[64];
                std::strftime(name, sizeof name, "nbody-%Y%m%d-%H%M%S.png", std::localtime(&t));
                app.save_screenshot(name);
            }
            if (last && !o.screenshot.empty() && !app.save_screenshot(o.screenshot))
                throw Error(app.info.message);
            glfwSwapBuffers(app.window);
            double t = now_s();
            app.update_info(1e3 * (t - app.last_frame));
            app.last_frame = t;
            if (last) break;
        }
        if (!app.script.empty()) {
            // A testing aid: the outcome of every scripted request counts, even one still in flight.
            app.session->wait_for_requests();
            app.take_results();
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
    app.close();
    if (app.script.empty()) return 0;
    if (params.force != ForceAlgorithm::direct) {
        std::cout << "nbody: force=" << to_string(params.force) << " theta=" << params.theta << ", " << force_error
                  << std::endl;
    }
    // One line for the smoke test to match; a failed scripted action fails the run.
    std::cout << "nbody: test-script done: backend=" << backend << " precision=" << to_string(precision)
              << " n=" << n << ", " << app.script_failures << " of " << app.script_actions
              << " actions failed" << std::endl;
    return app.script_failures > 0 ? 1 : 0;
}

}  // namespace nbody
