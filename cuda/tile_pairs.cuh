#pragma once
// The order in which the pairwise kernels' blocks take tile pairs (pairwise_forces.cu, pairwise_jerks.cu).
#include <cuda_runtime.h>

namespace nbody {

// Pair index k of the grid schedule: the pairs a < b in b-major order (0,1), (0,2), (1,2), (0,3), ...,
// so consecutive blocks share tile b (it stays in L2). b is the largest with b (b - 1) / 2 <= k. K: unsigned
// for the force kernels' grids, unsigned long long for the potential's items (more than 2^32 pairs).
template <typename K>
__device__ __forceinline__ void grid_pair(K k, unsigned& a, unsigned& b) {
    unsigned long long bb = (unsigned long long)((1.0 + sqrt(1.0 + 8.0 * double(k))) * 0.5);
    while (bb * (bb - 1) / 2 > k) --bb;
    while ((bb + 1) * bb / 2 <= k) ++bb;
    b = unsigned(bb);
    a = unsigned(k - bb * (bb - 1) / 2);
}

}  // namespace nbody
