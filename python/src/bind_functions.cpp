// The module's functions: what this machine offers (backends, presets, integrators, force algorithms) and
// the benchmark `nbody bench` runs, rows in its JSON form.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "app/cli/cmd_bench.hpp"
#include "backends/registry.hpp"
#include "bindings.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/presets.hpp"

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody::python {

void bind_functions(py::module_& m) {
    m.attr("__version__") = NBODY_VERSION;
    m.def(
        "backends",
        [] {
            py::list out;
            for (const BackendInfo& b : builtin_backends()) {
                py::dict d;
                d["name"] = b.name;
                d["description"] = b.description;
                d["available"] = b.available();
                d["reason"] = b.unavailable_reason();  // why not, where not available
                d["residency"] = b.residency == Residency::device ? "device" : "host";
                d["device"] = b.available() && b.device_description ? b.device_description() : std::string();
                out.append(d);
            }
            return out;
        },
        "Every backend of this build, available here or not: dicts with name, description, available,\n"
        "reason (why not, where not available), residency (host or device) and device.");
    m.def(
        "presets",
        [] {
            py::list out;
            for (const PresetInfo& p : presets()) {
                py::dict d;
                d["name"] = p.name;
                d["description"] = p.description;
                d["dt"] = p.params.dt;
                d["softening"] = p.params.softening;
                d["G"] = p.params.G;
                d["min_n"] = p.min_n;
                out.append(d);
            }
            return out;
        },
        "The built-in initial conditions: dicts with name, description and the dt, softening and G they\n"
        "come with.");
    m.def("integrators", &integrator_names, "Names of the integrators, for Simulation(integrator=...).");
    m.def("force_algorithms", &force_algorithm_names,
          "Names of the force algorithms, for Simulation(force=...).");
    m.def(
        "_bench_json",
        [](const std::vector<std::string>& backends, const std::vector<std::int64_t>& ns,
           const std::vector<std::string>& precisions, const std::vector<std::string>& forces,
           const std::vector<std::string>& integrators, const std::vector<int>& threads, std::int64_t steps,
           std::int64_t warmup, std::int64_t repeats, std::uint64_t seed, bool compare, bool error,
           std::optional<double> theta) {
            BenchOptions o;
            o.backends = backends;
            o.ns = ns;
            o.precisions = precisions;
            o.forces = forces;
            o.integrators = integrators;
            o.threads = threads;
            o.steps = steps;
            o.warmup = warmup;
            o.repeats = repeats;
            o.seed = seed;
            o.compare = compare;
            o.error = error;
            o.settings["theta"] = theta;
            o.quiet = true;
            o.format = "json";
            std::vector<BenchRow> rows;
            {
                py::gil_scoped_release release;
                rows = run_benchmarks(o);
            }
            return format_bench(rows, "json", machine_info());
        },
        "The rows of `nbody bench --format json` as its JSON text; nbody.bench() parses it.");
}

}  // namespace nbody::python
