// No run destroys what it reads or what another run writes (issue 26, items 1-4 and 6): outputs are
// compared with inputs by file identity, a snapshot series is never mixed into an earlier one, a log or a
// series directory has one writer at a time, and a damaged step counter is refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "cli_run.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/io/snapshot_hdf5.hpp"
#include "sim/platform/partial_file.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace nbody {
namespace {

using test::CliResult;
using test::refused;
using test::run_cli;
using test::slurp;

class DataSafetyTest : public test::FilesTest {
  protected:
    // A small body CSV, written by nbody itself.
    std::string make_input(const std::string& name) {
        const std::string path = file(name);
        EXPECT_EQ(run_cli({"run", "--n", "8", "--steps", "0", "--output", path, "--quiet"}).code, 0);
        return path;
    }

    // A series of 16 bodies in `dir`: snap_000000.h5, snap_000005.h5, snap_000010.h5.
    ::testing::AssertionResult make_series(const std::string& dir) {
        const CliResult r = run_cli(
            {"run", "--n", "16", "--steps", "10", "--snapshot-every", "5", "--snapshot-dir", dir, "--quiet"});
        if (r.code == 0) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "status " << r.code << ": " << r.err;
    }

    // `nbody args` is refused in one line containing `what`, and `kept` still holds what it held.
    ::testing::AssertionResult refused_keeping(const std::vector<std::string>& args, const std::string& what,
                                               const std::string& kept) {
        const std::string before = slurp(kept);
        const ::testing::AssertionResult r = refused(run_cli(args), what);
        if (!r) return r;
        if (slurp(kept) != before) return ::testing::AssertionFailure() << kept << " changed";
        return ::testing::AssertionSuccess();
    }
};

TEST_F(DataSafetyTest, NoOutputMayBeTheInputUnderAnyName) {
    // Used to exit 0 with in.csv replaced by an energy log (item 1).
    const std::string in = make_input("in.csv");
    const std::string before = slurp(in);
    fs::create_hard_link(in, file("hard.csv"));
    fs::create_symlink(in, file("link.csv"));
    const std::string here = (fs::path(dir_) / "." / "in.csv").string();
    const std::vector<std::vector<std::string>> cases = {
        {"--energy-log", in},
        {"--trajectory", here},
        {"--output", file("hard.csv")},
        {"--output", file("link.csv")},
        {"--energy-log", file("other.csv"), "--plot", file("hard.csv")},
    };
    for (const auto& outputs : cases) {
        std::vector<std::string> args = {"run", "--input", in, "--steps", "2", "--quiet"};
        args.insert(args.end(), outputs.begin(), outputs.end());
        EXPECT_TRUE(refused_keeping(args, "is the same file as --input", in)) << outputs[0];
    }
    // A log whose growing file would be the input is refused too.
    fs::copy_file(in, file("e.csv.partial"));
    EXPECT_TRUE(refused_keeping(
        {"run", "--input", file("e.csv.partial"), "--steps", "1", "--energy-log", file("e.csv"), "--quiet"},
        "is the same file as --input", file("e.csv.partial")));
    EXPECT_EQ(slurp(file("e.csv.partial")), before);
}

TEST_F(DataSafetyTest, PlotNeverWritesOverItsInput) {
    const std::string in = make_input("in.csv");
    ASSERT_EQ(run_cli({"run", "--input", in, "--steps", "2", "--energy-log", file("e.csv"), "--quiet"}).code,
              0);
    fs::create_symlink(file("e.csv"), file("e.png"));
    EXPECT_TRUE(refused_keeping({"plot", file("e.csv"), "-o", file("e.png")}, "is the same file as FILE",
                                file("e.csv")));
}

TEST_F(DataSafetyTest, AnEarlierSnapshotSeriesIsNeverMixedWithANewOne) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const std::string s = file("s");
    ASSERT_TRUE(make_series(s));
    const std::string first_step0 = slurp(s + "/snap_000000.h5");
    // Used to replace 000000 and 000005 and keep 000010 (item 2).
    EXPECT_TRUE(refused_keeping({"run", "--n", "16", "--seed", "2", "--steps", "5", "--snapshot-every", "5",
                                 "--snapshot-dir", s, "--quiet"},
                                "already holds a snapshot series (snap_000000.h5 to snap_000010.h5, 3 files)",
                                s + "/snap_000000.h5"));
    // Asked for, it replaces what it writes.
    EXPECT_EQ(run_cli({"run", "--n", "16", "--seed", "2", "--steps", "5", "--snapshot-every", "5",
                       "--snapshot-dir", s, "--overwrite", "--quiet"})
                  .code,
              0);
    EXPECT_FALSE(slurp(s + "/snap_000000.h5") == first_step0);
    // Files of other names in the directory do not count as a series.
    const std::string t = file("t");
    fs::create_directory(t);
    std::ofstream(t + "/notes.txt") << "mine";
    EXPECT_EQ(
        run_cli({"run", "--n", "16", "--steps", "5", "--snapshot-every", "5", "--snapshot-dir", t, "--quiet"})
            .code,
        0);
    EXPECT_EQ(listing(t), (std::vector<std::string>{"notes.txt", "snap_000000.h5", "snap_000005.h5"}));
}

