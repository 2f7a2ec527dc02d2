#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app/cli/argument_hash.hpp"
#include "app/cli/cmd_bench.hpp"
#include "app/cli/cmd_plot.hpp"
#include "app/cli/cmd_run.hpp"
#include "commands.hpp"
#include "mpi/cluster.hpp"
#include "sim/error.hpp"
#include "sim/platform/atomic_file.hpp"

#ifdef NBODY_HAVE_WINDOW
#include "app/cli/cmd_render.hpp"
#include "app/window/window_app.hpp"
#endif

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody {
namespace {

// Every failure ends as exactly one line on stderr, whatever produced it. Under mpirun every process
// reaches this with the same error (the command line is the same everywhere; later failures are agreed
// on, see mpi/cluster.hpp): rank 0 prints it.
// One line, and only text: line breaks become spaces, and every other control character (an ESC in a file
// name would drive the terminal) is shown as \xNN, whichever message carried it.
std::string terminal_safe(std::string message) {
    std::string out;
    for (const char ch : message) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n' || c == '\r') {
            out += ' ';
        } else if (c < 0x20 || c == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(c));
            out += hex;
        } else {
            out += ch;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

int report_error(const std::string& raw) {
    if (!cluster().root()) return 1;
    const std::string message = terminal_safe(raw);
    std::cerr << "nbody: error: " << message << std::endl;
    return 1;
}

// A failure of this process alone. While the others still compute with it (they would wait for it
// forever), it is printed here, naming the process, and the whole run ends.
int report_local_error(const std::string& message) {
    Cluster& c = cluster();
    if (!c.in_lockstep()) return report_error(message);
    const std::string line = terminal_safe(message);
    std::cerr << "nbody: error: process " << c.rank() << " of " << c.size() << ": " << line << std::endl;
    c.abort(1);
    return 1;  // not reached: abort ends the process
}

// --help and --version: printed once, by rank 0.
template <typename E>
int exit_for(CLI::App& app, const E& e) {
    if (!cluster().root()) return e.get_exit_code();
    return app.exit(e, std::cout, std::cerr);
}

// The window's scenario flags live on the root command, so `nbody --n 100 run` would parse --n for the
// window and run the subcommand with its defaults. Say so instead of silently ignoring it.
void reject_root_options_before(const CLI::App& root, const CLI::App& sub) {
    for (const CLI::Option* opt : root.get_options()) {
        if (opt->count() == 0 || opt == root.get_help_ptr() || opt == root.get_version_ptr()) continue;
        const std::string name = opt->get_name();
        throw ClusterError(name + " was given before the subcommand '" + sub.get_name() +
                           "', where it would be ignored: flags of '" + sub.get_name() +
                           "' go after it (`nbody " + sub.get_name() + " --help` lists them)");
    }
}

#ifndef NBODY_HAVE_WINDOW
int print_no_window() {
    std::cout << "This build of nbody has no window (configured with NBODY_BUILD_APP_WINDOW=OFF).\n"
                 "Simulate headless with `nbody run` (try `nbody run --help`), or time the backends with "
                 "`nbody bench`.\n";
    return 0;
}
#endif

// CLI11 says "--n: At Most 1 required but received 2" for a flag given twice: say it in plain words.
std::string plain_parse_error(const std::string& what) {
    const std::string marker = ": At Most 1 required but received ";
    const std::size_t at = what.find(marker);
    if (at == std::string::npos) return what;
    return what.substr(0, at) + " was given " + what.substr(at + marker.size()) +
           " times (give it once: the last one would not silently win)";
}

// Parses and runs. `retry_of` is set when argv is the user's command line with "run" inserted after a
// failed first parse: a failure now reports the first parse's error, which names what the user typed.
int parse_and_run(int argc, const char* const* argv, const std::string* retry_of) {
    CLI::App app{"nbody: a gravitational N-body simulator (direct summation on CPU and GPU)", "nbody"};
    app.set_version_flag("--version", std::string("nbody ") + NBODY_VERSION);
    app.require_subcommand(0, 1);
    app.footer(
        "Examples:\n"
        "  nbody run                                   default scenario, prints a summary\n"
        "  nbody run --preset disk --n 4096 --t-end 10 --output disk.csv\n"
        "  nbody bench --backend serial,openmp --n 4096 --format json");

    RunOptions run_options;
    BenchOptions bench_options;
    CLI::App* run_cmd = add_run_command(app, run_options);
    CLI::App* bench_cmd = add_bench_command(app, bench_options);
    PlotRequest plot_options;
    CLI::App* plot_cmd = add_plot_command(app, plot_options);
#ifdef NBODY_HAVE_WINDOW
    WindowOptions window_options;
    add_window_flags(app, window_options);
    RenderOptions render_options;
    CLI::App* render_cmd = add_render_command(app, render_options);
    // `nbody play DIR [window flags]` is `nbody --replay DIR [window flags]`: the flags fall through to
    // the window's, which live on the root command.
    CLI::App* play_cmd = app.add_subcommand("play",
                                            "play back a snapshot series in the window (timeline, "
                                            "play/pause, speed); same as `nbody --replay DIR`");
    play_cmd->add_option("DIR", window_options.replay, "directory of snapshots (nbody run --snapshot-dir)")
        ->required();
    play_cmd->fallthrough();
    play_cmd->footer(
        "The window's flags (nbody --help lists them) may follow DIR, as after `nbody --replay DIR`:\n"
        "  nbody play snaps --ui-scale 2");
#endif

    try {
        // Every process parses, then all agree on the parsed command line before anything else can fail
        // on one process only (mpirun): a parse error is reported once all failed alike, and processes
        // started with different arguments stop with one line instead of waiting in a collective forever.
        std::uint64_t parsed = 0;
        std::function<int()> no_run;  // what a parse that leads to no command returns
        try {
            app.parse(argc, argv);
            parsed = parsed_arguments_hash(app);
        } catch (const CLI::CallForHelp& e) {
            parsed = failed_parse_hash("--help");
            no_run = [&app, e] { return exit_for(app, e); };
        } catch (const CLI::CallForAllHelp& e) {
            parsed = failed_parse_hash("--help-all");
            no_run = [&app, e] { return exit_for(app, e); };
        } catch (const CLI::CallForVersion& e) {
            parsed = failed_parse_hash("--version");
            no_run = [&app, e] { return exit_for(app, e); };
        } catch (const CLI::ExtrasError& e) {
            // The COSC3500 assignment's command line has no subcommand (`nbody --nBodies 100 --finalTime 1
            // --energyDiff`): flags only `run` knows are read as `nbody run ...` (which agrees in its turn).
            if (!retry_of && argc > 1 && app.get_subcommands().empty()) {
                std::vector<const char*> as_run(argv, argv + argc);
                as_run.insert(as_run.begin() + 1, "run");
                const std::string original = e.what();
                return parse_and_run(argc + 1, as_run.data(), &original);
            }
            const std::string message = plain_parse_error(retry_of ? *retry_of : e.what());
            parsed = failed_parse_hash(message);
            no_run = [message] { return report_error(message); };
        } catch (const CLI::ParseError& e) {
            const std::string message = plain_parse_error(retry_of ? *retry_of : e.what());
            parsed = failed_parse_hash(message);
            no_run = [message] { return report_error(message); };
        } catch (const Error& e) {
            // A flag's own parser (parse_integer, ...): the same command line fails alike everywhere.
            const std::string message = e.what();
            parsed = failed_parse_hash(message);
            no_run = [message] { return report_error(message); };
        }
        check_same_arguments(cluster(), parsed);
        if (no_run) return no_run();
        if (retry_of && cluster().root())
            std::cerr << "nbody: note: no subcommand given: running `nbody run` with these flags\n";
        if (cluster().distributed() && !run_cmd->parsed() && !bench_cmd->parsed()) {
            throw ClusterError("only `nbody run` and `nbody bench` run as " +
                               std::to_string(cluster().size()) +
                               " processes under mpirun (start other commands without mpirun)");
        }
#ifdef NBODY_HAVE_WINDOW
        if (play_cmd->parsed()) return run_window_app(window_options);
#endif
        for (const CLI::App* sub : app.get_subcommands()) reject_root_options_before(app, *sub);
        // Every command writes through AtomicFile (CSV, PNG, video, snapshots): a signal removes its
        // temporaries before the process ends.
        remove_temp_files_on_signal();
        if (run_cmd->parsed()) return run_run_command(run_options);
        if (bench_cmd->parsed()) return run_bench_command(bench_options);
        if (plot_cmd->parsed()) return run_plot_command(plot_options);
#ifdef NBODY_HAVE_WINDOW
        if (render_cmd->parsed()) return run_render_command(render_options);
        return run_window_app(window_options);
#else
        return print_no_window();
#endif
    } catch (const ClusterError& e) {
        return report_error(e.what());
    } catch (const Error& e) {
        return report_local_error(e.what());
    } catch (const std::bad_alloc&) {
        return report_local_error("out of memory");
    } catch (const std::exception& e) {
        return report_local_error(e.what());
    }
}

}  // namespace

int nbody_main(int argc, const char* const* argv) {
    return parse_and_run(argc, argv, nullptr);
}

}  // namespace nbody
