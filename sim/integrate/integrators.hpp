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

// Whether block steps in `precision` are likely to stall with p (block_step_stalls, sim/integrate/
// hermite.hpp): float positions at softening 0. Two bodies closer than float resolves (~1e-7 of their
// distance from the origin) get forces from rounding noise, whose criterion asks for ever finer steps
// (measured, serial: a Plummer sphere of 64, seed 2, dt 0.01, reaches t = 39.2 in 10 s in float, where
// a pair sat at 2^29 blocks a max step before the check stopped such runs; double runs to t = 50 in
// 3.6 s). Double resolves ~1e-16 and a softening bounds the forces. Callers warn before such a run.
bool block_steps_may_stall(const Params& p, Precision precision);
// In float Aarseth's criterion takes the snap and crackle from differences of accelerations that float
// rounds (hermite_fit); a step short enough for that rounding to dominate them asks for a still shorter one,
// block after block. Below this eta some bodies' steps reach it: measured (openmp, Plummer, 10 max steps of
// 0.01), N = 1,024 at eta 0.005 takes 2,574 blocks against double's 322 and N = 256 at eta 0.003 2,036
// against 329, neither more accurate than at eta 0.01. Callers warn before such a run (float_eta_warning).
inline constexpr double kFloatEtaFloor = 0.01;
// Whether p's block steps in `precision` ask for an eta (or the neighbour scheme's regular one) below
// kFloatEtaFloor in float.
bool eta_below_float_floor(const Params& p, Precision precision);
// The warning's line, naming the flag that is below the floor.
std::string float_eta_warning(const Params& p);
// The flags that shrink a run's energy error, for warnings ("a smaller --dt or a larger --softening"): a
// fixed step's dt; an adaptive integrator's accuracy parameters instead (its --dt is only the largest
// step), and in float the precision (block_steps_may_stall).
std::string energy_advice(const Params& p, Precision precision);
inline constexpr const char* kStallWarning =
    "block steps in float at softening 0: a close encounter that float cannot resolve stalls a body's "
    "steps, which stops the run with an error; --precision double or a --softening above 0 avoids it";
// Why a run stopped where its block steps stalled at `body` (StepReport::stalled), and what avoids it, as
// command-line flags or (flags false: the window) in words; callers put the step and time in front.
std::string stall_reason(std::size_t body, const Params& p, Precision precision, bool flags = true);

}  // namespace nbody
