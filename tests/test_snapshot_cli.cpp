// Snapshots through the command line: --output by extension, --snapshot-every/--snapshot-dir, --restart
// continuing bit for bit, and the one-line errors for bad snapshot options and files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/replay.hpp"
#include "app/commands.hpp"
#include "cli_run.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/snapshot.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace nbody {
namespace {

using test::CliResult;
using test::run_cli;

class SnapshotCliTest : public test::TempDirTest {
  protected:
    std::vector<std::string> listing(const fs::path& d) const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

::testing::AssertionResult identical(const HostState& a, const HostState& b) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ";
    if (!same_bits(a.t, b.t)) return ::testing::AssertionFailure() << "t " << a.t << " vs " << b.t;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto &p = a.pos_mass[i], &q = b.pos_mass[i];
        const auto &v = a.vel[i], &w = b.vel[i];
        if (!(same_bits(p.x, q.x) && same_bits(p.y, q.y) && same_bits(p.z, q.z) && same_bits(p.w, q.w) &&
              same_bits(v.x, w.x) && same_bits(v.y, w.y) && same_bits(v.z, w.z)))
            return ::testing::AssertionFailure() << "body " << i << " differs";
    }
    return ::testing::AssertionSuccess();
}

// 200 steps in one run == 100 steps, then --restart from the step-100 snapshot for 100 more: serial and
// openmp, float and double, through the whole command line.
TEST_F(SnapshotCliTest, RestartContinuesBitForBit) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    for (const std::string backend : {"serial", "openmp"}) {
        for (const std::string precision : {"float", "double"}) {
            SCOPED_TRACE(backend + " " + precision);
            const std::vector<std::string> common = {"--preset",    "plummer", "--n",       "64",
                                                     "--seed",      "5",       "--backend", backend,
                                                     "--precision", precision};
            auto run = [&](std::vector<std::string> args) {
                args.insert(args.begin(), "run");
                const CliResult r = run_cli(args);
                EXPECT_EQ(r.code, 0) << r.err;
                return r;
            };
            std::vector<std::string> whole = {"--steps", "200", "--output", file("whole.h5")};
            whole.insert(whole.end(), common.begin(), common.end());
            run(whole);
            std::vector<std::string> first = {"--steps",        "100",         "--snapshot-every", "50",
                                              "--snapshot-dir", file("series")};
            first.insert(first.end(), common.begin(), common.end());
            run(first);
            EXPECT_EQ(listing(file("series")),
                      (std::vector<std::string>{"snap_000000.h5", "snap_000050.h5", "snap_000100.h5"}));
            const CliResult r = run({"--restart", file("series/snap_000100.h5"), "--steps", "100",
                                     "--backend", backend, "--output", file("continued.h5"),
                                     "--snapshot-every", "50", "--snapshot-dir", file("series")});
            EXPECT_NE(r.out.find("(from step 100)"), std::string::npos) << r.out;
            // The series goes on numbering where it stopped; the restart's own step is not rewritten.
            EXPECT_EQ(listing(file("series")),
                      (std::vector<std::string>{"snap_000000.h5", "snap_000050.h5", "snap_000100.h5",
                                                "snap_000150.h5", "snap_000200.h5"}));
            const Snapshot a = read_snapshot(file("whole.h5"));
            const Snapshot b = read_snapshot(file("continued.h5"));
            EXPECT_TRUE(identical(a.state, b.state));
            EXPECT_EQ(a.info.step, 200);
            EXPECT_EQ(b.info.step, 200);
            EXPECT_EQ(to_string(b.info.precision), precision);
            EXPECT_EQ(b.info.preset, "plummer");
            EXPECT_EQ(b.info.seed, 5u);
            EXPECT_TRUE(identical(read_snapshot(file("series/snap_000200.h5")).state, a.state));
            fs::remove_all(file("series"));
        }
    }
}

