#pragma once
// The one interface every backend (serial, openmp, cuda) implements. A backend owns the bodies in its own
// precision and memory (host or device) and offers the primitives an integrator is made of: kick, drift,
// forces, damping, the finiteness check. The integrators themselves are written once, in
// sim/integrate/integrators.cpp, as sequences of these primitives; step() runs them.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "kept_state.hpp"
#include "params.hpp"
#include "sim/collide/collision_event.hpp"
#include "sim/integrate/block_steps.hpp"
#include "source_exchange.hpp"
#include "state.hpp"

namespace nbody {

// What step() did. A numerical blow-up stops the run at the first step that produced a NaN/Inf.
struct StepReport {
    std::int64_t steps_done = 0;
    bool finite = true;  // false: bad_step/bad_body say where it first went non-finite
    // true: an adaptive integrator's block steps stalled in step bad_step at body bad_body
    // (block_step_stalls, sim/integrate/hermite.hpp): that max step could not end, so the call stopped in
    // it, the bodies where the stall left them (a backend whose block steps work on host copies keeps them
    // as the step began) and the kept block state dropped; steps_done and time_advanced count the steps
    // before it.
    bool stalled = false;
    // true: an interrupt (set_interrupt) stopped the call inside step bad_step, an adaptive integrator's
    // max step: the bodies are back as that step began, the kept block state dropped; steps_done and
    // time_advanced count the steps before it.
    bool interrupted = false;
    std::int64_t bad_step = -1;  // 1-based index of the failing step within this call
    std::size_t bad_body = 0;    // lowest body index with a non-finite position or velocity, or stalled
    double time_advanced = 0;    // simulated time the call advanced, by the integrator's own clock
    // An adaptive integrator's work (0 for the fixed-step ones): blocks evaluated, and the force+jerk
    // evaluations of one body against all N summed over them (each block's active bodies, and all N at
    // each (re)start).
    std::int64_t blocks = 0;
    std::uint64_t body_updates = 0;
    // With the neighbour scheme (Params::neighbours > 0): the irregular steps, evaluations of one body
    // against its neighbour list only (body_updates then counts the full sums alone).
    std::uint64_t neighbour_updates = 0;
    // With Params::collisions on: what the steps' collisions did (merges shrink size()).
    CollisionTally collisions;

    bool ok() const { return finite && !stalled; }
};

// Where a backend keeps its bodies between steps.
enum class Residency {
    host,    // host memory: copies out are plain memcpy
    device,  // a GPU's memory: it can write float4 positions straight into device buffers it is handed
};

// Gravitational acceleration (and optionally potential) at arbitrary points, widened to double.
struct FieldSample {
    std::vector<Vec4<double>> acc;  // (ax, ay, az, 0) per point, G included
    std::vector<double> potential;  // phi per point (G included; empty unless asked)
};

// One body's numbers, widened to double.
struct BodyValues {
    Vec4<double> pos_mass;  // (x, y, z, m)
    Vec4<double> vel;       // (vx, vy, vz, 0)
};

// Where a step() call failed first: the 1-based step within the call and the body, with a non-finite
// position or velocity, or (stalled) whose block steps stalled (StepReport::stalled).
struct StepFailure {
    std::int64_t step = 0;
    std::size_t body = 0;
    bool stalled = false;
    bool interrupted = false;  // an interrupt stopped it (StepReport::interrupted)
};

class Backend {
  public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;  // registry name: "serial", "openmp", "cuda"
    virtual Precision precision() const = 0;
    virtual std::size_t size() const = 0;
    virtual Residency residency() const = 0;

    // Replace the bodies (and time). Invalidates the cached accelerations.
    virtual void set_state(const HostState& s) = 0;
    // Copy the bodies out (device -> host for GPU backends).
    virtual HostState get_state() const = 0;
    // An exact copy of the bodies (and time) where they live, for going back to (the window's timeline).
    // The default is a host copy through get_state; a device backend keeps it in device memory. Throws
    // nbody::Error (out of memory).
    virtual std::shared_ptr<const KeptState> keep_state() const;
    // Loads a kept state, from this backend or any other, as set_state would: the run then goes on
    // exactly as it did from there. The default is set_state(k.to_host()).
    virtual void restore_state(const KeptState& k);
    // Bytes keep_state takes for n bodies, and whether in device memory (the timeline's budget).
    virtual std::size_t kept_state_bytes(std::size_t n) const { return HostKeptState::bytes_for(n); }
    virtual bool keeps_states_on_device() const { return false; }

