#pragma once
// A backend over K processes: the decorator that Cluster::distribute puts around each process's own
// backend. Only built with MPI.
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "sim/backend.hpp"

namespace nbody {

// Body counts of the K contiguous slices of n bodies: n / K each, the first n % K one more.
std::vector<std::size_t> slice_counts(std::size_t n, int k);

// The decorator: `local` steps this process's slice; forces gather every slice's positions and masses
// each evaluation (MPI_Allgatherv); failures, diagnostics and counts are reduced over `comm`. Throws
// nbody::Error if `local` cannot hold a slice (Backend::set_source_exchange).
std::unique_ptr<Backend> make_distributed_backend(std::unique_ptr<Backend> local, MPI_Comm comm);

}  // namespace nbody