TEST_F(DataSafetyTest, ARunNeverWritesItsSnapshotsOverItsInput) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const std::string s = file("s");
    ASSERT_TRUE(make_series(s));
    const std::string input = s + "/snap_000010.h5";
    // Used to rewrite its own input: --input keeps the file's step, so its first snapshot is step 10.
    for (const bool overwrite : {false, true}) {
        std::vector<std::string> args = {"run", "--input",        input, "--steps", "5", "--snapshot-every",
                                         "5",   "--snapshot-dir", s,     "--quiet"};
        if (overwrite) args.push_back("--overwrite");
        EXPECT_TRUE(refused_keeping(args, "the run would write over its own input", input)) << overwrite;
    }
}

TEST_F(DataSafetyTest, ARestartContinuesItsOwnSeriesAndNoOtherOne) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const std::string s = file("s");
    ASSERT_TRUE(make_series(s));
    // From its last snapshot: it goes on numbering where the series stopped.
    EXPECT_EQ(run_cli({"run", "--restart", s + "/snap_000010.h5", "--steps", "10", "--snapshot-every", "5",
                       "--snapshot-dir", s, "--quiet"})
                  .code,
              0);
    EXPECT_EQ(listing(s), (std::vector<std::string>{"snap_000000.h5", "snap_000005.h5", "snap_000010.h5",
                                                    "snap_000015.h5", "snap_000020.h5"}));
    // From an earlier one, it would replace the later ones: only when asked.
    EXPECT_TRUE(refused_keeping({"run", "--restart", s + "/snap_000005.h5", "--steps", "10",
                                 "--snapshot-every", "5", "--snapshot-dir", s, "--quiet"},
                                "already holds snapshots beyond step 5", s + "/snap_000015.h5"));
    // Into another run's series: refused like any new series.
    const std::string other = file("other");
    ASSERT_EQ(run_cli({"run", "--n", "16", "--steps", "0", "--snapshot-every", "5", "--snapshot-dir", other,
                       "--quiet"})
                  .code,
              0);
    EXPECT_TRUE(refused(run_cli({"run", "--restart", s + "/snap_000020.h5", "--steps", "5",
                                 "--snapshot-every", "5", "--snapshot-dir", other, "--quiet"}),
                        "already holds a snapshot series"));
}

TEST_F(DataSafetyTest, ASeriesDirectoryHasOneWriterAtATime) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    // Two runs sharing --snapshot-dir used to interleave their series, both exiting 0 (item 3).
    const std::string s = file("s");
    fs::create_directory(s);
    const int held = ::open(s.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX | LOCK_NB), 0);  // as a running nbody holds it
    EXPECT_TRUE(refused(run_cli({"run", "--n", "16", "--steps", "5", "--snapshot-every", "5",
                                 "--snapshot-dir", s, "--quiet"}),
                        "another nbody run is writing a snapshot series there"));
    EXPECT_TRUE(listing(s).empty());
    ::close(held);
}

TEST_F(DataSafetyTest, TwoRunsSharingALogDoNotCorruptIt) {
    // Both used to write e.csv.partial: one exited 0 with the other's rows and NUL bytes (item 3).
    const std::string log = file("e.csv");
    PartialFile running(log);  // another run, mid-way
    running.stream() << "the other run's rows\n";
    running.end_record();
    EXPECT_TRUE(refused(run_cli({"run", "--n", "8", "--steps", "2", "--energy-log", log, "--quiet"}),
                        "another nbody run is writing it"));
    EXPECT_TRUE(refused(run_cli({"run", "--n", "8", "--steps", "2", "--trajectory", log, "--quiet"}),
                        "another nbody run is writing it"));
    EXPECT_EQ(slurp(log + ".partial"), "the other run's rows\n");
    running.commit();
    EXPECT_EQ(slurp(log), "the other run's rows\n");
}

