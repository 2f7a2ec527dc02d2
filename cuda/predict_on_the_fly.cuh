#pragma once
// A body's predicted state as the block's select kernel computes it, read from xp, vp or predicted on the
// fly (PredictOnTheFly, neighbour_kernels.hpp): the same function on the same inputs, so the same bits.
#include "neighbour_kernels.hpp"
#include "sim/integrate/hermite.hpp"

namespace nbody {

template <typename T>
__device__ __forceinline__ void predicted(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                          const PredictOnTheFly<T>& f, std::uint32_t i, Vec4<T>& x,
                                          Vec4<T>& v) {
    if (!f.pos) {
        x = xp[i];
        v = vp[i];
        return;
    }
    const std::int64_t own = f.due[i] - level_ticks(f.level[i]);
    const T h = static_cast<T>(ticks_to_time(*f.tick - own, f.dt));
    hermite_predict(f.pos[i], f.vel[i], f.acc[i], f.jerk[i], h, x, v);
}

}  // namespace nbody