    // Advance `steps` steps of p.integrator with p.dt (sim/integrate/stepper.cpp: the same code for every
    // backend); stops early on a non-finite value. For an adaptive integrator each step is a max step of
    // p.dt, at whose end every body is at the same time again.
    StepReport step(const Params& p, std::int64_t steps);
    // An interrupt for long steps (a window closing, Ctrl-C in Python): once *flag is true, an adaptive
    // integrator's max step under way stops at its next block and step() reports interrupted, with the
    // bodies back as that max step began (a fixed step, one force evaluation, is not interrupted). While a
    // flag is set, each max step begins with keep_state(). nullptr (the default): none.
    void set_interrupt(const std::atomic<bool>* flag) { interrupt_ = flag; }
    // Where an adaptive integrator publishes how far its max steps have got while step() runs (a progress
    // line printed from another thread: sim/integrate/block_steps.hpp). nullptr (the default): nowhere.
    void set_progress(MaxStepProgress* progress) { progress_ = progress; }

    // The simulated time: what the integrator has advanced (set_state sets it).
    double time() const { return time_; }

    // The block time steps an adaptive integrator runs on (sim/integrate/block_steps.hpp), with their
    // state (levels, clocks, accelerations, jerks) where the bodies live. The default works on host copies
    // of the bodies, taken and put back once per max step through get_state/set_state, so that every
    // backend runs them; a backend with its own overrides this (the host backends do). nullptr: none can
    // run here (a distributed run whose backend has no block steps of its own).
    virtual BlockSteps* block_steps();
    // The block steps a step with p runs on: block_steps(), unless p.collisions is on and those do not
    // resolve contacts (the cuda backend's device ones): then the generic host-copy ones, which do (the
    // openmp backend's results, bit for bit, without the device's speed for that combination).
    BlockSteps* block_steps_for(const Params& p);
    // Between steps every body is already at the same time (an adaptive integrator's max step ends with
    // all of them); this also drops what an adaptive integrator keeps beside the bodies, so that the next
    // step starts from the bodies alone, as a run started from them does. Snapshots keep that state instead
    // (export_block_state); a no-op for the fixed-step integrators.
    virtual void synchronize();
    // The state the block steps that a step with p runs on keep between max steps (BlockSteps::export_state:
    // what a snapshot stores), or nullopt where they keep none or cannot give it, or p's integrator is not
    // adaptive. Collective in a distributed run.
    std::optional<BlockState> export_block_state(const Params& p);
    // Gives that state to the block steps a step with p runs on (BlockSteps::import_state), after the
    // bodies it belongs to were set (set_state drops it again). False where they cannot take it: the next
    // step then starts from the bodies alone.
    bool import_block_state(const Params& p, const BlockState& s);

    // The collisions of the step of length dt that just ended at time t_end (sim/collide/resolve.hpp:
    // detection, order, merge and bounce), applied to the bodies; merges remove bodies, so size() shrinks.
    // step() calls it after each step while p.collisions is on. The default works on host copies of the
    // bodies (get_state, then set_state when anything changed), so every backend resolves the same
    // contacts in the same order; the host backends override it to work in place.
    virtual CollisionTally collide(const Params& p, double dt, double t_end);

    // ---- Integrator primitives. h is a time interval in the scenario's units; the backend rounds it to
    // its precision. Device backends may queue and fuse these; nothing here waits for the device.
    // v += h a, with a = the acceleration buffer as it stands (refresh it with update_forces first).
    virtual void kick(double h) = 0;
    // x += h v. Marks the acceleration buffer stale (it no longer belongs to these positions).
    virtual void drift(double h) = 0;
    // Fills the acceleration buffer with a(x) from p's force algorithm, G and softening, unless it already
    // holds exactly that (the cache that makes leapfrog cost one force evaluation per step).
    virtual void update_forces(const Params& p) = 0;
    // v *= factor.
    virtual void damp(double factor) = 0;
    // Brackets of a step() call: begin_steps(count) before the first of `count` steps (at most 2^30 at a
    // time), begin_step(k) before step k (1-based), end_step after each (host backends
    // check finiteness there and return the first bad body; device backends check on the device and
    // return nullopt), end_steps after the last (device backends read their failure flag once, here).
    virtual void begin_steps(std::int64_t /*count*/) {}
    virtual void begin_step(std::int64_t /*k*/) {}
    virtual std::optional<std::size_t> end_step() = 0;
    virtual std::optional<StepFailure> end_steps() { return std::nullopt; }

