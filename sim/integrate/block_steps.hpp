#pragma once
// Block time steps: what a backend offers an adaptive integrator (--integrator hermite) so that it can
// keep each body's own clock, level, acceleration and jerk in its own memory (host arrays, or a GPU's) and
// advance a subset of the bodies. The integrator (sim/integrate/hermite.cpp) only orders these calls; the
// physics of each one is sim/integrate/hermite.hpp's, shared by host and device. A backend offers them
// through Backend::block_steps(); one that does not gets a generic host version that copies its bodies out
// and back once per max step.
//
// One max step (Params::dt) of the integrator:
//   if (!ready(p) && !change_max_step(p)) init(p);   every body at tick 0
//   do { b = next_block(); [stop if stalled_body()]; predict(b.tick); evaluate(); correct(b.tick);
//        [collide(p, b.tick)] } while (b.tick < kTicksPerMaxStep);
//   finish_max_step();                      every body at tick kTicksPerMaxStep: clocks back to 0
// Between max steps every body is at the same time, so get_state, diagnostics, drawing and snapshots see
// one consistent system. There the kept state can be copied out (export_state) and into block steps of the
// same bodies (import_state): a snapshot stores it, so that a restart goes on as the unbroken run.
// Backend::synchronize() drops it instead (invalidate): what follows then depends on the bodies alone.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "block_state.hpp"
#include "sim/collide/collision_event.hpp"
#include "sim/params.hpp"

namespace nbody {

// The next block: its time, in ticks since the max step began (sim/integrate/hermite.hpp), and how many
// bodies are due then (the active set: every body with t_i + level_ticks(level_i) == tick).
struct NextBlock {
    std::int64_t tick = 0;
    std::size_t active = 0;
};

// What the block steps have done since the backend was made (never reset; differences make rates).
struct BlockCounters {
    std::int64_t blocks = 0;         // blocks evaluated
    std::uint64_t body_updates = 0;  // sum of the active bodies over those blocks: force+jerk evaluations
                                     // of one body against all N (init's all-body evaluations included)
    std::int64_t starts = 0;         // init calls: (re)starts from the bodies alone
    // The neighbour scheme's irregular steps (Params::neighbours > 0): evaluations of one body against its
    // neighbour list only. body_updates then counts the full sums alone (the regular steps and starts).
    std::uint64_t neighbour_updates = 0;
};

// How far the max steps under way have got, for a progress line that another thread prints while a long
// max step runs (Backend::set_progress): the max steps finished since it was handed over, and the tick of
// the last block done in the one under way, published where the max step looks for an interrupt (after
// each block on the host, at each return to the host on a device). Relaxed atomics: a progress line reads
// them, nothing synchronizes on them.
struct MaxStepProgress {
    std::atomic<std::int64_t> finished{0};
    std::atomic<std::int64_t> tick{0};
    std::atomic<std::int64_t> blocks{0};  // the blocks done in the max step under way, as of `tick`
    // A step call begins: no block of its max step done yet.
    void begin() {
        tick.store(0, std::memory_order_relaxed);
        blocks.store(0, std::memory_order_relaxed);
    }
    // The share (0..1) of the max step under way that its blocks have done: tick / kTicksPerMaxStep.
    double share() const;
};

class BlockSteps {
  public:
    virtual ~BlockSteps() = default;

    // Whether the kept state (levels, clocks, accelerations, jerks) still belongs to the bodies and to p:
    // false before the first init, after the bodies were changed from outside (set_state, kick, drift,
    // damp), after invalidate(), or when p's dt, eta, G, softening, force or neighbour scheme (neighbours,
    // and with it eta_regular) differ from the kept state's (init's, or change_max_step's dt).
    virtual bool ready(const Params& p) = 0;
    // (Re)starts from the bodies' positions and velocities at the current time: the acceleration and jerk
    // of every body against all (a force evaluation), each body's level from hermite_start_step, every
    // clock at tick 0. Keeps p's dt (the max step), eta (and the neighbour scheme's eta_regular), G and
    // softening for the calls below.
    virtual void init(const Params& p) = 0;
    // Where the kept state is not ready for p only because p's max step (dt) differs from the kept state's,
    // and the bodies are as the last max step left them: goes on with p's max step instead of a restart, each
    // level moved by max_step_level_shift (the clocks are all at tick 0 between max steps, so any level
    // sits on the new grid), and returns true. False (nothing changed): init(p) must follow.
    virtual bool change_max_step(const Params& /*p*/) { return false; }
    // The earliest time any body is due (the smallest t_i + level_ticks(level_i)) and the bodies due then,
    // which become the active set. A GPU backend reads back this one small result per block.
    virtual NextBlock next_block() = 0;
    // Predicts every body's position and velocity to `tick` (hermite_predict from its own time).
    virtual void predict(std::int64_t tick) = 0;
    // Acceleration and jerk of each active body at its predicted state, against every predicted body
    // (add_interaction_jerk, self excluded, G included).
    virtual void evaluate() = 0;
    // Corrects every active body (hermite_correct), sets its clock to `tick` and its next level
    // (level_for_step of the criterion's step, then next_level). A body whose steps stall there
    // (block_step_stalls) is kept for stalled_body().
    virtual void correct(std::int64_t tick) = 0;
    // The lowest index (in the whole system) of a body whose steps stalled in a block of this max step
    // before its last, once next_block has seen it (collective where the bodies are one slice of several:
    // every slice then names the same body); the max step stops there, with the bodies where the stall
    // left them. Empty after init and invalidate. Block steps that report a stall through the backend's
    // failure flag instead (the device's: Backend::end_steps) leave it empty.
    virtual std::optional<std::size_t> stalled_body() const { return std::nullopt; }
    // After the block at kTicksPerMaxStep (every body there): the clocks start the next max step at 0.
    virtual void finish_max_step() = 0;
    // One whole max step after ready/init: the blocks in the order above, then finish_max_step. Block
    // steps that can run the blocks without the host in between (a GPU's) override it; the result is the
    // same as the calls above in this order.
    virtual void max_step(const Params& p);
    // Drops the kept state: the next max step starts with init, from the bodies alone.
    virtual void invalidate() = 0;

