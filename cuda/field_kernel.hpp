#pragma once
// Direct-sum acceleration and potential at arbitrary targets (no CUDA headers; device pointers).
#include <cstddef>

#include "sim/state.hpp"

namespace nbody {

// acc[i] (may be null) = G sum_j m_j r / (r^2 + eps2)^{3/2} and potential[i] (may be null) =
// -G sum_j m_j / sqrt(r^2 + eps2) at targets[i] from the n bodies at pos; a body exactly at a target is
// skipped. `stream` is a cudaStream_t.
template <typename T>
void launch_field(const Vec4<T>* pos, std::size_t n, const Vec4<T>* targets, std::size_t m, T G, T eps2,
                  Vec4<T>* acc, T* potential, void* stream);

}  // namespace nbody
