#pragma once
// Physical and numerical parameters: plain data that the panel and the command line edit.
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

// What happens when two bodies' spheres (radius: vel[i].w, sim/state.hpp) touch during a step
// (sim/collide/ detects and resolves).
enum class CollisionMode {
    off,     // bodies pass through each other, softened (the default: no cost, no change)
    merge,   // perfectly inelastic: one body with the pair's mass, momentum and centre of mass
    bounce,  // hard spheres with Params::restitution
};

// The default density of the radius rule r = (3 m / (4 pi rho))^(1/3) (sim/collide/radius.hpp): about
// 3 g/cm^3, rock, in units of solar masses and astronomical units (G = 1 makes the year 2 pi).
inline constexpr double kDefaultDensity = 5.0e6;

// The tree's default opening angle: the largest theta with median relative force error <= 1e-3 and 99th
// percentile <= 1e-2 on a Plummer sphere and a uniform cube at N = 65536 and 1M (docs/PERFORMANCE.md).
inline constexpr double kDefaultTheta = 0.6;

// The Hermite integrator's default accuracy parameter eta (Aarseth's criterion), measured on the Plummer
// sphere at N = 1024, softening 1e-4, to t = 10 (docs/PERFORMANCE.md, "Hermite: choosing eta"): 0.02
// gives |dE/E| 2.1e-7, 0.04 8.7e-7 (at the edge of 1e-6), 0.01 8.6e-9 for 1.3x the work. The usual
// 0.01-0.02 of Hermite codes; the larger one, with a 5x margin.
inline constexpr double kDefaultEta = 0.02;
// The least eta (and nonzero eta_regular): below it the steps reach the finest level (dt / 2^40) for any
// realistic orbit.
inline constexpr double kLeastEta = 1e-6;

struct Params {
    double G = 1.0;          // gravitational constant, in the scenario's units
    double dt = 0.01;        // time step
    double softening = 0.0;  // Plummer softening length epsilon (0 is legal: the self-term is excluded)
    double damping = 1.0;    // velocity factor applied once per step (1 = none)
    Integrator integrator = Integrator::leapfrog;
    ForceAlgorithm force = ForceAlgorithm::direct;
    double theta = kDefaultTheta;  // the tree's opening angle (its range: the tree's SettingInfo)
    double eta = kDefaultEta;      // an adaptive integrator's accuracy (its range: hermite's SettingInfo)
    // Hermite's Ahmad-Cohen neighbour scheme (sim/integrate/neighbour_scheme.hpp): the number of
    // neighbours each body's irregular force aims at; 0 is off (every step a full sum). A whole number.
    double neighbours = 0;
    // The neighbour scheme's accuracy for the regular steps (Aarseth's criterion on the regular force,
    // NBODY6's ETAR beside ETAI = eta); 0 is eta's value (regular_eta). The energy error follows this one
    // (docs/PERFORMANCE.md, twelfth pass): eta then sets only how often the irregular forces are summed.
    double eta_regular = 0;
    CollisionMode collisions = CollisionMode::off;
    double restitution = 0.5;          // bounce: normal speed kept after contact, in [0, 1]
    double density = kDefaultDensity;  // gives bodies of radius 0 their radius when collisions are on
};

// The accuracy parameter of the neighbour scheme's regular steps: eta_regular where set, else eta.
inline double regular_eta(const Params& p) {
    return p.eta_regular > 0 ? p.eta_regular : p.eta;
}

// A double field of Params. (Spelled out as a member's type, `double Params::*field`, nvcc's host pass
// warns of unnecessary parentheses in every .cu file that includes this header.)
using ParamsField = double Params::*;

// One numeric setting of a force algorithm or an integrator, described once: the flag --NAME, --help,
// the panel's slider, validation, the files' metadata and bench all read this description, so a new
// setting needs nothing but its registry entry and its Params field.
struct SettingInfo {
    const char* name;       // the flag --NAME, the panel's label, the CSV metadata key ("theta")
    const char* file_name;  // the HDF5 /NBody attribute ("Theta")
    const char* help;       // one line for --help and tooltips, without the range and default
    double min, max;        // the valid range, both ends included
    ParamsField field;      // where the value lives
    // The panel's slider moves over the exponent (a range of decades; a whole setting with min 0 spans
    // [1, max] with 0 at its far left).
    bool logarithmic = false;
    bool whole = false;  // whole numbers only (validate_params refuses others; the panel's slider gives them)
    // Where > 0 (with min 0): 0 is a value of its own, zero_means ("eta's value"), and the others start
    // here; the panel's logarithmic slider spans [least_nonzero, max] with 0 at its far left.
    double least_nonzero = 0;
    const char* zero_means = nullptr;
    // Where set, the setting acts only while this other field is nonzero (eta-regular: neighbours): the
    // panel hides it otherwise, and a run that gives it gets a note that it has no effect.
    ParamsField needs = nullptr;

    double default_value() const { return Params{}.*field; }
    bool in_range(double v) const {  // false for NaN
        return v >= min && v <= max && (v == 0 || v >= least_nonzero);
    }
};

}  // namespace nbody