    // The kept state between max steps (block_state.hpp), as a host copy; nullopt where there is none
    // (before init, after invalidate, in a max step that stopped mid-way) or these block steps cannot give
    // it. Collective where the bodies are one slice of several (every slice gets the whole system's).
    virtual std::optional<BlockState> export_state() { return std::nullopt; }
    // Takes a state that export_state gave for these bodies (the whole system's where they are a slice):
    // the next max step with parameters the state serves goes on as it would have from where it was
    // exported, bit for bit. False, keeping nothing of it, where it is not for these bodies (their count,
    // the run's precision, block_state_problem) or these block steps cannot take it; the next max step
    // then starts from the bodies alone.
    virtual bool import_state(const BlockState& /*s*/) {
        invalidate();
        return false;
    }

    // Collisions (sim/collide/, p.collisions on) are found and resolved at every block, after correct():
    // each active body against every body at the block time (the others as predicted there), swept
    // straight back over the active body's last step. Whether these block steps do that; a collision run
    // on a backend whose block steps do not gets the generic host-copy ones (Backend::block_steps_for).
    virtual bool resolves_collisions() const { return false; }
    // The time at which the coming max step begins, for the collision events' times.
    virtual void begin_max_step(double /*t*/) {}
    // The collisions of the block just corrected at `tick`, resolved as sim/collide/resolve.hpp says for
    // one step (ascending (i, j), a body once per block); the bodies they touch restart their clocks there
    // (force and jerk at the block time, a start level that sits on the block grid), merged bodies leave.
    virtual void collide(const Params& /*p*/, std::int64_t /*tick*/) {}
    // The events since the last call; indices are the bodies' at the start of their max step, as a fixed
    // step's events are before its merges.
    virtual CollisionTally take_collisions() { return {}; }

    virtual BlockCounters counters() const = 0;
    // Each body's current level (its step is dt / 2^level), host copy; empty before init.
    virtual std::vector<int> levels() const = 0;
    // True for the generic version that works on host copies of the bodies (it only sees the bodies a
    // backend's get_state returns, so it cannot serve one slice of a distributed run).
    virtual bool host_copy() const { return false; }

    // An interrupt (Backend::set_interrupt): once *flag is true, a max step stops at its next block (a
    // device's: at its next return to the host) and interrupted() says so until clear_interrupted(); the
    // caller puts the bodies back as the max step began and drops the kept state (Backend::step).
    void set_interrupt(const std::atomic<bool>* flag) { interrupt_ = flag; }
    bool interrupted() const { return interrupted_; }
    void clear_interrupted() { interrupted_ = false; }

    // Where a max step's progress is published (MaxStepProgress); nullptr (the default): nowhere.
    void set_progress(MaxStepProgress* progress) { progress_ = progress; }
    // A max step ended (advance_hermite): one more finished, the next begins at tick 0.
    void report_max_step_done() {
        if (!progress_) return;
        progress_->begin();
        progress_->finished.fetch_add(1, std::memory_order_relaxed);
    }

  protected:
    // The blocks of the max step under way are done up to `tick` (ticks since it began), `blocks` of them.
    void report_tick(std::int64_t tick, std::int64_t blocks) {
        if (!progress_) return;
        progress_->blocks.store(blocks, std::memory_order_relaxed);
        progress_->tick.store(tick, std::memory_order_relaxed);
    }
    // Whether to stop here for an interrupt (then interrupted() from now on).
    bool interrupt_requested() {
        if (interrupt_ && interrupt_->load(std::memory_order_relaxed)) interrupted_ = true;
        return interrupted_;
    }

  private:
    const std::atomic<bool>* interrupt_ = nullptr;
    bool interrupted_ = false;
    MaxStepProgress* progress_ = nullptr;
};

// Whether a block state made by init(a) still serves parameters b: same max step, eta, neighbour scheme
// (its eta_regular too, where it is on) and force model.
bool same_block_model(const Params& a, const Params& b);
// The same but for the max step (dt): what change_max_step can serve.
bool same_block_model_but_dt(const Params& a, const Params& b);

// Throws nbody::Error unless p's force algorithm serves block steps: the direct sum (the tree gives no
// jerk). validate_params calls it for every adaptive integrator.
void check_block_model(const Params& p);

class Backend;
// One max step p.dt of the Hermite integrator over b.block_steps(), in the order above
// (sim/integrate/hermite.cpp). Throws nbody::Error if b offers no block steps.
void advance_hermite(Backend& b, const Params& p);

}  // namespace nbody
