#pragma once
// The scenario flags shared by `nbody` (window), `nbody run` and `nbody render`: what to simulate and how,
// parsed into the ScenarioOptions that scenario/ resolves (as the Python module's arguments are).
#include "flag_values.hpp"
#include "scenario/scenario.hpp"

namespace CLI {
class App;
}

namespace nbody {

// Adds --preset, --input, --n, --seed, --dt, --softening, --G, --damping, --integrator, --force, a flag per
// setting of the registries (--theta, ...), --backend, --precision (and the COSC3500 aliases where they
// apply) to a CLI11 app. Validation happens in
// resolve_scenario so every command reports errors the same way.
void add_scenario_flags(CLI::App& app, ScenarioOptions& o);

}  // namespace nbody