// --integrator hermite: a snapshot is a restart point that keeps the integrator's state (levels,
// accelerations, jerks; with --neighbours the splits and lists too). Writing a series changes nothing of the
// run, and a run restarted from one of its snapshots goes on bit for bit as the unbroken run that wrote
// none; eta travels in the file. A snapshot without that state (a CSV's bodies read as a new run) starts
// its levels again and goes another way (which shows the test can tell).
TEST_F(SnapshotCliTest, HermiteRestartContinuesBitForBitAsTheUnbrokenRun) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    for (const std::string neighbours : {"0", "8"}) {
        for (const std::string backend : {"serial", "openmp"}) {
            for (const std::string precision : {"float", "double"}) {
                SCOPED_TRACE(backend + " " + precision + " --neighbours " + neighbours);
                const std::vector<std::string> common = {
                    "--preset",  "plummer", "--n",          "96",       "--seed",       "9",
                    "--backend", backend,   "--precision",  precision,  "--integrator", "hermite",
                    "--eta",     "0.01",    "--neighbours", neighbours, "--quiet"};
                auto run = [&](std::vector<std::string> args, bool with_common = true) {
                    args.insert(args.begin(), "run");
                    if (with_common) args.insert(args.end(), common.begin(), common.end());
                    const CliResult r = run_cli(args);
                    EXPECT_EQ(r.code, 0) << r.err;
                    return r;
                };
                run({"--steps", "40", "--output", file("whole.h5"), "--snapshot-every", "20",
                     "--snapshot-dir", file("whole_series")});
                run({"--steps", "40", "--output", file("plain.h5")});
                run({"--steps", "20", "--snapshot-every", "20", "--snapshot-dir", file("series")});
                const Snapshot mid = read_snapshot(file("series/snap_000020.h5"));
                EXPECT_EQ(mid.info.params.eta, 0.01);
                EXPECT_EQ(to_string(mid.info.params.integrator), std::string("hermite"));
                ASSERT_TRUE(mid.block.has_value());
                EXPECT_EQ(mid.block->has_neighbours(), neighbours != "0");
                const CliResult r = run({"--restart", file("series/snap_000020.h5"), "--steps", "20",
                                         "--backend", backend, "--output", file("continued.h5"), "--quiet"},
                                        false);
                EXPECT_EQ(r.err, "");  // nothing overridden, the state taken
                const Snapshot whole = read_snapshot(file("whole.h5"));
                const Snapshot plain = read_snapshot(file("plain.h5"));
                const Snapshot continued = read_snapshot(file("continued.h5"));
                EXPECT_TRUE(identical(whole.state, plain.state));  // the series changed nothing
                EXPECT_TRUE(identical(continued.state, plain.state));
                EXPECT_TRUE(continued.block.has_value());  // --output keeps the state too
                EXPECT_EQ(continued.info.params.eta, 0.01);
                // The same bodies without the state: the levels start again.
                run({"--steps", "0", "--output", file("mid.csv"), "--restart", file("series/snap_000020.h5"),
                     "--quiet"},
                    false);
                EXPECT_EQ(read_snapshot(file("mid.csv")).info.params.eta, 0.01);  // a CSV carries eta too
                const CliResult fresh =
                    run({"--input", file("mid.csv"), "--steps", "20", "--backend", backend, "--precision",
                         precision, "--output", file("fresh.h5"), "--quiet"},
                        false);
                EXPECT_FALSE(identical(read_snapshot(file("fresh.h5")).state, plain.state));
                fs::remove_all(file("series"));
                fs::remove_all(file("whole_series"));
            }
        }
    }
}

// A restart from a snapshot that holds no integrator state (written before nbody kept it, or by a backend
// that could not give it) says so in one line and starts the levels from the bodies.
TEST_F(SnapshotCliTest, AHermiteRestartWithoutStoredStateSaysSo) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    ASSERT_EQ(run_cli({"run", "--n", "32", "--integrator", "hermite", "--steps", "2", "--output",
                       file("a.h5"), "--quiet"})
                  .code,
              0);
    Snapshot s = read_snapshot(file("a.h5"));
    ASSERT_TRUE(s.block.has_value());
    s.block.reset();
    write_snapshot(file("b.h5"), s);
    const CliResult r = run_cli({"run", "--restart", file("b.h5"), "--steps", "2", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "nbody: note: " + file("b.h5") +
                         " holds no hermite state (levels, accelerations, jerks): the run restarts them from "
                         "its bodies\n");
    // At step 0 no block steps have run: such a file holds none, and its restart starts as its run did.
    ASSERT_EQ(run_cli({"run", "--n", "32", "--integrator", "hermite", "--steps", "0", "--output",
                       file("c.h5"), "--quiet"})
                  .code,
              0);
    EXPECT_FALSE(read_snapshot(file("c.h5")).block.has_value());
    const CliResult r0 = run_cli({"run", "--restart", file("c.h5"), "--steps", "2", "--quiet"});
    ASSERT_EQ(r0.code, 0) << r0.err;
    EXPECT_EQ(r0.err, "");
}

