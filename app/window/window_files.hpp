#pragma once
// The window's file interface (ImGui): the Ctrl+O "open" dialog and the replay timeline bar. The window
// (window_app.cpp) owns the state and does the loading and saving.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/replay.hpp"

namespace nbody {

struct OpenDialog {
    bool visible = false;
    char path[1024] = "";
    std::string dir;  // the folder browsed (empty: the working directory)
};

// What the dialog lists in `dir`: its sub-folders (names ending in '/', ".." first unless at the root),
// then the files nbody reads (.h5/.hdf5, .tipsy/.std/.bin, .csv), each group sorted by name; hidden
// entries are left out. Empty if dir cannot be read.
std::vector<std::string> open_dialog_entries(const std::string& dir);

// Draws the dialog while visible: a path field and a browser of folders and readable files; returns the
// path when the user presses Open (or Enter, or double-clicks a file).
std::optional<std::string> draw_open_dialog(OpenDialog& d);

// Draws the replay bar (slider, play/pause, speed, the file and its time) along the bottom of the view,
// right of the panel's `panel_width` pixels; returns the frame to show if the user moved the slider.
std::optional<std::size_t> draw_replay_bar(ReplayTimeline& t, const std::string& file, double sim_time,
                                           float panel_width);

// Where Ctrl+S saves: "DIR/nbody-20260101-120000.h5" (".csv" in a build without HDF5), DIR being
// snapshot_directory(); an absolute path, so the panel can say exactly where the file went.
std::string default_snapshot_name();

// The window's snapshots directory: $NBODY_SNAPSHOT_DIR if set, else ~/nbody-snapshots (the working
// directory's nbody-snapshots without a home). Absolute; not created here.
std::string snapshot_directory();

// "nbody-20260101-120000.png": where the panel's screenshot button saves, in the working directory.
std::string default_screenshot_name();

}  // namespace nbody
