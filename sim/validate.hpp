#pragma once
// Checks on a state before a run starts.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "params.hpp"
#include "state.hpp"

namespace nbody {

// Throws nbody::Error naming the first problem: a NaN/Inf value (body index), mass <= 0, or — with
// softening 0 — two bodies at the same point (both indices). O(N log N).
void validate_state(const HostState& s, const Params& p);

// The same checks on the values a backend of precision `precision` will hold: for f32 it also rejects
// values that overflow float, masses that underflow to 0, and bodies that only coincide once rounded.
void validate_state(const HostState& s, const Params& p, Precision precision);

// Where a state was read from: lines[i] is the 1-based line of body i in `file`.
struct BodySource {
    std::string file;
    std::vector<std::size_t> lines;
};

// As above; with a source (not null, one line per body) each message starts "FILE:LINE: " like the
// file reader's own, naming the line of the body at fault.
void validate_state(const HostState& s, const Params& p, Precision precision, const BodySource* source);

// Throws nbody::Error if dt, softening, G or damping are not usable (dt <= 0 / NaN / Inf, eps < 0, ...).
void validate_params(const Params& p);

// As above, and for f32 also rejects dt, G and softening^2 that are not normal floats (too large or too
// small for float precision: a dt that rounds to 0 would freeze the bodies while t advances).
void validate_params(const Params& p, Precision precision);

// For f32, throws nbody::Error if a time interval `what` (e.g. "the --t-end interval") is not a normal
// float. Does nothing for f64 beyond requiring a finite value > 0.
void validate_time_interval(const std::string& what, double interval, Precision precision);

// Throws nbody::Error where the clock at time t cannot take steps of dt: t + dt is t, or differs from it
// by more than 1% off dt (dt below ~50 of a double's spacings at t), so the simulated time would stop or
// drift while the bodies move. A step of dt from t adds dt to t (Backend::step).
void validate_clock_step(double t, double dt);

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
