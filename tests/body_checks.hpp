#pragma once
// What the tests that call two runs the same bit for bit (a backend against serial, a restored or restarted
// state against the unbroken run) compare their bodies with.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/state.hpp"

namespace nbody::test {

// Whether a and b hold the same bodies bit for bit: every position, mass, velocity and radius compared as
// bytes (so -0 differs from +0); names the first body that differs.
inline ::testing::AssertionResult same_bodies(const HostState& a, const HostState& b) {
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << a.size() << " bodies against " << b.size();
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::memcmp(&a.pos_mass[i], &b.pos_mass[i], sizeof a.pos_mass[i]) != 0 ||
            std::memcmp(&a.vel[i], &b.vel[i], sizeof a.vel[i]) != 0) {
            const Vec4<double>&p = a.pos_mass[i], &q = b.pos_mass[i], &v = a.vel[i], &w = b.vel[i];
            return ::testing::AssertionFailure()
                   << "body " << i << " differs: position and mass (" << p.x << ", " << p.y << ", " << p.z
                   << ", " << p.w << ") against (" << q.x << ", " << q.y << ", " << q.z << ", " << q.w
                   << "), velocity and radius (" << v.x << ", " << v.y << ", " << v.z << ", " << v.w
                   << ") against (" << w.x << ", " << w.y << ", " << w.z << ", " << w.w << ")";
        }
    }
    return ::testing::AssertionSuccess();
}

}  // namespace nbody::test
