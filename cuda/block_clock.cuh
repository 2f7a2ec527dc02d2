#pragma once
// The block clock of the CUDA block time steps and the device pieces every kernel of a block shares:
// hermite_steps.cu launches a block as a few kernels (replayed as CUDA graphs), irregular_blocks.cu runs
// the neighbour scheme's irregular blocks in one persistent kernel; both read and write the same clock.
#include <cuda_runtime.h>

#include <cstdint>

#include "finite_bits.cuh"
#include "sim/integrate/hermite.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/state.hpp"
#include "step_kernels.hpp"

namespace nbody {

constexpr unsigned kBlock = 256;

// The block clock: what the kernels of a block read instead of launch parameters, so that a batch of
// blocks is one fixed sequence of launches, captured once as a CUDA graph and replayed. A block:
// schedule_kernel makes the earliest due tick the block's tick, select_predict_kernel predicts every body
// there and lists the due ones, the planned force+jerk kernels and correct_kernel work on that list. The
// earliest due tick of the next block is gathered on the way: select_predict_kernel takes the bodies not
// due, correct_kernel the corrected ones' new due ticks (due_min_kernel takes all, once a max step, for
// its first block). Once the max step's last block has run (or an earlier step failed), `live` drops to 0
// and every later kernel of the batch returns at once.
//
// The last block of a max step has every body due (every level's step divides the max step): it lists
// them in body order and, where the pairwise kernel serves n (pairwise_jerks.cu, each pair evaluated
// once), the batch stops before it (`held`) and the host runs it with that kernel, which a graph of
// one-sided launches could not switch to without an idle launch in every block.
struct BlockClock {
    std::int64_t tick;            // the block being run, in ticks since the max step began
    unsigned long long min_due;   // the smallest due tick of any body, gathered for the next block
    std::uint32_t active;         // the bodies due at tick, as select_predict_kernel lists them
    std::uint32_t live;           // 1 while the max step runs
    std::uint32_t hold_last;      // 1: stop before the max step's last block, for the host to run it
    std::uint32_t held;           // 1: stopped there (live is 0 then)
    unsigned long long gate;      // bad_code(step, 0) of the step being run; 0 outside one
    unsigned long long bad_seen;  // the failure flag as the last schedule_kernel saw it
    unsigned long long blocks;    // blocks run, and the sum of their active counts (never reset)
    unsigned long long updates;   // (with the neighbour scheme: of their regular counts, the full sums)
    std::uint32_t regular;        // the neighbour scheme: the due bodies whose regular step is due too
    unsigned long long irregular_updates;  // the neighbour scheme: the sum of the active counts
    unsigned long long run_blocks;  // of `blocks`, those the persistent kernel ran (irregular_blocks.cu)
    unsigned long long run_regular_blocks;  // of those, the ones with regular steps
    // The neighbour scheme: the earliest regular due tick of any body (regular_min_kernel), and 1 to stop
    // a batch before the block that holds it: the batches run the irregular steps alone (no prediction of
    // every body, no full sums), the host runs each block with a regular step as a graph of its own.
    unsigned long long min_regular_due;
    std::uint32_t hold_regular;
    unsigned long long
        first_block;  // `blocks` when this max step began: stalls are judged after kStallBlocks
};

// Whether the max step of clock c has run long enough for stalls to be judged (kStallBlocks).
__device__ __forceinline__ bool judging_stalls(const BlockClock* c) {
    return c->blocks - c->first_block > static_cast<unsigned long long>(kStallBlocks);
}

// The smallest of every thread's v in this block into *target (one atomic per block). Every thread of the
// block calls it.
__device__ __forceinline__ void block_min_into(unsigned long long v, unsigned long long* target) {
    __shared__ unsigned long long warp_min[kBlock / 32];
#pragma unroll
    for (unsigned o = 16; o > 0; o /= 2) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (threadIdx.x % 32 == 0) warp_min[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned w = 1; w < blockDim.x / 32; ++w) v = min(v, warp_min[w]);
        if (v != ~0ull) atomicMin(target, v);
    }
}

// The slot of this lane's item in a list counted by *count, for the lanes of the warp where `has`: one
// atomic per warp, slots in lane order. Every lane of the warp calls it; the result is meaningful where
// `has`.
__device__ __forceinline__ unsigned append_lanes(bool has, std::uint32_t* count) {
    const unsigned lanes = __ballot_sync(0xffffffffu, has);
    if (lanes == 0) return 0;
    const unsigned lane = threadIdx.x % 32;
    const int leader = __ffs(lanes) - 1;
    unsigned first = 0;
    if (int(lane) == leader) first = atomicAdd(count, unsigned(__popc(lanes)));
    first = __shfl_sync(0xffffffffu, first, leader);
    return first + __popc(lanes & ((1u << lane) - 1));
}

// Whether body i (of n; past n: none) is due at `tick`; a body not due gathers its due tick into `stays`,
// the candidates for the next block. The select phase of both block paths (due_at: from the due tick).
__device__ __forceinline__ bool due_at(std::int64_t due, std::int64_t tick, unsigned long long& stays) {
    if (due == tick) return true;
    stays = min(stays, static_cast<unsigned long long>(due));
    return false;
}
__device__ __forceinline__ bool due_now(const std::int64_t* due, std::size_t i, std::size_t n,
                                        std::int64_t tick, unsigned long long& stays) {
    return i < n && due_at(due[i], tick, stays);
}

