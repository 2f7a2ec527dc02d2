#pragma once
// The two host backends: "serial" (each pair once, one thread) and "openmp" (a row per body, all threads).
#include <memory>

#include "backend.hpp"

namespace nbody {

enum class CpuKind { serial, openmp };

// An empty backend of the given kind and precision.
std::unique_ptr<Backend> make_cpu_backend(CpuKind kind, Precision p);

}  // namespace nbody