TEST_F(DataSafetyTest, APlantedPartialFileIsNeverFollowed) {
    // A symlink used to be followed (the victim got the log); a FIFO hung the run forever (item 4).
    const std::string victim = file("victim.txt");
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, file("e.csv.partial"));
    EXPECT_TRUE(
        refused(run_cli({"run", "--n", "8", "--steps", "2", "--energy-log", file("e.csv"), "--quiet"}),
                "is a symbolic link"));
    EXPECT_EQ(slurp(victim), "precious");
    ASSERT_EQ(::mkfifo(file("f.csv.partial").c_str(), 0600), 0);
    EXPECT_TRUE(refused(
        run_cli({"run", "--n", "8", "--steps", "2", "--trajectory", file("f.csv"), "--quiet"}), "is a FIFO"));
    EXPECT_FALSE(fs::exists(file("e.csv")));
    EXPECT_FALSE(fs::exists(file("f.csv")));
}

TEST_F(DataSafetyTest, ADamagedStepCounterIsRefusedNotSpunOn) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    // /NBody/Step = 2^63 - 1 (one flipped bit) used to make every chunk 0 steps: the run never ended.
    ASSERT_EQ(run_cli({"run", "--n", "8", "--steps", "0", "--output", file("ok.h5"), "--quiet"}).code, 0);
    Snapshot snap = read_snapshot(file("ok.h5"));
    snap.info.step = std::numeric_limits<std::int64_t>::max();
    write_hdf5_snapshot(file("flipped.h5"), snap);
    EXPECT_TRUE(refused(run_cli({"run", "--restart", file("flipped.h5"), "--steps", "3", "--quiet"}),
                        "/NBody/Step = 9223372036854775808 is out of range"));
    // The largest counter a file may hold still runs, and its sums with --steps are checked.
    snap.info.step = kMaxStepCounter;
    write_hdf5_snapshot(file("late.h5"), snap);
    EXPECT_EQ(run_cli({"run", "--restart", file("late.h5"), "--steps", "3", "--snapshot-every", "3",
                       "--snapshot-dir", file("s"), "--quiet"})
                  .code,
              0);
    EXPECT_TRUE(
        refused(run_cli({"run", "--restart", file("late.h5"), "--steps", "9223372036854775807", "--quiet"}),
                "is more steps than a run can count"));
    // The same counter in a CSV's parameter lines.
    for (const std::string step : {"-7", "9223372036854775807"}) {
        std::string text = slurp(make_input("c.csv"));
        const std::size_t at = text.find("# step = 0");
        ASSERT_NE(at, std::string::npos);
        text.replace(at, 10, "# step = " + step);
        std::ofstream(file("bad.csv")) << text;
        EXPECT_TRUE(refused(run_cli({"run", "--input", file("bad.csv"), "--steps", "1", "--quiet"}),
                            "step = " + step + " in the parameter lines"));
    }
}

// In a forked child: `nbody args` with files limited to `limit` bytes (a full disk, as a test can have one
// without mounting a small tmpfs, which needs privileges), then exit() with its status, so that anything
// left open for the libraries' exit handlers (HDF5's) runs as at a real program's end.
[[noreturn]] void run_on_a_full_disk(const std::vector<std::string>& args, rlim_t limit) {
    const rlimit small{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &small);
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG, as one on a full disk
    const CliResult r = run_cli(args);
    std::fputs(r.err.c_str(), stderr);
    std::exit(r.code);
}

TEST_F(DataSafetyTest, Hdf5OutputOnAFullDiskIsOneLineAndNoCrash) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    // It used to print ~400 characters naming the hidden temporary, then crash in libhdf5 at exit
    // (H5F__close_cb <- H5_term_library <- exit: the failed close left the file open) (items 5, 13).
    const std::string out = file("x.h5");
    EXPECT_EXIT(
        run_on_a_full_disk({"run", "--n", "2000", "--steps", "0", "--output", out, "--quiet"}, 64 << 10),
        ::testing::ExitedWithCode(1), "^nbody: error: cannot write '[^']*x.h5': File too large\n$");
    EXPECT_EXIT(run_on_a_full_disk({"run", "--n", "2000", "--steps", "5", "--snapshot-every", "5",
                                    "--snapshot-dir", file("s"), "--quiet"},
                                   64 << 10),
                ::testing::ExitedWithCode(1),
                "^nbody: error: cannot write '[^']*snap_000000.h5': File too large\n$");
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(listing(dir_.string()), std::vector<std::string>{"s"});  // no temporary left behind
}

}  // namespace
}  // namespace nbody
