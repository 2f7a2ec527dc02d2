// The whole command line, in-process: bad input gives one error line, a non-zero exit and no files;
// good input writes what it says.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "app/cli/argument_hash.hpp"
#include "app/cli/cmd_run.hpp"
#include "app/cli/process_pipe.hpp"
#include "app/commands.hpp"
#include "backends/registry.hpp"
#include "cli_run.hpp"
#include "scenario/step_plan.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/io/run_metadata.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/presets.hpp"
#include "sim/validate.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

extern char** environ;

namespace nbody {
namespace {

using test::CliResult;
using test::run_cli;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The lines of a CSV written by nbody without its '#' parameter lines.
std::vector<std::string> data_lines(const std::string& text) {
    std::vector<std::string> lines;
    for (const std::string& line : lines_of(text)) {
        if (line.rfind('#', 0) != 0) lines.push_back(line);
    }
    return lines;
}

class CliTest : public test::TempDirTest {
  protected:
    std::string write_file(const std::string& name, const std::string& text) const {
        std::ofstream(file(name)) << text;
        return file(name);
    }

    // Files in the test directory other than the inputs the test wrote itself.
    std::vector<std::string> outputs(const std::vector<std::string>& inputs = {}) const {
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(dir_)) {
            const std::string p = e.path().string();
            if (std::find(inputs.begin(), inputs.end(), p) == inputs.end()) found.push_back(p);
        }
        return found;
    }

