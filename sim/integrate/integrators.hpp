#pragma once
// The integrator registry: every integrator written once, as a sequence of Backend primitives (kick,
// drift, update_forces), whatever the backend. Feeds --integrator, --help, the panel and the tests that
// loop over every entry.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/backend.hpp"
#include "sim/params.hpp"

namespace nbody {

struct IntegratorInfo {
    Integrator id;
    const char* name;       // command-line and panel name
    int order;              // global order of accuracy in dt
    int force_evaluations;  // per step, once the acceleration cache is warm (0: adaptive, see below)
    bool symplectic;
    const char* description;  // one line for --help and tooltips
    // One step of size p.dt, without damping (step() applies that after the sequence).
    void (*advance)(Backend& b, const Params& p);
    // Adaptive: each body on its own step, at most p.dt, through the backend's block steps
    // (sim/integrate/block_steps.hpp); a step of size p.dt is then a max step, after which every body is at
    // the same time. Its force evaluations are counted by the blocks (StepReport), not per step.
    bool adaptive = false;
    std::vector<SettingInfo> settings = {};  // what it takes besides dt (none of the fixed-step ones)
};

// Every integrator, in a fixed order (leapfrog first: the default).
const std::vector<IntegratorInfo>& builtin_integrators();

// The entry for i (every Integrator value has one).
const IntegratorInfo& integrator_info(Integrator i);

// Name <-> value ("leapfrog", "symplectic-euler", "euler", "yoshida4").
const char* to_string(Integrator i);
std::optional<Integrator> parse_integrator(std::string_view name);
std::vector<std::string> integrator_names();

// Body-body interactions one step of p.integrator costs with the direct sum, N^2 counted per force
// evaluation (the convention every interactions/s and GFLOP/s figure uses): force evaluations x N^2.
double interactions_per_step(const Params& p, std::size_t n);

}  // namespace nbody
