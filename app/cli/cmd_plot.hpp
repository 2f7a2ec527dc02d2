#pragma once
// `nbody plot FILE.csv -o FILE.png`: a PNG of an energy log or a bench CSV through gnuplot.
#include "plot.hpp"

namespace CLI {
class App;
}

namespace nbody {

// Adds the `plot` subcommand and its flags to root; returns it.
CLI::App* add_plot_command(CLI::App& root, PlotRequest& o);

// Draws the plot and prints where it went. Throws nbody::Error (one line) on bad input.
int run_plot_command(const PlotRequest& o);

}  // namespace nbody
