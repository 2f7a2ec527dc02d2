#pragma once
// A snapshot: the bodies plus what an exact restart needs (parameters, step count, precision, where the
// bodies came from). Types only, so every file format includes this and not the dispatcher (snapshot.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/integrate/block_state.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

// The largest step counter a file may hold (2^50, ~10^15 steps: decades of a microsecond step). Anything
// above is a damaged counter (one flipped high bit), refused on reading; it leaves the run's arithmetic on
// steps (counter + --steps + --snapshot-every) far from overflowing.
constexpr std::int64_t kMaxStepCounter = std::int64_t(1) << 50;

// What a run was, beside its bodies. HDF5 snapshots and the CSVs nbody writes carry it; other files leave
// the defaults and has_params false.
struct RunInfo {
    bool has_params = false;  // false: params are Params{} (the file did not carry ours)
    Params params;
    std::int64_t step = 0;                 // steps taken since the run began
    Precision precision = Precision::f32;  // precision of the stored bodies (float or double datasets)
    std::string preset;                    // empty: the bodies came from a file
    std::uint64_t seed = 0;
    std::string program_version;  // of the writer; empty: written by another program
};

struct Snapshot {
    HostState state;  // state.t is the simulated time
    RunInfo info;
    // An adaptive integrator's state between max steps (levels, accelerations, jerks: block_state.hpp), so
    // that a restart goes on bit for bit; HDF5 alone holds it (/NBody/BlockSteps). Its model is
    // info.params but for its max step, and its precision info.precision.
    std::optional<BlockState> block;
    // One line each, for the user: things the reader did that they should know (gas read as bodies,
    // parameters missing). Not errors: the bodies are usable.
    std::vector<std::string> notes;
};

}  // namespace nbody