    // Accelerations of the current positions, widened to double (tests compare backends with these).
    virtual std::vector<Vec4<double>> accelerations(const Params& p) = 0;
    // The accelerations a step uses for the current positions (the cached buffer, computed if stale),
    // at the given bodies only: the live force-error sample. The default computes them all.
    virtual std::vector<Vec4<double>> accelerations_of(const Params& p,
                                                       const std::vector<std::size_t>& bodies) {
        const std::vector<Vec4<double>> all = accelerations(p);
        std::vector<Vec4<double>> out(bodies.size());
        for (std::size_t k = 0; k < bodies.size(); ++k) out[k] = all[bodies[k]];
        return out;
    }
    // Interactions the force solver actually evaluated in its last evaluation of the bodies' forces (a
    // tree: body-body plus body-cell), or nullopt where that is N^2 by construction (the direct sum).
    virtual std::optional<std::uint64_t> last_force_interactions() const { return std::nullopt; }
    // Acceleration and (if with_potential) potential of the current bodies at arbitrary points: the
    // potential-field view and force-error sampling. A body exactly at a point adds nothing there.
    virtual FieldSample field_at(const Params& p, const std::vector<Vec4<double>>& points,
                                 bool with_potential) = 0;

    virtual Diagnostics diagnostics(const Params& p, bool with_potential) = 0;

    // Body i (< size()) exactly as held, widened to double: one body's numbers without the whole state (a
    // GPU backend reads back two float4 or double4). Its position, given to field_at, leaves the body
    // itself out of the sum there. The default copies the whole state.
    virtual BodyValues body(std::size_t i) const {
        const HostState s = get_state();
        return {s.pos_mass.at(i), s.vel.at(i)};
    }

    // Positions+mass as float4 for drawing. CPU backends copy into host memory the renderer uploads.
    virtual void copy_positions(Vec4<float>* host_out) const = 0;
    virtual void copy_velocities(Vec4<float>* host_out) const = 0;

    // The accelerations a step uses at the current positions (computed now if the cached ones are stale;
    // free after a leapfrog step) as float4 (ax, ay, az, 0): acceleration arrows. Host memory out.
    virtual void copy_accelerations(const Params& p, Vec4<float>* host_out) {
        const std::vector<Vec4<double>> a = accelerations(p);
        for (std::size_t i = 0; i < a.size(); ++i)
            host_out[i] = {float(a[i].x), float(a[i].y), float(a[i].z), 0.0f};
    }
    // Device-resident backends write the same into device memory the caller owns (a mapped GL buffer);
    // false where the bodies live in host memory.
    virtual bool write_accelerations_device(const Params& /*p*/, void* /*acc_out*/) { return false; }

    // Device-resident backends write positions+mass (and velocities, if vel_out is non-null) as float4
    // straight into device memory the caller owns (e.g. a mapped OpenGL buffer). Returns false if this
    // backend cannot (host residency).
    virtual bool write_positions_device(void* /*pos_out*/, void* /*vel_out*/) { return false; }

    // Makes this backend's bodies one slice of a larger system (a distributed run): from now on its
    // forces (update_forces, accelerations, accelerations_of) are those of all `exchange->total()` bodies
    // on its own, and diagnostics() reports its own bodies' share, with the potential energy
    // -G/2 sum_{own i} m_i sum_{all j != i} m_j / sqrt(r^2 + eps^2), so that the shares add up to the
    // whole system's. field_at stays the field of its own bodies. set_state afterwards replaces the slice.
    // Returns false if this backend cannot (it then stays as it was).
    virtual bool set_source_exchange(std::shared_ptr<SourceExchange> /*exchange*/) { return false; }

  protected:
    double time_ = 0;  // simulated time: set_state sets it, step() advances it, get_state reports it

  private:
    std::unique_ptr<BlockSteps> host_copy_block_steps_;  // the default block_steps(), made when first asked
    const std::atomic<bool>* interrupt_ = nullptr;       // set_interrupt's
    MaxStepProgress* progress_ = nullptr;                // set_progress's
};

}  // namespace nbody
