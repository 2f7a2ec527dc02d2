#pragma once
// Whether a value is finite, by its exponent bits: right also in files built with fast-math flags, which
// may assume no NaN/Inf. Device code only.

namespace nbody {

__device__ __forceinline__ bool finite_bits(float v) {
    return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u;
}
__device__ __forceinline__ bool finite_bits(double v) {
    return (static_cast<unsigned long long>(__double_as_longlong(v)) & 0x7ff0000000000000ull) !=
           0x7ff0000000000000ull;
}

}  // namespace nbody
