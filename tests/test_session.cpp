// The window's simulation thread (app/window/sim_session): requests never wait behind a step, drawing gets
// the bodies between long steps, and the NaN-recovery checkpoint is counted. A gated backend makes "a step in
// progress" a state the test controls, so nothing here depends on timing.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "app/window/sim_session.hpp"
#include "backends/registry.hpp"
#include "body_checks.hpp"
#include "hermite_checks.hpp"
#include "reference.hpp"
#include "session_capture.hpp"
#include "sim/error.hpp"
#include "sim/presets.hpp"

namespace nbody {
namespace {

// A serial backend whose step() calls each wait for a permit from the test.
class GatedBackend : public Backend {
  public:
    struct Gate {
        std::mutex m;
        std::condition_variable cv;
        int entered = 0, permits = 0;
        std::vector<std::int64_t> step_args;
        void permit(int k) {
            {
                std::lock_guard<std::mutex> lk(m);
                permits = k > INT_MAX - permits ? INT_MAX : permits + k;  // "all" given twice stays "all"
            }
            cv.notify_all();
        }
        // Waits until `n` step() calls have started; false after 10 s (a test failure, not a hang).
        bool wait_entered(int n) {
            std::unique_lock<std::mutex> lk(m);
            return cv.wait_for(lk, std::chrono::seconds(10), [&] { return entered >= n; });
        }
        int entered_now() {
            std::lock_guard<std::mutex> lk(m);
            return entered;
        }
    };

    GatedBackend(std::shared_ptr<Gate> gate, const HostState& s)
        : gate_(std::move(gate)), inner_(create_backend("serial", Precision::f32)) {
        inner_->set_state(s);
    }
    std::string name() const override { return "gated"; }
    Precision precision() const override { return inner_->precision(); }
    std::size_t size() const override { return inner_->size(); }
    Residency residency() const override { return inner_->residency(); }
    void set_state(const HostState& s) override {
        inner_->set_state(s);
        time_ = s.t;
    }
    HostState get_state() const override {
        HostState s = inner_->get_state();
        s.t = time_;  // step() advances this wrapper's time, not the inner backend's
        return s;
    }
    // Every step() call waits here for its permit before the first step.
    void begin_steps(std::int64_t steps) override {
        {
            std::unique_lock<std::mutex> lk(gate_->m);
            int me = ++gate_->entered;
            gate_->step_args.push_back(steps);
            gate_->cv.notify_all();
            gate_->cv.wait(lk, [&] { return gate_->permits >= me; });
        }
        inner_->begin_steps(steps);
    }
    void begin_step(std::int64_t k) override { inner_->begin_step(k); }
    void kick(double h) override { inner_->kick(h); }
    void drift(double h) override { inner_->drift(h); }
    void update_forces(const Params& p) override { inner_->update_forces(p); }
    void damp(double f) override { inner_->damp(f); }
    std::optional<std::size_t> end_step() override { return inner_->end_step(); }
    std::optional<StepFailure> end_steps() override { return inner_->end_steps(); }
    FieldSample field_at(const Params& p, const std::vector<Vec4<double>>& points, bool pot) override {
        return inner_->field_at(p, points, pot);
    }
    std::vector<Vec4<double>> accelerations(const Params& p) override { return inner_->accelerations(p); }
    Diagnostics diagnostics(const Params& p, bool with_potential) override {
        return inner_->diagnostics(p, with_potential);
    }
    void copy_positions(Vec4<float>* out) const override { inner_->copy_positions(out); }
    void copy_velocities(Vec4<float>* out) const override { inner_->copy_velocities(out); }

  private:
    std::shared_ptr<Gate> gate_;
    std::unique_ptr<Backend> inner_;
};

struct Fixture {
    std::shared_ptr<GatedBackend::Gate> gate = std::make_shared<GatedBackend::Gate>();
    HostState state = make_preset(presets().front().name, 256, 7);
    std::unique_ptr<SimSession> session;

