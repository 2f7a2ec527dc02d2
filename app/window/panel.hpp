#pragma once
// The ImGui control panel and help overlay. It edits a plain PanelModel and reports what the user asked
// for in PanelActions; window_app carries the actions out. No simulation or GL calls here.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "render/body_look.hpp"
#include "render/camera_path.hpp"
#include "render/tone_mapper.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"
#include "ui_scale.hpp"

namespace nbody {

// What the panel edits. window_app applies changes each frame.
struct PanelModel {
    Params params;
    int steps_per_frame = 1;
    bool paused = false;
    std::string preset;              // the preset loaded (or chosen last)
    bool bodies_from_preset = true;  // false once a file was opened: the preset's units no longer apply
    std::string preset_choice;       // chosen in the combo, waiting for the "load?" confirmation
    std::int64_t n = 4096;           // bodies now
    std::int64_t n_edit = 4096;      // the N slider; applied by Regenerate (after a confirmation if large)
    std::uint64_t seed = 1;
    std::string backend;
    Precision precision = Precision::f32;
    ParticleSettings particles;
    ToneSettings tone;
    Look look = Look::nbody;  // classic: the CUDA sample's single-orange clamped sprites
    bool vsync = true;
    bool fullscreen = false;
    bool show_panel = true;
    bool show_help = false;
    UiLook ui;              // projector mode: UI scale (Ctrl+= / Ctrl+-) and high contrast
    float panel_scale = 0;  // the UI scale the panel was last sized for
    bool replay = false;    // playing a snapshot series back: nothing to simulate, so no simulation controls

    // Overlays.
    bool trails = false;
    int trail_length = 64;       // K positions per body
    bool vectors = false;        // velocity arrows
    bool accel_vectors = false;  // acceleration arrows (with or without the velocity ones)
    float vector_scale = 1.0f;   // arrow length over the nominal one (a typical |v| or |a|: 1/10 view)
    bool grid = false;           // the reference grid and axes (X), one scale bar apart
    bool potential = false;
    int potential_res = 128;     // grid points per side
    double add_mass = 0.0;       // mass of a body dropped by Shift+drag; 0 = the median mass
    std::int64_t selected = -1;  // picked body, -1 none
    bool follow_selected = false;

    // Recording (record_panel.cpp; window_app records).
    std::string record_path = "nbody.mp4";
    int record_fps = 30;
    bool record_panel = false;  // the panel in the video

    // The camera path (camera_path_panel.cpp; window_app moves the camera along it).
    CameraPath camera_path;
    std::string camera_path_file = "camera_path.json";
    double new_key_time = 0;  // seconds: where "Add key" puts the next key
    bool path_playing = false;
    double path_time = 0;  // seconds into the path while playing

