#pragma once
// Plots of nbody's own CSVs through gnuplot, spawned without a shell (as `render --video` spawns ffmpeg)
// with the script and the data on its stdin: an energy log (|dE/E| against t on a log axis, and the
// kinetic, potential and total energy) or a bench CSV (interactions/s against N, log-log, one line per
// backend/precision/force/integrator/threads).
#include <string>
#include <vector>

namespace nbody {

struct PlotRequest {
    std::vector<std::string> inputs;  // energy logs or bench CSVs written by nbody, overlaid in one plot
    std::vector<std::string> labels;  // the legend's name for each input (empty: the file names)
    std::string output;               // PNG
    int width = 1024, height = 640;
    std::string title;  // empty: from the file's parameter lines (preset, N, backend, integrator, dt)
};

// Throws nbody::Error with one line when gnuplot is not on PATH ("install gnuplot-nox"), when `path`
// does not end in .png, or when its directory does not exist. `flag` names the option in the message.
// Called before a run so a long run does not end in "cannot plot".
void check_plot_output(const std::string& path, const std::string& flag);

// Reads the CSVs, recognizes their kind by the header, writes the PNG (atomically: gnuplot writes a
// temporary that is renamed when it succeeds). Several files of one kind are overlaid, each line named
// by its label. Throws nbody::Error on an unreadable or unknown file, or a mix of kinds.
void plot_csv(const PlotRequest& request);

// The same for CSV text already in memory (bench --plot); `what` names it in messages.
void plot_csv_text(const std::string& text, const std::string& what, const PlotRequest& request);

}  // namespace nbody
