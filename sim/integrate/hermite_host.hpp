#pragma once
// The block time steps (sim/integrate/block_steps.hpp) on host memory: the serial and openmp backends'
// own, and the generic version every other backend gets (it works on host copies of the bodies).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "block_steps.hpp"
#include "neighbour_scheme.hpp"
#include "sim/gravity/kernels_cpu.hpp"
#include "sim/source_exchange.hpp"
#include "sim/state.hpp"

namespace nbody {

class Backend;

// Block steps over `bodies`, which the owner keeps (a backend's own state; the object must outlive this).
// Per body: its clock in ticks, its level, its acceleration and jerk at its own time, and its predicted
// position and velocity. The active set's force and jerk run on all OpenMP threads where `parallel`; each
// body's sum is the same whatever the threads, so serial and openmp give the same bits.
template <typename T>
class HostBlockSteps final : public BlockSteps {
  public:
    HostBlockSteps(State<T>& bodies, bool parallel) : bodies_(bodies), parallel_(parallel) {}

    // A distributed run's slice: `bodies` are bodies [first, first + count) of exchange->total(); every
    // evaluation gathers all slices' predicted bodies, and every block's time is the earliest over all
    // slices (both collective: every slice makes the same calls). nullptr: the bodies are the whole system.
    void set_exchange(SourceExchange* exchange) {
        exchange_ = exchange;
        invalidate();
    }
    // Called whenever correct() has moved the bodies (the owner's acceleration cache is then stale).
    void set_on_move(std::function<void()> f) { on_move_ = std::move(f); }

    bool ready(const Params& p) override { return params_ && same_block_model(*params_, p); }
    void init(const Params& p) override;
    bool change_max_step(const Params& p) override;
    NextBlock next_block() override;
    void predict(std::int64_t tick) override;
    void evaluate() override;
    void correct(std::int64_t tick) override;
    void finish_max_step() override;
    // Also drops a stalled max step's collision events (the step is not counted).
    void invalidate() override {
        params_.reset();
        stalled_here_.reset();
        stalled_.reset();
        tally_ = {};
    }
    std::optional<std::size_t> stalled_body() const override { return stalled_; }
    // A distributed slice's export gathers every slice's state (collective); its import takes its own
    // slice of the whole system's. The neighbour scheme does not run distributed.
    std::optional<BlockState> export_state() override;
    bool import_state(const BlockState& s) override;
    bool resolves_collisions() const override { return exchange_ == nullptr; }
    void begin_max_step(double t) override { t_start_ = t; }
    void collide(const Params& p, std::int64_t tick) override;
    CollisionTally take_collisions() override { return std::exchange(tally_, CollisionTally{}); }
    BlockCounters counters() const override { return counters_; }
    std::vector<int> levels() const override { return params_ ? level_ : std::vector<int>{}; }

  private:
    // Keeps body i (this backend's index), just corrected at `tick`, where its steps `stalled`
    // (block_step_stalls) and no body of this slice did already. Not in the max step's last block, which
    // ends the max step anyway: the next max step judges a body that still stalls once it has run
    // kStallBlocks blocks (every backend counts so).
    void note_stall(std::size_t i, bool stalled, std::int64_t tick);
    // Whether this max step has run long enough for stalls to be judged (kStallBlocks).
    bool judging() const { return max_step_blocks_ > kStallBlocks; }
    // Force and jerk of the bodies in active_ at the predicted state of all bodies, into a1_ and j1_.
    void evaluate_active();

    // The neighbour scheme (Params::neighbours > 0, sim/integrate/neighbour_scheme.hpp), in
    // hermite_host_neighbours.cpp: the start after init's full evaluation, and each block's evaluation and
    // correction.
    void start_neighbours(const Params& p);
    void evaluate_neighbours();
    void correct_neighbours(std::int64_t tick);
    NeighbourArrays<T> neighbour_arrays();
    // How far ahead body i's list looks (neighbour_lookahead of its regular level).
    double lookahead(std::size_t i) const;
    // For each of `bodies`: every other body within its radius (with the look-ahead) at the predicted
    // state, listed in index order up to the capacity (build) or only counted, then its radius rescaled by
    // at most `factor` (next_neighbour_radius), as the device's list kernels do.
    void search_lists(const std::vector<std::size_t>& bodies, bool build, double factor);
    // Irregular force and jerk (G included) of `bodies` from their listed neighbours' predicted states.
    void irregular(const std::vector<std::size_t>& bodies, std::vector<Vec4<T>>& a, std::vector<Vec4<T>>& j);

    State<T>& bodies_;
    bool parallel_;
    SourceExchange* exchange_ = nullptr;
    std::function<void()> on_move_;
    std::optional<Params> params_;  // what init was given; empty: no valid state
    // The first stalled body (global index) of this slice since init (the lowest of its block: the active
    // bodies are corrected in index order), and the lowest of all slices' once next_block has agreed on it
    // (stalled_body()).
    std::optional<std::size_t> stalled_here_, stalled_;
    std::int64_t max_step_blocks_ = 0;  // blocks of this max step so far, the one being corrected included
    std::vector<Vec4<T>> acc_, jerk_;   // at each body's own time
    std::vector<Vec4<T>> xp_, vp_;      // predicted to the current block
    std::vector<std::int64_t> t_;       // each body's clock, ticks since the max step began
    std::vector<int> level_;
    std::vector<std::size_t> active_;         // this backend's indices of the active bodies
    std::vector<std::size_t> active_global_;  // the same in the whole system (the sources' indices)
    std::vector<Vec4<T>> a1_, j1_;            // force and jerk of the active bodies
    std::vector<Vec4<T>> all_x_, all_v_;      // a distributed run's gathered sources
    JerkScratch<T> scratch_;
    BlockCounters counters_;
    std::uint64_t pending_updates_ = 0;  // this slice's active bodies since the last count
    // Collisions: each body's last step (the swept test's interval), its index at the start of the max
    // step (the events' indices), the max step's start time, and the events not yet taken.
    std::vector<double> last_h_;
    std::vector<std::size_t> start_index_;
    double t_start_ = 0;
    CollisionTally tally_;
    // The neighbour scheme's state (k == 0: off). Per body: irregular force and jerk at its own time, the
    // regular at its regular time, that time and the regular level, the radius and the list (capacity
    // entries per body, count of them used). Per block: which active bodies are at a regular step, their
    // body indices, the irregular of every active body from its old list, and the regular ones' full sum
    // and irregular from the new list.
    struct Neighbours {
        int k = 0, capacity = 0;
        std::vector<Vec4<T>> ai, ji, ar, jr, d2, d3;  // d2, d3: the regular snap and crackle
        std::vector<std::int64_t> t_regular;
        std::vector<int> regular_level;
        std::vector<double> radius;
        std::vector<std::uint32_t> list, listed;
        std::vector<std::int32_t> regular_slot;  // per active body: its index in `regular`, or -1
        std::vector<std::size_t> regular;
        std::vector<Vec4<T>> ai_old, ji_old, af, jf, ai_new, ji_new;
    } nb_;
};

// The generic block steps of a backend that has none of its own: at the start of each max step the
// bodies come out (get_state) and, when they are no longer exactly the ones put back last time, the state
// restarts from them; at its end they go back (set_state). Host memory, all OpenMP threads, the backend's
// precision.
std::unique_ptr<BlockSteps> make_host_copy_block_steps(Backend& backend);

}  // namespace nbody
