#pragma once
// `nbody run`: simulate headless, write the requested files, print a short summary.
#include <cstdint>
#include <optional>
#include <string>

#include "scenario_flags.hpp"
#include "snapshot_options.hpp"

namespace CLI {
class App;
}

namespace nbody {

struct RunOptions {
    ScenarioOptions scenario;
    std::optional<std::int64_t> steps;      // unset (and no t_end): kDefaultRunSteps
    std::optional<double> t_end;            // run until exactly this simulated time; excludes steps
    std::string output;                     // final bodies: .csv, .h5/.hdf5 (a full snapshot), .tipsy or .bin
    SnapshotOptions snapshots;              // --snapshot-every K --snapshot-dir DIR
    std::string energy_log;                 // energy CSV
    std::optional<std::int64_t> log_every;  // diagnostics cadence in steps (0: start and end only)
    std::string trajectory;                 // positions CSV
    std::string collision_log;              // collisions CSV (with --collisions merge|bounce)
    std::int64_t trajectory_every = 1;      // trajectory cadence in steps
    int threads = 0;                        // OpenMP threads (0: OMP_NUM_THREADS or all cores)
    bool energy_diff = false;               // print only the final relative energy change
    bool quiet = false;                     // no progress line
    std::string plot;                       // PNG of the energy log, drawn after the run
};

inline constexpr std::int64_t kDefaultRunN = 1024;
inline constexpr std::int64_t kDefaultRunSteps = 100;
// Diagnostics cadence when --energy-log is given without --log-every.
inline constexpr std::int64_t kDefaultLogEvery = 10;

// Adds the `run` subcommand and its flags to root; returns it so the caller can see whether it was used.
CLI::App* add_run_command(CLI::App& root, RunOptions& o);

// Runs the simulation. Returns the exit code; throws nbody::Error (one line) on bad input or blow-up.
int run_run_command(const RunOptions& o);

}  // namespace nbody
