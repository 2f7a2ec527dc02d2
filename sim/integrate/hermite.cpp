// The Hermite integrator's max step, in the order sim/integrate/block_steps.hpp describes, over whatever
// block steps the backend offers; and the generic block steps every backend has.
#include "hermite.hpp"

#include <string>

#include "hermite_host.hpp"
#include "integrators.hpp"
#include "sim/backend.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_solver.hpp"

namespace nbody {

bool same_block_model(const Params& a, const Params& b) {
    // eta_regular only acts with the scheme on: changing it with the scheme off keeps the levels.
    return a.dt == b.dt && a.eta == b.eta && a.neighbours == b.neighbours &&
           (a.neighbours == 0 || regular_eta(a) == regular_eta(b)) && same_force_model(a, b);
}

double MaxStepProgress::share() const {
    return double(tick.load(std::memory_order_relaxed)) / double(kTicksPerMaxStep);
}

bool same_block_model_but_dt(const Params& a, const Params& b) {
    Params c = b;
    c.dt = a.dt;
    return same_block_model(a, c);
}

void check_block_model(const Params& p) {
    if (!integrator_info(p.integrator).adaptive) return;
    if (p.neighbours > 0 && p.collisions != CollisionMode::off) {
        throw Error("the neighbour scheme (--neighbours) does not resolve collisions (--collisions " +
                    std::string(to_string(p.collisions)) + "): use --neighbours 0, or --collisions off");
    }
    if (p.force == ForceAlgorithm::direct) return;
    std::string fixed;
    for (const IntegratorInfo& i : builtin_integrators()) {
        if (!i.adaptive) fixed += std::string(fixed.empty() ? "" : ", ") + i.name;
    }
    throw Error(std::string("the ") + to_string(p.integrator) + " integrator needs the direct sum (force " +
                to_string(ForceAlgorithm::direct) + ") for its force and jerk; the " + to_string(p.force) +
                " gives no jerk (use --force " + to_string(ForceAlgorithm::direct) + ", or the " +
                to_string(p.force) + " with " + fixed + ")");
}

BlockSteps* Backend::block_steps() {
    if (!host_copy_block_steps_) host_copy_block_steps_ = make_host_copy_block_steps(*this);
    return host_copy_block_steps_.get();
}

BlockSteps* Backend::block_steps_for(const Params& p) {
    BlockSteps* own = block_steps();
    if (!own || p.collisions == CollisionMode::off || own->resolves_collisions()) return own;
    if (!host_copy_block_steps_) host_copy_block_steps_ = make_host_copy_block_steps(*this);
    return host_copy_block_steps_.get();
}

void Backend::synchronize() {
    if (host_copy_block_steps_) host_copy_block_steps_->invalidate();
}

std::optional<BlockState> Backend::export_block_state(const Params& p) {
    // A fixed-step run keeps nothing beside its bodies (block steps run before a switch of the integrator
    // are no state of it).
    if (!integrator_info(p.integrator).adaptive) return std::nullopt;
    BlockSteps* s = block_steps_for(p);
    return s ? s->export_state() : std::nullopt;
}

bool Backend::import_block_state(const Params& p, const BlockState& state) {
    BlockSteps* s = block_steps_for(p);
    return s && s->import_state(state);
}

void advance_hermite(Backend& b, const Params& p) {
    BlockSteps* s = b.block_steps_for(p);
    if (!s) {
        throw Error("the hermite integrator needs block time steps, which the " + b.name() +
                    " backend does not offer here (serial and openmp do)");
    }
    check_block_model(p);
    if (!s->ready(p) && !s->change_max_step(p)) s->init(p);
    s->max_step(p);
    s->report_max_step_done();
}

void BlockSteps::max_step(const Params& p) {
    NextBlock block;
    std::int64_t blocks = 0;
    do {
        block = next_block();
        if (stalled_body() || interrupt_requested()) return;
        predict(block.tick);
        evaluate();
        correct(block.tick);
        if (p.collisions != CollisionMode::off) collide(p, block.tick);
        report_tick(block.tick, ++blocks);
    } while (block.tick < kTicksPerMaxStep);
    finish_max_step();
}

}  // namespace nbody
