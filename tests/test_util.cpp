// The shared helpers: the median's even-count definition, the clock, join.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/util.hpp"

namespace nbody {
namespace {

TEST(Util, MedianOfOddCountIsTheMiddleValue) {
    EXPECT_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
    EXPECT_EQ(median(std::vector<double>{5}), 5.0);
}

TEST(Util, MedianOfEvenCountIsTheMeanOfTheTwoMiddleValues) {
    EXPECT_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
    EXPECT_EQ(median(std::vector<double>{10, 20}), 15.0);
    EXPECT_EQ(median(std::vector<float>{1.0f, 2.0f, 100.0f, -7.0f}), 1.5f);
}

TEST(Util, MedianOfNothingIsZero) {
    EXPECT_EQ(median(std::vector<double>{}), 0.0);
}

TEST(Util, ClockNeverRunsBackwards) {
    const double a = now_s();
    const double b = now_s();
    EXPECT_GE(b, a);
}

TEST(Util, JoinPutsTheSeparatorBetweenItemsOnly) {
    EXPECT_EQ(join({}), "");
    EXPECT_EQ(join({"a"}), "a");
    EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
    EXPECT_EQ(join({"1", "2"}, ","), "1,2");
}

}  // namespace
}  // namespace nbody
