#include "scenario_flags.hpp"

#include <CLI/CLI.hpp>

#include "backends/registry.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"

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
    for (const SettingInfo* s : all_settings()) add_setting_option(app, *s, o.settings[s->name]);
    add_name_option(app, "--collisions", o.collisions,
                    "what touching bodies do: off (pass through, softened), merge, bounce (default: the "
                    "preset's, off for most)");
    add_real_option(app, "--restitution", o.restitution, {0.0, 1.0},
                    "bounce: the share of the normal speed kept, in [0, 1] (default 0.5)")
        ->type_name("C");
    add_real_option(app, "--density", o.density, {},
                    "gives bodies without a radius r = (3 m / (4 pi density))^(1/3) when collisions are on "
                    "(default: the preset's, else 5e6: rock in solar masses and AU)")
        ->type_name("RHO");
    add_name_option(
        app, "--backend", o.backend,
        join(backend_names()) + " (default: the first GPU backend this machine can run, else openmp)");
    add_name_option(app, "--precision", o.precision, "float or double (default float)");
}

}  // namespace nbody
