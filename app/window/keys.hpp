#pragma once
// The window's keyboard shortcuts: one table that both the key dispatch and the help overlay read, so
// the overlay never lists a key that does nothing. Keys arrive through ImGui's IO (the GLFW backend
// feeds it), so tests drive them without a window. To add a shortcut (Ctrl+S, ...), add a row.
#include <vector>

namespace nbody {

struct PanelModel;
struct PanelActions;
struct PanelInfo;

struct KeyBinding {
    int key;            // GLFW key code (what ImGui 1.86's GLFW backend indexes io.KeysDown with)
    bool ctrl = false;  // Ctrl must be held (and is required absent otherwise)
    const char* label;  // "Space", "R", ...
    const char* what;   // "pause / run"
    void (*apply)(PanelModel&, PanelActions&);
};

// Every shortcut, in the order the help overlay lists them (Esc is handled apart: see handle_keys).
const std::vector<KeyBinding>& key_bindings();

// The key code of a binding's label ("Space", "R", "Home", "?") or "Escape"; -1 if none.
int key_code(const char* label);

// Reads this frame's key presses from ImGui (ignored while a text field has the keyboard) and applies
// them. Esc closes an open popup or the help first, and quits only when nothing is open (asking first
// when the run is long). Call once per frame after ImGui::NewFrame, before the panel's widgets.
void handle_keys(PanelModel& m, PanelActions& a, const PanelInfo& info);

// Runs longer than this (wall seconds since the bodies were loaded) ask before Esc quits.
inline constexpr double kQuitConfirmSeconds = 120.0;

}  // namespace nbody
