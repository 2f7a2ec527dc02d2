#pragma once
// The backend one process of `nbody run` / `nbody bench` steps: the named backend, or under mpirun its
// slice of the bodies on the named backend (mpi/cluster.hpp).
#include <memory>
#include <string>

#include "mpi/cluster.hpp"
#include "sim/backend.hpp"

namespace nbody {

// create_backend(name, p) wrapped by cl.distribute. Under mpirun a device backend first takes the GPU
// numbered by this process's rank on its node (modulo the node's GPUs). Throws nbody::Error as
// create_backend does.
std::unique_ptr<Backend> create_process_backend(Cluster& cl, const std::string& name, Precision p);

}  // namespace nbody
