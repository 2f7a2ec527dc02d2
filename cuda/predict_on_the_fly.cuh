#pragma once
// A body's predicted state as the block's select kernel computes it, read from xp, vp or predicted on the
// fly (PredictOnTheFly, neighbour_kernels.hpp): the same function on the same inputs, so the same bits.
#include "neighbour_kernels.hpp"
#include "sim/integrate/hermite.hpp"

namespace nbody {

// Body i predicted from its own time (its due tick less its step) to `tick`: select_predict_kernel's
// prediction of every body, and the on-the-fly one below. Plain pointers, not const __restrict__: the
// persistent irregular blocks (irregular_blocks.cu) read bodies other blocks of threads corrected earlier
// in the same kernel, which the read-only data path may not see.
template <typename T>
__device__ __forceinline__ void predict_state(const Vec4<T>& pos, const Vec4<T>& vel, const Vec4<T>& acc,
                                              const Vec4<T>& jerk, int level, std::int64_t due,
                                              std::int64_t tick, double dt, Vec4<T>& x, Vec4<T>& v) {
    const std::int64_t own = due - level_ticks(level);
    const T h = static_cast<T>(ticks_to_time(tick - own, dt));
    hermite_predict(pos, vel, acc, jerk, h, x, v);
}
template <typename T>
__device__ __forceinline__ void predict_body(const Vec4<T>* pos, const Vec4<T>* vel, const Vec4<T>* acc,
                                             const Vec4<T>* jerk, const int* level, const std::int64_t* due,
                                             std::size_t i, std::int64_t tick, double dt, Vec4<T>& x,
                                             Vec4<T>& v) {
    predict_state(pos[i], vel[i], acc[i], jerk[i], level[i], due[i], tick, dt, x, v);
}

template <typename T>
__device__ __forceinline__ void predicted(const Vec4<T>* __restrict__ xp, const Vec4<T>* __restrict__ vp,
                                          const PredictOnTheFly<T>& f, std::uint32_t i, Vec4<T>& x,
                                          Vec4<T>& v) {
    if (!f.pos) {
        x = xp[i];
        v = vp[i];
        return;
    }
    predict_body(f.pos, f.vel, f.acc, f.jerk, f.level, f.due, i, *f.tick, f.dt, x, v);
}

}  // namespace nbody
