#include "simulation.hpp"

#include "backends/registry.hpp"
#include "sim/collide/radius.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody::python {

std::unique_ptr<Backend> create_backend_or_fail(const std::string& name, Precision p) {
    const std::string resolved = resolve_backend(name);  // an unknown name is bad input (ValueError)
    try {
        return create_backend(resolved, p);
    } catch (const Error& e) {
        throw RunFailure(e.what());  // known but not usable here: a fact of this machine, not of the input
    }
}

Simulation::Simulation(const ScenarioOptions& o, std::int64_t default_n, std::ostream& notes) {
    Scenario sc = resolve_scenario(o, default_n, notes);
    backend_ = create_backend_or_fail(sc.backend, sc.precision);
    backend_->set_state(sc.state);
    // A loaded snapshot's adaptive integrator state: the run goes on as the saved one would have.
    if (sc.block) backend_->import_block_state(sc.params, *sc.block);
    params_ = sc.params;
    precision_ = sc.precision;
    step_ = sc.step;
    preset_ = sc.preset;
    seed_ = sc.seed;
}

void Simulation::set_params(const Params& p) {
    validate_params(p, precision_);
    const bool radii_needed = p.collisions != CollisionMode::off &&
                              (params_.collisions == CollisionMode::off || p.density != params_.density);
    if (radii_needed) {
        // Collisions just turned on (or a new density): points get their radius now, not at the next step
        // (new bodies for the backend: a hermite run restarts its levels, as a set_state does).
        HostState s = backend_->get_state();
        if (assign_default_radii(s, p.density) > 0) backend_->set_state(s);
    }
    params_ = p;  // after the one call that can fail (a device out of memory)
}

void Simulation::set_backend(const std::string& name) {
    // The backend it already is: nothing moves, and an adaptive integrator's levels stay (a new backend of
    // the same kind would start them again from the bodies).
    if (resolve_backend(name) == backend_->name()) return;
    auto next = create_backend_or_fail(name, precision_);
    // Every body is at one time between steps; what an adaptive integrator keeps beside them goes along,
    // as it does into a snapshot, so the run goes on as it would have on the old backend.
    const std::optional<BlockState> block = backend_->export_block_state(params_);
    next->set_state(backend_->get_state());
    if (block) next->import_block_state(params_, *block);
    next->set_interrupt(interrupt_);
    backend_ = std::move(next);
}

void Simulation::set_precision(Precision p) {
    if (p == precision_) return;
    const HostState s = backend_->get_state();
    validate_params(params_, p);
    validate_state(s, params_, p);
    auto next = create_backend_or_fail(backend_->name(), p);
    next->set_state(s);
    next->set_interrupt(interrupt_);
    backend_ = std::move(next);
    precision_ = p;
}

void Simulation::set_state(const HostState& s) {
    if (!is_finite_bits(s.t)) throw Error("t must be a finite number (got " + format_g(s.t) + ")");
    validate_state(s, params_, precision_);
    if (params_.collisions == CollisionMode::off) return backend_->set_state(s);
    HostState sized = s;
    assign_default_radii(sized, params_.density);
    backend_->set_state(sized);
}

void Simulation::check_finite(const StepReport& r, double t0, double dt) {
    if (r.ok()) return;
    // The command line's words (cmd_run.cpp), counting steps from the start of this call.
    if (r.stalled) {
        throw RunFailure("block steps stalled in max step " + std::to_string(r.bad_step) +
                         " (from t = " + format_g(t0 + static_cast<double>(r.bad_step - 1) * dt) +
                         "): " + stall_reason(r.bad_body, params_, precision_));
    }
    throw RunFailure("numerical blow-up at step " + std::to_string(r.bad_step) +
                     " (t = " + format_g(t0 + static_cast<double>(r.bad_step) * dt) + "): body " +
                     std::to_string(r.bad_body) + " has a non-finite position or velocity");
}

void Simulation::tally_collisions(const StepReport& r) {
    merges_ += r.collisions.merges;
    bounces_ += r.collisions.bounces;
    energy_lost_ += r.collisions.energy_lost;
}

StepReport Simulation::step(std::int64_t k) {
    const double t0 = backend_->time();
    if (k > 0) validate_clock_step(t0, params_.dt);
    const StepReport r = backend_->step(params_, k);
    step_ += r.steps_done;
    blocks_ += r.blocks;
    body_updates_ += r.body_updates;
    neighbour_updates_ += r.neighbour_updates;
    tally_collisions(r);
    check_finite(r, t0, params_.dt);
    return r;
}

StepReport Simulation::step_of(double h) {
    Params p = params_;
    p.dt = h;
    const double t0 = backend_->time();
    const StepReport r = backend_->step(p, 1);
    step_ += r.steps_done;
    blocks_ += r.blocks;
    body_updates_ += r.body_updates;
    neighbour_updates_ += r.neighbour_updates;
    tally_collisions(r);
    check_finite(r, t0, h);
    return r;
}

std::vector<std::string> Simulation::save(const std::string& path) {
    require_format("save", path);
    // A snapshot is a restart point: with an adaptive integrator's state (where it belongs to these
    // parameters but for the max step), so that a load of it goes on as this run does.
    Snapshot snap;
    snap.state = backend_->get_state();
    std::optional<BlockState> block = backend_->export_block_state(params_);
    if (block && same_block_model_but_dt(block->model, params_)) snap.block = std::move(block);
    snap.info.has_params = true;
    snap.info.params = params_;
    snap.info.step = step_;
    snap.info.precision = precision_;
    snap.info.preset = preset_;
    snap.info.seed = seed_;
    snap.info.program_version = NBODY_VERSION;
    return write_snapshot(path, snap);
}

}  // namespace nbody::python
