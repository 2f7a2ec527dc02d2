#pragma once
// Physical and numerical parameters: plain data that the panel and the command line edit.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

// The time integrators; sim/integrate/integrators.hpp describes each (order, force evaluations per step).
enum class Integrator {
    leapfrog,          // kick-drift-kick, 2nd order, symplectic; one force evaluation per step
    symplectic_euler,  // v += a dt, then x += v dt; 1st order, symplectic
    euler,             // x += v dt, v += a dt with the old a; 1st order, energy grows (for teaching)
    yoshida4,          // Forest-Ruth / Yoshida triple jump of leapfrog: 4th order, 3 force evaluations
    hermite,           // 4th-order Hermite predictor-corrector, each body on its own block time step <= dt
};

// Which algorithm sums the gravity, chosen independently of the backend that runs it
// (sim/gravity/force_solver.hpp lists them).
enum class ForceAlgorithm {
    direct,  // all N^2 pairs
    tree,    // Barnes-Hut octree with quadrupoles, opening angle Params::theta
};

// The tree's default opening angle: the largest theta with median relative force error <= 1e-3 and 99th
// percentile <= 1e-2 on a Plummer sphere and a uniform cube at N = 65536 and 1M (docs/PERFORMANCE.md).
inline constexpr double kDefaultTheta = 0.6;

// The Hermite integrator's default accuracy parameter eta (Aarseth's criterion): the largest value with
// |dE/E| <= 1e-6 to t = 1 on the Plummer sphere of docs/PERFORMANCE.md ("Hermite: choosing eta").
inline constexpr double kDefaultEta = 0.02;

struct Params {
    double G = 1.0;          // gravitational constant, in the scenario's units
    double dt = 0.01;        // time step
    double softening = 0.0;  // Plummer softening length epsilon (0 is legal: the self-term is excluded)
    double damping = 1.0;    // velocity factor applied once per step (1 = none)
    Integrator integrator = Integrator::leapfrog;
    ForceAlgorithm force = ForceAlgorithm::direct;
    double theta = kDefaultTheta;  // the tree's opening angle, in (0, 1]; smaller is more accurate
    double eta = kDefaultEta;  // an adaptive integrator's accuracy parameter (> 0; smaller: shorter steps)
};

// Name <-> value for the integrators ("leapfrog", "symplectic-euler", "euler", "yoshida4", "hermite").
const char* to_string(Integrator i);
std::optional<Integrator> parse_integrator(std::string_view name);
std::vector<std::string> integrator_names();

// Name <-> value for the force algorithms ("direct", "tree").
const char* to_string(ForceAlgorithm a);
std::optional<ForceAlgorithm> parse_force_algorithm(std::string_view name);
std::vector<std::string> force_algorithm_names();

}  // namespace nbody
