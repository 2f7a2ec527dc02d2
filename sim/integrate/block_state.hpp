#pragma once
// What the block time steps (block_steps.hpp) keep between max steps, as one host copy: what a snapshot
// stores so that an adaptive run restarted from it goes on bit for bit as the run that wrote it would have,
// instead of starting its levels again from the bodies alone (BlockSteps::export_state, import_state).
//
// Between max steps every body's clock is at tick 0, so the state is per body: its level, and its
// acceleration and jerk at that time (the corrector's left end); with the neighbour scheme
// (Params::neighbours > 0, neighbour_scheme.hpp) also its split into irregular and regular force and jerk,
// the regular part's snap and crackle, its regular level, its list radius and its list. The predicted
// positions are not kept: every block predicts every body again. Nor is a body's last step (collisions):
// the swept test asks it only of the bodies just corrected.
//
// The vectors are held as doubles: a float run's values widen exactly and narrow back to the same bits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

struct BlockState {
    // The parameters the state was made with (its max step, eta, neighbour scheme, force model): a state
    // serves a run whose parameters same_block_model accepts, or that only changes the max step.
    Params model;
    Precision precision = Precision::f64;  // of the run that kept it (its values are exact in it)
    std::vector<int> level;
    std::vector<Vec4<double>> acc, jerk;  // w 0
    // The neighbour scheme (all empty with it off): per body, then the lists, neighbour_capacity(K) entries
    // per body of which `listed` are used (the rest 0).
    std::vector<Vec4<double>> irregular_acc, irregular_jerk, regular_acc, regular_jerk, regular_snap,
        regular_crackle;
    std::vector<int> regular_level;
    std::vector<double> radius;
    std::vector<std::uint32_t> listed, lists;

    std::size_t size() const { return level.size(); }
    bool has_neighbours() const { return !listed.empty(); }
};

// Why `s` cannot be the state of n bodies run with neighbour scheme K (model.neighbours): a size that does
// not match, a level out of [0, kMaxBlockLevel], a non-finite value, a radius not > 0, a list longer than
// its capacity or naming a body out of range or itself. Empty when it can.
std::string block_state_problem(const BlockState& s, std::size_t n);

}  // namespace nbody
