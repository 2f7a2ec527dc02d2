// nbody._nbody, the extension behind `import nbody`: the bindings, and how the library's errors reach
// Python (bad input as ValueError, a run that cannot go on as RuntimeError, both with the one-line message).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "sim/error.hpp"

PYBIND11_MODULE(_nbody, m) {
    namespace py = pybind11;
    m.doc() = "The nbody library's bindings; import the package `nbody`, not this module.";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const nbody::python::RunFailure& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        } catch (const nbody::Error& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });
    nbody::python::bind_simulation(m);
    nbody::python::bind_functions(m);
}