// A restart's energy log and trajectory number their rows from its step, as its parameter lines, the
// snapshot series and the collision log do (they used to start again at 0).
TEST_F(SnapshotCliTest, ARestartsLogsCountStepsFromItsStep) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    ASSERT_EQ(run_cli({"run", "--n", "32", "--steps", "10", "--output", file("a.h5"), "--quiet"}).code, 0);
    const CliResult r =
        run_cli({"run", "--restart", file("a.h5"), "--steps", "5", "--energy-log", file("e.csv"),
                 "--log-every", "2", "--trajectory", file("t.csv"), "--trajectory-every", "5", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto steps = [](const std::string& path) {
        std::ifstream in(path);
        std::vector<std::string> out;
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#' || line.rfind("step,", 0) == 0) continue;
            const std::string step = line.substr(0, line.find(','));
            if (out.empty() || out.back() != step) out.push_back(step);
        }
        return out;
    };
    EXPECT_EQ(steps(file("e.csv")), (std::vector<std::string>{"10", "12", "14", "15"}));
    EXPECT_EQ(steps(file("t.csv")), (std::vector<std::string>{"10", "15"}));
    std::ifstream in(file("e.csv"));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("# step = 10\n"), std::string::npos) << text.substr(0, 400);
}

// Advice that names --precision double says, for a --restart (which keeps its snapshot's precision and
// refuses --precision), how to get double from the same bodies; a new run's advice does not.
TEST_F(SnapshotCliTest, ARestartsPrecisionAdviceSaysHowToGetDouble) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const std::vector<std::string> hermite = {"--integrator", "hermite", "--softening", "0",
                                              "--steps",      "1",       "--quiet"};
    std::vector<std::string> first = {"run", "--n", "32", "--output", file("h.h5")};
    first.insert(first.end(), hermite.begin(), hermite.end());
    const CliResult fresh = run_cli(first);
    ASSERT_EQ(fresh.code, 0) << fresh.err;
    const std::string note =
        "(--restart keeps the snapshot's float: for double start a new run from it with --input)";
    EXPECT_EQ(fresh.err.find(note), std::string::npos) << fresh.err;
    EXPECT_NE(fresh.err.find("--precision double or a --softening above 0 avoids it"), std::string::npos)
        << fresh.err;
    const CliResult restarted = run_cli({"run", "--restart", file("h.h5"), "--steps", "1", "--quiet"});
    ASSERT_EQ(restarted.code, 0) << restarted.err;
    EXPECT_NE(restarted.err.find("--precision double or a --softening above 0 avoids it " + note),
              std::string::npos)
        << restarted.err;
}

TEST_F(SnapshotCliTest, OutputFormatFollowsTheExtensionAndInputReadsItBack) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    for (const std::string name : {"o.csv", "o.h5", "o.hdf5", "o.tipsy", "o.bin"}) {
        SCOPED_TRACE(name);
        const CliResult r = run_cli({"run", "--n", "32", "--steps", "3", "--output", file(name)});
        ASSERT_EQ(r.code, 0) << r.err;
        const CliResult back =
            run_cli({"run", "--input", file(name), "--steps", "0", "--output", file("back.csv")});
        EXPECT_EQ(back.code, 0) << back.err;
    }
    const CliResult bad = run_cli({"run", "--n", "32", "--steps", "3", "--output", file("o.txt")});
    EXPECT_EQ(bad.code, 1);
    EXPECT_EQ(bad.err,
              "nbody: error: --output '" + file("o.txt") +
                  "': unknown file type (use .csv, .h5/.hdf5, .tipsy/.std for big-endian Tipsy, .bin for "
                  "native-endian Tipsy)\n");
}