// A corrected body i stored: its state, its new level and clock (due one step after `tick`), its due tick
// gathered into next_due, a non-finite result recorded in *bad as bad_code(step, body), a stall
// (`stalled`: block_step_stalls; in a block before the max step's last, as on the host) as
// bad_code(step, kStallFlag | body).
template <typename T>
__device__ __forceinline__ void store_corrected(std::uint32_t i, const Vec4<T>& x, const Vec4<T>& v,
                                                const Vec4<T>& a, const Vec4<T>& j, int l, std::int64_t tick,
                                                bool stalled, Vec4<T>* __restrict__ pos,
                                                Vec4<T>* __restrict__ vel, Vec4<T>* __restrict__ acc,
                                                Vec4<T>* __restrict__ jerk, int* __restrict__ level,
                                                std::int64_t* __restrict__ due,
                                                unsigned long long* __restrict__ bad,
                                                unsigned long long step_code, unsigned long long& next_due) {
    pos[i] = x;
    vel[i] = v;
    acc[i] = a;
    jerk[i] = j;
    level[i] = l;
    due[i] = tick + level_ticks(l);
    next_due = min(next_due, static_cast<unsigned long long>(tick + level_ticks(l)));
    if (bad) {
        const bool ok = finite_bits(x.x) && finite_bits(x.y) && finite_bits(x.z) && finite_bits(v.x) &&
                        finite_bits(v.y) && finite_bits(v.z);
        if (!ok) {
            atomicMin(bad, step_code | i);
        } else if (stalled && tick != kTicksPerMaxStep) {
            atomicMin(bad, step_code | kStallFlag | i);
        }
    }
}

// The neighbour scheme's correction of due body i at `tick` (neighbour_correct_body) from its predicted
// state and its forces, on its own state held by the caller: its acceleration and jerk (a, j), level l and
// due tick `due` in, the corrected x, v, a, j, l out and `due` one step of the new level after `tick`
// (what store_corrected stores). Reads and writes only body i's neighbour arrays. Returns
// whether its steps stall there (neighbour_correct_body, asked only where `judge`; store_corrected records
// it).
template <typename T>
__device__ __forceinline__ bool correct_neighbour_state(std::uint32_t i, std::int64_t tick, double dt,
                                                        double eta, double eta_regular,
                                                        const NeighbourArrays<T>& s, const Vec4<T>& xpi,
                                                        const Vec4<T>& vpi, const NeighbourForces<T>& f,
                                                        Vec4<T>& a, Vec4<T>& j, int& l, std::int64_t& due,
                                                        Vec4<T>& x, Vec4<T>& v, bool judge) {
    const std::int64_t own = due - level_ticks(l);
    const bool stalled =
        neighbour_correct_body(s, i, tick, own, dt, eta, eta_regular, xpi, vpi, f, a, j, x, v, l, judge);
    due = tick + level_ticks(l);
    return stalled;
}

// The neighbour scheme's correction of due body i at `tick` (neighbour_correct_body) from its predicted
// state and its forces, its own state read from the *_from arrays and stored (store_corrected) into
// pos ... due: the same arrays, or another copy of them (the persistent kernel's second slot). Reads only
// body i's own state.
template <typename T>
__device__ __forceinline__ void correct_neighbour_due_into(
    std::uint32_t i, std::int64_t tick, double dt, double eta, double eta_regular,
    const NeighbourArrays<T>& s, const Vec4<T>& xpi, const Vec4<T>& vpi, const NeighbourForces<T>& f,
    const Vec4<T>* acc_from, const Vec4<T>* jerk_from, const int* level_from, const std::int64_t* due_from,
    Vec4<T>* pos, Vec4<T>* vel, Vec4<T>* acc, Vec4<T>* jerk, int* level, std::int64_t* due,
    unsigned long long* bad, unsigned long long step_code, bool judge, unsigned long long& next_due) {
    int l = level_from[i];
    std::int64_t d = due_from[i];
    Vec4<T> x, v, a = acc_from[i], j = jerk_from[i];
    const bool stalled =
        correct_neighbour_state(i, tick, dt, eta, eta_regular, s, xpi, vpi, f, a, j, l, d, x, v, judge);
    store_corrected(i, x, v, a, j, l, tick, stalled, pos, vel, acc, jerk, level, due, bad, step_code,
                    next_due);
}

// The same, read from and stored into the same arrays.
template <typename T>
__device__ __forceinline__ void correct_neighbour_due(
    std::uint32_t i, std::int64_t tick, double dt, double eta, double eta_regular,
    const NeighbourArrays<T>& s, const Vec4<T>& xpi, const Vec4<T>& vpi, const NeighbourForces<T>& f,
    Vec4<T>* pos, Vec4<T>* vel, Vec4<T>* acc, Vec4<T>* jerk, int* level, std::int64_t* due,
    unsigned long long* bad, unsigned long long step_code, bool judge, unsigned long long& next_due) {
    correct_neighbour_due_into(i, tick, dt, eta, eta_regular, s, xpi, vpi, f, acc, jerk, level, due, pos, vel,
                               acc, jerk, level, due, bad, step_code, judge, next_due);
}

}  // namespace nbody