    // A failing `nbody run ... --output/--energy-log/--trajectory`: non-zero exit, exactly one error line
    // that contains `expect`, nothing on stdout, and no file (not even a temporary) left behind.
    void expect_rejected(std::vector<std::string> args, const std::string& expect,
                         const std::vector<std::string>& inputs = {}) {
        args.insert(args.begin(), "run");
        for (const char* flag : {"--output", "--energy-log", "--trajectory"}) {
            args.push_back(flag);
            args.push_back(file(std::string(flag + 2) + ".csv"));
        }
        const CliResult r = run_cli(args);
        std::string cmd;
        for (const auto& a : args) cmd += a + " ";
        SCOPED_TRACE(cmd);
        EXPECT_NE(r.code, 0);
        const auto err_lines = lines_of(r.err);
        ASSERT_EQ(err_lines.size(), 1u) << r.err;
        EXPECT_EQ(err_lines[0].rfind("nbody: error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(expect), std::string::npos) << "expected '" << expect << "' in: " << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(outputs(inputs).empty()) << "left behind: " << outputs(inputs).front();
    }

    // A failing command run exactly as given: non-zero exit, one error line containing `expect`, nothing
    // on stdout, no file left in the test directory.
    void expect_error(const std::vector<std::string>& args, const std::string& expect,
                      const std::vector<std::string>& inputs = {}) {
        const CliResult r = run_cli(args);
        std::string cmd;
        for (const auto& a : args) cmd += "'" + a + "' ";
        SCOPED_TRACE(cmd);
        EXPECT_NE(r.code, 0);
        const auto err_lines = lines_of(r.err);
        ASSERT_EQ(err_lines.size(), 1u) << r.err;
        EXPECT_EQ(err_lines[0].rfind("nbody: error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(expect), std::string::npos) << "expected '" << expect << "' in: " << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(outputs(inputs).empty()) << "left behind: " << outputs(inputs).front();
    }
};

// The executable asks CUDA for one hardware work queue before its first device call (its device work runs
// one item after another; the context is made ~0.06 s faster, PERFORMANCE.md "Nineteenth pass"), and
// leaves a value the user set alone. Without CUDA it sets nothing.
TEST(Backends, TheProcessAsksForOneDeviceWorkQueueUnlessTheUserSetOne) {
    const char* kName = "CUDA_DEVICE_MAX_CONNECTIONS";
    const char* before = std::getenv(kName);
    const std::optional<std::string> kept = before ? std::optional<std::string>(before) : std::nullopt;
    ::unsetenv(kName);
    prepare_process_for_devices();
    const char* set = std::getenv(kName);
#ifdef NBODY_HAVE_CUDA
    ASSERT_NE(set, nullptr);
    EXPECT_STREQ(set, "1");
#else
    EXPECT_EQ(set, nullptr);
#endif
    ::setenv(kName, "4", 1);
    prepare_process_for_devices();
    EXPECT_STREQ(std::getenv(kName), "4");
    if (kept) {
        ::setenv(kName, kept->c_str(), 1);
    } else {
        ::unsetenv(kName);
    }
}

// A backend's availability is asked of its probe when first wanted, not when the registry is made (the CUDA
// probe pays the driver's start-up, ~0.1 s, which serial runs and `nbody --version` should not); once,
// however many threads ask at the same time, and an entry's copies share the answer.
TEST(Backends, AnEntryAsksItsProbeOnceWhenFirstAskedAndItsCopiesShareTheAnswer) {
    std::atomic<int> calls{0};
    BackendInfo entry;
    entry.name = "probed";
    entry.probe = [&calls] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // both threads below ask meanwhile
        return std::string("no device: gone");
    };
    const BackendInfo copy = entry;
    EXPECT_EQ(calls.load(), 0);
    bool first = true, second = true;
    std::thread a([&] { first = entry.available(); });
    std::thread b([&] { second = copy.available(); });
    a.join();
    b.join();
    EXPECT_FALSE(first);
    EXPECT_FALSE(second);
    EXPECT_EQ(copy.unavailable_reason(), "no device: gone");
    EXPECT_EQ(calls.load(), 1);
    BackendInfo host;  // no probe: it runs wherever the build has it
    EXPECT_TRUE(host.available());
    EXPECT_EQ(host.unavailable_reason(), "");
}

// The processes of an mpirun line agree on the command line as parsed (issue 26, item 7): one value
// spelled two ways, `--flag=value`, or the flags in another order are the same run; another value is not.
std::uint64_t run_hash(std::vector<std::string> args) {
    CLI::App app{"nbody"};
    RunOptions o;
    add_run_command(app, o);
    args.insert(args.begin(), "run");
    std::reverse(args.begin(), args.end());  // CLI11 takes the words last first
    app.parse(args);
    return parsed_arguments_hash(app);
}

TEST(ArgumentHash, SameValuesSpelledDifferentlyAgree) {
    const std::uint64_t base = run_hash({"--n", "8", "--dt", "0.01", "--steps", "2"});
    EXPECT_EQ(run_hash({"--n", "8", "--dt", "1e-2", "--steps", "2"}), base);
    EXPECT_EQ(run_hash({"--n", "8", "--dt", "0.010", "--steps", "2"}), base);
    EXPECT_EQ(run_hash({"--dt=1e-2", "--steps=2", "--n", "8"}), base);
    EXPECT_EQ(run_hash({"--n", "8", "--dt", "+0.01", "--steps", "2"}), base);
    EXPECT_NE(run_hash({"--n", "8", "--dt", "0.011", "--steps", "2"}), base);
    EXPECT_NE(run_hash({"--n", "8", "--dt", "0.01", "--steps", "3"}), base);
    EXPECT_NE(run_hash({"--n", "8", "--dt", "0.01", "--steps", "2", "--quiet"}), base);
    EXPECT_NE(run_hash({"--n", "8", "--steps", "2"}), base);
    EXPECT_NE(run_hash({"--preset", "disk", "--n", "8", "--dt", "0.01", "--steps", "2"}), base);
    EXPECT_NE(failed_parse_hash("--n: bad"), failed_parse_hash("--n: worse"));
}

TEST_F(CliTest, RejectsBadBodyCounts) {
    expect_rejected({"--n", "abc"}, "--n must be a positive integer (got 'abc')");
    expect_rejected({"--n", "0"}, "--n must be a positive integer");
    expect_rejected({"--n", "-5"}, "--n must be a positive integer");
    expect_rejected({"--n", "12.5"}, "--n must be a positive integer");
    expect_rejected({"--nBodies", "x"}, "--n must be a positive integer");
}

TEST_F(CliTest, RejectsNThatDoesNotFitInMemory) {
    expect_rejected({"--n", "1000000000000000"}, "of host memory but only");
}

TEST_F(CliTest, RejectsBadTimeSteps) {
    for (const char* dt : {"0", "-0.1", "nan", "inf", "-inf"}) expect_rejected({"--dt", dt}, "dt");
    expect_rejected({"--timeStep", "0"}, "dt");
    expect_rejected({"--dt", "fast"}, "--dt");
}

TEST_F(CliTest, RejectsNegativeSoftening) {
    expect_rejected({"--softening", "-1"}, "soften");
}

TEST_F(CliTest, RejectsUnknownNamesAndListsValidOnes) {
    expect_rejected({"--preset", "nope"}, "unknown preset 'nope' (valid: plummer");
    expect_rejected({"--backend", "nope"}, "unknown backend 'nope' (valid: serial, openmp");
    expect_rejected({"--integrator", "rk4"}, "unknown integrator 'rk4' (valid: leapfrog, symplectic-euler");
    expect_rejected({"--precision", "half"}, "unknown precision 'half' (valid: float, double)");
}

TEST_F(CliTest, RejectsConflictingFlags) {
    expect_rejected({"--steps", "3", "--t-end", "1"}, "--steps and --t-end");
    const std::string in = write_file("in.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,1\n");
    expect_rejected({"--preset", "plummer", "--input", in}, "--preset and --input", {in});
    expect_rejected({"--input", in, "--n", "5"}, "--n cannot be used with --input", {in});
}

TEST_F(CliTest, RejectsOtherBadRunValues) {
    expect_rejected({"--steps", "-1"}, "--steps must be an integer >= 0");
    expect_rejected({"--steps", "ten"}, "--steps must be an integer >= 0");
    expect_rejected({"--t-end", "-1"}, "--t-end");
    expect_rejected({"--t-end", "nan"}, "--t-end");
    expect_rejected({"--trajectory-every", "0"}, "--trajectory-every");
}

// A setting is range-checked by its flag, in run and bench alike, with the range of its registry entry.
TEST_F(CliTest, SettingsOutsideTheirRangeAreOneError) {
    for (const char* bad : {"0", "1.5", "nan", "-0.2"}) {
        expect_error({"run", "--n", "8", "--steps", "1", "--force", "tree", "--theta", bad}, "--theta");
        expect_error({"bench", "--n", "64", "--force", "tree", "--theta", bad}, "--theta");
    }
}

// eta-regular: 0 (eta's value) or in [1e-6, 1]; the gap between them is refused by the flag, in run and in
// bench alike (bench once ran 1e-9 for minutes), with the setting's own words.
TEST_F(CliTest, EtaRegularIsZeroOrInItsRange) {
    for (const char* bad : {"-1", "1e-9", "2", "nan"}) {
        expect_error({"run", "--n", "8", "--steps", "1", "--integrator", "hermite", "--neighbours", "4",
                      "--eta-regular", bad},
                     "--eta-regular");
        expect_error(
            {"bench", "--n", "64", "--integrator", "hermite", "--neighbours", "4", "--eta-regular", bad},
            "--eta-regular");
    }
    const CliResult r = run_cli({"run", "--n", "8", "--steps", "1", "--integrator", "hermite", "--neighbours",
                                 "4", "--eta-regular", "1e-9"});
    EXPECT_NE(r.err.find("--eta-regular must be 0 (eta's value) or in [1e-06, 1] (got '1e-9')"),
              std::string::npos)
        << r.err;
    // bench checks every case as a run does: a fractional neighbour count too.
    expect_error({"bench", "--n", "64", "--integrator", "hermite", "--neighbours", "2.5"}, "neighbours");
    for (const char* ok : {"0", "1e-6", "0.02"}) {
        const CliResult fine = run_cli({"run", "--n", "8", "--steps", "1", "--integrator", "hermite",
                                        "--neighbours", "4", "--eta-regular", ok, "--quiet"});
        EXPECT_EQ(fine.code, 0) << ok << ": " << fine.err;
    }
}

// A setting the run's algorithms do not take is said once, not silently ignored; one that needs another
// (eta-regular: the neighbour scheme) says which.
TEST_F(CliTest, ASettingWithoutItsAlgorithmIsANote) {
    const CliResult r = run_cli({"run", "--n", "8", "--steps", "1", "--theta", "0.4", "--quiet"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("note: --theta has no effect with --force direct"), std::string::npos) << r.err;
    const CliResult used =
        run_cli({"run", "--n", "8", "--steps", "1", "--force", "tree", "--theta", "0.4", "--quiet"});
    EXPECT_EQ(used.err.find("no effect"), std::string::npos) << used.err;
    const CliResult off = run_cli(
        {"run", "--n", "8", "--steps", "1", "--integrator", "hermite", "--eta-regular", "0.01", "--quiet"});
    EXPECT_EQ(off.code, 0) << off.err;
    EXPECT_NE(off.err.find("note: --eta-regular has no effect with --neighbours 0"), std::string::npos)
        << off.err;
    const CliResult on = run_cli({"run", "--n", "8", "--steps", "1", "--integrator", "hermite",
                                  "--neighbours", "4", "--eta-regular", "0.01", "--quiet"});
    EXPECT_EQ(on.err.find("no effect"), std::string::npos) << on.err;
}

// A scenario in physical units says so in the summary and in its logs' parameter lines (issue 23).
TEST_F(CliTest, UnitsAreInTheSummaryAndTheLogs) {
    const std::string log = file("units.csv");
    const CliResult r = run_cli({"run", "--preset", "sun-earth", "--steps", "10", "--energy-log", log,
                                 "--log-every", "5", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("  units           AU, years, solar masses (G = 4 pi^2)\n"), std::string::npos)
        << r.out;
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("# units = AU, years, solar masses (G = 4 pi^2)\n"), std::string::npos)
        << text.str();
    const CliResult plain = run_cli({"run", "--n", "8", "--steps", "1", "--quiet"});
    EXPECT_EQ(plain.out.find("units"), std::string::npos) << plain.out;
}

// The energy log's t (issue 23): summed step by step it is 2.9999999999999583 after 600 steps of 0.005;
// printed to a thousandth of the step it reads 3, and every row's t differs from the one before.
TEST_F(CliTest, EnergyLogTimesAreRoundedToTheStep) {
    const std::string log = file("times.csv"), traj = file("traj.csv");
    const CliResult r = run_cli({"run", "--preset", "figure-eight", "--steps", "600", "--energy-log", log,
                                 "--log-every", "100", "--trajectory", traj, "--trajectory-every", "300"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("(t = 0 -> 3)"), std::string::npos) << r.out;
    std::ifstream in(log);
    std::string line;
    std::vector<std::string> times;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("step,", 0) == 0) continue;
        const auto a = line.find(','), b = line.find(',', a + 1);
        times.push_back(line.substr(a + 1, b - a - 1));
    }
    EXPECT_EQ(times, (std::vector<std::string>{"0", "0.5", "1", "1.5", "2", "2.5", "3"}));
    std::ifstream tin(traj);
    std::stringstream ttext;
    ttext << tin.rdbuf();
    EXPECT_NE(ttext.str().find("\n600,3,0,"), std::string::npos) << ttext.str();
    // Rows a step apart stay distinct at a step of 1e-7.
    const std::string fine = file("fine.csv");
    ASSERT_EQ(run_cli({"run", "--preset", "figure-eight", "--steps", "3", "--dt", "1e-7", "--energy-log",
                       fine, "--log-every", "1", "--quiet"})
                  .code,
              0);
    std::ifstream fin(fine);
    std::stringstream ftext;
    ftext << fin.rdbuf();
    EXPECT_NE(ftext.str().find("\n1,1e-07,"), std::string::npos) << ftext.str();
    EXPECT_NE(ftext.str().find("\n3,3e-07,"), std::string::npos) << ftext.str();
}

// ... in bench too (issue 23: `bench --theta` without the tree in --force was silently ignored).
TEST_F(CliTest, BenchSaysASettingNoCaseTakes) {
    const CliResult r = run_cli({"bench", "--backend", "serial", "--n", "32", "--steps", "1", "--warmup", "0",
                                 "--repeats", "1", "--theta", "0.4", "--quiet"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("note: --theta has no effect"), std::string::npos) << r.err;
    const CliResult used =
        run_cli({"bench", "--backend", "serial", "--n", "32", "--steps", "1", "--warmup", "0", "--repeats",
                 "1", "--force", "direct,tree", "--theta", "0.4", "--quiet"});
    EXPECT_EQ(used.err.find("no effect"), std::string::npos) << used.err;
    // A setting that needs another one on says which, as run does (not "its algorithm is not in ...").
    const CliResult off =
        run_cli({"bench", "--backend", "serial", "--n", "32", "--steps", "1", "--warmup", "0", "--repeats",
                 "1", "--integrator", "hermite", "--eta-regular", "0.01", "--quiet"});
    EXPECT_EQ(off.code, 0) << off.err;
    EXPECT_EQ(off.err, "nbody: note: --eta-regular has no effect with --neighbours 0\n");
}

// A CSV written by a tree run records the force algorithm and theta, and --input reads them back.
TEST_F(CliTest, ACsvRemembersTheForceAlgorithmAndItsSettings) {
    const std::string out = file("tree.csv");
    ASSERT_EQ(run_cli({"run", "--n", "16", "--steps", "2", "--force", "tree", "--theta", "0.4", "--output",
                       out, "--quiet"})
                  .code,
              0);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("# force = tree\n"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("# theta = 0.4\n"), std::string::npos) << text.str();
    const std::string again = file("again.csv");
    const CliResult r = run_cli({"run", "--input", out, "--steps", "0", "--output", again, "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("force, theta from"), std::string::npos) << r.out;
}

TEST_F(CliTest, RejectsBadSeeds) {
    for (const char* seed : {"abc", "-1", "1.5", "", "18446744073709551616"})
        expect_rejected({"--seed", seed}, std::string("--seed must be an integer in [0, "));
    // The whole range is accepted, and the seed is the preset's.
    const std::string out = file("max.csv");
    ASSERT_EQ(run_cli({"run", "--n", "4", "--seed", "18446744073709551615", "--steps", "0", "--output", out,
                       "--precision", "double"})
                  .code,
              0);
    const HostState want = make_preset("plummer", 4, 18446744073709551615ull);
    EXPECT_EQ(read_bodies_csv(out).pos_mass[3].x, want.pos_mass[3].x);
}

TEST_F(CliTest, RejectsEmptyFileNames) {
    for (const char* flag : {"--output", "--energy-log", "--trajectory", "--input", "--filename"})
        expect_error({"run", "--n", "4", "--steps", "1", flag, ""}, "needs a file name");
}

TEST_F(CliTest, RejectsTwoOutputsNamingOneFile) {
    const std::string x = file("x.csv");
    const std::string same = (dir_ / "." / "x.csv").string();
    const std::string via_parent = (dir_ / "sub" / ".." / "x.csv").string();  // sub does not exist
    expect_error({"run", "--n", "8", "--steps", "1", "--output", x, "--energy-log", same},
                 "--output and --energy-log name the same file");
    expect_error({"run", "--n", "8", "--steps", "1", "--output", x, "--trajectory", via_parent},
                 "--output and --trajectory name the same file");
    expect_error({"run", "--n", "8", "--steps", "1", "--energy-log", x, "--trajectory", same},
                 "--energy-log and --trajectory name the same file");
    // Distinct names are fine and all three appear.
    ASSERT_EQ(run_cli({"run", "--n", "8", "--steps", "1", "--output", x, "--energy-log", file("e.csv"),
                       "--trajectory", file("t.csv")})
                  .code,
              0);
    EXPECT_EQ(outputs().size(), 3u);
}

TEST_F(CliTest, ScenarioFlagsBeforeTheSubcommandAreNotIgnored) {
    // Before the subcommand they belong to the window (or to nothing, without one): never silently dropped.
    const std::string out = file("out.csv");
    const CliResult r = run_cli({"--n", "100", "run", "--steps", "0", "--output", out});
    EXPECT_NE(r.code, 0) << r.out;
    ASSERT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("nbody: error: ", 0), 0u) << r.err;
    // With a window the root has --n and says where it belongs; without one, --n is simply unknown there.
    EXPECT_TRUE(r.err.find("--n was given before the subcommand 'run'") != std::string::npos ||
                r.err.find("not expected") != std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    // After it they work.
    ASSERT_EQ(run_cli({"run", "--n", "100", "--steps", "0", "--output", out}).code, 0);
    EXPECT_EQ(read_bodies_csv(out).size(), 100u);
}

TEST_F(CliTest, RejectsParametersOutOfFloatRangeInFloatRuns) {
    expect_rejected({"--dt", "1e-320"}, "dt = 1e-320 is too small for float precision");
    expect_rejected({"--G", "1e39"}, "G = 1e+39 is too large for float precision");
    expect_rejected({"--G", "1e-39"}, "G = 1e-39 is too small for float precision");
    expect_rejected({"--softening", "1e-30"}, "softening = 1e-30 is too small for float precision");
    expect_rejected({"--softening", "1e20"}, "softening = 1e+20 is too large for float precision");
    expect_rejected({"--dt", "1", "--t-end", "1e-320"}, "the --t-end interval T - t = 1e-320 is too small");
    // Double holds them (a softening whose square underflows double is still refused).
    for (const std::vector<std::string>& ok :
         {std::vector<std::string>{"--dt", "1e-300"}, {"--G", "1e39"}, {"--softening", "1e-30"}}) {
        std::vector<std::string> args = {"run", "--n", "8", "--steps", "1", "--precision", "double"};
        args.insert(args.end(), ok.begin(), ok.end());
        EXPECT_EQ(run_cli(args).code, 0) << ok[0] << " " << ok[1];
    }
    expect_rejected({"--softening", "1e-170", "--precision", "double"},
                    "softening = 1e-170 is too small: its square is out of double range");
}

TEST_F(CliTest, CliParseErrorsAreOneLine) {
    expect_rejected({"--bogus"}, "--bogus");
    expect_rejected({"--dt"}, "--dt");
}

TEST_F(CliTest, RejectsBadInputFiles) {
    expect_rejected({"--input", file("missing.csv")}, "missing.csv");
    expect_rejected({"--filename", file("missing.csv")}, "missing.csv");
    struct Case {
        const char* name;
        const char* text;
        const char* expect;
    };
    const Case cases[] = {
        {"empty.csv", "", "empty.csv"},
        {"nocol.csv", "x,y,z,vx,vy,vz\n0,0,0,0,0,0\n", "nocol.csv:1"},
        {"short.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,2,3\n", "short.csv:3"},
        {"text.csv", "x,y,z,vx,vy,vz,m\n0,0,zero,0,0,0,1\n", "text.csv:2"},
        {"nan.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,nan,0,0,0,0,1\n", "nan.csv:3"},
        {"inf.csv", "x,y,z,vx,vy,vz,m\n0,0,0,inf,0,0,1\n", "inf.csv:2"},
        {"mass.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,0,0,0\n", "mass.csv:3"},
        {"negmass.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,-1\n", "negmass.csv:2"},
    };
    for (const Case& c : cases) {
        const std::string in = write_file(c.name, c.text);
        expect_rejected({"--input", in}, c.expect, {in});
        fs::remove(in);
    }
}

TEST_F(CliTest, RejectsCoincidentBodiesWithoutSoftening) {
    // A comment and a blank line make the file lines differ from the body indices.
    const std::string in = write_file(
        "same.csv", "x,y,z,vx,vy,vz,m\n# two bodies meet\n0,0,0,0,0,0,1\n1,2,3,0,0,0,1\n\n1,2,3,0,1,0,1\n");
    // Both bodies are named, by index and by line; with softening the same file is legal.
    expect_rejected({"--input", in, "--softening", "0"},
                    in + ":6: bodies 1 and 2 (0-based, lines 4 and 6) are at the same point", {in});
    EXPECT_EQ(run_cli({"run", "--input", in, "--softening", "0.1", "--steps", "1"}).code, 0);
}

TEST_F(CliTest, ChecksAfterReadingAFileNameItsLine) {
    const std::string light =
        write_file("light.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n# a speck\n1,0,0,0,0,0,1e-60\n");
    expect_rejected({"--input", light, "--precision", "float"},
                    light + ":4: body 1 (0-based): mass 1e-60 rounds to 0 in float precision", {light});
    const std::string fast = write_file("fast.csv", "x,y,z,vx,vy,vz,m\n0,0,0,1e39,0,0,1\n");
    expect_rejected({"--input", fast}, fast + ":2: body 0 (0-based): vx = 1e+39 is too large", {light, fast});
}

TEST_F(CliTest, UnavailableCudaIsOneLineListingAvailableBackends) {
    const BackendInfo* cuda = find_backend("cuda");
    if (cuda && cuda->available()) GTEST_SKIP() << "this machine has a usable CUDA backend";
    expect_rejected({"--backend", "cuda"}, "openmp");
}

TEST_F(CliTest, BlowUpStopsWithStepAndBodyAndWritesNothing) {
    // Finite input whose first drift overflows float: body 1 moves at 3e38 for dt = 10. Explicit Euler
    // kicks with the old accelerations, so only body 1 is non-finite after step 1 (body 0 follows at 2).
    const std::string in = write_file("fast.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n5,0,0,3e38,0,0,1\n");
    for (const char* backend : {"serial", "openmp"}) {
        expect_error({"run", "--input", in, "--precision", "float", "--dt", "10", "--steps", "5",
                      "--integrator", "euler", "--backend", backend, "--output", file("out.csv")},
                     "numerical blow-up at step 1 (t = 10): body 1 has a non-finite position or velocity",
                     {in});
    }
    // A lone body at 1.5e37 overflows at step 3, after a log point at step 2: the step and time are still
    // counted from the start of the run. (Alone, because a partner's r^2 would overflow first.)
    const std::string slower = write_file("slower.csv", "x,y,z,vx,vy,vz,m\n5,0,0,1.5e37,0,0,1\n");
    expect_error({"run", "--input", slower, "--precision", "float", "--dt", "10", "--steps", "5",
                  "--log-every", "2", "--output", file("out.csv")},
                 "numerical blow-up at step 3 (t = 30): body 0 has", {in, slower});
}

TEST_F(CliTest, BlowUpKeepsTheLogsUpToItAsPartialFiles) {
    const std::string in = write_file("slower.csv", "x,y,z,vx,vy,vz,m\n5,0,0,1.5e37,0,0,1\n");
    const std::string log = file("e.csv"), traj = file("t.csv"), out = file("out.csv");
    const CliResult r =
        run_cli({"run", "--input", in, "--precision", "float", "--dt", "10", "--steps", "5", "--log-every",
                 "1", "--energy-log", log, "--trajectory", traj, "--output", out});
    EXPECT_NE(r.code, 0);
    ASSERT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("numerical blow-up at step 3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the logs up to it are kept in " + log + ".partial, " + traj + ".partial"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(log));
    EXPECT_FALSE(fs::exists(traj));
    std::ifstream in_log(log + ".partial");
    const auto rows = data_lines(std::string(std::istreambuf_iterator<char>(in_log), {}));
    ASSERT_EQ(rows.size(), 4u);  // header, steps 0, 1, 2
    EXPECT_EQ(rows[3].rfind("2,", 0), 0u) << rows[3];
}

TEST_F(CliTest, LogsAreWrittenAsPartialFilesAndRenamedAtTheEnd) {
    const std::string log = file("e.csv"), traj = file("t.csv");
    const CliResult r = run_cli({"run", "--n", "16", "--steps", "4", "--log-every", "1", "--energy-log", log,
                                 "--trajectory", traj, "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(log));
    EXPECT_TRUE(fs::exists(traj));
    EXPECT_FALSE(fs::exists(log + ".partial"));
    EXPECT_FALSE(fs::exists(traj + ".partial"));
}

// The real program in its own process: its energy log can be read while it runs, and Ctrl-C (SIGINT)
// stops it with status 130 and removes the .partial file.
TEST_F(CliTest, PartialLogCanBeFollowedDuringARunAndCtrlCRemovesIt) {
    const std::string log = file("follow.csv");
    const std::string partial = log + ".partial";
    std::vector<std::string> args{NBODY_EXE,     "run", "--n",          "64", "--steps", "1000000000",
                                  "--log-every", "50",  "--energy-log", log,  "--quiet"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    ASSERT_EQ(::posix_spawn(&pid, NBODY_EXE, nullptr, nullptr, argv.data(), environ), 0);
    // Wait (up to a generous deadline, not a timing assertion) until three rows have been logged.
    std::vector<std::string> rows;
    for (int tries = 0; tries < 1200 && rows.size() < 4; ++tries) {
        ::usleep(50000);
        std::ifstream in(partial);
        rows = data_lines(std::string(std::istreambuf_iterator<char>(in), {}));
    }
    EXPECT_FALSE(fs::exists(log)) << "the final name appears only at the end";
    ::kill(pid, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_GE(rows.size(), 4u) << "the log never grew while the run went on";
    EXPECT_EQ(rows[0], "step,t,kinetic,potential,total,rel_drift,px,py,pz");
    EXPECT_EQ(rows[1].rfind("0,", 0), 0u) << rows[1];
    EXPECT_EQ(rows[2].rfind("50,", 0), 0u) << rows[2];
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_FALSE(fs::exists(partial));
    EXPECT_FALSE(fs::exists(log));
}

TEST_F(CliTest, StepsZeroWritesThePresetExactly) {
    const std::string out = file("plummer.csv");
    const CliResult r = run_cli(
        {"run", "--n", "100", "--seed", "7", "--precision", "double", "--steps", "0", "--output", out});
    ASSERT_EQ(r.code, 0) << r.err;
    const HostState want = make_preset("plummer", 100, 7);
    const HostState got = read_bodies_csv(out);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got.pos_mass[i].x, want.pos_mass[i].x);
        EXPECT_EQ(got.pos_mass[i].y, want.pos_mass[i].y);
        EXPECT_EQ(got.pos_mass[i].z, want.pos_mass[i].z);
        EXPECT_EQ(got.pos_mass[i].w, want.pos_mass[i].w);
        EXPECT_EQ(got.vel[i].x, want.vel[i].x);
        EXPECT_EQ(got.vel[i].y, want.vel[i].y);
        EXPECT_EQ(got.vel[i].z, want.vel[i].z);
    }
    // In float the file holds the float-rounded preset: its digits read back to the same floats.
    const std::string out32 = file("plummer32.csv");
    ASSERT_EQ(run_cli({"run", "--n", "100", "--seed", "7", "--steps", "0", "--output", out32}).code, 0);
    const HostState got32 = read_bodies_csv(out32);
    ASSERT_EQ(got32.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(float(got32.pos_mass[i].x), float(want.pos_mass[i].x));
        EXPECT_EQ(float(got32.vel[i].z), float(want.vel[i].z));
        EXPECT_EQ(float(got32.pos_mass[i].w), float(want.pos_mass[i].w));
    }
}

TEST_F(CliTest, TEndEndsExactlyAtTWithAShortLastStep) {
    const std::string out = file("end.csv"), log = file("energy.csv");
    const CliResult r = run_cli({"run", "--n", "64", "--precision", "double", "--backend", "serial", "--dt",
                                 "0.01", "--t-end", "0.105", "--output", out, "--energy-log", log});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("steps           11 "), std::string::npos) << r.out;

    // Same run by hand: 10 steps of dt, then one of 0.005 (up to rounding of 0.105 - 0.1).
    const PresetInfo* preset = find_preset("plummer");
    ASSERT_NE(preset, nullptr);
    Params p = preset->params;
    p.dt = 0.01;
    auto b = create_backend("serial", Precision::f64);
    b->set_state(make_preset("plummer", 64, 1));
    ASSERT_TRUE(b->step(p, 10).finite);
    double t = 0;
    for (int k = 0; k < 10; ++k) t += 0.01;
    p.dt = 0.105 - t;
    EXPECT_NEAR(p.dt, 0.005, 1e-15);
    ASSERT_TRUE(b->step(p, 1).finite);
    const HostState want = b->get_state();
    EXPECT_EQ(want.t, 0.105);
    const HostState got = read_bodies_csv(out);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got.pos_mass[i].x, want.pos_mass[i].x) << i;
        EXPECT_EQ(got.vel[i].y, want.vel[i].y) << i;
    }

    // The energy log's last row is at T exactly (default cadence 10: steps 0, 10 and the end).
    const auto rows = data_lines([&] {
        std::ifstream in(log);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }());
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0], "step,t,kinetic,potential,total,rel_drift,px,py,pz");
    EXPECT_EQ(rows[3].rfind("11,", 0), 0u) << rows[3];
    EXPECT_EQ(std::stod(rows[3].substr(3)), 0.105) << rows[3];
}

// --integrator hermite: the accuracy parameter and the max step are checked like every other value.
TEST_F(CliTest, RejectsBadEtaAndAbsurdMaxSteps) {
    expect_rejected({"--integrator", "hermite", "--eta", "0"}, "--eta must be in [1e-06, 1] (got '0')");
    expect_rejected({"--integrator", "hermite", "--eta", "-0.01"},
                    "--eta must be in [1e-06, 1] (got '-0.01')");
    expect_rejected({"--integrator", "hermite", "--eta", "2"}, "--eta must be in [1e-06, 1] (got '2')");
    expect_rejected({"--integrator", "hermite", "--eta", "nan"}, "--eta must be a finite number (got 'nan')");
    expect_rejected({"--integrator", "hermite", "--eta", "inf"}, "--eta must be a finite number (got 'inf')");
    expect_rejected(
        {"--integrator", "hermite", "--dt", "1e-300", "--precision", "double"},
        "dt = 1e-300 is too small a max step for the hermite integrator: its finest step dt / 2^40");
    expect_rejected({"--integrator", "hermite", "--dt", "1e-28"}, "underflows float precision");
    // Too large is float's range check, not the finest step's (which once called 1e300 "too small").
    expect_rejected({"--integrator", "hermite", "--dt", "1e300"},
                    "dt = 1e+300 is too large for float precision");
    expect_rejected({"--integrator", "hermite", "--force", "tree"},
                    "the hermite integrator needs the direct sum (force direct)");
}

// Block times are dyadic fractions of the max step, so the run synchronizes at T (a shortened last max
// step) and ends there exactly; the log rows are at max-step ends, where every body shares one time; the
// summary counts the blocks and the force+jerk evaluations.
TEST_F(CliTest, HermiteEndsExactlyAtTEndAndCountsItsBlocks) {
    const std::string in =
        write_file("fig8.csv",
                   "x,y,z,vx,vy,vz,m\n-0.97000436,0.24308753,0,0.466203685,0.43236573,0,1\n"
                   "0.97000436,-0.24308753,0,0.466203685,0.43236573,0,1\n"
                   "0,0,0,-0.93240737,-0.86473146,0,1\n");
    const std::string out = file("end.csv"), log = file("energy.csv");
    const CliResult r =
        run_cli({"run",    "--input",  in,        "--integrator", "hermite",     "--softening", "0",
                 "--dt",   "0.1",      "--t-end", "1.05",         "--precision", "double",      "--backend",
                 "serial", "--output", out,       "--energy-log", log,           "--log-every", "5"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("hermite (eta 0.02), direct, max dt = 0.1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("max steps       11 (t = 0 -> 1.05)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("force+jerk evaluations of a body"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GFLOP/s at 42 flops each"), std::string::npos) << r.out;
    EXPECT_EQ(read_snapshot(out).state.t, 1.05);  // from the output's parameter lines
    const auto rows = data_lines([&] {
        std::ifstream f(log);
        return std::string(std::istreambuf_iterator<char>(f), {});
    }());
    ASSERT_EQ(rows.size(), 5u);  // header, steps 0, 5, 10 and the end
    EXPECT_EQ(rows[0], "step,t,kinetic,potential,total,rel_drift,px,py,pz,blocks,force_evaluations");
    EXPECT_EQ(rows[4].rfind("11,", 0), 0u) << rows[4];
    EXPECT_EQ(std::stod(rows[4].substr(3)), 1.05) << rows[4];
    // The work columns: none at the start, growing, the last row's the summary's.
    auto last_two = [](const std::string& row) {
        const auto b = row.rfind(',', row.rfind(',') - 1);
        return row.substr(b + 1);
    };
    EXPECT_EQ(last_two(rows[1]), "0,0") << rows[1];
    const std::string end = last_two(rows[4]);
    const std::string blocks = end.substr(0, end.find(',')), evaluations = end.substr(end.find(',') + 1);
    EXPECT_NE(r.out.find("blocks          " + blocks + ", " + evaluations + " force+jerk evaluations"),
              std::string::npos)
        << end << "\n"
        << r.out;
    EXPECT_LT(std::stoll(last_two(rows[2])), std::stoll(blocks)) << rows[2];

    // --steps K: K max steps of dt, K dt of simulated time.
    const CliResult k = run_cli({"run", "--input", in, "--integrator", "hermite", "--softening", "0", "--dt",
                                 "0.25", "--steps", "4", "--backend", "openmp", "--quiet"});
    ASSERT_EQ(k.code, 0) << k.err;
    EXPECT_NE(k.out.find("max steps       4 (t = 0 -> 1)"), std::string::npos) << k.out;
}

// With --neighbours the summary, the integrator's text and the energy log also count the evaluations
// against a neighbour list; the full ones are named as such.
TEST_F(CliTest, HermiteWithNeighboursCountsTheNeighbourEvaluations) {
    const std::string log = file("energy.csv");
    const CliResult r = run_cli({"run",     "--preset",     "plummer", "--n",       "64",     "--integrator",
                                 "hermite", "--neighbours", "8",       "--dt",      "0.125",  "--steps",
                                 "2",       "--precision",  "double",  "--backend", "serial", "--energy-log",
                                 log,       "--log-every",  "1",       "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("hermite (eta 0.02, neighbours 8), direct"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("full force+jerk evaluations of a body"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(N per full evaluation, 8 per neighbour evaluation; "), std::string::npos) << r.out;
    // A K of N or more lists the N - 1 others, and counts that many per neighbour evaluation, not K.
    const CliResult all = run_cli({"run", "--preset", "plummer", "--n", "16", "--integrator", "hermite",
                                   "--neighbours", "1024", "--steps", "1", "--backend", "serial", "--quiet"});
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_NE(all.out.find("(N per full evaluation, 15 per neighbour evaluation; "), std::string::npos)
        << all.out;
    const auto rows = data_lines([&] {
        std::ifstream f(log);
        return std::string(std::istreambuf_iterator<char>(f), {});
    }());
    ASSERT_EQ(rows.size(), 4u);  // header, steps 0, 1, 2
    EXPECT_EQ(
        rows[0],
        "step,t,kinetic,potential,total,rel_drift,px,py,pz,blocks,force_evaluations,neighbour_evaluations");
    EXPECT_EQ(rows[1].substr(rows[1].size() - 6), ",0,0,0") << rows[1];
    // The last row's neighbour evaluations are the summary's.
    const std::string neighbour = rows[3].substr(rows[3].rfind(',') + 1);
    EXPECT_GT(std::stoll(neighbour), 0) << rows[3];
    EXPECT_NE(r.out.find(", " + neighbour + " neighbour evaluations ("), std::string::npos)
        << neighbour << "\n"
        << r.out;
}

TEST_F(CliTest, LogAndTrajectoryCadence) {
    const std::string log = file("e.csv"), traj = file("t.csv");
    const CliResult r = run_cli({"run", "--n", "16", "--steps", "20", "--log-every", "5", "--energy-log", log,
                                 "--trajectory", traj, "--trajectory-every", "10"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(log);
    std::vector<std::string> steps;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind('#', 0) != 0) steps.push_back(line.substr(0, line.find(',')));
    }
    EXPECT_EQ(steps, (std::vector<std::string>{"step", "0", "5", "10", "15", "20"}));
    std::ifstream tin(traj);
    std::size_t rows = 0;
    for (std::string line; std::getline(tin, line);) rows += line.rfind('#', 0) != 0;
    EXPECT_EQ(rows, 1 + 3 * 16u);  // header, then 16 bodies at steps 0, 10, 20
}

TEST_F(CliTest, EnergyDiffPrintsOneNumber) {
    const CliResult r =
        run_cli({"run", "--nBodies", "64", "--timeStep", "0.01", "--finalTime", "0.1", "--energyDiff"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    std::size_t used = 0;
    const double v = std::stod(lines[0], &used);
    EXPECT_EQ(used, lines[0].size()) << lines[0];
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1e-2);  // leapfrog on a softened Plummer sphere for 10 steps
}

TEST_F(CliTest, DefaultRunPrintsSummary) {
    const CliResult r = run_cli({"run", "--n", "128", "--steps", "10"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    for (const char* key : {"steps           10", "wall time", "interactions/s", "|dE/E|"}) {
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
    }
}

TEST_F(CliTest, HelpAndVersion) {
    const CliResult help = run_cli({"--help"});
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find("run"), std::string::npos);
    EXPECT_NE(help.out.find("bench"), std::string::npos);
    const CliResult run_help = run_cli({"run", "--help"});
    EXPECT_EQ(run_help.code, 0);
    EXPECT_NE(run_help.out.find("--t-end"), std::string::npos);
    const CliResult version = run_cli({"--version"});
    EXPECT_EQ(version.code, 0);
    EXPECT_EQ(version.out.rfind("nbody ", 0), 0u) << version.out;
}

// A minimal JSON reader, enough to check that bench's output is a list of flat objects.
class Json {
  public:
    explicit Json(const std::string& s) : s_(s) {}
    using Object = std::map<std::string, std::string>;  // value kept as its text

    std::vector<Object> list_of_objects() {
        std::vector<Object> out;
        expect('[');
        if (peek() == ']') return ++i_, finish(out);
        do out.push_back(object());
        while (accept(','));
        expect(']');
        return finish(out);
    }

  private:
    std::vector<Object> finish(std::vector<Object>& out) {
        skip();
        if (i_ != s_.size()) throw std::runtime_error("trailing text");
        return out;
    }
    Object object() {
        Object o;
        expect('{');
        if (accept('}')) return o;
        do {
            const std::string key = string();
            expect(':');
            o[key] = peek() == '"' ? string() : number();
        } while (accept(','));
        expect('}');
        return o;
    }
    std::string string() {
        expect('"');
        std::string out;
        while (i_ < s_.size() && s_[i_] != '"') out += s_[i_++];
        expect('"');
        return out;
    }
    std::string number() {
        skip();
        const std::size_t start = i_;
        while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                                  s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '-' || s_[i_] == '+')) {
            ++i_;
        }
        const std::string text = s_.substr(start, i_ - start);
        std::size_t used = 0;
        std::stod(text, &used);  // throws on garbage
        if (used != text.size()) throw std::runtime_error("bad number " + text);
        return text;
    }
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    char peek() { return skip(), i_ < s_.size() ? s_[i_] : '\0'; }
    bool accept(char c) { return peek() == c ? (++i_, true) : false; }
    void expect(char c) {
        if (!accept(c)) throw std::runtime_error(std::string("expected ") + c + " at " + std::to_string(i_));
    }
    const std::string& s_;
    std::size_t i_ = 0;
};

TEST_F(CliTest, BenchJsonIsAListWithTheKeys) {
    const CliResult r =
        run_cli({"bench", "--backend", "serial,openmp", "--n", "64,128", "--precision", "float,double",
                 "--steps", "1", "--warmup", "0", "--repeats", "1", "--format", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<Json::Object> rows;
    ASSERT_NO_THROW(rows = Json(r.out).list_of_objects()) << r.out;
    ASSERT_EQ(rows.size(), 8u) << r.out;
    for (const auto& row : rows) {
        for (const char* key :
             {"backend", "precision", "n", "ms_per_step", "interactions_per_second", "gflops"}) {
            EXPECT_EQ(row.count(key), 1u) << key << " missing in " << r.out;
        }
        EXPECT_EQ(row.count("vs_baseline"), 0u);  // CPU rows have no kernel baseline
        EXPECT_GT(std::stod(row.at("interactions_per_second")), 0.0);
        // gflops is interactions/s times 20 flops.
        EXPECT_NEAR(std::stod(row.at("gflops")), std::stod(row.at("interactions_per_second")) * 20e-9,
                    1e-4 * std::stod(row.at("gflops")));
    }
    EXPECT_EQ(rows.front().at("backend"), "serial");
    EXPECT_EQ(rows.front().at("n"), "64");
}

// A tree row names its force and its theta in every format (its speed and its error depend on it); a
// direct row beside it leaves the theta cell empty.
TEST_F(CliTest, BenchTreeRowsNameTheirTheta) {
    const CliResult csv =
        run_cli({"bench", "--backend", "serial", "--n", "64", "--force", "tree,direct", "--theta", "0.4",
                 "--steps", "1", "--repeats", "1", "--format", "csv", "--quiet"});
    ASSERT_EQ(csv.code, 0) << csv.err;
    const auto lines = data_lines(csv.out);
    ASSERT_EQ(lines.size(), 3u) << csv.out;
    EXPECT_EQ(lines[0].rfind("backend,precision,force,theta,threads,n,", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("serial,float,tree,0.4,1,64,", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("serial,float,direct,,1,64,", 0), 0u) << lines[2];
    const CliResult alone = run_cli({"bench", "--backend", "serial", "--n", "64", "--force", "tree",
                                     "--steps", "1", "--repeats", "1", "--format", "json", "--quiet"});
    ASSERT_EQ(alone.code, 0) << alone.err;
    EXPECT_NE(alone.out.find("\"force\": \"tree\", \"theta\": 0.6,"), std::string::npos) << alone.out;
    const CliResult table = run_cli({"bench", "--backend", "serial", "--n", "64", "--force", "tree",
                                     "--steps", "1", "--repeats", "1", "--quiet"});
    ASSERT_EQ(table.code, 0) << table.err;
    EXPECT_NE(table.out.find("force    theta  threads"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("tree     0.6          1"), std::string::npos) << table.out;
}

TEST_F(CliTest, BenchTableAndCsvAndBadOptions) {
    const CliResult csv = run_cli(
        {"bench", "--backend", "serial", "--n", "32", "--steps", "1", "--repeats", "1", "--format", "csv"});
    ASSERT_EQ(csv.code, 0) << csv.err;
    const auto lines = data_lines(csv.out);
    ASSERT_EQ(lines.size(), 2u) << csv.out;
    EXPECT_EQ(lines[0],
              "backend,precision,threads,n,ms_per_step,ms_min,ms_max,interactions_per_second,gflops");
    // The machine, in '#' lines a plot or a spreadsheet skips.
    EXPECT_EQ(csv.out.rfind("# cpu = ", 0), 0u) << csv.out;
    EXPECT_NE(csv.out.find("\n# cores = "), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find("\n# gpu = "), std::string::npos) << csv.out;
    const CliResult table =
        run_cli({"bench", "--backend", "serial", "--n", "32", "--steps", "1", "--repeats", "1"});
    ASSERT_EQ(table.code, 0) << table.err;
    EXPECT_NE(table.out.find("20 flops per interaction"), std::string::npos) << table.out;

    for (const std::vector<std::string>& args : {std::vector<std::string>{"bench", "--backend", "nope"},
                                                 {"bench", "--backend", "serial,,openmp"},
                                                 {"bench", "--backend", "serial,"},
                                                 {"bench", "--n", "32,,64"},
                                                 {"bench", "--threads", "1,,2"},
                                                 {"bench", "--precision", ",float"},
                                                 {"bench", "--n", "0"},
                                                 {"bench", "--n", "x"},
                                                 {"bench", "--format", "xml"},
                                                 {"bench", "--precision", "half"},
                                                 {"bench", "--repeats", "0"},
                                                 {"bench", "--seed", "-1"},
                                                 {"bench", "--threads", "0"},
                                                 {"bench", "--threads", "1,x"},
                                                 {"bench", "--threads", ""},
                                                 {"bench", "--force", "magic"},
                                                 {"bench", "--integrator", "rk4"},
                                                 {"bench", "--plot", ""},
                                                 {"bench", "--plot", "bench.txt"}}) {
        const CliResult r = run_cli(args);
        EXPECT_NE(r.code, 0) << args.back();
        EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
        EXPECT_EQ(r.err.rfind("nbody: error: ", 0), 0u) << r.err;
    }
}

// Sets an environment variable for one test and restores it.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        had_ = std::getenv(name) != nullptr;
        if (value) {
            ::setenv(name, value, 1);
        } else {
            ::unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (had_) {
            ::setenv(name_.c_str(), old_.c_str(), 1);
        } else {
            ::unsetenv(name_.c_str());
        }
    }

  private:
    std::string name_, old_;
    bool had_ = false;
};

// Width and height from a PNG's IHDR chunk; {0, 0} if the file is not a PNG.
std::pair<unsigned, unsigned> png_size(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char b[24] = {};
    in.read(reinterpret_cast<char*>(b), sizeof b);
    if (!in || b[1] != 'P' || b[2] != 'N' || b[3] != 'G') return {0, 0};
    auto be32 = [&](int i) {
        return (unsigned(b[i]) << 24) | (unsigned(b[i + 1]) << 16) | (unsigned(b[i + 2]) << 8) | b[i + 3];
    };
    return {be32(16), be32(20)};
}

TEST_F(CliTest, ProgressLinesInPlainModeAndNoneWithQuiet) {
    ScopedEnv every_update("NBODY_PROGRESS_SECONDS", "0");
    const CliResult r = run_cli({"run", "--n", "256", "--steps", "30"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("nbody run: step "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("steps/s"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ETA"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << "plain mode rewrites nothing: " << r.err;
    const CliResult quiet = run_cli({"run", "--n", "256", "--steps", "30", "--quiet"});
    ASSERT_EQ(quiet.code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "");
}

// Issue 21: an adaptive run's progress line counts max steps and shows what they hide, the simulated
// time from the integrator, the blocks and the force+jerk evaluations so far (as the summary does).
TEST_F(CliTest, HermiteProgressLineShowsTimeBlocksAndEvaluations) {
    ScopedEnv every_update("NBODY_PROGRESS_SECONDS", "0");
    const CliResult r = run_cli({"run", "--n", "64", "--integrator", "hermite", "--dt", "0.01", "--t-end",
                                 "0.3", "--backend", "serial"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string last = "nbody run: max step 30/30 (100%), t = 0.3, ";
    const auto at = r.err.rfind(last);
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
    EXPECT_NE(line.find(" blocks, "), std::string::npos) << line;
    EXPECT_NE(line.find(" force+jerk evaluations, "), std::string::npos) << line;
    EXPECT_NE(line.find("max steps/s"), std::string::npos) << line;
    // The same counts as the summary's.
    const auto blocks = r.out.find("  blocks          ");
    ASSERT_NE(blocks, std::string::npos) << r.out;
    const std::string count = r.out.substr(blocks + 18, r.out.find(',', blocks) - blocks - 18);
    EXPECT_NE(line.find(", " + count + " blocks, "), std::string::npos) << line << " / " << count;
}

// An adaptive integrator's --dt is its largest step: a billion max steps is refused in one line, and
// --t-end plans ceil(T / dt) steps however many (a tolerance relative to the count once took one off).
TEST_F(CliTest, AbsurdlySmallMaxStepIsRefused) {
    expect_rejected({"--integrator", "hermite", "--dt", "1e-12", "--t-end", "1"},
                    "--t-end 1 at max dt 1e-12 is 1e+12 max steps of hermite, more than 1e+09");
    expect_rejected({"--integrator", "hermite", "--dt", "0.01", "--steps", "2000000000"},
                    "--steps 2e+09 max steps of hermite, more than 1e+09");
    EXPECT_EQ(plan_steps_until("T", 0.0, 1.0, 0.1, Precision::f64).steps, 10);
    EXPECT_EQ(plan_steps_until("T", 0.0, 1.05, 0.1, Precision::f64).steps, 11);
    EXPECT_EQ(plan_steps_until("T", 0.0, 1.0, 1.0 / 3, Precision::f64).steps, 3);
    // The clock adds dt once a step: after the planned count less one, the last step is in (0, dt], also
    // where that sum drifts by many roundings (a count from (T - t0) / dt alone left 1.04 dt and 1.03 dt
    // for these two, and -1.8 dt at T = 1, dt = 3e-9).
    for (const auto& [t0, t_end, dt] :
         {std::tuple{0.5, 10.0, 1e-7}, {0.0, 1.0, 1.0 / 7e7}, {0.0, 1.0, 0.3}}) {
        const std::int64_t steps = plan_steps_until("T", t0, t_end, dt, Precision::f64).steps;
        double t = t0;
        for (std::int64_t k = 1; k < steps; ++k) t += dt;
        EXPECT_GT(t_end - t, 0.0) << dt;
        EXPECT_LE(t_end - t, dt * (1 + 1e-9)) << dt;
    }
}

// A dt the clock at t cannot add (t + dt == t) is refused rather than planned for ever (the replay of the
// additions never reached T) or stepped with the time standing still; one that adds with a 1% error too.
TEST(StepPlan, ADtTheClockCannotAddIsRefused) {
    const std::string frozen = "--dt 1e-08 is too small for the clock at t = 1e+09: t + dt rounds to t (";
    try {
        plan_steps_until("T", 1e9, 1e9 + 1, 1e-8, Precision::f64);
        ADD_FAILURE() << "planned";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind(frozen, 0), 0u) << e.what();
    }
    EXPECT_THROW(validate_clock_step(1.0, 1e-16), Error);  // rounds to t + 2.2e-16: off by 120%
    EXPECT_NO_THROW(validate_clock_step(1.0, 1e-13));      // off by ~0.1%
    EXPECT_NO_THROW(validate_clock_step(0.0, 1e-300));
    EXPECT_NO_THROW(validate_clock_step(-1.0, 0.01));
}

TEST_F(CliTest, ParametersTravelWithTheBodies) {
    const std::string exported = file("solar.csv");
    ASSERT_EQ(run_cli({"run", "--preset", "solar", "--n", "20", "--steps", "0", "--softening", "0.0375",
                       "--dt", "0.003", "--output", exported})
                  .code,
              0);
    const std::string again = file("again.csv");
    const CliResult r = run_cli({"run", "--input", exported, "--steps", "3", "--output", again});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("dt = 0.003, softening = 0.0375"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("softening, dt"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("from " + exported), std::string::npos) << r.out;
    // The second file carries them on, with the time reached.
    const auto meta = read_metadata(again);
    ASSERT_TRUE(meta.has_value());
    EXPECT_EQ(*meta->get("softening"), "0.0375");
    EXPECT_EQ(*meta->get("dt"), "0.003");
    EXPECT_EQ(*meta->get("step"), "3");
    // Flags override, and the summary says which.
    const CliResult over = run_cli({"run", "--input", exported, "--steps", "1", "--dt", "0.001"});
    ASSERT_EQ(over.code, 0) << over.err;
    EXPECT_NE(over.out.find("dt = 0.001, softening = 0.0375"), std::string::npos) << over.out;
    EXPECT_NE(over.out.find("flags override the file's dt"), std::string::npos) << over.out;
    // A CSV from elsewhere behaves as before: no parameters line.
    const std::string plain = write_file("plain.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,1e-3\n");
    const CliResult p = run_cli({"run", "--input", plain, "--steps", "1"});
    ASSERT_EQ(p.code, 0) << p.err;
    EXPECT_EQ(p.out.find("parameters"), std::string::npos) << p.out;
}

TEST_F(CliTest, BadParameterLinesAreOneError) {
    const std::string in = write_file("bad.csv",
                                      "# nbody 0.1.0 parameters (read back by --input as defaults)\n"
                                      "# softening = soft\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,1\n");
    expect_rejected({"--input", in}, "bad value 'soft' for softening", {in});
    const std::string neg = write_file("neg.csv",
                                       "# nbody 0.1.0 parameters (read back by --input as defaults)\n"
                                       "# dt = -1\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,1\n");
    expect_rejected({"--input", neg}, "dt", {in, neg});
}

TEST_F(CliTest, WarningsTeach) {
    // Euler with a large step and no softening: energy is not conserved and close pairs are not resolved.
    const CliResult r = run_cli({"run", "--n", "512", "--steps", "20", "--integrator", "euler", "--dt",
                                 "0.05", "--softening", "0", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("nbody: warning: energy not conserved"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("try a smaller --dt or a --softening above 0"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nbody: warning: close encounter with softening 0"), std::string::npos) << r.err;
    // A well-resolved run warns about nothing.
    const CliResult ok = run_cli({"run", "--n", "256", "--steps", "10", "--quiet"});
    ASSERT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.err, "");
}

// Hermite's --dt is only its largest step: its energy advice names what does act (eta, the precision,
// the softening), and block steps in float at softening 0 are warned about before the run, since such a
// run is likely to stall (sim/integrate/integrators.hpp, block_steps_may_stall).
TEST_F(CliTest, HermiteWarningsNameWhatActs) {
    Params p;
    p.softening = 0;
    EXPECT_EQ(energy_advice(p, Precision::f32), "a smaller --dt or a --softening above 0");
    p.integrator = Integrator::hermite;
    EXPECT_EQ(energy_advice(p, Precision::f32),
              "a smaller --eta, --precision double, or a --softening above 0");
    p.softening = 0.01, p.neighbours = 32;
    EXPECT_EQ(energy_advice(p, Precision::f64), "a smaller --eta and --eta-regular, or a larger --softening");
    // The stall warning comes before the run (stderr before the summary's line on stdout is not ordered:
    // --quiet leaves the warning alone there), and not for --steps 0, double or a softening.
    const CliResult r = run_cli({"run", "--n", "64", "--steps", "1", "--integrator", "hermite", "--softening",
                                 "0", "--backend", "serial", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, std::string("nbody: warning: ") + kStallWarning + "\n");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--precision", "double", "--softening", "0", "--steps", "2"},
          {"--softening", "0.01", "--steps", "2"},
          {"--softening", "0", "--steps", "0"}}) {
        std::vector<std::string> cmd = {"run", "--n", "64", "--integrator", "hermite", "--quiet"};
        cmd.insert(cmd.end(), args.begin(), args.end());
        const CliResult quiet = run_cli(cmd);
        ASSERT_EQ(quiet.code, 0) << quiet.err;
        EXPECT_EQ(quiet.err, "") << args[0] << " " << args[1];
    }
}

// In float an eta below kFloatEtaFloor lets rounding set some bodies' steps (many more blocks, no more
// accuracy): the run is warned before it starts, naming the flag; not in double, not at the floor.
TEST_F(CliTest, FloatEtaBelowTheFloorIsWarnedBeforeTheRun) {
    Params p;
    p.integrator = Integrator::hermite;
    p.eta = 0.005;
    EXPECT_TRUE(eta_below_float_floor(p, Precision::f32));
    EXPECT_FALSE(eta_below_float_floor(p, Precision::f64));
    EXPECT_EQ(float_eta_warning(p).rfind("--eta 0.005 in float: below 0.01, ", 0), 0u)
        << float_eta_warning(p);
    p.eta = kFloatEtaFloor;
    EXPECT_FALSE(eta_below_float_floor(p, Precision::f32));
    p.neighbours = 8, p.eta_regular = 0.004;
    EXPECT_TRUE(eta_below_float_floor(p, Precision::f32));
    EXPECT_EQ(float_eta_warning(p).rfind("--eta-regular 0.004 in float", 0), 0u) << float_eta_warning(p);
    p.integrator = Integrator::leapfrog;
    EXPECT_FALSE(eta_below_float_floor(p, Precision::f32));

    const CliResult r = run_cli({"run", "--n", "64", "--steps", "1", "--integrator", "hermite", "--eta",
                                 "0.005", "--backend", "serial", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    Params asked;
    asked.integrator = Integrator::hermite, asked.eta = 0.005;
    EXPECT_EQ(r.err, "nbody: warning: " + float_eta_warning(asked) + "\n");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--eta", "0.005", "--precision", "double"}, {"--eta", "0.01"}}) {
        std::vector<std::string> cmd = {"run", "--n",          "64",      "--steps",
                                        "1",   "--integrator", "hermite", "--quiet"};
        cmd.insert(cmd.end(), args.begin(), args.end());
        const CliResult quiet = run_cli(cmd);
        ASSERT_EQ(quiet.code, 0) << quiet.err;
        EXPECT_EQ(quiet.err, "") << args[0] << " " << args[1];
    }
}

// The summary's times are shown to a thousandth of the step, but a --t-end the run reached is shown as it
// was asked: 0.30000001 at dt 0.1 is not "0.3" (the steps' own clock: 3 steps and a last one of 1e-8).
TEST_F(CliTest, TheSummaryShowsAReachedTEndAsAsked) {
    for (const auto& [t_end, shown] :
         {std::pair{"0.30000001", "(t = 0 -> 0.30000001)"}, {"0.3", "(t = 0 -> 0.3)"}}) {
        const CliResult r =
            run_cli({"run", "--n", "16", "--dt", "0.1", "--t-end", t_end, "--backend", "serial"});
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find(shown), std::string::npos) << r.out;
    }
}

// A preset's dt, tuned for a fixed step, can bind every body of an adaptive run (the comet's 0.0005 yr: one
// block a max step): the run is told that hermite adapts only below its max step. A --dt that lets the
// steps adapt, or too short a run to say, gets no note.
TEST_F(CliTest, AnAdaptiveRunWhoseMaxStepBindsEveryBodyIsToldSo) {
    const std::vector<std::string> comet = {"run",     "--preset",    "comet",  "--integrator",
                                            "hermite", "--precision", "double", "--quiet"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> cmd = comet;
        cmd.insert(cmd.end(), extra.begin(), extra.end());
        return run_cli(cmd);
    };
    const CliResult bound = with({"--steps", "12"});
    ASSERT_EQ(bound.code, 0) << bound.err;
    EXPECT_EQ(
        bound.err,
        "nbody: note: every body took each max step whole (each one's accuracy allowed longer steps than "
        "--dt 0.0005): hermite's steps adapt only below its max step, so a larger --dt lets them adapt\n");
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--steps", "12", "--dt", "0.05"}, {"--steps", "9"}}) {
        const CliResult r = with(extra);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.err, "") << extra[0] << " " << extra[1];
    }
}

TEST_F(CliTest, PlotsEnergyLogsAndBenchCsvs) {
    if (!on_path("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
    const std::string log = file("energy.csv"), png = file("energy.png");
    const CliResult r =
        run_cli({"run", "--n", "128", "--steps", "50", "--energy-log", log, "--plot", png, "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(png_size(png), std::make_pair(1024u, 640u));
    EXPECT_GT(fs::file_size(png), 10000u);  // axes, labels and three curves, not an empty canvas

    const std::string small = file("small.png");
    ASSERT_EQ(run_cli({"plot", log, "-o", small, "--width", "400", "--height", "300"}).code, 0);
    EXPECT_EQ(png_size(small), std::make_pair(400u, 300u));

    const std::string bench_png = file("bench.png");
    const CliResult b = run_cli({"bench", "--backend", "serial", "--n", "32,64", "--steps", "1", "--repeats",
                                 "1", "--warmup", "0", "--plot", bench_png, "--quiet"});
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(png_size(bench_png), std::make_pair(1024u, 640u));
    EXPECT_GT(fs::file_size(bench_png), 10000u);
}

TEST_F(CliTest, PlotRejectsBadInputWithOneLine) {
    const std::string log = write_file("e.csv",
                                       "step,t,kinetic,potential,total,rel_drift,px,py,pz\n"
                                       "0,0,1,-2,-1,0,0,0,0\n1,0.1,1,-2,-1,1e-6,0,0,0\n");
    const std::string other = write_file("o.csv", "a,b\n1,2\n");
    const std::vector<std::string> inputs{log, other};
    expect_error({"plot", log, "-o", file("x.txt")}, "must name a .png file", inputs);
    expect_error({"plot", log, "-o", file("no-such-dir/x.png")}, "does not exist", inputs);
    expect_error({"plot", file("missing.csv"), "-o", file("x.png")}, "cannot open", inputs);
    expect_error({"plot", log, "-o", ""}, "needs a file name", inputs);
    expect_error({"plot", log, "-o", file("x.png"), "--width", "10"}, "64..8192", inputs);
    expect_error({"plot", log, "-o", file("x.png"), "--width", "wide"}, "--width", inputs);
    if (on_path("gnuplot")) expect_error({"plot", other, "-o", file("x.png")}, "not an energy log", inputs);
    expect_error({"run", "--n", "8", "--plot", file("x.png")}, "give --energy-log", inputs);
    // Hostile paths: a FIFO with no writer as the input is empty, not a hang; a device is refused, not read
    // until memory runs out; a FIFO as the image is refused before any work (bench: before benchmarking).
    const std::string fifo = file("fifo.csv"), fifo_png = file("fifo.png");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo(fifo_png.c_str(), 0600), 0);
    const std::vector<std::string> with_fifos{log, other, fifo, fifo_png};
    expect_error({"plot", fifo, "-o", file("x.png")}, fifo, with_fifos);
    expect_error({"plot", "/dev/zero", "-o", file("x.png")}, "character device", with_fifos);
    expect_error({"plot", log, "-o", fifo_png}, "-o '" + fifo_png + "' is a FIFO", with_fifos);
    expect_error({"bench", "--backend", "serial", "--n", "8", "--steps", "1", "--repeats", "1", "--quiet",
                  "--plot", fifo_png},
                 "--plot '" + fifo_png + "' is a FIFO", with_fifos);
    ::unlink(fifo.c_str());
    ::unlink(fifo_png.c_str());
    {
        ScopedEnv no_path("PATH", "/nonexistent");
        expect_error({"plot", log, "-o", file("x.png")}, "plotting needs gnuplot", inputs);
    }
}

TEST_F(CliTest, BenchReportsSpreadThreadsAndSweeps) {
    const CliResult r = run_cli({"bench", "--backend", "serial,openmp", "--n", "32", "--threads", "1,2",
                                 "--steps", "1", "--repeats", "3", "--warmup", "0", "--integrator",
                                 "leapfrog,euler", "--format", "csv", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = data_lines(r.out);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0],
              "backend,precision,integrator,threads,n,ms_per_step,ms_min,ms_max,interactions_per_second,"
              "gflops");
    // serial: one row per integrator; openmp: one per integrator and thread count.
    ASSERT_EQ(lines.size(), 1u + 2u + 4u) << r.out;
    std::map<std::string, int> threads_seen;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::vector<std::string> cells;
        std::stringstream ss(lines[i]);
        for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
        ASSERT_EQ(cells.size(), 10u) << lines[i];
        const double med = std::stod(cells[5]), lo = std::stod(cells[6]), hi = std::stod(cells[7]);
        EXPECT_LE(lo, med) << lines[i];
        EXPECT_LE(med, hi) << lines[i];
        if (cells[0] == "openmp") ++threads_seen[cells[3]];
        if (cells[0] == "serial") {
            EXPECT_EQ(cells[3], "1");
        }
    }
    EXPECT_EQ(threads_seen["1"], 2);
    EXPECT_EQ(threads_seen["2"], 2);

    const CliResult json = run_cli({"bench", "--backend", "serial", "--n", "32", "--steps", "1", "--repeats",
                                    "1", "--format", "json", "--quiet"});
    ASSERT_EQ(json.code, 0) << json.err;
    for (const char* key :
         {"\"ms_min\": ", "\"ms_max\": ", "\"threads\": 1", "\"cpu\": ", "\"cores\": ", "\"gpu\": "})
        EXPECT_NE(json.out.find(key), std::string::npos) << key << " in " << json.out;
}

// An adaptive integrator's row: interactions counted from its force+jerk evaluations and a column of
// wall ms per unit of simulated time (ms_per_step / dt), absent where every row has a fixed step.
TEST_F(CliTest, BenchHermiteRowsReportMsPerUnitOfSimulatedTime) {
    const CliResult r =
        run_cli({"bench", "--backend", "serial", "--n", "64", "--integrator", "hermite,leapfrog", "--steps",
                 "1", "--repeats", "1", "--format", "csv", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto rows = data_lines(r.out);
    ASSERT_EQ(rows.size(), 3u) << r.out;
    EXPECT_NE(rows[0].find(",gflops,ms_per_time_unit"), std::string::npos) << rows[0];
    // The header says how a hermite row counts its interactions (issue 21), as --help does.
    EXPECT_NE(r.out.find("# hermite rows: a step is a max step (dt), interactions/s count each body's "
                         "force+jerk evaluation against all N (the sum over blocks of active x N)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(run_cli({"bench", "--help"}).out.find("hermite rows: a step is a max step"), std::string::npos);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        std::vector<std::string> f;
        std::stringstream line(rows[i]);
        for (std::string cell; std::getline(line, cell, ',');) f.push_back(cell);
        ASSERT_EQ(f.size(), 12u) << rows[i];  // with the integrator and its eta
        // The preset's dt is 0.01: 100 steps make one unit of time.
        EXPECT_NEAR(std::stod(f[11]), std::stod(f[6]) / 0.01, 1e-3 * std::stod(f[11])) << rows[i];
    }
    const CliResult fixed = run_cli({"bench", "--backend", "serial", "--n", "64", "--steps", "1", "--repeats",
                                     "1", "--format", "csv", "--quiet"});
    EXPECT_EQ(fixed.out.find("ms_per_time_unit"), std::string::npos) << fixed.out;
}

// A CSV says what it measured: where a row is adaptive, the integrator and its settings are columns even
// when every row has the same (hermite alone had none: its max steps and counting read as leapfrog's).
TEST_F(CliTest, BenchNamesTheAdaptiveIntegratorAndItsSettings) {
    const std::vector<std::string> base{"bench", "--backend", "serial", "--n",      "64", "--steps",
                                        "1",     "--repeats", "1",      "--warmup", "0",  "--quiet"};
    auto bench = [&](std::vector<std::string> more) {
        std::vector<std::string> args = base;
        args.insert(args.end(), more.begin(), more.end());
        const CliResult r = run_cli(args);
        EXPECT_EQ(r.code, 0) << r.err;
        return r.out;
    };
    auto lines = data_lines(bench({"--integrator", "hermite", "--format", "csv"}));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].rfind("backend,precision,integrator,eta,threads,n,", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("serial,float,hermite,0.02,1,64,", 0), 0u) << lines[1];

    // The neighbour scheme's K and its own eta where set; a fixed-step row leaves them empty.
    lines = data_lines(bench({"--integrator", "hermite,leapfrog", "--neighbours", "8", "--eta-regular",
                              "0.05", "--eta", "0.03", "--format", "csv"}));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].rfind("backend,precision,integrator,eta,neighbours,eta_regular,threads,n,", 0), 0u)
        << lines[0];
    EXPECT_EQ(lines[1].rfind("serial,float,hermite,0.03,8,0.05,1,64,", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("serial,float,leapfrog,,,,1,64,", 0), 0u) << lines[2];

    const std::string json = bench({"--integrator", "hermite", "--neighbours", "8", "--format", "json"});
    EXPECT_NE(json.find("\"integrator\": \"hermite\", \"eta\": 0.02, \"neighbours\": 8, \"threads\""),
              std::string::npos)
        << json;
    const std::string table = bench({"--integrator", "hermite"});
    EXPECT_NE(table.find("integrator           eta threads"), std::string::npos) << table;
    EXPECT_NE(table.find("hermite             0.02       1"), std::string::npos) << table;

    // The table says how a hermite row counts above its rows (issue 21 asked the header), not in a footer.
    const std::size_t note = table.find("hermite rows: a step is a max step (dt)");
    ASSERT_NE(note, std::string::npos) << table;
    EXPECT_LT(note, table.find("backend  precision")) << table;
    EXPECT_EQ(table.find("N^2 per force evaluation"), std::string::npos) << "no fixed-step row: " << table;

    // Fixed-step rows alike keep their columns.
    lines = data_lines(bench({"--format", "csv"}));
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0].rfind("backend,precision,threads,n,", 0), 0u) << lines[0];
}

TEST_F(CliTest, BenchCompareStaysWithinItsBound) {
    const CliResult r =
        run_cli({"bench", "--backend", "openmp", "--precision", "float,double", "--n", "256", "--steps", "3",
                 "--repeats", "1", "--compare", "--format", "csv", "--quiet"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const auto lines = data_lines(r.out);
    ASSERT_EQ(lines.size(), 3u) << r.out;
    EXPECT_NE(lines[0].find(",max_diff,rms_diff,diff_bound"), std::string::npos) << lines[0];
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::vector<std::string> cells;
        std::stringstream ss(lines[i]);
        for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
        const double max_diff = std::stod(cells[cells.size() - 3]), rms = std::stod(cells[cells.size() - 2]),
                     bound = std::stod(cells.back());
        EXPECT_GT(max_diff, 0.0) << "float and openmp's summation order differ from serial double: "
                                 << lines[i];
        EXPECT_LE(rms, max_diff) << lines[i];
        EXPECT_LE(max_diff, bound) << lines[i];
        EXPECT_EQ(bound, cells[1] == "float" ? 1e-4 : 1e-10) << lines[i];
    }
}

TEST_F(CliTest, Cosc3500FlagsWorkWithoutRun) {
    const CliResult r =
        run_cli({"--nBodies", "64", "--finalTime", "0.1", "--timeStep", "0.01", "--energyDiff"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    std::size_t used = 0;
    EXPECT_LT(std::stod(lines[0], &used), 1e-2);
    EXPECT_EQ(used, lines[0].size());
    EXPECT_NE(r.err.find("running `nbody run`"), std::string::npos) << r.err;
    // Flags no command knows are still one error naming them, not a run.
    expect_error({"--bogus-flag"}, "--bogus-flag");
    expect_error({"--nBodies", "64", "--finalTime", "x"}, "--t-end must be a finite number");
}

// Every flag of every command's --help is described in docs/CLI.md.
TEST_F(CliTest, EveryHelpFlagIsInTheCliDocs) {
    std::ifstream in(std::string(NBODY_DOCS_DIR) + "/CLI.md");
    ASSERT_TRUE(in) << NBODY_DOCS_DIR << "/CLI.md";
    const std::string docs(std::istreambuf_iterator<char>(in), {});
    const CliResult root = run_cli({"--help"});
    ASSERT_EQ(root.code, 0);
    std::vector<std::vector<std::string>> helps{{"--help"}};
    bool in_subcommands = false;
    for (const std::string& line : lines_of(root.out)) {
        if (line == "Subcommands:") {
            in_subcommands = true;
            continue;
        }
        if (in_subcommands && line.rfind("  ", 0) != 0) break;
        if (in_subcommands) {
            const std::string name = line.substr(2, line.find(' ', 2) - 2);
            helps.push_back({name, "--help"});
            EXPECT_NE(docs.find("`nbody " + name), std::string::npos)
                << "subcommand " << name << " in docs/CLI.md";
        }
    }
    ASSERT_GE(helps.size(), 4u) << root.out;
    for (const auto& args : helps) {
        const CliResult h = run_cli(args);
        ASSERT_EQ(h.code, 0) << args[0];
        const std::string& text = h.out;
        for (std::size_t i = text.find("--"); i != std::string::npos; i = text.find("--", i + 2)) {
            std::size_t end = i + 2;
            while (end < text.size() &&
                   (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-'))
                ++end;
            if (end == i + 2 || (i > 0 && text[i - 1] != ' ' && text[i - 1] != ',' && text[i - 1] != '['))
                continue;
            const std::string flag = text.substr(i, end - i);
            // The flag as a whole word in the docs: followed by neither a letter, digit nor '-'.
            bool found = false;
            for (std::size_t at = docs.find(flag); at != std::string::npos && !found;
                 at = docs.find(flag, at + 1)) {
                const char next = at + flag.size() < docs.size() ? docs[at + flag.size()] : ' ';
                found = !std::isalnum(static_cast<unsigned char>(next)) && next != '-';
            }
            EXPECT_TRUE(found) << flag << " (from `nbody " << args[0] << "`) is not in docs/CLI.md";
            i = end - 2;
        }
    }
}

}  // namespace
}  // namespace nbody
