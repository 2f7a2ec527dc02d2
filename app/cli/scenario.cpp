#include "scenario.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <iostream>

#include "backends/registry.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/platform/memory.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {

void add_scenario_flags(CLI::App& app, ScenarioOptions& o) {
    const std::string first_preset = presets().empty() ? "" : presets().front().name;
    add_name_option(app, "--preset", o.preset,
                    "initial conditions: " + join(preset_names()) + " (default " + first_preset + ")");
    add_path_option(
        app, "--input,--filename", o.input,
        "bodies to start from: .csv (x,y,z,vx,vy,vz,m), .h5/.hdf5 snapshot, .tipsy/.std or .bin (Tipsy)");
    // Parsed by hand so "--n abc" and "--n -5" both get the same clear message.
    app.add_option_function<std::string>(
           "--n,--nBodies", [&o](const std::string& s) { o.n = parse_body_count("--n", s); },
           "number of bodies (with --preset)")
        ->type_name("N");
    app.add_option_function<std::string>(
           "--seed",
           [&o](const std::string& s) {
               o.seed = parse_seed("--seed", s);
               o.seed_given = true;
           },
           "random seed of the preset, an integer >= 0 (default " + std::to_string(o.seed) +
               "; same seed, same bodies)")
        ->type_name("S");
    // Finite numbers here; their ranges (which depend on the precision) are validate_params' to check.
    add_real_option(app, "--dt,--timeStep", o.dt, {},
                    "time step (default: the preset's); with an adaptive integrator (hermite) the max step")
        ->type_name("DT");
    add_real_option(app, "--softening", o.softening, {},
                    "Plummer softening length epsilon >= 0 (default: the preset's)")
        ->type_name("EPS");
    add_real_option(app, "--G", o.G, {}, "gravitational constant (default: the preset's, usually 1)")
        ->type_name("G");
    add_real_option(app, "--damping", o.damping, {}, "velocity factor per step (default 1 = none)")
        ->type_name("D");
    add_name_option(app, "--integrator", o.integrator, join(integrator_names()) + " (default leapfrog)");
    add_name_option(app, "--force", o.force,
                    "force algorithm: " + join(force_algorithm_names()) + " (default direct)");
    for (const SettingInfo* s : all_settings()) {
        add_real_option(app, std::string("--") + s->name, o.settings[s->name], {s->min, s->max},
                        setting_help(*s))
            ->type_name("X");
    }
    add_name_option(app, "--backend", o.backend,
                    join(backend_names()) + " (default: " + default_interactive_backend().name +
                        " here: the first available GPU backend, else openmp)");
    add_name_option(app, "--precision", o.precision, "float or double (default float)");
}

namespace {

// The parameters the flags gave, by their RunMetadata keys; each one's flag is "--" + key.
std::vector<std::string> given_params(const ScenarioOptions& o) {
    std::vector<std::string> keys;
    for (const auto& [key, given] :
         {std::pair{"G", o.G.has_value()}, std::pair{"dt", o.dt.has_value()},
          std::pair{"softening", o.softening.has_value()}, std::pair{"damping", o.damping.has_value()},
          std::pair{"integrator", !o.integrator.empty()}, std::pair{"force", !o.force.empty()}}) {
        if (given) keys.emplace_back(key);
    }
    for (const auto& [name, value] : o.settings) {
        if (value) keys.push_back(name);
    }
    return keys;
}

// The parameters a file written by a run with `p` carries (run_metadata.hpp's keys).
std::vector<std::string> carried_params(const Params& p) {
    std::vector<std::string> keys = {"G", "softening", "dt", "damping", "integrator", "force"};
    for (const SettingInfo* s : settings_used(p)) keys.emplace_back(s->name);
    return keys;
}

Params resolve_params(const ScenarioOptions& o, const Params& defaults, Precision precision) {
    Params p = defaults;
    if (o.G) p.G = *o.G;
    if (o.dt) p.dt = *o.dt;
    if (o.softening) p.softening = *o.softening;
    if (o.damping) p.damping = *o.damping;
    if (!o.integrator.empty())
        p.integrator = parse_choice(o.integrator, "integrator", integrator_names(), parse_integrator);
    if (!o.force.empty())
        p.force = parse_choice(o.force, "force algorithm", force_algorithm_names(), parse_force_algorithm);
    for (const auto& [name, value] : o.settings) {
        if (value) p.*find_setting(name)->field = *value;
    }
    validate_params(p, precision);
    // A setting the run's algorithms do not take changes nothing: say so rather than ignore it silently.
    const std::vector<const SettingInfo*> used = settings_used(p);
    for (const auto& [name, value] : o.settings) {
        const SettingInfo* s = find_setting(name);
        if (value && std::find(used.begin(), used.end(), s) == used.end())
            std::cerr << "nbody: note: --" << name << " has no effect with --force " << to_string(p.force)
                      << " and --integrator " << to_string(p.integrator) << '\n';
    }
    return p;
}

std::string resolve_backend(const std::string& name) {
    if (name.empty()) return default_interactive_backend().name;
    if (!find_backend(name)) {
        throw Error("unknown backend '" + name + "' (valid: " + join(backend_names()) + ")");
    }
    return name;  // an unavailable one is reported by create_backend, which knows why
}

// --restart: the snapshot decides precision, parameters and the step count; flags may still change
// the parameters (with a warning: the continuation is then a different run).
Scenario resolve_restart(const ScenarioOptions& o) {
    for (const auto& [given, flag] :
         {std::pair{!o.input.empty(), "--input"}, std::pair{!o.preset.empty(), "--preset"},
          std::pair{o.n.has_value(), "--n"}}) {
        if (given)
            throw Error(std::string("--restart and ") + flag +
                        " cannot be used together (the snapshot sets the bodies)");
    }
    if (require_format("--restart", o.restart) != FileFormat::hdf5) {
        throw Error("--restart '" + o.restart +
                    "': needs an HDF5 snapshot (.h5) written by nbody; start a new run "
                    "from a CSV or Tipsy file with --input");
    }
    if (o.seed_given) {
        std::cerr << "nbody: note: --seed has no effect with --restart (the bodies come from '" << o.restart
                  << "')\n";
    }
    Snapshot snap = read_snapshot(o.restart);
    if (!snap.info.has_params) {
        throw Error("--restart '" + o.restart +
                    "': the file has no /NBody group (written by another code), so the "
                    "run cannot be continued exactly; start a new run from its bodies with --input");
    }
    for (const std::string& note : snap.notes) std::cerr << "nbody: note: " << note << '\n';
    if (!o.precision.empty() && parse_precision(o.precision) != snap.info.precision) {
        throw Error("--restart '" + o.restart + "' holds " + to_string(snap.info.precision) +
                    " bodies: --precision " + o.precision +
                    " would not continue the run exactly (drop --precision, "
                    "or start a new run from it with --input)");
    }
    for (const std::string& key : given_params(o)) {
        std::cerr << "nbody: warning: --" << key << " overrides the value stored in '" << o.restart
                  << "': the continuation is not the original run\n";
    }
    Scenario sc;
    sc.precision = snap.info.precision;
    sc.params = resolve_params(o, snap.info.params, sc.precision);
    sc.backend = resolve_backend(o.backend);
    sc.step = snap.info.step;
    sc.preset = snap.info.preset;
    sc.seed = snap.info.seed;
    sc.state = std::move(snap.state);
    check_host_memory(sc.state.size(), sc.precision);
    try {
        validate_state(sc.state, sc.params, sc.precision);
    } catch (const Error& e) {
        throw Error(o.restart + ": " + e.what());
    }
    return sc;
}

}  // namespace