    // UI state carried between frames.
    bool ui_popup_open = false;  // a popup (combo, confirmation) was open at the end of the last frame
    bool dialog_open = false;    // the Open dialog (a window of its own) is showing: Esc closes it
    bool ask_quit = false;       // Esc on a long run: the "Quit?" confirmation is showing
    float panel_width = 0;       // pixels the panel covers at the left (0 when hidden)
    int select_tab = -1;         // >= 0: bring this tab (kPanelTabs order) to the front next frame
};

struct PanelActions {
    bool regenerate = false;   // new N / seed: make the preset again (keeps dt etc.)
    bool load_preset = false;  // model.preset changed: load it with its own parameters
    bool single_step = false;
    bool reverse = false;         // negate every velocity (leapfrog runs back to where it came from)
    bool switch_backend = false;  // model.backend / model.precision changed
    bool fit_camera = false;
    bool reset_camera = false;
    bool look_changed = false;  // model.look changed: its settings applied by the window
    bool screenshot = false;
    bool vsync_changed = false;
    bool fullscreen_changed = false;
    bool pause_changed = false;
    bool quit = false;
    bool save_snapshot = false;   // Ctrl+S
    bool open_file = false;       // Ctrl+O: the open dialog
    bool close_dialog = false;    // Esc while the open dialog shows
    bool toggle_record = false;   // Ctrl+R or the Record/Stop button
    bool start_record = false;    // --test-script record=FILE (model.record_path)
    bool stop_record = false;     // --test-script stop_record
    bool add_camera_key = false;  // K: the current view as a key at model.new_key_time
    int goto_camera_key = -1;     // jump the camera to this key
    bool save_camera_path = false, load_camera_path = false;  // model.camera_path_file
};

// A fixed-length history for the plots (oldest first when read through values()).
struct History {
    static constexpr int kLen = 240;
    std::array<float, kLen> data{};
    int next = 0, count = 0;
    void push(float v);
    float last() const { return count ? data[std::size_t((next + kLen - 1) % kLen)] : 0.0f; }
    std::vector<float> values() const;  // oldest first
};

// The picked body, as the window read it back (one body, not the state).
struct PickedBody {
    bool valid = false;
    std::int64_t index = -1;
    double mass = 0, pos[3] = {0, 0, 0}, vel[3] = {0, 0, 0};
    double radius = 0;  // 0: a point (sim/state.hpp)
    double kinetic = 0;
    bool have_potential = false;
    double potential = 0;  // its share: m_i * phi(x_i)
};

// Numbers the panel shows; filled by window_app each frame.
struct PanelInfo {
    History fps, ms_frame, ms_step, interactions, gflops, drift;
    double steps_per_s = 0;
    std::int64_t steps_total = 0;
    double sim_time = 0;
    bool reversed = false;               // time runs backwards (B): t and the step index count down
    double dt = 0;                       // the step, for reading t
    std::string length_unit, time_unit;  // the scenario's units ("AU", "yr"); empty: N-body units
    std::string mass_unit;               // "Msun", "1e10 Msun"; empty: N-body units
    bool adaptive = false;               // an adaptive integrator: steps_total counts max steps
    double max_step_share = -1;          // of a long max step under way (SessionStats), else -1
    std::int64_t max_step_blocks = 0;    // the blocks it has run so far
    std::int64_t blocks_total = 0;       // its blocks and force+jerk evaluations (SessionStats)
    std::uint64_t body_updates_total = 0;
    std::uint64_t neighbour_updates_total = 0;         // with --neighbours: evaluations against the list only
    std::vector<std::size_t> level_counts;             // bodies per time-step level
    std::int64_t merges_total = 0, bounces_total = 0;  // collisions since the bodies were loaded
    double energy_lost = 0;                            // what they removed (the drift is of E + this)
    double run_wall_s = 0;                             // wall seconds since the bodies were loaded
    std::size_t n = 0;
    bool have_energy = false;
    double kinetic = 0, potential = 0, total = 0, drift_now = 0;
    std::string energy_note;  // how PE was found where not exactly (SessionStats::potential_note), else ""
    BodyStats stats;          // for the colour legend
    PickedBody picked;
    std::string potential_note;  // what the potential view shows (range, cost) or why it is off
    std::string phi_note;        // colouring by potential: how often the bodies' potentials are computed
    double potential_min = 0, potential_max = 0;  // the grid's whole range: the colour bar's ends
    bool potential_log = true;                    // colours follow log(-phi) (else phi)
    std::string ui_font;                          // "DejaVu Sans 30 px": the font the panel is drawn with
    std::string gl_device;
    std::string cuda_device;      // "NVIDIA H100 — 79.1 GiB total, 78.6 GiB free", or "" without CUDA
    std::string transfer;         // "interop: 0 B copied device->host per frame", ...
    std::string interop_note;     // why interop is off, if it is
    std::string checkpoint;       // the NaN-recovery copy: size, direction, cadence (not per frame)
    std::string busy;             // "switching to cuda (float)..." while a request is in flight
    std::string message;          // last error or warning, shown in red until dismissed
    std::string screenshot_note;  // "saved shot.png"
    std::string draw_path;        // "point sprites" or "compute splat": what drew the last frame
    double interactions_per_body =
        0;  // per step, as the solver counted them (N times evaluations for direct)
    bool have_force_error = false;
    std::string force_error;        // "force error: median 2.1e-04, p99 1.3e-03"
    std::string force_error_where;  // "(theta 0.60, 64 bodies, step 1200)": what it was measured on
    bool recording = false;
    std::int64_t record_frames = 0;
    int record_fps = 30;
    std::string record_path;  // the file being recorded
    std::string record_note;  // the last recording's outcome ("recorded 300 frames ... to x.mp4")
};

// The panel's clock line: "N 3  t 1.25  250 steps  60 steps/s", with "reversed" while time runs back.
std::string clock_text(const PanelInfo& info);

struct IntegratorInfo;
// The integrator combo's entry: the registry's name ("leapfrog"), an adaptive one marked as such beside
// the fixed-step ones: "adaptive (hermite)".
std::string integrator_label(const IntegratorInfo& i);
// The time-reverse button's label: "Reverse (B)", "Forward (B)" while reversed, and for an adaptive
// integrator (which cannot retrace its steps) "Reverse: off", greyed, its tooltip saying why.
const char* reverse_button_label(bool adaptive, bool reversed);

// The units of the panel's numbers in the scenario's unit system: " yr", " AU/yr", " Msun AU^2/yr^2"; in
// N-body units each says so (" (N-body)"). The argument picks the quantity.
enum class Quantity { time, length, speed, energy };
std::string unit_text(const PanelInfo& info, Quantity q);

// The Energy section's line, "KE 0.1  PE -0.5  E -0.4", under its header with the unit: "Energy (Msun
// AU^2/yr^2)###Energy", "Energy (N-body)###Energy" (the unit in the header keeps the line in the panel).
std::string energy_text(const PanelInfo& info);
std::string energy_header(const PanelInfo& info);

// `text` in lines no wider than `width` (as `measure` sizes them), broken only at spaces: a word wider than
// the width gets a line of its own. The panel wraps the presets' notes with it (numbers stay whole).
std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure);

// The Scene tab's notes on model.preset, inside the current ImGui window: its one-line description, its
// units and, for a classroom scenario, what to look for, each wrapped at spaces (wrap_at_spaces).
void scenario_notes(const PanelModel& model);

// Handles the keys, draws the panel (if model.show_panel), the "? help" hint and the help overlay (if
// model.show_help). Returns what the user asked for.
PanelActions draw_panel(PanelModel& model, PanelInfo& info);

// The panel's tabs, in order (select_tab indexes this).
inline constexpr const char* kPanelTabs[] = {"Physics", "Scene", "View", "Backend"};

// N above which regenerating or loading a preset asks for confirmation first.
inline constexpr std::int64_t kConfirmN = 65536;
// The N slider's range.
inline constexpr std::int64_t kMinSliderN = 2, kMaxSliderN = std::int64_t(1) << 24;

// Slider bounds the panel enforces whatever the input (tests check them).
inline constexpr double kMinDt = 1e-6, kMaxDt = 1.0;
inline constexpr double kMaxSoftening = 1.0;
inline constexpr double kMinDamping = 0.9, kMaxDamping = 1.0;
inline constexpr double kMinG = 1e-3, kMaxG = 1e3;
inline constexpr int kMaxStepsPerFrame = 64;

}  // namespace nbody
