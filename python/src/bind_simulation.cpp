// nbody.Simulation: the Python face of python::Simulation. Arguments and properties are checked by the
// library (the command line's messages); long calls release the GIL and look for Ctrl-C between batches.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>

#include "app/cli/flag_values.hpp"
#include "bindings.hpp"
#include "numpy_state.hpp"
#include "scenario/step_plan.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "simulation.hpp"

namespace nbody::python {
namespace {

// Python warnings for the notes resolve_scenario writes ("nbody: note: ...", "nbody: warning: ..."), so a
// notebook shows them under the cell instead of on the kernel's stderr.
void warn_lines(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        // -1: the warnings filter made it an error (python -W error), which then propagates.
        if (!line.empty() && PyErr_WarnEx(PyExc_UserWarning, line.c_str(), 2) != 0)
            throw py::error_already_set();
    }
}

// Set by Ctrl-C while the library steps without the GIL (SigintWhileStepping); every Simulation's backend
// looks at it (Backend::set_interrupt), so a hermite max step under way stops at its next block.
std::atomic<bool> g_sigint{false};
struct sigaction g_python_sigint;  // the handler SigintWhileStepping chains to (Python's)

extern "C" void on_sigint_while_stepping(int sig, siginfo_t* info, void* context) {
    g_sigint.store(true);
    if (g_python_sigint.sa_flags & SA_SIGINFO) {
        g_python_sigint.sa_sigaction(sig, info, context);
    } else {
        g_python_sigint.sa_handler(sig);
    }
}

// While it lives (on the main thread, where Python handles SIGINT with a handler of its own), SIGINT also
// sets g_sigint before Python's handler flags it for the interpreter, which sees it only between batches:
// a long step (a hermite max step) stops at once instead of running to its end.
class SigintWhileStepping {
  public:
    SigintWhileStepping() {
        g_sigint.store(false);
        const py::object threading = py::module_::import("threading");
        if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
        struct sigaction current {};
        if (::sigaction(SIGINT, nullptr, &current) != 0) return;
        const bool has_function = (current.sa_flags & SA_SIGINFO)
                                      ? current.sa_sigaction != nullptr
                                      : current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
        if (!has_function) return;
        g_python_sigint = current;
        struct sigaction ours = current;
        ours.sa_flags = (current.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
        ours.sa_sigaction = on_sigint_while_stepping;
        installed_ = ::sigaction(SIGINT, &ours, nullptr) == 0;
    }
    ~SigintWhileStepping() {
        if (installed_) ::sigaction(SIGINT, &g_python_sigint, nullptr);
    }
    SigintWhileStepping(const SigintWhileStepping&) = delete;
    SigintWhileStepping& operator=(const SigintWhileStepping&) = delete;

  private:
    bool installed_ = false;
};

// Runs `total` steps in batches without the GIL; `step_batch(k)` returns the steps it took (fewer where
// Ctrl-C stopped a hermite max step inside, its bodies put back). Between batches Ctrl-C
// (KeyboardInterrupt) stops the run at a step boundary, the bodies intact. Batches grow while they take
// under 50 ms: the per-call cost of a step() stays negligible, and an interrupt waits a few tenths of a
// second, or, where one fixed step takes longer, for that step.
template <typename StepBatch>
void in_batches(std::int64_t total, StepBatch step_batch) {
    std::int64_t done = 0, batch = 1;
    while (done < total) {
        const std::int64_t k = std::min(batch, total - done);
        const double start = now_s();
        std::int64_t took = 0;
        {
            SigintWhileStepping sigint;
            py::gil_scoped_release release;
            took = step_batch(k);
        }
        done += took;
        const double seconds = now_s() - start;
        if (seconds < 0.05) batch = std::min<std::int64_t>(batch * 2, std::int64_t{1} << 30);
        if (seconds > 0.25 && batch > 1) batch /= 2;
        if ((done < total || took < k) && PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
}

ScenarioOptions options_from(const std::optional<std::string>& preset, const std::optional<std::int64_t>& n,
                             std::uint64_t seed, const std::string& backend, const std::string& precision,
                             std::optional<double> dt, std::optional<double> softening,
                             std::optional<double> G, std::optional<double> damping,
                             const std::optional<std::string>& integrator,
                             const std::optional<std::string>& force, std::optional<double> theta,
                             std::optional<double> eta, std::optional<double> neighbours,
                             std::optional<double> eta_regular,
                             const std::optional<std::filesystem::path>& input,
                             const std::optional<std::string>& collisions, std::optional<double> restitution,
                             std::optional<double> density) {
    ScenarioOptions o;
    o.preset = preset.value_or("");
    o.input = input ? input->string() : std::string();
    // The flag's own check, so n=0 and --n 0 read alike.
    if (n) o.n = parse_body_count("--n", std::to_string(*n));
    o.seed = seed;
    o.backend = backend == "auto" ? "" : backend;
    o.precision = precision;
    o.dt = dt, o.softening = softening, o.G = G, o.damping = damping;
    // None: the preset's (leapfrog, direct) or the file's parameter lines, as a flag left out.
    o.integrator = integrator.value_or("");
    o.force = force.value_or("");
    // Range-checked by validate_params ("theta must be in [0.01, 1] (got 2)"), as the panel's values are.
    o.settings["theta"] = theta;
    o.settings["eta"] = eta;
    o.settings["neighbours"] = neighbours;  // a whole number: 2.5 raises as --neighbours 2.5 does
    o.settings["eta-regular"] = eta_regular;
    o.collisions = collisions.value_or("");
    o.restitution = restitution, o.density = density;
    return o;
}

std::unique_ptr<PySimulation> make_simulation(const ScenarioOptions& o) {
    std::ostringstream notes;
    auto sim = std::make_unique<PySimulation>(o, kDefaultPythonN, notes);
    sim->set_interrupt(&g_sigint);
    if (eta_below_float_floor(sim->params(), sim->precision()))
        notes << "nbody: warning: " << float_eta_warning(sim->params()) << '\n';
    warn_lines(notes.str());
    return sim;
}

// Runs `change` (a setter's change of parameters or precision) under the simulation's lock, then the
// float-eta warning (sim/integrate/integrators.hpp) where it has just taken the simulation below the floor,
// raised after the lock is let go.
template <typename F>
void change_then_warn_below_float_floor(PySimulation& s, F&& change) {
    bool was_below = false;
    Params p;
    Precision precision = Precision::f32;
    {
        auto l = s.lock();
        was_below = eta_below_float_floor(s.params(), s.precision());
        change();
        p = s.params(), precision = s.precision();
    }
    if (!was_below && eta_below_float_floor(p, precision))
        warn_lines("nbody: warning: " + float_eta_warning(p) + "\n");
}

// A parameter property: get reads Params, set validates a copy (validate_params) and keeps it. whole: a
// whole-number setting (neighbours) reads back as an int; it is set as a float, so 2.5 gets the library's
// "must be a whole number" rather than a TypeError.
void def_param(py::class_<PySimulation>& c, const char* name, double Params::*field, const char* doc,
               bool whole = false) {
    c.def_property(
        name,
        [field, whole](PySimulation& s) -> py::object {
            const double v = s.params().*field;
            if (whole) return py::int_(static_cast<long long>(v));
            return py::float_(v);
        },
        [field](PySimulation& s, double v) {
            change_then_warn_below_float_floor(s, [&] {
                Params p = s.params();
                p.*field = v;
                s.set_params(p);
            });
        },
        doc);
}

// A column of the bodies as a property: a float64 copy out; assigning replaces it, the others kept.
void def_column(py::class_<PySimulation>& c, const char* name, Column column, const char* doc) {
    c.def_property(
        name,
        [column](PySimulation& s) {
            auto l = s.lock();
            return column_of(s.state(), column);
        },
        [column](PySimulation& s, const DoubleArray& a) {
            auto l = s.lock();
            s.set_state(with_column(s.state(), column, a));
        },
        doc);
}

py::dict diagnostics_dict(const Diagnostics& d) {
    auto vec = [](const Vec3d& v) { return py::make_tuple(v.x, v.y, v.z); };
    py::dict out;
    out["mass"] = d.mass;
    out["kinetic"] = d.kinetic;
    out["potential"] = d.potential;
    out["total"] = d.total();
    out["momentum"] = vec(d.momentum);
    out["angular_momentum"] = vec(d.angular_momentum);
    out["center_of_mass"] = vec(d.center_of_mass);
    if (d.has_potential) {
        out["potential_method"] = to_string(d.potential_method);
        out["potential_error"] = d.potential_error;
    }
    return out;
}

}  // namespace

void bind_simulation(py::module_& m) {
    py::class_<PySimulation> c(m, "Simulation", R"doc(
An N-body simulation on one backend (serial, openmp, cuda), stepped by the same library as the
`nbody` command line.

The bodies start from a preset (`preset`, `n`, `seed`) or a file (`input`: .csv, .h5, .tipsy, .bin);
parameters left at None take the preset's (or the file's) values, exactly as `nbody run` does with its
flags. Bad values raise ValueError with the command line's message; a run that cannot go on (a
numerical blow-up, a backend this machine lacks) raises RuntimeError.

    sim = nbody.Simulation(preset="solar", n=8, integrator="yoshida4", precision="double")
    sim.integrate(10.0)
    print(sim.t, sim.energy())
)doc");
    c.def(py::init([](const std::optional<std::string>& preset, const std::optional<std::int64_t>& n,
                      std::uint64_t seed, const std::string& backend, const std::string& precision,
                      std::optional<double> dt, std::optional<double> softening, std::optional<double> G,
                      std::optional<double> damping, const std::optional<std::string>& integrator,
                      const std::optional<std::string>& force, std::optional<double> theta,
                      std::optional<double> eta, std::optional<double> neighbours,
                      std::optional<double> eta_regular, const std::optional<std::filesystem::path>& input,
                      const std::optional<std::string>& collisions, std::optional<double> restitution,
                      std::optional<double> density) {
              return make_simulation(options_from(preset, n, seed, backend, precision, dt, softening, G,
                                                  damping, integrator, force, theta, eta, neighbours,
                                                  eta_regular, input, collisions, restitution, density));
          }),
          py::arg("preset") = py::none(), py::arg("n") = py::none(), py::arg("seed") = 1,
          py::arg("backend") = "auto", py::arg("precision") = "float", py::arg("dt") = py::none(),
          py::arg("softening") = py::none(), py::arg("G") = py::none(), py::arg("damping") = py::none(),
          py::arg("integrator") = py::none(), py::arg("force") = py::none(), py::arg("theta") = py::none(),
          py::arg("eta") = py::none(), py::arg("neighbours") = py::none(),
          py::arg("eta_regular") = py::none(), py::arg("input") = py::none(),
          py::arg("collisions") = py::none(), py::arg("restitution") = py::none(),
          py::arg("density") = py::none(),
          R"doc(Creates the bodies and puts them on a backend.

preset: plummer (default), disk, collision, solar, cube, shell, expand (nbody.presets() lists them).
n: number of bodies of the preset (default 1024). seed: the preset's random seed (same seed, same bodies).
backend: "auto" (cuda where usable, else openmp), "serial", "openmp", "cuda".
precision: "float" or "double". dt, softening, G, damping: None keeps the preset's.
integrator: leapfrog, symplectic-euler, euler, yoshida4, hermite; force: direct or tree (None: leapfrog
and direct, or the file's).
theta: the tree's opening angle; eta: hermite's accuracy; neighbours: hermite's Ahmad-Cohen neighbour
scheme, a whole number K in [0, 1024], 0 off; eta_regular: that scheme's accuracy for its regular steps
(0: eta's value) (None: their defaults).
input: a bodies file instead of a preset (its parameters become the defaults).
collisions: "off", "merge" or "bounce" (bodies with size: radii, from the density where a body has none);
restitution: a bounce's kept normal speed in [0, 1]; density: of the default radius (None: the preset's
or the file's; the accretion and impact presets merge).)doc");
    c.def_static(
        "load",
        [](const std::filesystem::path& path, const std::string& backend) {
            ScenarioOptions o;
            o.restart = path.string();
            o.backend = backend == "auto" ? "" : backend;
            return make_simulation(o);
        },
        py::arg("path"), py::arg("backend") = "auto",
        "Continues the run saved by save() (an HDF5 snapshot: bodies, time, parameters, precision, step\n"
        "count) exactly: its steps from here are those the saved run would have taken, bit for bit.");
    c.def(
        "save",
        [](PySimulation& s, const std::filesystem::path& path) {
            std::vector<std::string> notes;
            {
                auto l = s.lock();
                notes = s.save(path.string());
            }
            for (const std::string& note : notes) warn_lines(note);
        },
        py::arg("path"),
        "Writes the state to path: .h5 is a snapshot Simulation.load continues exactly; .csv and .tipsy\n"
        "hold the bodies (the CSV with its parameter lines). Written atomically. What the file cannot hold\n"
        "(a double run in Tipsy's float; a hermite run's restart outside .h5) comes as a UserWarning.");

    def_param(c, "dt", &Params::dt, "Time step (a max step with hermite); finite and > 0.");
    def_param(c, "softening", &Params::softening, "Plummer softening length epsilon >= 0.");
    def_param(c, "G", &Params::G, "Gravitational constant, > 0.");
    def_param(c, "damping", &Params::damping, "Velocity factor applied once per step, in (0, 1].");
    // A setting's flag name with '_' for '-' (--eta-regular is eta_regular).
    for (const SettingInfo* s : all_settings()) {
        std::string name = s->name;
        std::replace(name.begin(), name.end(), '-', '_');
        def_param(c, name.c_str(), s->field, s->help, s->whole);
    }
    c.def_property(
        "integrator", [](PySimulation& s) { return std::string(to_string(s.params().integrator)); },
        [](PySimulation& s, const std::string& name) {
            change_then_warn_below_float_floor(s, [&] {
                Params p = s.params();
                p.integrator = resolve_integrator(name);
                s.set_params(p);
            });
        },
        "The integrator: leapfrog, symplectic-euler, euler, yoshida4, hermite.");
    c.def_property(
        "collisions", [](PySimulation& s) { return std::string(to_string(s.params().collisions)); },
        [](PySimulation& s, const std::string& name) {
            auto l = s.lock();
            Params p = s.params();
            p.collisions = parse_choice(name, "collision mode", collision_mode_names(), parse_collision_mode);
            s.set_params(p);
        },
        "Collisions between bodies with size: \"off\", \"merge\" or \"bounce\" (turning them on gives\n"
        "bodies of radius 0 the default radius from density).");
    def_param(c, "restitution", &Params::restitution,
              "A bounce's normal speed kept, in [0, 1] (collisions=\"bounce\").");
    def_param(c, "density", &Params::density,
              "Density of the default radius (3 m / (4 pi density))^(1/3) of bodies given none, > 0.");
    c.def_property(
        "force", [](PySimulation& s) { return std::string(to_string(s.params().force)); },
        [](PySimulation& s, const std::string& name) {
            auto l = s.lock();
            Params p = s.params();
            p.force = resolve_force(name);
            s.set_params(p);
        },
        "The force algorithm: direct (all pairs) or tree (Barnes-Hut, opening angle theta).");
    c.def_property(
        "backend", [](PySimulation& s) { return s.backend_name(); },
        [](PySimulation& s, const std::string& name) {
            auto l = s.lock();
            s.set_backend(name == "auto" ? "" : name);
        },
        "The backend holding the bodies; setting it moves them (and the time) to another, unchanged\n"
        "(the one it already is: nothing changes).");
    c.def_property(
        "precision", [](PySimulation& s) { return std::string(to_string(s.precision())); },
        [](PySimulation& s, const std::string& name) {
            change_then_warn_below_float_floor(s, [&] { s.set_precision(resolve_precision(name)); });
        },
        "\"float\" or \"double\"; setting it moves the bodies to the same backend in that precision.");
    c.def(
        "_take_parameters",
        [](PySimulation& s, PySimulation& from) {
            auto l = s.lock();
            s.set_params(from.params());  // all at once: one at a time could pass through a refused pair
        },
        py::arg("other"), "Takes every parameter of another simulation (show() does, from the window's).");
    c.def_property_readonly("n", &PySimulation::size, "Number of bodies.");
    c.def("__len__", &PySimulation::size);
    c.def_property_readonly("t", &PySimulation::time, "Simulated time, by the integrator's own clock.");
    c.def_property_readonly("steps_done", &PySimulation::steps_done,
                            "Steps taken since the run began (a loaded snapshot's included).");
    c.def_property_readonly(
        "blocks", &PySimulation::blocks,
        "Blocks an adaptive integrator (hermite) evaluated since this Simulation was made\n"
        "(or loaded): each advances the bodies due at its time. 0 with a fixed step.");
    c.def_property_readonly(
        "force_evaluations", &PySimulation::force_evaluations,
        "Force+jerk evaluations of one body against all N that an adaptive integrator\n"
        "(hermite) made since this Simulation was made (or loaded), summed over its blocks:\n"
        "its work, where steps_done counts max steps. 0 with a fixed step. With the neighbour\n"
        "scheme (neighbours > 0) only the full sums: see neighbour_evaluations.");
    c.def_property_readonly(
        "neighbour_evaluations", &PySimulation::neighbour_evaluations,
        "With hermite's neighbour scheme (neighbours > 0): evaluations of one body against its\n"
        "neighbour list alone (its irregular steps) since this Simulation was made (or loaded).");
    c.def_property_readonly("merges", &PySimulation::merges,
                            "Merges since this Simulation was made (or loaded); each removes a body.");
    c.def_property_readonly("bounces", &PySimulation::bounces,
                            "Bounces since this Simulation was made (or loaded).");
    c.def_property_readonly(
        "collision_energy_lost", &PySimulation::collision_energy_lost,
        "Energy the collisions took since this Simulation was made (or loaded): energy() + this is what\n"
        "stays constant, as `nbody run` reports |dE/E|.");
    c.def_property_readonly("preset", &PySimulation::preset, "The preset's name; empty for other bodies.");
    c.def_property_readonly("seed", &PySimulation::seed, "The preset's seed.");

    def_column(c, "positions", Column::positions,
               "(N, 3) float64 copy of the positions; assigning an (N, 3) array replaces them.");
    def_column(c, "velocities", Column::velocities,
               "(N, 3) float64 copy of the velocities; assigning an (N, 3) array replaces them.");
    def_column(c, "masses", Column::masses,
               "(N,) float64 copy of the masses; assigning an (N,) array replaces them.");
    def_column(
        c, "radii", Column::radii,
        "(N,) float64 copy of the radii (0: a point; with collisions on a body of radius 0 gets the default\n"
        "radius from density); assigning an (N,) array replaces them.");
    c.def(
        "set_bodies",
        [](PySimulation& s, const DoubleArray& positions, const DoubleArray& velocities,
           const DoubleArray& masses, std::optional<double> t, std::optional<DoubleArray> radii) {
            auto l = s.lock();
            s.set_state(state_from_arrays(positions, velocities, masses, t.value_or(s.time()),
                                          radii ? &*radii : nullptr));
        },
        py::arg("positions"), py::arg("velocities"), py::arg("masses"), py::arg("t") = py::none(),
        py::arg("radii") = py::none(),
        "Replaces every body: positions and velocities (N, 3), masses (N,), any float array-like. Checked\n"
        "as a file's bodies are: finite, mass > 0, no two at one point with softening 0 (ValueError).\n"
        "t: the new time, finite (None keeps the current one). radii (N,): None makes points (radius 0;\n"
        "the default radius from density where collisions are on).");
    c.def(
        "add",
        [](PySimulation& s, const DoubleArray& position, const DoubleArray& velocity, double mass,
           double radius) {
            auto l = s.lock();
            HostState st = s.state();
            append_body(st, position, velocity, mass, radius);
            s.set_state(st);
        },
        py::arg("position"), py::arg("velocity") = std::vector<double>{0, 0, 0}, py::arg("mass") = 1.0,
        py::arg("radius") = 0.0,
        "Adds one body at position (3,) with velocity (3,), mass and radius (0: a point, or the default\n"
        "radius from density where collisions are on), checked as set_bodies checks.");

    c.def(
        "step",
        [](PySimulation& s, std::int64_t k) {
            if (k < 0) throw Error("k must be >= 0 (got " + std::to_string(k) + ")");
            auto l = s.lock();
            in_batches(k, [&](std::int64_t batch) { return s.step(batch).steps_done; });
        },
        py::arg("k") = 1,
        "Takes k steps of dt (k max steps with hermite). Releases the GIL; Ctrl-C stops it with the\n"
        "bodies at a step boundary (a hermite max step under way is put back as it began). A blow-up\n"
        "raises RuntimeError naming step and body.");
    c.def(
        "integrate",
        [](PySimulation& s, double t_end) {
            auto l = s.lock();
            // As `nbody run --t-end`: ceil((T - t) / dt) steps, the last one shortened to land on T.
            const StepPlan plan = plan_steps_until("t_end", s.time(), t_end, s.params().dt, s.precision());
            in_batches(plan.steps - 1, [&](std::int64_t batch) { return s.step(batch).steps_done; });
            in_batches(1, [&](std::int64_t) { return s.step_of(t_end - s.time()).steps_done; });
        },
        py::arg("t_end"),
        "Steps until t = t_end exactly (the last step shortened), as `nbody run --t-end` does. Releases\n"
        "the GIL; Ctrl-C stops it at a step boundary (a hermite max step under way too, put back as it\n"
        "began).");
    c.def_property_readonly(
        "potential_method",
        [](PySimulation& s) {
            auto l = s.lock();
            return to_string(s.potential_method());
        },
        "How energy() and diagnostics() find the potential at this N, backend and force: \"exact\" (every\n"
        "pair in double, O(N^2)) up to 131072 bodies and on a GPU backend; above that on a CPU backend\n"
        "\"tree\" (force=\"tree\": the tree at theta, in double) or \"sampled\" (the exact rows of 4096\n"
        "evenly spaced bodies, scaled to N), as `nbody run` does.");
    c.def(
        "energy",
        [](PySimulation& s, bool exact) {
            auto l = s.lock();
            py::gil_scoped_release release;
            return s.diagnostics(true, exact).total();
        },
        py::arg("exact") = false,
        "Total energy, kinetic + potential. The potential is found as potential_method says (the exact\n"
        "O(N^2) sum in double up to 131072 bodies, an estimate above that on a CPU backend); exact=True\n"
        "sums every pair at any N.");
    c.def(
        "diagnostics",
        [](PySimulation& s, bool with_potential, bool exact) {
            auto l = s.lock();
            Diagnostics d;
            {
                py::gil_scoped_release release;
                d = s.diagnostics(with_potential, exact);
            }
            return diagnostics_dict(d);
        },
        py::arg("potential") = true, py::arg("exact") = false,
        "A dict: mass, kinetic, potential, total, momentum, angular_momentum (about the origin),\n"
        "center_of_mass (tuples), and with the potential potential_method (\"exact\", \"tree\" or\n"
        "\"sampled\", as the property says) and potential_error (one standard error of a sampled estimate,\n"
        "else 0). potential=False skips the potential (then 0); exact=True sums every pair at any N.");
    c.def(
        "accelerations",
        [](PySimulation& s) {
            auto l = s.lock();
            std::vector<Vec4<double>> a;
            {
                py::gil_scoped_release release;
                a = s.accelerations();
            }
            return xyz_of(a);
        },
        "(N, 3) float64 accelerations of the current positions by the backend's force solver.");
    c.def("__repr__", [](PySimulation& s) {
        return "<nbody.Simulation N=" + std::to_string(s.size()) + " t=" + format_g(s.time()) + " " +
               s.backend_name() + " " + to_string(s.precision()) + " " + to_string(s.params().integrator) +
               " " + to_string(s.params().force) + " dt=" + format_g(s.params().dt) +
               (s.params().collisions != CollisionMode::off
                    ? std::string(" collisions=") + to_string(s.params().collisions)
                    : std::string()) +
               ">";
    });
    bind_render(c);
}

}  // namespace nbody::python
