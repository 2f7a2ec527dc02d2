#pragma once
// What the module's binding files share: the Python-side Simulation and each file's bind function.
#include <pybind11/pybind11.h>

#include <mutex>

#include "simulation.hpp"

namespace nbody::python {

namespace py = pybind11;

// N of a preset when `n` is not given: the command line's `nbody run` default.
inline constexpr std::int64_t kDefaultPythonN = 1024;

// One call at a time: while a step runs without the GIL, another Python thread must not touch the bodies.
class PySimulation : public Simulation {
  public:
    using Simulation::Simulation;
    // Held for the length of a call; a second call from another thread meanwhile is a RuntimeError.
    std::unique_lock<std::mutex> lock() {
        std::unique_lock<std::mutex> l(busy_, std::try_to_lock);
        if (!l.owns_lock()) throw RunFailure("the simulation is busy in another thread (one call at a time)");
        return l;
    }

  private:
    std::mutex busy_;
};

void bind_simulation(py::module_& m);           // nbody.Simulation
void bind_functions(py::module_& m);            // backends(), presets(), bench, the version
void bind_render(py::class_<PySimulation>& c);  // Simulation.render, _repr_png_ (a stub without GL)

}  // namespace nbody::python
