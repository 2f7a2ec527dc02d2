#include "keys.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // ClosePopupToLevel: 1.86 closes popups on Esc only with keyboard navigation

#include <algorithm>
#include <string>

#include "panel.hpp"

namespace nbody {
namespace {

// GLFW's key codes (glfw3.h), which ImGui's GLFW backend uses as io.KeysDown indices; named here so
// this file (and its tests) need no GLFW.
enum : int {
    kKeySpace = 32,
    kKeyMinus = 45,
    kKeyEqual = 61,
    kKeySlash = 47,
    kKeyA = 65,
    kKeyB = 66,
    kKeyF = 70,
    kKeyG = 71,
    kKeyH = 72,
    kKeyK = 75,
    kKeyL = 76,
    kKeyO = 79,
    kKeyP = 80,
    kKeyR = 82,
    kKeyS = 83,
    kKeyT = 84,
    kKeyV = 86,
    kKeyX = 88,
    kKeyEscape = 256,
    kKeyHome = 268,
    kKeyF1 = 290,
};

}  // namespace

const std::vector<KeyBinding>& key_bindings() {
    static const std::vector<KeyBinding> keys = {
        {kKeySpace, false, "Space", "pause / run",
         [](PanelModel& m, PanelActions& a) {
             m.paused = !m.paused;
             a.pause_changed = true;
         }},
        {kKeyS, false, "S", "single step", [](PanelModel&, PanelActions& a) { a.single_step = true; }},
        {kKeyB, false, "B", "run time backwards / forwards again (not with hermite)",
         [](PanelModel&, PanelActions& a) { a.reverse = true; }},
        {kKeyR, false, "R", "fit the bodies in view",
         [](PanelModel&, PanelActions& a) { a.fit_camera = true; }},
        {kKeyHome, false, "Home", "reset the view",
         [](PanelModel&, PanelActions& a) { a.reset_camera = true; }},
        {kKeyL, false, "L", "follow the selected body",
         [](PanelModel& m, PanelActions&) { m.follow_selected = !m.follow_selected; }},
        {kKeyT, false, "T", "trails on / off", [](PanelModel& m, PanelActions&) { m.trails = !m.trails; }},
        {kKeyV, false, "V", "velocity vectors on / off",
         [](PanelModel& m, PanelActions&) { m.vectors = !m.vectors; }},
        {kKeyA, false, "A", "acceleration vectors on / off",
         [](PanelModel& m, PanelActions&) { m.accel_vectors = !m.accel_vectors; }},
        {kKeyG, false, "G", "potential-field view on / off",
         [](PanelModel& m, PanelActions&) { m.potential = !m.potential; }},
        {kKeyX, false, "X", "grid and axes on / off (spacing: the scale bar)",
         [](PanelModel& m, PanelActions&) { m.grid = !m.grid; }},
        {kKeyK, false, "K", "add a camera-path key from the view (View tab: Camera path)",
         [](PanelModel&, PanelActions& a) { a.add_camera_key = true; }},
        {kKeyH, false, "H", "hide / show the panel",
         [](PanelModel& m, PanelActions&) { m.show_panel = !m.show_panel; }},
        {kKeyF, false, "F", "fullscreen",
         [](PanelModel& m, PanelActions& a) {
             m.fullscreen = !m.fullscreen;
             a.fullscreen_changed = true;
         }},
        {kKeyP, false, "P", "screenshot (PNG)", [](PanelModel&, PanelActions& a) { a.screenshot = true; }},
        {kKeyS, true, "S", "save a snapshot (.h5, or .csv without HDF5)",
         [](PanelModel&, PanelActions& a) { a.save_snapshot = true; }},
        {kKeyEqual, true, "=", "larger interface (projector)",
         [](PanelModel& m, PanelActions&) { m.ui.scale = std::min(m.ui.scale * 1.25f, kMaxUiScale); }},
        {kKeyMinus, true, "-", "smaller interface",
         [](PanelModel& m, PanelActions&) { m.ui.scale = std::max(m.ui.scale / 1.25f, kMinUiScale); }},
        {kKeyO, true, "O", "open a snapshot or CSV (or drop a file on the window)",
         [](PanelModel&, PanelActions& a) { a.open_file = true; }},
        {kKeyR, true, "R", "record a video / stop (View tab: file, fps, panel in it)",
         [](PanelModel&, PanelActions& a) { a.toggle_record = true; }},
        {kKeyF1, false, "F1", "this help", [](PanelModel& m, PanelActions&) { m.show_help = !m.show_help; }},
        {kKeySlash, false, "?", "this help",
         [](PanelModel& m, PanelActions&) { m.show_help = !m.show_help; }},
    };
    return keys;
}

int key_code(const char* label) {
    if (std::string(label) == "Escape") return kKeyEscape;
    for (const KeyBinding& k : key_bindings()) {
        if (std::string(label) == k.label) return k.key;
    }
    return -1;
}

void handle_keys(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    ImGuiIO& io = ImGui::GetIO();
    // ImGui closes nothing on Esc here, so whether a popup was open is last frame's fact.
    bool popup_open = m.ui_popup_open;
    if (ImGui::IsKeyPressed(kKeyEscape, false)) {
        if (popup_open) {
            ImGui::ClosePopupToLevel(0, true);
            m.ask_quit = false;  // cancels a confirmation too
            m.preset_choice.clear();
        } else if (m.dialog_open) {
            // The Open dialog is a window, not a popup: Esc closes it, even from its path field (it used to
            // stay open, and a second Esc quit the program behind it).
            a.close_dialog = true;
        } else if (io.WantCaptureKeyboard) {
            // A text field had the keyboard: ImGui takes Esc as "stop editing".
        } else if (m.show_help) {
            m.show_help = false;
        } else if (info.run_wall_s > kQuitConfirmSeconds) {
            m.ask_quit = true;
        } else {
            a.quit = true;
        }
        return;
    }
    if (io.WantCaptureKeyboard) return;
    for (const KeyBinding& k : key_bindings()) {
        if (k.ctrl != io.KeyCtrl || io.KeyAlt || io.KeySuper) continue;
        if (ImGui::IsKeyPressed(k.key, false)) k.apply(m, a);
    }
    if (m.replay) {
        // A replay never simulates: the keys that run, step or reverse the simulation do nothing.
        m.paused = true;
        a.pause_changed = a.single_step = a.reverse = false;
    }
}

}  // namespace nbody
