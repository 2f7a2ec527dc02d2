#pragma once
// Host memory estimates, so a huge N fails with a clear message instead of an allocation crash.
#include <cstddef>
#include <string>

#include "sim/state.hpp"

namespace nbody {

// Bytes of host memory a run of n bodies needs in precision p (state, accelerations, scratch, HostState).
std::size_t host_bytes_needed(std::size_t n, Precision p);

// MemAvailable from /proc/meminfo (0 if unknown), capped by a cgroup's memory limit and by this process's
// RLIMIT_AS / RLIMIT_DATA (ulimit -v), less what it has mapped already.
std::size_t available_host_memory();

// Throws nbody::Error "N = 123 needs 4.2 GiB of host memory but only 1.1 GiB is available" if too big.
void check_host_memory(std::size_t n, Precision p);

// "1.5 GiB", "12 MiB", ...
std::string format_bytes(double bytes);

}  // namespace nbody
