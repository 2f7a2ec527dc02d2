#pragma once
// What to simulate and how, resolved from what a front end was given (the command line's flags, the
// window's panel, the Python module's arguments): presets, files and restarts, their parameters as
// defaults, validation with one clear message. Flag parsing stays in app/; this is shared by all of them.
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/integrate/block_state.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

// What was asked, as given: unset optionals keep the preset's values, so resolve_scenario can tell
// "--dt 0.01" from "no --dt". Names stay strings so bad ones get one clear error listing the valid ones.
struct ScenarioOptions {
    std::string preset;             // empty: the default preset (presets().front())
    std::string input;              // bodies file (.csv, .h5, .tipsy, .bin); excludes preset and --n
    std::string restart;            // HDF5 snapshot to continue exactly (`nbody run --restart`)
    std::optional<std::int64_t> n;  // unset: the command's default N
    std::uint64_t seed = 1;
    bool seed_given = false;                          // --seed was given (it only ever seeds a preset)
    std::optional<double> G, dt, softening, damping;  // unset: the preset's (or Params{}'s) values
    std::string integrator;                           // empty: leapfrog
    std::string force;                                // empty: direct
    // The force algorithms' and integrators' settings by name (--theta, ...); unset: the default (or the
    // file's). A map: CLI11 holds references to its values.
    std::map<std::string, std::optional<double>> settings;
    std::string collisions;                      // empty: the preset's (off for most)
    std::optional<double> restitution, density;  // unset: the preset's (or Params{}'s)
    std::string backend;                         // empty: the best available (cuda, else openmp)
    std::string precision;  // "float" or "double"; empty: float (with --restart: the file's)
};

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
    // A restart's adaptive integrator state (the snapshot's /NBody/BlockSteps), for the backend to take
    // once it holds the bodies (Backend::import_block_state): the run then goes on bit for bit.
    std::optional<BlockState> block;
};

// Validates the options, loads the file or generates the preset, applies preset defaults to params that
// were not given (an HDF5 file's /NBody parameters act as defaults the same way). With collisions on,
// bodies of radius 0 get the default radius from the density (sim/collide/radius.hpp). A restart takes
// everything from the snapshot, including precision and step count; options that change the physics get
// a warning. Readers' notes and warnings go to `notes` as "nbody: note: ..." / "nbody: warning: ..."
// lines. Throws nbody::Error with one clear line on any bad value; messages name the command line's flags
// (--dt, --n), the names every front end documents.
Scenario resolve_scenario(const ScenarioOptions& o, std::int64_t default_n, std::ostream& notes = std::cerr);

// The parameter a setter changes, checked as resolve_scenario checks it: `name` is "integrator" or "force"
// (a registry name, "unknown integrator 'x' (valid: ...)" otherwise). Throws nbody::Error.
Integrator resolve_integrator(const std::string& name);
ForceAlgorithm resolve_force(const std::string& name);

// The precision called `name` ("float", "double"); throws "unknown precision 'x' (valid: float, double)".
Precision resolve_precision(const std::string& name);

// A backend of this build by name (empty: the best available); throws "unknown backend 'x' (valid: ...)".
// Whether it can run here is create_backend's to say, which knows why not.
std::string resolve_backend(const std::string& name);

}  // namespace nbody
