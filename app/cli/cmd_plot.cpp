#include "cmd_plot.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "scenario_flags.hpp"
#include "sim/platform/file_identity.hpp"

namespace nbody {

CLI::App* add_plot_command(CLI::App& root, PlotRequest& o) {
    CLI::App* cmd = root.add_subcommand(
        "plot", "plot an energy log or a bench CSV to a PNG (through gnuplot, which must be installed)");
    cmd->add_option_function<std::vector<std::string>>(
           "FILE",
           [&o](const std::vector<std::string>& files) {
               for (const std::string& s : files) o.inputs.push_back(parse_path("FILE", s));
           },
           "energy logs (nbody run --energy-log) or bench CSVs (nbody bench --format csv); several are "
           "overlaid in one plot")
        ->required();
    cmd->add_option("--label", o.labels,
                    "the legend's name of each FILE, in order (default: the file names); give one per file")
        ->type_name("TEXT");
    cmd->add_option_function<std::string>(
           "-o,--output", [&o](const std::string& s) { o.output = parse_path("--output", s); },
           "the PNG to write")
        ->type_name("FILE.png")
        ->required();
    cmd->add_option("--width", o.width, "image width in pixels (64..8192)")->capture_default_str();
    cmd->add_option("--height", o.height, "image height in pixels (64..8192)")->capture_default_str();
    cmd->add_option("--title", o.title, "title (default: from the file's parameter lines)");
    cmd->footer(
        "An energy log gives |dE/E| against t (log axis) above the kinetic, potential and total energy;\n"
        "a bench CSV gives interactions/s against N (log-log), one line per backend/precision/force/\n"
        "integrator/threads. Examples:\n"
        "  nbody plot energy.csv -o energy.png\n"
        "  nbody plot euler.csv leapfrog.csv --label euler --label leapfrog -o compare.png\n"
        "  nbody bench --format csv > bench.csv && nbody plot bench.csv -o bench.png");
    return cmd;
}

int run_plot_command(const PlotRequest& o) {
    std::vector<NamedInput> files;
    for (const std::string& f : o.inputs) files.push_back({"FILE", f});
    check_output_is_no_input("--output", o.output, files);
    plot_csv(o);
    std::string inputs;
    for (const std::string& f : o.inputs) inputs += (inputs.empty() ? "" : ", ") + f;
    std::cout << "nbody plot: " << inputs << " -> " << o.output << " (" << o.width << "x" << o.height
              << ")\n";
    return 0;
}

}  // namespace nbody
