// The scrub timeline on the CUDA backend (Backend::keep_state / restore_state): states kept in device
// memory, device to device, and going back to one continues the run exactly as the unbroken run went on.
// Every test skips, with a reason, where the build has no CUDA or the machine no device (CI); they run for
// real on the lent GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "app/window/sim_session.hpp"
#include "backends/registry.hpp"
#include "body_checks.hpp"
#include "session_capture.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/presets.hpp"

#ifdef NBODY_HAVE_CUDA
#include "cuda_skip.hpp"
#endif

namespace nbody {
namespace {

#ifndef NBODY_HAVE_CUDA

TEST(CudaTimeline, Skipped) {
    GTEST_SKIP() << "built without CUDA (NBODY_WITH_CUDA=OFF or nvcc not found)";
}

#else

using test::captured;
using test::same_bodies;

// The backend alone: a kept state is on the device, holds the bodies of the moment it was kept, and
// after restoring it the same steps give the same bodies bit for bit (float and double; the direct sum,
// whose sums run in a fixed order).
TEST(CudaTimeline, KeptStateIsOnTheDeviceAndRestoresBitForBit) {
    SKIP_WITHOUT_DEVICE();
    for (Precision prec : {Precision::f32, Precision::f64}) {
        for (ForceAlgorithm force : {ForceAlgorithm::direct}) {
            const std::string what = std::string(to_string(prec)) + " " + to_string(force);
            Params p;
            p.dt = 0.01;
            p.force = force;
            auto b = create_backend("cuda", prec);
            b->set_state(make_preset("collision", 4096, 3));
            ASSERT_TRUE(b->step(p, 10).finite) << what;
            const HostState at_keep = b->get_state();
            const std::shared_ptr<const KeptState> kept = b->keep_state();
            ASSERT_TRUE(kept->on_device()) << what;
            EXPECT_TRUE(b->keeps_states_on_device());
            EXPECT_EQ(kept->size(), 4096u);
            EXPECT_EQ(kept->bytes(), b->kept_state_bytes(4096));
            EXPECT_EQ(kept->bytes(), 4096u * 2 * (prec == Precision::f32 ? 16 : 32));
            EXPECT_EQ(kept->time(), b->time());
            ASSERT_TRUE(b->step(p, 15).finite) << what;
            const HostState unbroken = b->get_state();
            // The kept copy did not move with the run.
            EXPECT_TRUE(same_bodies(kept->to_host(), at_keep)) << what << " kept";

            b->restore_state(*kept);
            EXPECT_EQ(b->time(), at_keep.t) << what;
            EXPECT_TRUE(same_bodies(b->get_state(), at_keep)) << what << " restored";
            ASSERT_TRUE(b->step(p, 15).finite) << what;
            EXPECT_TRUE(same_bodies(b->get_state(), unbroken)) << what << " resumed";
            EXPECT_EQ(b->time(), unbroken.t) << what;

            // A host copy (another backend's state) restores too, through set_state.
            b->restore_state(HostKeptState(at_keep));
            EXPECT_TRUE(same_bodies(b->get_state(), at_keep)) << what << " from a host copy";
        }
    }
}

// The window's session on cuda: the timeline's states are kept in device memory (its budget counts them
// there), and scrubbing back + "resume from here" + stepping on equals the unbroken run bit for bit.
TEST(CudaTimeline, SessionResumeFromTheTimelineEqualsTheUnbrokenRunBitForBit) {
    SKIP_WITHOUT_DEVICE();
    Params p;
    p.dt = 0.01;
    const HostState start = make_preset("collision", 4096, 3);
    SimSession unbroken(start, p, "cuda", Precision::f32);
    unbroken.set_paused(true);
    unbroken.request_steps(40);
    unbroken.wait_for_steps();

    SimSession session(start, p, "cuda", Precision::f32);
    ASSERT_EQ(session.backend_name(), "cuda");
    session.set_paused(true);
    session.set_timeline(5, std::size_t(64) << 20);
    for (int i = 0; i < 8; ++i) {  // in pieces, as frames grant them
        session.request_steps(5);
        session.wait_for_steps();
    }
    const StateTimeline tl = session.timeline();
    ASSERT_GE(tl.size(), 6u);
    EXPECT_TRUE(tl.on_device());
    for (std::size_t i = 0; i < tl.size(); ++i) EXPECT_TRUE(tl.at(i).state->on_device()) << "entry " << i;
    EXPECT_EQ(tl.bytes(), tl.size() * 4096 * 2 * sizeof(Vec4<float>));
    const std::size_t back = tl.size() / 2;
    const std::int64_t step = tl.at(back).step;
    ASSERT_LT(step, 40);

    ASSERT_NE(session.resume_from_timeline(back), 0u);
    session.wait_for_requests();
    for (const SessionResult& r : session.take_results()) EXPECT_EQ(r.error, "");
    EXPECT_EQ(session.stats().steps_total, step);
    EXPECT_EQ(session.timeline().size(), back + 1);  // the old future is gone
    session.request_steps(int(40 - step));
    session.wait_for_steps();
    EXPECT_EQ(session.stats().steps_total, 40);
    EXPECT_TRUE(same_bodies(captured(unbroken), captured(session)));
}

#endif  // NBODY_HAVE_CUDA

}  // namespace
}  // namespace nbody