    Fixture(bool draw_from_backend, const SessionTuning& tuning = {}) {
        session = std::make_unique<SimSession>(std::make_unique<GatedBackend>(gate, state), state, Params{},
                                               draw_from_backend, tuning);
    }
    ~Fixture() {
        gate->permit(1 << 30);  // let any blocked step finish so the session can stop
        session.reset();
    }
};

bool draw(SimSession& s, bool force = false) {
    return s.with_newest_bodies(
        force, [](Backend*, const Vec4<float>*, const Vec4<float>*, const Vec4<float>*, std::size_t) {});
}

TEST(SimSession, RequestsAreQueuedNotBlockedByARunningStep) {
    Fixture f(false);
    f.session->set_steps_per_frame(64);
    f.session->frame_tick();
    ASSERT_TRUE(f.gate->wait_entered(1));
    // The step is stuck in the gate; the request must come back at once, applied later.
    std::uint64_t id = f.session->switch_backend("openmp", Precision::f32);
    EXPECT_EQ(f.session->pending_requests(), 1);
    EXPECT_TRUE(f.session->take_results().empty());
    EXPECT_EQ(f.session->backend_name(), "gated");
    f.gate->permit(1);
    f.session->wait_for_requests();
    auto results = f.session->take_results();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].id, id);
    EXPECT_EQ(results[0].error, "");
    EXPECT_EQ(f.session->backend_name(), "openmp");
    EXPECT_EQ(f.session->size(), 256u);
    // While the step time was unknown the first call took one step, not the 64 granted.
    ASSERT_FALSE(f.gate->step_args.empty());
    EXPECT_EQ(f.gate->step_args[0], 1);
}

TEST(SimSession, FailedRequestsKeepTheOldStateAndSaySo) {
    Fixture f(false);
    f.session->set_paused(true);
    f.session->switch_backend("bogus", Precision::f32);
    f.session->load_state(make_preset(presets().front().name, 100, 1));
    f.session->wait_for_requests();
    auto results = f.session->take_results();
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].kind, SessionResult::Kind::switch_backend);
    EXPECT_NE(results[0].error.find("kept gated"), std::string::npos) << results[0].error;
    EXPECT_EQ(results[1].kind, SessionResult::Kind::load);
    EXPECT_EQ(results[1].error, "");
    EXPECT_EQ(f.session->backend_name(), "gated");
    EXPECT_EQ(f.session->size(), 100u);
    EXPECT_EQ(f.session->stats().steps_total, 0);
}

// GPU-style drawing (through the backend's lock): a draw that finds a step running must get the bodies
// right after that step, before the next one starts — else at 0.5 s per step the window never updates.
TEST(SimSession, DrawingGetsTheBodiesBetweenLongSteps) {
    SessionTuning tuning;
    tuning.draw_wait_seconds = 10.0;  // generous: this test must not depend on how fast it polls
    tuning.draw_starved_seconds = 0;  // (the test's draws come much faster than a window's frames)
    Fixture f(true, tuning);
    EXPECT_TRUE(draw(*f.session));      // the initial bodies
    f.session->set_steps_per_frame(8);  // more steps owed after the first: the sim thread wants to go on
    f.session->frame_tick();
    ASSERT_TRUE(f.gate->wait_entered(1));
    EXPECT_FALSE(draw(*f.session));  // busy: the step holds the backend
    f.session->frame_tick();         // more steps are granted, as every frame does
    f.gate->permit(1);
    bool drawn = false;
    int entered_at_draw = -1;
    auto t_end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!drawn && std::chrono::steady_clock::now() < t_end) {
        drawn = f.session->with_newest_bodies(false, [&](Backend* b, const Vec4<float>*, const Vec4<float>*,
                                                         const Vec4<float>*, std::size_t n) {
            EXPECT_NE(b, nullptr);
            EXPECT_EQ(n, 256u);
            entered_at_draw = f.gate->entered_now();
        });
        if (!drawn) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(drawn) << "the draw never got the backend between steps";
    EXPECT_EQ(entered_at_draw, 1) << "the next step started before the waiting draw";
}

TEST(SimSession, FitPositionsComeFromTheCheckpointWhileAStepRuns) {
    Fixture f(true);
    f.session->frame_tick();
    ASSERT_TRUE(f.gate->wait_entered(1));
    std::vector<Vec4<float>> pos = f.session->positions_for_fit();
    ASSERT_EQ(pos.size(), 256u);
    EXPECT_EQ(pos[5].x, float(f.state.pos_mass[5].x));
    EXPECT_EQ(pos[5].w, float(f.state.pos_mass[5].w));
}

