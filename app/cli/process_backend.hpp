#pragma once
// The backend one process of `nbody run` / `nbody bench` steps: the named backend, or under mpirun its
// slice of the bodies on the named backend (mpi/cluster.hpp).
#include <future>
#include <memory>
#include <string>

#include "mpi/cluster.hpp"
#include "sim/backend.hpp"

namespace nbody {

// create_backend(name, p) wrapped by cl.distribute. Under mpirun a device backend first takes the GPU
// numbered by this process's rank on its node (modulo the node's GPUs). Throws nbody::Error as
// create_backend does.
std::unique_ptr<Backend> create_process_backend(Cluster& cl, const std::string& name, Precision p);

// Starts preparing the device of the backend `requested` names (empty: the best available; its warm_up
// in backends/registry.hpp) on a thread of its own, for the caller to wait for before
// create_process_backend: a run's start-up (its scenario, its files) and the device's then overlap. Not in a
// distributed run (each process picks its device first), nor for a host backend or a name that is no
// backend (the future is then empty). Never throws.
std::future<void> warm_up_process_backend(const Cluster& cl, const std::string& requested);

}  // namespace nbody