Scenario resolve_scenario(const ScenarioOptions& o, std::int64_t default_n) {
    if (!o.restart.empty()) return resolve_restart(o);
    if (!o.preset.empty() && !o.input.empty()) {
        throw Error("--preset and --input cannot be used together (choose one)");
    }
    if (!o.input.empty() && o.n) {
        throw Error("--n cannot be used with --input (the file sets the number of bodies)");
    }
    const std::string precision_name = o.precision.empty() ? "float" : o.precision;
    const auto precision = parse_precision(precision_name);
    if (!precision) throw Error("unknown precision '" + precision_name + "' (valid: float, double)");

    const PresetInfo* preset = nullptr;
    if (o.input.empty()) {
        const std::string name = o.preset.empty() ? presets().front().name : o.preset;
        preset = find_preset(name);
        if (!preset) {
            throw Error("unknown preset '" + name + "' (valid: " + join(preset_names()) + ")");
        }
    }

    // A file is read first: an HDF5 snapshot's parameters are the defaults the flags then override.
    Snapshot file;
    BodySource source;  // for a CSV: errors found after reading it name the body's line, "FILE:LINE: ..."
    if (!preset) {
        input_format("--input", o.input);
        if (o.seed_given) {
            std::cerr << "nbody: note: --seed has no effect with --input (the bodies come from '" << o.input
                      << "')\n";
        }
        file = read_snapshot(o.input, &source);
        for (const std::string& note : file.notes) std::cerr << "nbody: note: " << note << '\n';
    }

    Scenario sc;
    sc.params = resolve_params(o, preset ? preset->params : file.info.params, *precision);
    if (!preset && file.info.has_params) {
        // The file's parameters are the defaults; the summary says which ones a flag replaced.
        const std::vector<std::string> given = given_params(o);
        for (const std::string& key : carried_params(file.info.params)) {
            const bool flag = std::find(given.begin(), given.end(), key) != given.end();
            (flag ? sc.overridden : sc.from_file).emplace_back(key);
        }
    }
    sc.backend = resolve_backend(o.backend);
    sc.precision = *precision;

    if (preset) {
        const std::int64_t n = o.n.value_or(default_n);
        if (n <= 0) throw Error("--n must be a positive integer (got " + std::to_string(n) + ")");
        // Before allocating anything: a too-large N is a clear message, not a crash in the allocator.
        check_host_memory(static_cast<std::size_t>(n), sc.precision);
        sc.state = make_preset(preset->name, static_cast<std::size_t>(n), o.seed);
        sc.preset = preset->name;
        sc.seed = o.seed;
    } else {
        sc.state = std::move(file.state);
        if (file.info.precision == Precision::f64 && sc.precision == Precision::f32) {
            std::cerr << "nbody: warning: " << o.input
                      << " holds double-precision bodies; they are rounded to float "
                      << "(--precision double keeps them)\n";
        }
        check_host_memory(sc.state.size(), sc.precision);
    }
    const bool csv = !preset && !source.lines.empty();
    try {
        validate_state(sc.state, sc.params, sc.precision, csv ? &source : nullptr);
    } catch (const Error& e) {
        if (preset || csv) throw;
        throw Error(o.input + ": " + e.what());  // HDF5 / Tipsy bodies: name the file
    }
    return sc;
}

}  // namespace nbody
