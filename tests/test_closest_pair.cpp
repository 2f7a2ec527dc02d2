// The sweep against the obvious O(N^2) search.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sim/closest_pair.hpp"

namespace nbody {
namespace {

TEST(ClosestPair, MatchesBruteForce) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        HostState s;
        const int n = 2 + trial * 37;
        for (int i = 0; i < n; ++i) {
            s.pos_mass.push_back({u(rng), u(rng), trial % 3 ? u(rng) : 0.0, 1});
            s.vel.push_back({0, 0, 0, 0});
        }
        double best = std::numeric_limits<double>::infinity();
        for (int i = 0; i < n; ++i) {
            for (int j = i + 1; j < n; ++j) {
                const auto& a = s.pos_mass[i];
                const auto& b = s.pos_mass[j];
                best = std::min(best, std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                                                (a.z - b.z) * (a.z - b.z)));
            }
        }
        const ClosestPair c = closest_pair(s);
        EXPECT_DOUBLE_EQ(c.distance, best) << "n = " << n;
        EXPECT_LT(c.i, c.j);
    }
}

TEST(ClosestPair, NamesThePair) {
    HostState s;
    for (double x : {0.0, 5.0, 1.0, 5.25, 9.0}) {
        s.pos_mass.push_back({x, 0, 0, 1});
        s.vel.push_back({0, 0, 0, 0});
    }
    const ClosestPair c = closest_pair(s);
    EXPECT_EQ(c.i, 1u);
    EXPECT_EQ(c.j, 3u);
    EXPECT_DOUBLE_EQ(c.distance, 0.25);
}

TEST(ClosestPair, FewerThanTwoBodiesHaveNone) {
    HostState s;
    EXPECT_TRUE(std::isinf(closest_pair(s).distance));
    s.pos_mass.push_back({0, 0, 0, 1});
    s.vel.push_back({0, 0, 0, 0});
    EXPECT_TRUE(std::isinf(closest_pair(s).distance));
}

}  // namespace
}  // namespace nbody
