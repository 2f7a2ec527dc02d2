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
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
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

// The neighbour scheme's six per-body vectors of s (a BlockState, const or not), each with its name in
// files and messages.
template <typename State>
auto neighbour_vectors(State& s) {
    return std::array{std::pair{"IrregularAcceleration", &s.irregular_acc},
                      std::pair{"IrregularJerk", &s.irregular_jerk},
                      std::pair{"RegularAcceleration", &s.regular_acc},
                      std::pair{"RegularJerk", &s.regular_jerk},
                      std::pair{"RegularSnap", &s.regular_snap},
                      std::pair{"RegularCrackle", &s.regular_crackle}};
}

// A block steps' vectors (x, y, z; w unused) as a state holds them, and back in the run's precision:
// entries [first, first + count) (exact: they were T values, widened).
template <typename T>
std::vector<Vec4<double>> widened(const std::vector<Vec4<T>>& v) {
    std::vector<Vec4<double>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = {double(v[i].x), double(v[i].y), double(v[i].z), 0.0};
    return out;
}
template <typename T>
std::vector<Vec4<T>> narrowed(const std::vector<Vec4<double>>& v, std::size_t first, std::size_t count) {
    std::vector<Vec4<T>> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        const Vec4<double>& a = v[first + i];
        out[i] = {static_cast<T>(a.x), static_cast<T>(a.y), static_cast<T>(a.z), T(0)};
    }
    return out;
}

// The lists as a state holds them: each body's row of `capacity` with only its `listed` entries kept, the
// rest 0 (a block steps' rows keep entries left from longer lists before).
std::vector<std::uint32_t> used_lists(const std::vector<std::uint32_t>& lists,
                                      const std::vector<std::uint32_t>& listed, std::size_t capacity);

// Why `s` cannot be the state of n bodies run with neighbour scheme K (model.neighbours): a size that does
// not match, a level out of [0, kMaxBlockLevel], a non-finite value, a radius not > 0, a list longer than
// its capacity or naming a body out of range or itself. Empty when it can.
std::string block_state_problem(const BlockState& s, std::size_t n);

}  // namespace nbody
