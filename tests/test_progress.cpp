// The progress line: its text, its cadence in plain mode, the live line on a terminal, --quiet.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "app/cli/progress.hpp"

namespace nbody {
namespace {

ProgressSettings plain_every_update() {
    ProgressSettings s;
    s.terminal = false;
    s.plain_interval_s = 0;
    return s;
}

TEST(Progress, LineSaysStepsRatesAndEta) {
    std::ostringstream out;
    Progress p("run", 200, 1000.0 * 1000.0, plain_every_update(), out);
    const std::string line = p.line(50, 2.0);  // 25 steps/s, 150 steps left: 6 s
    EXPECT_NE(line.find("run: step 50/200 (25%)"), std::string::npos) << line;
    EXPECT_NE(line.find("25 steps/s"), std::string::npos) << line;
    EXPECT_NE(line.find("2.5e+07 interactions/s"), std::string::npos) << line;
    EXPECT_NE(line.find("ETA 6 s"), std::string::npos) << line;
    EXPECT_NE(p.line(10, 1.0).find("ETA 19 s"), std::string::npos);
    EXPECT_NE(p.line(1, 10.0).find("ETA 33 min 10 s"), std::string::npos) << p.line(1, 10.0);
}

// An adaptive run counts max steps and says what they hide: its clock, blocks and evaluations.
TEST(Progress, LineShowsItsUnitsAndDetail) {
    std::ostringstream out;
    Progress p("run", 200, 0.0, plain_every_update(), out);
    p.set_units("max step", "max steps");
    p.set_detail("t = 0.5, 120 blocks, 3.4e+04 force+jerk evaluations");
    const std::string line = p.line(50, 2.0);
    EXPECT_NE(line.find("run: max step 50/200 (25%), t = 0.5, 120 blocks, 3.4e+04 force+jerk evaluations, "
                        "25 max steps/s, ETA 6 s"),
              std::string::npos)
        << line;
    EXPECT_EQ(line.find("interactions/s"), std::string::npos) << line;
    p.set_detail("");
    EXPECT_NE(p.line(50, 2.0).find("(25%), 25 max steps/s"), std::string::npos) << p.line(50, 2.0);
}

// Inside a long max step (MaxStepWatch) the share of it done counts: the count stays whole, the percentage,
// rate and ETA take the share.
TEST(Progress, AShareOfAStepCountsInThePercentageAndTheEta) {
    std::ostringstream out;
    Progress p("run", 2, 0.0, plain_every_update(), out);
    p.set_units("max step", "max steps");
    const std::string line = p.line(0.5, 10.0);  // 0.05 max steps/s, 1.5 left: 30 s
    EXPECT_NE(line.find("run: max step 0/2 (25%)"), std::string::npos) << line;
    EXPECT_NE(line.find("0.05 max steps/s, ETA 30 s"), std::string::npos) << line;
    p.update_within(1.25, max_step_under_way_detail(0.3125, 0.25, 1234));
    EXPECT_NE(out.str().find(
                  "nbody run: max step 1/2 (62%), t = 0.3125, a max step under way, 1234 blocks into it"),
              std::string::npos)
        << out.str();
}

TEST(Progress, PlainModePrintsWholeLines) {
    std::ostringstream out;
    {
        Progress p("run", 10, 100, plain_every_update(), out);
        p.update(5);
        p.update(10);
    }
    const std::string text = out.str();
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
    EXPECT_NE(text.find("nbody run: step 5/10"), std::string::npos) << text;
    EXPECT_NE(text.find("nbody run: step 10/10"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '\n');
}

TEST(Progress, PlainModeWaitsForItsInterval) {
    std::ostringstream out;
    ProgressSettings s = plain_every_update();
    s.plain_interval_s = 3600;
    Progress p("run", 10, 100, s, out);
    p.update(5);
    p.finish();
    EXPECT_EQ(out.str(), "");
}

TEST(Progress, TerminalModeRewritesOneLineAndClearsItAtTheEnd) {
    std::ostringstream out;
    ProgressSettings s;
    s.terminal = true;
    s.live_interval_s = 0;
    Progress p("render", 10, 100, s, out);
    p.update(3);
    p.update(7);
    p.finish();
    const std::string text = out.str();
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_NE(text.find("\rrender: step 7/10"), std::string::npos) << text;
    EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");  // the summary starts on a clean line
}

TEST(Progress, QuietPrintsNothing) {
    std::ostringstream out;
    ProgressSettings s = plain_every_update();
    s.enabled = false;
    Progress p("run", 10, 100, s, out);
    p.update(5);
    p.finish();
    EXPECT_EQ(out.str(), "");
}

TEST(Progress, ChunksAimAtTheTargetAndStayInRange) {
    EXPECT_EQ(next_chunk(0, 0, 100), 1);            // first call: one step, to measure
    EXPECT_EQ(next_chunk(1, 0.01, 1000, 0.25), 4);  // would be 25, but grows at most 4x
    EXPECT_EQ(next_chunk(100, 1.0, 1000, 0.25), 25);
    EXPECT_EQ(next_chunk(10, 100.0, 1000, 0.25), 1);  // slow steps: one at a time
    EXPECT_EQ(next_chunk(1000, 0.001, 7, 0.25), 7);   // never past the next stop
    EXPECT_EQ(next_chunk(5, 1.0, 0), 0);
}

}  // namespace
}  // namespace nbody
