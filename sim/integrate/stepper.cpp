// Backend::step: the one loop that runs an integrator over any backend's primitives.
#include <algorithm>
#include <cassert>

#include "integrators.hpp"
#include "sim/backend.hpp"

namespace nbody {
namespace {

// Device backends tag a failure with the step number in 32 bits, so a call is run in batches of at most
// this many steps (each batch reads the failure flag once).
constexpr std::int64_t kMaxBatch = std::int64_t(1) << 30;

}  // namespace

StepReport Backend::step(const Params& p, std::int64_t steps) {
    const IntegratorInfo& integrator = integrator_info(p.integrator);
    StepReport r;
    const double t0 = time_;
    // An adaptive integrator's work, from its block steps' counters.
    BlockSteps* blocks = integrator.adaptive ? block_steps_for(p) : nullptr;
    const BlockCounters before = blocks ? blocks->counters() : BlockCounters{};
    if (blocks) {
        blocks->set_interrupt(interrupt_);
        blocks->set_progress(progress_);
        blocks->clear_interrupted();
    }
    // The progress is the caller's for this call only (cmd_run's lives on its stack).
    struct Unpublish {
        BlockSteps* b;
        ~Unpublish() {
            if (b) b->set_progress(nullptr);
        }
    } unpublish{blocks};
    // Collisions are checked after every step, and only when asked for: off costs one branch a step. An
    // adaptive integrator's block steps find them at every block instead (block_steps_for hands a
    // collision run only block steps that do).
    const bool collisions = p.collisions != CollisionMode::off;
    assert((!collisions || !blocks || blocks->resolves_collisions()) &&
           "Backend::step: collisions on block steps that do not resolve them");
    while (r.steps_done < steps && r.ok() && !r.interrupted) {
        const std::int64_t batch = std::min(kMaxBatch, steps - r.steps_done);
        std::int64_t done = 0;
        double t_now = time_;  // advanced as time_ is below, so the contacts' times agree with it
        std::optional<StepFailure> bad;
        begin_steps(batch);
        for (std::int64_t k = 1; k <= batch; ++k) {
            // Where an interrupt may stop this max step inside, the bodies as it begins, to go back to.
            const std::shared_ptr<const KeptState> start = blocks && interrupt_ ? keep_state() : nullptr;
            begin_step(k);
            if (collisions && blocks) blocks->begin_max_step(t_now);
            integrator.advance(*this, p);
            if (const std::optional<std::size_t> stalled = blocks ? blocks->stalled_body() : std::nullopt) {
                bad = StepFailure{k, *stalled, true};
                break;
            }
            if (blocks && blocks->interrupted()) {
                restore_state(*start);
                bad = StepFailure{k, 0, false, true};
                break;
            }
            if (p.damping != 1.0) damp(p.damping);
            done = k;
            if (auto body = end_step()) {
                bad = StepFailure{k, *body, false};
                break;
            }
            if (collisions) {
                t_now += p.dt;
                CollisionTally c = blocks ? blocks->take_collisions() : collide(p, p.dt, t_now);
                for (CollisionEvent& e : c.events) e.step = r.steps_done + k;
                r.collisions.add(c);
            }
        }
        if (auto device_bad = end_steps()) bad = device_bad;
        // A non-finite step ran to its end; a stalled one did not, and the state its block steps keep is
        // mid-step: the next step starts again from the bodies.
        if (bad) done = bad->step - (bad->stalled || bad->interrupted ? 1 : 0);
        if (bad && (bad->stalled || bad->interrupted) && blocks) blocks->invalidate();
        // Added step by step, so every backend reports the same t bit for bit.
        for (std::int64_t k = 0; k < done; ++k) time_ += p.dt;
        if (bad) {
            if (bad->interrupted) {
                r.interrupted = true;
            } else if (bad->stalled) {
                r.stalled = true;
            } else {
                r.finite = false;
            }
            r.bad_step = r.steps_done + bad->step, r.bad_body = bad->body;
        }
        r.steps_done += done;
    }
    r.time_advanced = time_ - t0;
    if (blocks) {
        const BlockCounters after = blocks->counters();
        r.blocks = after.blocks - before.blocks;
        r.body_updates = after.body_updates - before.body_updates;
        r.neighbour_updates = after.neighbour_updates - before.neighbour_updates;
    }
    return r;
}

}  // namespace nbody
