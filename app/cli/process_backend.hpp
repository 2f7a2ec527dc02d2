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

// What p cannot do under mpirun yet, refused before any step with the one line `nbody run` and `nbody
// bench` share (nbody::Error): the neighbour scheme (its lists index the whole system) and collisions
// (contacts across processes are not searched). Nothing with one process.
void check_distributable(const Cluster& cl, const Params& p);

// An adaptive integrator needs `backend`'s own block steps (under mpirun DistributedBackend has none where
// the local backend's would be host copies of one slice): throws nbody::Error naming the backend `name`.
void check_block_steps(const Params& p, Backend& backend, const std::string& name);

// Starts preparing the device of the backend `requested` names (empty: the first device backend, which
// the thread asks whether it can run before its warm_up, backends/registry.hpp) on a thread of its own, for
// the caller to wait for before create_process_backend: a run's start-up (its scenario, its files) and the
// device's then overlap. Not in a distributed run (each process picks its device first), nor for a host
// backend or a name that is no backend (the future is then empty). Never throws.
std::future<void> warm_up_process_backend(const Cluster& cl, const std::string& requested);

}  // namespace nbody
