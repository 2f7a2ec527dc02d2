#pragma once
// The O(N) device kernels of a step and of the diagnostics, behind host functions (no CUDA headers).
// All pointers are device pointers; `stream` is a cudaStream_t.
#include <cstddef>
#include <cstdint>

#include "sim/gravity/interaction.hpp"
#include "sim/state.hpp"

namespace nbody {

// The failure flag: min over (step << 32 | body) of every body found non-finite; kNoBadBody when none.
// Kernels of step s skip their work when *bad < (s << 32): an earlier step failed, so the state stays
// as it was right after the failing step (the CPU backends stop there too). A body whose block steps
// stalled (block_step_stalls, sim/integrate/hermite.hpp) is recorded as (step << 32 | kStallFlag | body),
// after every non-finite body of its step, and stops that step where it is (stops_step): a stalled max
// step could not end. Bodies number below 2^31 on one device (16 bytes a body and more).
inline constexpr unsigned long long kNoBadBody = ~0ull;
inline constexpr unsigned long long kStallFlag = 1ull << 31;
inline unsigned long long bad_code(std::uint64_t step, std::uint64_t body) {
    return (step << 32) | body;
}
// Whether the flag `seen` stops the step whose code is `gate` (bad_code(step, 0)): an earlier step
// failed, or a body of this one stalled.
NBODY_HD bool stops_step(unsigned long long seen, unsigned long long gate) {
    return seen < gate || (seen >> 32 == gate >> 32 && (seen & kStallFlag) != 0);
}
// The body a flag names, without the stall flag.
inline std::uint64_t flagged_body(unsigned long long seen) {
    return seen & (kStallFlag - 1);
}

// The O(N) integrator primitives queued between two force evaluations, applied by one kernel pass in
// order: kick v += h a, drift x += h v, damp v *= h. Fusing them keeps a leapfrog step at the three
// launches a hand-written one needs (kick+drift, forces, kick).
enum class UpdateOp : unsigned char { kick, drift, damp };
inline constexpr int kMaxUpdateOps = 8;
template <typename T>
struct UpdateSequence {
    int count = 0;
    UpdateOp op[kMaxUpdateOps] = {};
    T h[kMaxUpdateOps] = {};
};

// Applies seq to every body; the new x and v are checked (bit tests) and failures recorded in *bad as
// bad_code(step, body). Skips all work when an earlier step already failed.
template <typename T>
void launch_update(Vec4<T>* pos, Vec4<T>* vel, const Vec4<T>* acc, std::size_t n,
                   const UpdateSequence<T>& seq, unsigned long long* bad, std::uint64_t step, void* stream);

// out[i] = float4(in[i]); out[i].w = 0 when zero_w (velocities).
template <typename T>
void launch_to_float4(const Vec4<T>* in, Vec4<float>* out, std::size_t n, bool zero_w, void* stream);

// The O(N) sums, in double: mass, kinetic energy, momentum (3), angular momentum about the origin (3),
// mass-weighted position (3). One row of kMomentSums doubles per block in `partials`; returns the number
// of rows written (the host adds them in order).
inline constexpr int kMomentSums = 11;
template <typename T>
int launch_moments(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n, double* partials, int max_rows,
                   void* stream);

// sum_{i < j} m_i m_j / sqrt(r_ij^2 + eps2), in double (O(N^2), each pair once); one double per block in
// `partials`, returns the rows written (the host adds them in order). The potential energy is -G times the
// total.
template <typename T>
int launch_potential(const Vec4<T>* pos, std::size_t n, double eps2, double* partials, int max_rows,
                     void* stream);

// Rows launch_moments and launch_potential (a fixed grid: its sums' order depends on N alone) use at most.
inline constexpr int kMaxMomentRows = 1024;
inline constexpr int kPotentialRows = 2048;

}  // namespace nbody
