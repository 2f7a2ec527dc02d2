#pragma once
// The Barnes-Hut tree as a host force solver (Params::force == tree): the octree rebuilt from the bodies
// at every evaluation, then one walk per group of 32 targets (sim/gravity/octree.hpp,
// sim/gravity/tree_walk.hpp).
#include <memory>

#include "force_solver.hpp"

namespace nbody {

// par == serial: one thread; openmp: the build and the walk on every OpenMP thread.
template <typename T>
std::unique_ptr<HostForceSolver<T>> make_host_tree_solver(HostParallelism par);

}  // namespace nbody
