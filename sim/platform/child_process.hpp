#pragma once
// Work done in a forked child process, for libraries that are not robust against hostile input: Debian's
// libhdf5 1.10 reads out of bounds and frees twice on some corrupt files (found by tests/fuzz/fuzz_hdf5).
// A crash there then kills the child, and the program gets one nbody::Error instead of dying with it.
#include <cstdint>
#include <functional>
#include <string>

namespace nbody {

// Runs work() in a child process (fork, no exec) and returns the bytes it returned. An exception thrown
// by work() is rethrown here as nbody::Error with the same message. If the child dies without answering
// (a signal, a sanitizer's report, an exit), throws nbody::Error "WHAT: CRASHED (signal 11, Segmentation
// fault)". POSIX only. The child is a copy of the calling thread alone: work() must not wait on other
// threads nor start OpenMP regions, and a signal ends the child without touching the parent's temporary
// files. Throws nbody::Error if no child can be started.
// extra_address_space > 0: the child may map at most this many bytes beyond what it inherited
// (RLIMIT_AS), so a library that allocates without end on a crafted input fails an allocation (an error
// or a crash there) instead of taking the machine's memory.
std::string run_in_child(const std::function<std::string()>& work, const std::string& what,
                         const std::string& crashed, std::uint64_t extra_address_space = 0);

}  // namespace nbody