// Frames until the session reports something (a failure's message), or "" after `limit`.
std::string wait_for_message(SimSession& session, std::chrono::seconds limit) {
    std::string message;
    const auto t_end = std::chrono::steady_clock::now() + limit;
    while (message.empty() && std::chrono::steady_clock::now() < t_end) {
        session.frame_tick();
        message = session.take_message();
        if (message.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return message;
}

// A blow-up: one message naming the body and the step, the session pauses, and what is drawn from then
// on is the last good state (the checkpoint), never the NaN/Inf bodies.
TEST(SimSession, BlowUpIsReportedAndNotDrawn) {
    const HostState state = make_preset(presets().front().name, 64, 3);
    Params p;
    p.G = 1e300;  // Inf in float: the first step's accelerations overflow
    SimSession session(state, p, "serial", Precision::f32);
    session.set_steps_per_frame(4);
    const std::string message = wait_for_message(session, std::chrono::seconds(30));
    ASSERT_FALSE(message.empty()) << "no blow-up reported";
    EXPECT_NE(message.find("NaN/Inf in body "), std::string::npos) << message;
    EXPECT_NE(message.find(" at step 1 "), std::string::npos) << message;
    EXPECT_NE(message.find("paused, restored the state of t = 0"), std::string::npos) << message;
    EXPECT_TRUE(session.paused());
    std::size_t drawn = 0, finite = 0;
    EXPECT_TRUE(session.with_newest_bodies(
        true, [&](Backend*, const Vec4<float>* pos, const Vec4<float>*, const Vec4<float>*, std::size_t n) {
            drawn = n;
            for (std::size_t i = 0; i < n; ++i) {
                finite += std::isfinite(pos[i].x) && std::isfinite(pos[i].y) && std::isfinite(pos[i].z) &&
                          pos[i].x == float(state.pos_mass[i].x);
            }
        }));
    EXPECT_EQ(drawn, 64u);
    EXPECT_EQ(finite, 64u) << "bodies drawn that are not the last good state";
    EXPECT_EQ(session.stats().steps_total, 0);
}

// A blow-up after a few good steps restores the checkpoint's step count with its bodies: the count once
// kept the good steps taken since it (3 steps shown at t = 0.5). The checkpoint falls after step 2: the
// session takes one after a step once kMinCheckpointInterval (0.5 s) has passed since the last.
TEST(SimSession, ABlowUpRestoresTheCheckpointsStepCount) {
    HostState state;
    state.resize(3);
    state.pos_mass = {{-1, 0, 0, 1e-30}, {1, 0, 0, 1e-30}, {0, 3, 0, 1e-30}};
    state.vel = {{1, 0, 0, 0}, {-1, 0, 0, 0}, {0, 0, 0, 0}};  // the first two meet at t = 1, step 4
    Params p;
    p.dt = 0.25;
    p.softening = 0;
    SimSession session(state, p, "serial", Precision::f32);
    session.set_steps_per_frame(1);
    session.frame_tick();
    session.wait_for_frame_steps();  // step 1
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    session.frame_tick();
    session.wait_for_frame_steps();  // step 2, then the checkpoint
    const std::string message = wait_for_message(session, std::chrono::seconds(30));  // 3, and 4 fails
    ASSERT_NE(message.find(" at step 4 "), std::string::npos) << message;
    EXPECT_NE(message.find("restored the state of t = 0.5 (step 2)"), std::string::npos) << message;
    EXPECT_EQ(session.stats().steps_total, 2) << message;
    EXPECT_EQ(session.stats().sim_time, 0.5) << message;
}

// Closing the window in a max step of hours (a max dt of 1e4, eta 1e-4) stops it at its next block
// (Backend::set_interrupt) rather than waiting for it: without, this test would hang until its timeout.
TEST(SimSession, ClosingDoesNotWaitForALongMaxStep) {
    Params p = test::hermite_params(1e4, 1e-4);
    auto session = std::make_unique<SimSession>(make_preset("plummer", 256, 1), p, "serial", Precision::f64);
    session->set_steps_per_frame(1);
    for (int i = 0; i < 20; ++i) {
        session->frame_tick();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    session.reset();  // joins the stepping thread
    SUCCEED();
}

// A long max step says how far it has got (the panel's bar): the share of it done and its blocks, from the
// block steps' MaxStepProgress, once the step call has run longer than kLongStepSeconds; -1 while no step
// runs.
TEST(SimSession, ALongMaxStepSaysHowFarItHasGot) {
    Params p = test::hermite_params(1e4, 1e-4);
    auto session = std::make_unique<SimSession>(make_preset("plummer", 256, 1), p, "serial", Precision::f64);
    EXPECT_EQ(session->stats().max_step_share, -1);
    session->set_steps_per_frame(1);
    double share = -1;
    std::int64_t blocks = 0;
    for (int i = 0; i < 500 && share <= 0; ++i) {
        session->frame_tick();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const SessionStats st = session->stats();
        share = st.max_step_share, blocks = st.max_step_blocks;
    }
    EXPECT_GT(share, 0.0);
    EXPECT_LT(share, 1.0);
    EXPECT_GE(blocks, 1);  // the blocks behind that share
    session.reset();       // the interrupt ends the max step
}

// A stall (Hermite in float at softening 0, a pair float cannot resolve): the window's session says so in
// words, not flags, pauses, and keeps the last good state, instead of freezing in a max step that never
// ends.
TEST(SimSession, StallIsReportedInWordsAndPauses) {
    Params p = test::hermite_params(1e-3, kDefaultEta);
    SimSession session(test::unresolved_pair(), p, "serial", Precision::f32);
    const std::string message = wait_for_message(session, std::chrono::seconds(60));
    ASSERT_FALSE(message.empty()) << "no stall reported";
    EXPECT_EQ(
        message.rfind("stalled at step 1: body 0's accuracy criterion asks for steps too short to move it "
                      "in float (a close encounter float cannot resolve); double precision or a "
                      "softening above 0 avoids it",
                      0),
        0u)
        << message;
    EXPECT_NE(message.find("paused, restored the state of t = 0"), std::string::npos) << message;
    EXPECT_TRUE(session.paused());
    EXPECT_EQ(session.stats().steps_total, 0);
}

TEST(SimSession, CheckpointIsCountedInStats) {
    Fixture f(true);
    SessionStats st = f.session->stats();
    EXPECT_EQ(st.checkpoint_bytes, 2u * 256u * 16u);  // float4 positions+mass and velocities
    EXPECT_TRUE(st.checkpoint_from_device);
    EXPECT_GE(st.checkpoint_interval_s, 0.5);
}

// phi at x from every body not exactly at x, in double.
double reference_potential(const HostState& s, const Vec4<double>& x, const Params& p) {
    double sum = 0;
    for (const auto& b : s.pos_mass) {
        const double dx = b.x - x.x, dy = b.y - x.y, dz = b.z - x.z;
        if (dx == 0 && dy == 0 && dz == 0) continue;
        sum += b.w / std::sqrt(dx * dx + dy * dy + dz * dz + p.softening * p.softening);
    }
    return -p.G * sum;
}

// The potential view and the picked body's energy come from the backend's own field evaluation (what
// cuda runs on the GPU): exact on a double CPU backend, also for a body's own position (itself left out).
TEST(SimSession, PotentialsComeFromTheBackendsFieldEvaluation) {
    const HostState s = test::random_bodies(300, 4);
    Params p;
    p.softening = 0.05;
    p.G = 1.5;
    for (const char* backend : {"serial", "openmp"}) {
        SimSession session(s, p, backend, Precision::f64);
        session.set_paused(true);
        const std::vector<Vec4<double>> targets = {{0.1, -0.2, 0.3, 0}, {2, 2, 2, 0}, s.pos_mass[7]};
        const std::vector<double> phi = session.potentials_at(targets);
        ASSERT_EQ(phi.size(), targets.size());
        for (std::size_t t = 0; t < targets.size(); ++t) {
            const double want = reference_potential(s, targets[t], p);
            EXPECT_NEAR(phi[t], want, 1e-12 * std::abs(want)) << backend << " target " << t;
        }
        for (std::size_t i : {0u, 7u, 299u}) {
            const std::optional<double> e = session.body_potential_energy(i);
            ASSERT_TRUE(e.has_value()) << backend << " body " << i;
            const double want = s.pos_mass[i].w * reference_potential(s, s.pos_mass[i], p);
            EXPECT_NEAR(*e, want, 1e-12 * std::abs(want)) << backend << " body " << i;
        }
        EXPECT_FALSE(session.body_potential_energy(300).has_value());
        // Every body's potential at once (colouring by potential): each leaves itself out.
        const std::vector<double> all = session.body_potentials();
        ASSERT_EQ(all.size(), s.size()) << backend;
        for (std::size_t i : {0u, 7u, 299u}) {
            const double want = reference_potential(s, s.pos_mass[i], p);
            EXPECT_NEAR(all[i], want, 1e-12 * std::abs(want)) << backend << " body " << i;
        }
        EXPECT_TRUE(session.potentials_at({}).empty());
    }
    // float: the body's own position rounds to itself, so it is still left out (no -G m / eps term).
    SimSession f32(s, p, "serial", Precision::f32);
    f32.set_paused(true);
    const std::optional<double> e = f32.body_potential_energy(3);
    ASSERT_TRUE(e.has_value());
    const double want = s.pos_mass[3].w * reference_potential(s, s.pos_mass[3], p);
    EXPECT_NEAR(*e, want, 1e-5 * std::abs(want));
}

// Colouring by potential on a GPU: the bodies' potentials come from the cuda backend's field kernel at
// the bodies' own positions, as on the CPU (float: to float's precision). Skips without a device.
TEST(SimSession, BodyPotentialsOnTheGpuMatchTheCpu) {
    const BackendInfo* cuda = find_backend("cuda");
    if (!cuda || !cuda->available())
        GTEST_SKIP() << "cuda backend not available here: "
                     << (cuda ? cuda->unavailable_reason() : "not built");
    const HostState s = test::random_bodies(2000, 6);
    Params p;
    p.softening = 0.05;
    SimSession gpu(s, p, "cuda", Precision::f32);
    gpu.set_paused(true);
    const std::vector<double> phi = gpu.body_potentials();
    ASSERT_EQ(phi.size(), s.size());
    for (std::size_t i = 0; i < s.size(); i += 97) {
        const double want = reference_potential(s, s.pos_mass[i], p);
        EXPECT_NEAR(phi[i], want, 1e-5 * std::abs(want)) << "body " << i;
    }
}

// A field request is applied between steps like any other: asked while a step runs (the GPU-like draw
// path), it is answered once that step ends, with the bodies as they are then.
TEST(SimSession, FieldRequestsAreAnsweredBetweenSteps) {
    Fixture f(true);
    f.session->frame_tick();
    ASSERT_TRUE(f.gate->wait_entered(1));
    auto phi = std::async(std::launch::async, [&] { return f.session->potentials_at({{0, 0, 0, 0}}); });
    f.gate->permit(1 << 30);
    const std::vector<double> got = phi.get();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_LT(got[0], 0.0);
    EXPECT_TRUE(std::isfinite(got[0]));
}

// Acceleration arrows on a host backend: the snapshot carries the accelerations once asked for (also
// while paused), equal to the backend's own; not before.
TEST(SimSession, SnapshotCarriesAccelerationsOnlyWhenAsked) {
    const HostState s = test::random_bodies(200, 6);
    Params p;
    p.softening = 0.05;
    SimSession session(s, p, "serial", Precision::f32);
    session.set_paused(true);
    auto acc_of = [&](bool force) {
        std::vector<Vec4<float>> out;
        session.with_newest_bodies(force, [&](Backend*, const Vec4<float>*, const Vec4<float>*,
                                              const Vec4<float>* acc, std::size_t n) {
            if (acc) out.assign(acc, acc + n);
        });
        return out;
    };
    EXPECT_TRUE(acc_of(true).empty());
    session.set_draw_accelerations(true);
    session.wait_for_requests();
    const std::vector<Vec4<float>> got = acc_of(false);  // republished: something new to draw
    ASSERT_EQ(got.size(), s.size());
    auto ref = create_backend("serial", Precision::f32);
    ref->set_state(s);
    const std::vector<Vec4<double>> want = ref->accelerations(p);
    for (std::size_t i = 0; i < s.size(); ++i) {
        EXPECT_EQ(got[i].x, float(want[i].x)) << i;
        EXPECT_EQ(got[i].z, float(want[i].z)) << i;
        EXPECT_EQ(got[i].w, 0.0f) << i;
    }
    session.set_draw_accelerations(false);
    EXPECT_TRUE(acc_of(true).empty());
}

}  // namespace
}  // namespace nbody

namespace nbody {
namespace {

// With an adaptive integrator the time shown is the backend's (k max steps of dt), and reversing is
// refused with a reason: each body's step is chosen going forward, so negated velocities do not retrace it.
TEST(SimSession, HermiteShowsTheIntegratorsTimeAndRefusesToReverse) {
    Params p;
    p.integrator = Integrator::hermite;
    p.dt = 0.125;
    SimSession session(make_preset(presets().front().name, 64, 1), p, "serial", Precision::f64);
    session.set_paused(true);
    session.request_steps(4);
    session.wait_for_steps();
    EXPECT_EQ(session.stats().steps_total, 4);
    EXPECT_EQ(session.stats().sim_time, 0.5);
    session.reverse();
    session.wait_for_requests();
    const std::vector<SessionResult> results = session.take_results();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].kind, SessionResult::Kind::reverse);
    EXPECT_NE(results[0].error.find("cannot reverse: hermite"), std::string::npos) << results[0].error;
}

// The exact bodies now, through a capture request (between steps).
// Scrubbing back: the timeline keeps states every few steps; resuming from one and stepping on gives the
// unbroken run's bodies bit for bit, with the step count and the timeline's future rewritten.
TEST(SimSession, ResumeFromTheTimelineEqualsTheUnbrokenRunBitForBit) {
    for (const char* backend : {"serial", "openmp"}) {
        Params p;
        p.dt = 0.01;
        const HostState start = make_preset("collision", 256, 3);
        SimSession unbroken(start, p, backend, Precision::f32);
        unbroken.set_paused(true);
        unbroken.request_steps(40);
        unbroken.wait_for_steps();

        SimSession session(start, p, backend, Precision::f32);
        session.set_paused(true);
        session.set_timeline(5, std::size_t(64) << 20);
        for (int i = 0; i < 8; ++i) {  // in pieces, as frames grant them
            session.request_steps(5);
            session.wait_for_steps();
        }
        const StateTimeline tl = session.timeline();
        // One state per 5 steps from the first step() call on (the first call is a single step).
        ASSERT_GE(tl.size(), 6u) << backend;
        for (std::size_t i = 1; i < tl.size(); ++i) EXPECT_GE(tl.at(i).step - tl.at(i - 1).step, 5);
        const std::size_t back = tl.size() / 2;
        const std::int64_t step = tl.at(back).step;
        ASSERT_LT(step, 40);
        EXPECT_EQ(tl.bytes(), tl.size() * HostKeptState::bytes_for(256));
        EXPECT_FALSE(tl.on_device());  // host copies on the CPU backends

        ASSERT_NE(session.resume_from_timeline(back), 0u);
        session.wait_for_requests();
        for (const SessionResult& r : session.take_results()) EXPECT_EQ(r.error, "");
        EXPECT_EQ(session.stats().steps_total, step);
        EXPECT_EQ(session.timeline().size(), back + 1);  // the old future is gone
        session.request_steps(int(40 - step));
        session.wait_for_steps();
        EXPECT_EQ(session.stats().steps_total, 40);

        ASSERT_TRUE(test::same_bodies(test::captured(unbroken), test::captured(session))) << backend;
    }
}

// Reversed (B), the timeline goes on with the run: the states on the way back are kept, newest last and
// marked reversed, so the scrub bar's newest state is the bodies shown (it kept showing step 300 while the
// run was back at step 200). Resuming from a state kept on the way back runs backwards again, exactly as
// the first time.
TEST(SimSession, TheTimelineFollowsTheRunBackwards) {
    Params p;
    p.dt = 0.01;
    SimSession session(make_preset("plummer", 128, 3), p, "serial", Precision::f64);
    session.set_paused(true);
    session.set_timeline(5, std::size_t(64) << 20);
    for (int i = 0; i < 4; ++i) {
        session.request_steps(5);
        session.wait_for_steps();
    }
    ASSERT_EQ(session.stats().steps_total, 20);
    session.reverse();
    session.wait_for_requests();
    for (const SessionResult& r : session.take_results()) ASSERT_EQ(r.error, "");
    for (int i = 0; i < 2; ++i) {
        session.request_steps(5);
        session.wait_for_steps();
    }
    ASSERT_EQ(session.stats().steps_total, 10);
    ASSERT_TRUE(session.stats().reversed);

    // A request is served between steps, so the state of the last ones is kept by now (wait_for_steps
    // returns as soon as they are counted).
    const HostState now = test::captured(session);
    const StateTimeline tl = session.timeline();
    ASSERT_GE(tl.size(), 3u);
    const TimelineEntry& last = tl.at(tl.size() - 1);
    const TimelineEntry& before = tl.at(tl.size() - 2);
    EXPECT_EQ(last.step, 10);
    EXPECT_TRUE(last.reversed);
    EXPECT_EQ(before.step, 15);
    EXPECT_TRUE(before.reversed);
    EXPECT_EQ(tl.at(tl.size() - 3).step, 20);
    EXPECT_FALSE(tl.at(tl.size() - 3).reversed);
    const HostState at10 = last.state->to_host();
    EXPECT_TRUE(test::same_bodies(now, at10));  // the newest state is the bodies now

    ASSERT_NE(session.resume_from_timeline(tl.size() - 2), 0u);
    session.wait_for_requests();
    for (const SessionResult& r : session.take_results()) EXPECT_EQ(r.error, "");
    EXPECT_EQ(session.stats().steps_total, 15);
    EXPECT_TRUE(session.stats().reversed);
    session.request_steps(5);
    session.wait_for_steps();
    EXPECT_EQ(session.stats().steps_total, 10);
    EXPECT_TRUE(test::same_bodies(test::captured(session), at10));
}

// The budget bounds the memory: the oldest states go first, the newest always stays.
TEST(StateTimeline, KeepsTheNewestStatesWithinItsBudget) {
    StateTimeline tl;
    const std::size_t one = HostKeptState::bytes_for(100);
    tl.set_budget(3 * one);
    for (int i = 0; i < 10; ++i) {
        HostState s;
        s.resize(100);
        tl.push(i, std::make_shared<HostKeptState>(std::move(s)));
    }
    ASSERT_EQ(tl.size(), 3u);
    EXPECT_EQ(tl.at(0).step, 7);
    EXPECT_EQ(tl.bytes(), 3 * one);
    tl.set_budget(one / 2);  // smaller than one state: the newest stays
    ASSERT_EQ(tl.size(), 1u);
    EXPECT_EQ(tl.at(0).step, 9);
}

// Collisions in the window: points get the default radius when collisions are on, merges shrink N and
// are counted, and the picked body's index follows them.
TEST(SimSession, MergesShrinkNAndAreCounted) {
    HostState s;
    // Three points at rest: with the density below, radius 0.62 each, 0-1 and 1-2 overlap.
    s.pos_mass = {{0, 0, 0, 1}, {0.8, 0, 0, 1}, {1.6, 0, 0, 1}};
    s.vel = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
    Params p;
    p.G = 1e-12;
    p.collisions = CollisionMode::merge;
    p.density = 1.0;
    SimSession session(s, p, "serial", Precision::f64);
    session.set_steps_per_frame(1);
    const auto t_end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::vector<CollisionEvent> merges;
    while (session.size() > 1 && std::chrono::steady_clock::now() < t_end) {
        session.frame_tick();
        for (const CollisionEvent& e : session.take_merges()) merges.push_back(e);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(session.size(), 1u);
    EXPECT_EQ(session.stats().merges_total, 2);
    for (const CollisionEvent& e : session.take_merges()) merges.push_back(e);
    ASSERT_EQ(merges.size(), 2u);
    // Body 2, picked before any merge, is body 0 at the end (merged into it).
    EXPECT_EQ(remap_after_merges(2, merges), 0u);
}

TEST(SimSession, PickedIndexFollowsMerges) {
    // One step's merges (indices before its removals): 1 into 0, 5 into 2.
    std::vector<CollisionEvent> step1(2);
    step1[0].i = 0, step1[0].j = 1, step1[0].step = 1;
    step1[1].i = 2, step1[1].j = 5, step1[1].step = 1;
    EXPECT_EQ(remap_after_merges(0, step1), 0u);
    EXPECT_EQ(remap_after_merges(1, step1), 0u);  // merged into 0
    EXPECT_EQ(remap_after_merges(3, step1), 2u);  // one removed below
    EXPECT_EQ(remap_after_merges(5, step1), 1u);  // merged into 2, which moved down to 1
    EXPECT_EQ(remap_after_merges(7, step1), 5u);
    // A second step: the (new) 1 merges into 0.
    std::vector<CollisionEvent> both = step1;
    both.push_back(step1[0]);
    both.back().step = 2;
    EXPECT_EQ(remap_after_merges(5, both), 0u);
    EXPECT_EQ(remap_after_merges(7, both), 4u);
}

}  // namespace
}  // namespace nbody