TEST_F(SnapshotCliTest, BadSnapshotOptionsGetOneLine) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    auto err = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "run");
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.code, 1);
        return r.err;
    };
    EXPECT_EQ(err({"--snapshot-every", "10"}),
              "nbody: error: --snapshot-every needs --snapshot-dir DIR (where to write them)\n");
    EXPECT_EQ(err({"--snapshot-dir", file("d")}),
              "nbody: error: --snapshot-dir needs --snapshot-every K (how often to write)\n");
    EXPECT_EQ(err({"--snapshot-every", "0", "--snapshot-dir", file("d")}),
              "nbody: error: --snapshot-every must be an integer >= 1 (got '0')\n");
    std::ofstream(file("plain")) << "x";
    EXPECT_EQ(err({"--snapshot-every", "1", "--snapshot-dir", file("plain")}),
              "nbody: error: --snapshot-dir '" + file("plain") + "' exists and is not a directory\n");
    // --restart needs our HDF5 snapshot, and keeps its precision.
    ASSERT_EQ(run_cli({"run", "--n", "16", "--steps", "1", "--output", file("f.h5")}).code, 0);
    ASSERT_EQ(run_cli({"run", "--n", "16", "--steps", "1", "--output", file("f.csv")}).code, 0);
    EXPECT_EQ(err({"--restart", file("f.csv")}),
              "nbody: error: --restart '" + file("f.csv") +
                  "': needs an HDF5 snapshot (.h5) written by nbody; start "
                  "a new run from a CSV or Tipsy file with --input\n");
    EXPECT_EQ(err({"--restart", file("f.h5"), "--precision", "double"}),
              "nbody: error: --restart '" + file("f.h5") +
                  "' holds float bodies: --precision double would not "
                  "continue the run exactly (drop --precision, or start a new run from it with --input)\n");
    EXPECT_EQ(err({"--restart", file("f.h5"), "--n", "5"}),
              "nbody: error: --restart and --n cannot be used together (the snapshot sets the bodies)\n");
    const CliResult warned = run_cli({"run", "--restart", file("f.h5"), "--steps", "1", "--dt", "0.001"});
    EXPECT_EQ(warned.code, 0);
    EXPECT_NE(warned.err.find("nbody: warning: --dt overrides the value stored in"), std::string::npos)
        << warned.err;
    // Flags that repeat the stored values change nothing and are not warned about (the preset's dt 0.01 and
    // softening 0.02, leapfrog, direct), another value still is.
    const CliResult same =
        run_cli({"run", "--restart", file("f.h5"), "--steps", "1", "--dt", "0.01", "--softening", "0.02",
                 "--integrator", "leapfrog", "--force", "direct", "--quiet"});
    EXPECT_EQ(same.code, 0);
    EXPECT_EQ(same.err, "");
    const CliResult other = run_cli(
        {"run", "--restart", file("f.h5"), "--steps", "1", "--dt", "0.01", "--softening", "0.03", "--quiet"});
    EXPECT_EQ(other.code, 0);
    EXPECT_EQ(other.err, "nbody: warning: --softening overrides the value stored in '" + file("f.h5") +
                             "': the continuation is not the original run\n");
    // The same for an adaptive run's settings: hermite's dt, eta and neighbours repeated.
    ASSERT_EQ(run_cli({"run", "--n", "16", "--steps", "1", "--integrator", "hermite", "--dt", "0.3",
                       "--output", file("h.h5"), "--quiet"})
                  .code,
              0);
    const CliResult hermite =
        run_cli({"run", "--restart", file("h.h5"), "--steps", "1", "--integrator", "hermite", "--dt", "0.3",
                 "--eta", "0.02", "--neighbours", "0", "--quiet"});
    EXPECT_EQ(hermite.code, 0);
    EXPECT_EQ(hermite.err, "");
    // A corrupt snapshot: one line naming the file; nothing written.
    std::ofstream(file("junk.h5")) << "not hdf5 at all";
    EXPECT_EQ(err({"--input", file("junk.h5"), "--output", file("out.h5")}),
              "nbody: error: " + file("junk.h5") + ": not an HDF5 file\n");
    EXPECT_FALSE(fs::exists(file("out.h5")));
}

TEST_F(SnapshotCliTest, SeriesAreListedInStepOrderAndPlayedBack) {
    for (const std::string name : {"snap_000010.h5", "snap_1000000.h5", "snap_000002.h5", "notes.txt",
                                   ".snap_000011.h5.tmp.1.abc", "snap_999999.h5"}) {
        std::ofstream(file(name)) << "x";
    }
    const std::vector<std::string> files = list_snapshot_series(dir_.string());
    ASSERT_EQ(files.size(), 4u);
    EXPECT_EQ(fs::path(files[0]).filename(), "snap_000002.h5");
    EXPECT_EQ(fs::path(files[1]).filename(), "snap_000010.h5");
    EXPECT_EQ(fs::path(files[2]).filename(), "snap_999999.h5");
    EXPECT_EQ(fs::path(files[3]).filename(), "snap_1000000.h5");
    fs::create_directories(file("empty"));
    try {
        list_snapshot_series(file("empty"));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no snapshot files"), std::string::npos) << e.what();
    }

    ReplayTimeline t(4);
    t.speed = 10;
    EXPECT_EQ(t.tick(0.05), std::nullopt);    // half a snapshot
    EXPECT_EQ(t.tick(0.05), std::size_t(1));  // the second half
    EXPECT_EQ(t.tick(0.25), std::size_t(3));  // 2.5 snapshots: two, half carried
    EXPECT_EQ(t.tick(0.05), std::size_t(0));  // wraps (loop)
    t.loop = false;
    EXPECT_EQ(t.seek(99), std::size_t(3));  // clamped
    EXPECT_EQ(t.tick(1.0), std::nullopt);   // at the end, no loop: stays and pauses
    EXPECT_FALSE(t.playing);
    EXPECT_EQ(t.seek(1), std::size_t(1));
    EXPECT_EQ(t.tick(1.0), std::nullopt);  // paused
}

}  // namespace
}  // namespace nbody
