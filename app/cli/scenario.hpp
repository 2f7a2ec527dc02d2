#pragma once
// The scenario flags shared by `nbody` (window), `nbody run` and `nbody render`: what to simulate and how.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flag_values.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace CLI {
class App;
}

namespace nbody {

// What the flags said, as given: unset optionals keep the preset's values, so resolve_scenario can tell
// "--dt 0.01" from "no --dt". Names stay strings so bad ones get one clear error listing the valid ones.
struct ScenarioOptions {
    std::string preset;             // empty: the default preset (presets().front())
    std::string input;              // bodies file (.csv, .h5, .tipsy, .bin); excludes preset and --n
    std::string restart;            // HDF5 snapshot to continue exactly (`nbody run --restart`)
    std::optional<std::int64_t> n;  // unset: the command's default N
    std::uint64_t seed = 1;
    bool seed_given = false;  // --seed was on the command line (it only ever seeds a preset)
    std::optional<double> G, dt, softening, damping;  // unset: the preset's (or Params{}'s) values
    std::string integrator;                           // empty: leapfrog
    std::string force;                                // empty: direct
    // The force algorithms' and integrators' settings by name (--theta, ...); unset: the default (or the
    // file's). A map: CLI11 holds references to its values.
    std::map<std::string, std::optional<double>> settings;
    std::string backend;    // empty: the best available (cuda, else openmp)
    std::string precision;  // "float" or "double"; empty: float (with --restart: the file's)
};

// Adds --preset, --input, --n, --seed, --dt, --softening, --G, --damping, --integrator, --force, a flag per
// setting of the registries (--theta, ...), --backend, --precision (and the COSC3500 aliases where they
// apply) to a CLI11 app. Validation happens in
// resolve_scenario so every command reports errors the same way.
void add_scenario_flags(CLI::App& app, ScenarioOptions& o);

struct Scenario {
    HostState state;
    Params params;
    std::string backend;  // resolved name
    Precision precision;
    std::int64_t step = 0;  // steps already taken (non-zero when continuing a snapshot)
    std::string preset;     // the preset's name, empty for bodies from a file (kept in snapshots)
    std::uint64_t seed = 0;
    std::vector<std::string> from_file;   // parameters taken from --input's parameter lines ("dt", ...)
    std::vector<std::string> overridden;  // parameters in those lines that a flag replaced
};

// Validates the options, loads the file or generates the preset, applies preset defaults to params that
// were not given on the command line (an HDF5 file's /NBody parameters act as defaults the same way).
// --restart takes everything from the snapshot, including precision and step count; flags that change
// the physics get a warning. Readers' notes go to stderr as "nbody: note: ...". Throws nbody::Error with
// one clear line on any bad value.
Scenario resolve_scenario(const ScenarioOptions& o, std::int64_t default_n);

}  // namespace nbody
