#pragma once
// The bodies a window session (app/window/sim_session) holds now, for the tests that compare two sessions.
#include <gtest/gtest.h>

#include "app/window/sim_session.hpp"

namespace nbody::test {

// Asks `session` for a capture of its bodies and waits for it; a test failure and no bodies if none came.
inline HostState captured(SimSession& session) {
    session.capture_state();
    session.wait_for_requests();
    for (const SessionResult& r : session.take_results())
        if (r.kind == SessionResult::Kind::capture && r.state) return *r.state;
    ADD_FAILURE() << "no capture result";
    return {};
}

}  // namespace nbody::test
