#include "scenario.hpp"

#include <algorithm>
#include <ostream>

#include "backends/registry.hpp"
#include "sim/choice.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/collide/radius.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/platform/memory.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {

Integrator resolve_integrator(const std::string& name) {
    return parse_choice(name, "integrator", integrator_names(), parse_integrator);
}

ForceAlgorithm resolve_force(const std::string& name) {
    return parse_choice(name, "force algorithm", force_algorithm_names(), parse_force_algorithm);
}

Precision resolve_precision(const std::string& name) {
    return parse_choice(name, "precision", {"float", "double"}, parse_precision);
}

std::string resolve_backend(const std::string& name) {
    if (name.empty()) return default_interactive_backend().name;
    if (!find_backend(name)) {
        throw Error("unknown backend '" + name + "' (valid: " + join(backend_names()) + ")");
    }
    return name;  // an unavailable one is reported by create_backend, which knows why
}

namespace {

// The parameters the flags gave, by their RunMetadata keys; each one's flag is "--" + key.
std::vector<std::string> given_params(const ScenarioOptions& o) {
    std::vector<std::string> keys;
    for (const auto& [key, given] :
         {std::pair{"G", o.G.has_value()}, std::pair{"dt", o.dt.has_value()},
          std::pair{"softening", o.softening.has_value()}, std::pair{"damping", o.damping.has_value()},
          std::pair{"integrator", !o.integrator.empty()}, std::pair{"force", !o.force.empty()},
          std::pair{"collisions", !o.collisions.empty()}, std::pair{"restitution", o.restitution.has_value()},
          std::pair{"density", o.density.has_value()}}) {
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
    if (p.collisions != CollisionMode::off) keys.insert(keys.end(), {"collisions", "restitution", "density"});
    return keys;
}

// Whether the parameter `key` (a RunMetadata key, as given_params names them) is the same in a and b.
bool same_param(const std::string& key, const Params& a, const Params& b) {
    if (key == "G") return a.G == b.G;
    if (key == "dt") return a.dt == b.dt;
    if (key == "softening") return a.softening == b.softening;
    if (key == "damping") return a.damping == b.damping;
    if (key == "integrator") return a.integrator == b.integrator;
    if (key == "force") return a.force == b.force;
    if (key == "collisions") return a.collisions == b.collisions;
    if (key == "restitution") return a.restitution == b.restitution;
    if (key == "density") return a.density == b.density;
    if (const SettingInfo* s = find_setting(key)) return a.*s->field == b.*s->field;
    return false;
}

// `defaults` with the values the flags give.
Params with_flags(const ScenarioOptions& o, const Params& defaults) {
    Params p = defaults;
    if (o.G) p.G = *o.G;
    if (o.dt) p.dt = *o.dt;
    if (o.softening) p.softening = *o.softening;
    if (o.damping) p.damping = *o.damping;
    if (!o.integrator.empty()) p.integrator = resolve_integrator(o.integrator);
    if (!o.force.empty()) p.force = resolve_force(o.force);
    for (const auto& [name, value] : o.settings) {
        if (value) p.*find_setting(name)->field = *value;
    }
    if (!o.collisions.empty())
        p.collisions =
            parse_choice(o.collisions, "collision mode", collision_mode_names(), parse_collision_mode);
    if (o.restitution) p.restitution = *o.restitution;
    if (o.density) p.density = *o.density;
    return p;
}

// `source`: the file `defaults` came from ("" for a preset's). A refused value the file gave (no flag
// replaced it) is the file's fault, and the error names the file; a flag's own bad value gets the flag's
// error first; a combination that only both together make keeps the plain words.
Params resolve_params(const ScenarioOptions& o, const Params& defaults, Precision precision,
                      std::ostream& notes, const std::string& source = "") {
    const Params p = with_flags(o, defaults);
    try {
        validate_params(p, precision);
    } catch (const Error& e) {
        if (source.empty()) throw;
        validate_params(with_flags(o, Params{}), precision);
        try {
            validate_params(defaults, precision);
        } catch (const Error&) {
            throw Error(source + " (the run parameters it holds): " + e.what());
        }
        throw;
    }
    // A setting the run's algorithms do not take changes nothing: say so rather than ignore it silently.
    const std::vector<const SettingInfo*> used = settings_used(p);
    for (const auto& [name, value] : o.settings) {
        const SettingInfo* s = find_setting(name);
        if (!value || std::find(used.begin(), used.end(), s) != used.end()) continue;
        if (const SettingInfo* needed = missing_need(p, *s))
            notes << "nbody: note: --" << name << " has no effect with --" << needed->name << " 0\n";
        else
            notes << "nbody: note: --" << name << " has no effect with --force " << to_string(p.force)
                  << " and --integrator " << to_string(p.integrator) << '\n';
    }
    return p;
}

// --restart: the snapshot decides precision, parameters and the step count; flags may still change
// the parameters (with a warning: the continuation is then a different run).
Scenario resolve_restart(const ScenarioOptions& o, std::ostream& notes) {
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
        notes << "nbody: note: --seed has no effect with --restart (the bodies come from '" << o.restart
              << "')\n";
    }
    Snapshot snap = read_snapshot(o.restart);
    if (!snap.info.has_params) {
        throw Error("--restart '" + o.restart +
                    "': the file has no /NBody group (written by another code), so the "
                    "run cannot be continued exactly; start a new run from its bodies with --input");
    }
    for (const std::string& note : snap.notes) notes << "nbody: note: " << note << '\n';
    if (!o.precision.empty() && parse_precision(o.precision) != snap.info.precision) {
        throw Error("--restart '" + o.restart + "' holds " + to_string(snap.info.precision) +
                    " bodies: --precision " + o.precision +
                    " would not continue the run exactly (drop --precision, "
                    "or start a new run from it with --input)");
    }
    // A flag that repeats the stored value changes nothing: only another value is warned about.
    const Params flagged = with_flags(o, snap.info.params);
    for (const std::string& key : given_params(o)) {
        if (same_param(key, flagged, snap.info.params)) continue;
        notes << "nbody: warning: --" << key << " overrides the value stored in '" << o.restart
              << "': the continuation is not the original run\n";
    }
    Scenario sc;
    sc.precision = snap.info.precision;
    sc.params = resolve_params(o, snap.info.params, sc.precision, notes, o.restart);
    sc.backend = resolve_backend(o.backend);
    sc.step = snap.info.step;
    sc.preset = snap.info.preset;
    sc.seed = snap.info.seed;
    sc.state = std::move(snap.state);
    sc.block = std::move(snap.block);
    check_host_memory(sc.state.size(), sc.precision);
    try {
        validate_state(sc.state, sc.params, sc.precision);
    } catch (const Error& e) {
        throw Error(o.restart + ": " + e.what());
    }
    if (sc.params.collisions != CollisionMode::off) assign_default_radii(sc.state, sc.params.density);
    return sc;
}

}  // namespace

