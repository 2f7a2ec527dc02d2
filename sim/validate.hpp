#pragma once
// Checks on a state before a run starts.
#include <cstdint>
#include <cstring>
#include <string>

#include "params.hpp"
#include "state.hpp"

namespace nbody {

// Throws nbody::Error naming the first problem: a NaN/Inf value (body index), mass <= 0, or — with
// softening 0 — two bodies at the same point (both indices). O(N log N).
void validate_state(const HostState& s, const Params& p);

// The same checks on the values a backend of precision `precision` will hold: for f32 it also rejects
// values that overflow float, masses that underflow to 0, and bodies that only coincide once rounded.
void validate_state(const HostState& s, const Params& p, Precision precision);

// Throws nbody::Error if dt, softening, G or damping are not usable (dt <= 0 / NaN / Inf, eps < 0, ...).
void validate_params(const Params& p);

// True if every component is finite. Tests the exponent bits, so -ffast-math cannot remove the check.
inline bool is_finite_bits(float v) {
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return (b & 0x7f800000u) != 0x7f800000u;
}
inline bool is_finite_bits(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return (b & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}

}  // namespace nbody