Scenario resolve_scenario(const ScenarioOptions& o, std::int64_t default_n, std::ostream& notes) {
    if (!o.restart.empty()) return resolve_restart(o, notes);
    if (!o.preset.empty() && !o.input.empty()) {
        throw Error("--preset and --input cannot be used together (choose one)");
    }
    if (!o.input.empty() && o.n) {
        throw Error("--n cannot be used with --input (the file sets the number of bodies)");
    }
    const std::string precision_name = o.precision.empty() ? "float" : o.precision;
    const Precision precision = resolve_precision(precision_name);

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
            notes << "nbody: note: --seed has no effect with --input (the bodies come from '" << o.input
                  << "')\n";
        }
        file = read_snapshot(o.input, &source);
        for (const std::string& note : file.notes) notes << "nbody: note: " << note << '\n';
    }

    Scenario sc;
    sc.params = resolve_params(o, preset ? preset->params : file.info.params, precision, notes,
                               preset ? std::string() : o.input);
    if (!preset && file.info.has_params) {
        // The file's parameters are the defaults; the summary says which ones a flag replaced.
        const std::vector<std::string> given = given_params(o);
        for (const std::string& key : carried_params(file.info.params)) {
            const bool flag = std::find(given.begin(), given.end(), key) != given.end();
            (flag ? sc.overridden : sc.from_file).emplace_back(key);
        }
    }
    // A named backend is checked now (no device asked); the default, which asks the device (the CUDA
    // driver's start, ~0.1 s), once the bodies are made, so that `nbody run`'s warm-up thread has that time.
    if (!o.backend.empty()) sc.backend = resolve_backend(o.backend);
    sc.precision = precision;

    if (preset) {
        const std::int64_t n =
            o.n.value_or(preset->natural_n ? static_cast<std::int64_t>(preset->natural_n) : default_n);
        if (n <= 0) throw Error("--n must be a positive integer (got " + std::to_string(n) + ")");
        // Before allocating anything: a too-large N is a clear message, not a crash in the allocator.
        check_host_memory(static_cast<std::size_t>(n), sc.precision);
        sc.state = make_preset(preset->name, static_cast<std::size_t>(n), o.seed);
        sc.preset = preset->name;
        sc.seed = o.seed;
    } else {
        sc.state = std::move(file.state);
        if (file.info.precision == Precision::f64 && sc.precision == Precision::f32) {
            notes << "nbody: warning: " << o.input
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
    if (sc.params.collisions != CollisionMode::off) assign_default_radii(sc.state, sc.params.density);
    if (sc.backend.empty()) sc.backend = resolve_backend("");
    return sc;
}

}  // namespace nbody
