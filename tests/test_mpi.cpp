// `nbody run` and `nbody bench` under mpirun (Open MPI), against the same command as one process: the
// final bodies and the diagnostics agree (bit for bit in practice: every slice sums its bodies' forces
// over the same source array in the same order), for every integrator, in float and double, with
// slices of unequal size; bad input is one error line from rank 0 and a non-zero exit, never a hang.
// Registered only in builds with MPI (NBODY_HAVE_MPI).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/integrate/integrators.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/params.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace nbody {
namespace {

struct Result {
    int code = 0;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

class MpiTest : public test::TempDirTest {
  protected:
    void SetUp() override {
        // Open MPI refuses to run as root (CI containers) without these, and more processes than cores
        // without the last; the environment of the test passes to mpirun.
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
        setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
        TempDirTest::SetUp();
    }

    // `[mpirun -np K] nbody args...` through the shell, under `timeout` so a hang fails the test (124)
    // instead of stalling CI. K = 0: no mpirun.
    Result run(int processes, const std::string& args) {
        std::string cmd = "timeout 120 ";
        if (processes > 0)
            cmd += std::string(NBODY_MPIEXEC) + " --oversubscribe -np " + std::to_string(processes) + " ";
        cmd += std::string(NBODY_EXE) + " " + args + " >" + file("out.txt") + " 2>" + file("err.txt");
        const int status = std::system(cmd.c_str());
        Result r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        r.out = slurp(file("out.txt"));
        r.err = slurp(file("err.txt"));
        return r;
    }
};

// |a - b| within tol of the larger magnitude, or of `scale` for values near zero.
bool close(double a, double b, double tol, double scale) {
    return std::abs(a - b) <= tol * std::max({std::abs(a), std::abs(b), scale});
}

void expect_same_bodies(const std::string& single, const std::string& many, double tol,
                        const std::string& what) {
    const HostState a = read_bodies_csv(single), b = read_bodies_csv(many);
    ASSERT_EQ(a.size(), b.size()) << what;
    double scale = 0;  // RMS position, for coordinates that happen to be near 0
    for (const auto& p : a.pos_mass) scale += p.x * p.x + p.y * p.y + p.z * p.z;
    scale = std::sqrt(scale / double(a.size()));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < a.size() && bad < 5; ++i) {
        const auto &pa = a.pos_mass[i], &pb = b.pos_mass[i], &va = a.vel[i], &vb = b.vel[i];
        const bool ok = close(pa.x, pb.x, tol, scale) && close(pa.y, pb.y, tol, scale) &&
                        close(pa.z, pb.z, tol, scale) && close(va.x, vb.x, tol, scale) &&
                        close(va.y, vb.y, tol, scale) && close(va.z, vb.z, tol, scale) && pa.w == pb.w;
        if (!ok) {
            ++bad;
            ADD_FAILURE() << what << ": body " << i << " differs: x " << pa.x << " vs " << pb.x << ", vx "
                          << va.x << " vs " << vb.x;
        }
    }
}

// The energy logs: energies to `tol` relative, drift and momenta to `tol` absolute (they are near 0).
void expect_same_log(const std::string& single, const std::string& many, double tol,
                     const std::string& what) {
    auto rows = [](const std::string& file) {
        std::vector<std::vector<double>> out;
        for (const std::string& line : lines_of(slurp(file))) {
            if (line.empty() || line[0] == '#' || line[0] == 's') continue;  // parameters, header
            std::vector<double> row;
            std::stringstream cells(line);
            for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
            out.push_back(row);
        }
        return out;
    };
    const auto a = rows(single), b = rows(many);
    ASSERT_EQ(a.size(), b.size()) << what;
    ASSERT_GE(a.size(), 2u) << what;
    // step,t,kinetic,potential,total,rel_drift,px,py,pz and, for an adaptive integrator, blocks and
    // force_evaluations: the same work as one process's.
    for (std::size_t r = 0; r < a.size(); ++r) {
        ASSERT_TRUE(a[r].size() == 9u || a[r].size() == 11u) << what;
        ASSERT_EQ(b[r].size(), a[r].size()) << what;
        for (std::size_t c = 9; c < a[r].size(); ++c)
            EXPECT_EQ(a[r][c], b[r][c]) << what << " row " << r << " column " << c;
        EXPECT_EQ(a[r][0], b[r][0]) << what;
        EXPECT_EQ(a[r][1], b[r][1]) << what << " row " << r << ": t";
        for (int c : {2, 3, 4})
            EXPECT_TRUE(close(a[r][c], b[r][c], tol, 0))
                << what << " row " << r << " column " << c << ": " << a[r][c] << " vs " << b[r][c];
        for (int c : {5, 6, 7, 8})
            EXPECT_LE(std::abs(a[r][c] - b[r][c]), tol) << what << " row " << r << " column " << c;
    }
}

struct Case {
    std::string precision, integrator;
};
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.precision << ' ' << c.integrator;
}

class MpiMatchesOneProcess : public MpiTest, public ::testing::WithParamInterface<Case> {};

// N = 1001: slices of 501 + 500 on 2 processes, 334 + 334 + 333 on 3.
TEST_P(MpiMatchesOneProcess, FinalStateAndDiagnosticsAfter100Steps) {
    const Case c = GetParam();
    const double tol = c.precision == "double" ? 1e-12 : 1e-5;
    auto args = [&](const std::string& tag) {
        return "run --backend openmp --threads 1 --preset plummer --n 1001 --steps 100 --quiet --precision " +
               c.precision + " --integrator " + c.integrator + " --output " + file(tag + ".csv") +
               " --energy-log " + file(tag + "_energy.csv") + " --log-every 25";
    };
    const Result one = run(0, args("one"));
    ASSERT_EQ(one.code, 0) << one.err;
    for (int k : {2, 3}) {
        const std::string tag = "np" + std::to_string(k);
        const Result many = run(k, args(tag));
        ASSERT_EQ(many.code, 0) << many.err;
        EXPECT_NE(many.out.find("on " + std::to_string(k) + " processes"), std::string::npos) << many.out;
        EXPECT_EQ(std::count(many.out.begin(), many.out.end(), '\n'),
                  std::count(one.out.begin(), one.out.end(), '\n'))
            << "only rank 0 prints:\n"
            << many.out;
        expect_same_bodies(file("one.csv"), file(tag + ".csv"), tol,
                           c.integrator + " " + c.precision + " " + tag);
        expect_same_log(file("one_energy.csv"), file(tag + "_energy.csv"), tol,
                        c.integrator + " " + c.precision + " " + tag);
    }
}

std::vector<Case> all_cases() {
    std::vector<Case> out;
    for (const char* p : {"double", "float"}) {
        for (const std::string& i : integrator_names()) out.push_back({p, i});
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(EveryIntegrator, MpiMatchesOneProcess, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& p) {
                             std::string name = p.param.precision + "_" + p.param.integrator;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// Softening 0 takes the split rows (j < i, j > i) around each body's GLOBAL index.
TEST_F(MpiTest, SofteningZeroSkipsEachBodysOwnGlobalIndex) {
    auto args = [&](const std::string& tag) {
        return "run --backend openmp --threads 1 --n 700 --steps 20 --softening 0 --precision double --quiet "
               "--output " +
               file(tag + ".csv");
    };
    ASSERT_EQ(run(0, args("one")).code, 0);
    const Result many = run(3, args("np3"));
    ASSERT_EQ(many.code, 0) << many.err;
    expect_same_bodies(file("one.csv"), file("np3.csv"), 1e-12, "softening 0");
}

// Exactly one "nbody: error:" line, from rank 0 (mpirun adds its own banner after a non-zero exit;
// `mpirun -q` drops it), and a non-zero exit of the job.
void expect_one_error(const Result& r, const std::string& text) {
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.code, 124) << "timed out: a process hung";
    int ours = 0;
    for (const std::string& line : lines_of(r.err)) ours += line.rfind("nbody:", 0) == 0;
    EXPECT_EQ(ours, 1) << r.err;
    EXPECT_NE(r.err.find("nbody: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
}

TEST_F(MpiTest, BadInputIsOneLineFromRankZeroAndNoHang) {
    expect_one_error(run(3, "run --n abc"), "--n");
    expect_one_error(run(3, "run --frobnicate 3"), "frobnicate");
    expect_one_error(run(3, "run --input " + file("missing.csv")), "missing.csv");
    expect_one_error(run(3, "run --backend openmp --n 2 --steps 1"),
                     "N = 2 bodies cannot be split over 3 processes");
    expect_one_error(run(2, "bench --backend openmp --n 100 --format xml"), "format");
    // Only run and bench are distributed.
    std::ofstream(file("e.csv")) << "step,t,kinetic\n0,0,1\n";
    expect_one_error(run(2, "plot " + file("e.csv") + " --output " + file("e.png")),
                     "only `nbody run` and `nbody bench` run as 2 processes");
}

// What does not run distributed yet is refused with one line, not run wrong: collisions (contacts across
// processes are not searched) and hermite's neighbour scheme (each list indexes the whole system). The
// same commands run in one process.
TEST_F(MpiTest, CollisionsAndNeighboursAreRefusedWithOneLine) {
    const std::string collide = "run --backend openmp --n 64 --steps 2 --quiet --collisions merge";
    expect_one_error(run(2, collide), "--collisions merge does not run under mpirun yet");
    const std::string neighbours =
        "run --backend openmp --n 64 --steps 2 --quiet --integrator hermite --neighbours 32";
    expect_one_error(run(2, neighbours), "--neighbours does not run under mpirun yet");
    const Result one = run(0, neighbours);
    EXPECT_EQ(one.code, 0) << one.err;
    // --neighbours 0 is the plain hermite run, which does run distributed.
    const Result off =
        run(2, "run --backend openmp --n 64 --steps 2 --quiet --integrator hermite --neighbours 0");
    EXPECT_EQ(off.code, 0) << off.err;
    // bench refuses it alike, in run's words and before its first case (the block steps' own refusal came
    // from every process, in other words).
    const Result bench = run(2,
                             "bench --backend serial,openmp --n 64 --steps 1 --repeats 1 --quiet "
                             "--integrator leapfrog,hermite --neighbours 8");
    expect_one_error(bench,
                     "nbody: error: --neighbours does not run under mpirun yet (each list indexes the "
                     "whole system): run it in one process, or use --neighbours 0");
    EXPECT_EQ(bench.out, "") << "no case measured before the refusal";
}

TEST_F(MpiTest, ProcessesStartedWithDifferentArgumentsStopWithOneLine) {
    // An mpirun line of two parts used to hang: the process with --dt nan failed alone, the other waited
    // in its first collective forever; different --log-every values deadlocked later (issue 26, item 7).
    const std::string nbody = NBODY_EXE;
    for (const std::string other : {"--dt nan", "--log-every 1", "--steps 3"}) {
        const Result r = run(1, "run --backend serial --n 8 --steps 2 --quiet : -np 1 " + nbody +
                                    " run --backend serial --n 8 --steps 2 --quiet " + other);
        expect_one_error(r, "the 2 processes were started with different arguments");
    }
    // The same arguments still run.
    EXPECT_EQ(run(1, "run --backend serial --n 8 --steps 2 --quiet : -np 1 " + nbody +
                         " run --backend serial --n 8 --steps 2 --quiet")
                  .code,
              0);
    // Agreed by the values parsed, not the words: one number spelled two ways, a flag with '=', another
    // order of the flags.
    const Result same = run(1, "run --backend serial --n 8 --steps 2 --dt 0.01 --quiet : -np 1 " + nbody +
                                   " run --quiet --steps=2 --backend serial --dt 1e-2 --n 8");
    EXPECT_EQ(same.code, 0) << same.err;
    expect_one_error(run(1, "run --backend serial --n 8 --steps 2 --dt 0.01 --quiet : -np 1 " + nbody +
                                " run --backend serial --n 8 --steps 2 --dt 0.011 --quiet"),
                     "the 2 processes were started with different arguments");
}

TEST_F(MpiTest, QuietMpirunLeavesExactlyOneLine) {
    const std::string cmd = std::string("timeout 120 ") + NBODY_MPIEXEC + " -q --oversubscribe -np 2 " +
                            NBODY_EXE + " run --n abc 2>" + file("err.txt");
    const int status = std::system(cmd.c_str());
    EXPECT_NE(WEXITSTATUS(status), 0);
    const std::vector<std::string> lines = lines_of(slurp(file("err.txt")));
    ASSERT_EQ(lines.size(), 1u) << slurp(file("err.txt"));
    EXPECT_EQ(lines[0].rfind("nbody: error: ", 0), 0u) << lines[0];
}

// Body 3 (on the third process of three) overflows float in its first drift: every process stops at
// step 1 and rank 0 names the body by its global index.
TEST_F(MpiTest, BlowUpOnOneProcessStopsAllWithTheGlobalBodyIndex) {
    std::ofstream(file("fast.csv")) << "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,0,0,1\n0,1,0,0,0,0,1\n"
                                       "5,0,0,3e38,0,0,1\n";
    const Result r = run(3, "run --input " + file("fast.csv") +
                                " --backend openmp --precision float --dt 10 "
                                "--steps 5 --integrator euler --output " +
                                file("out.csv"));
    expect_one_error(r, "numerical blow-up at step 1 (t = 10): body 3 has a non-finite position or velocity");
    EXPECT_FALSE(fs::exists(file("out.csv")));
}

// Hermite's block steps stalling on one process (a pair float cannot resolve, bodies 2 and 3 of the
// second slice) stop every process at the same max step, the error naming the global index; rank 0 alone
// says it (once, beside the warning every float run at softening 0 gets).
TEST_F(MpiTest, AStallOnOneProcessStopsAllWithTheGlobalBodyIndex) {
    std::ofstream(file("pair.csv")) << "x,y,z,vx,vy,vz,m\n-1,0,0,0,0.1,0,0.001\n0,1,0,0.1,0,0,0.001\n"
                                       "1,0,0,0,-1.2909944487358056,0,1e-06\n"
                                       "1.0000003,0,0,0,1.2909944487358056,0,1e-06\n";
    const Result r = run(2, "run --input " + file("pair.csv") +
                                " --backend openmp --precision float --softening 0 --dt 1e-3 --steps 5 "
                                "--integrator hermite --output " +
                                file("out.csv"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.code, 124) << "timed out: a process hung";
    int errors = 0;
    for (const std::string& line : lines_of(r.err)) errors += line.rfind("nbody: error:", 0) == 0;
    EXPECT_EQ(errors, 1) << r.err;
    // Body 2 or 3, whichever of the pair first fails the test once the max step has run kStallBlocks.
    const std::string said = "nbody: error: block steps stalled in max step 1 (from t = 0): body ";
    const std::size_t at = r.err.find(said);
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::string rest = r.err.substr(at + said.size());
    EXPECT_TRUE(rest.rfind("2's accuracy criterion asks for steps too short to move it in float", 0) == 0 ||
                rest.rfind("3's accuracy criterion asks for steps too short to move it in float", 0) == 0)
        << r.err;
    EXPECT_FALSE(fs::exists(file("out.csv")));
}

// bench: the bodies split over the processes, one table from rank 0 with a processes column, and
// --compare against the one-process CPU reference within its bound.
TEST_F(MpiTest, BenchSplitsTheBodiesAndPrintsOnce) {
    const Result r = run(2,
                         "bench --backend openmp --threads 1 --n 1001 --steps 2 --warmup 0 --repeats 1 "
                         "--format csv --compare --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    int header = 0, rows = 0;
    for (const std::string& line : lines) {
        if (line.rfind("backend,", 0) == 0) {
            ++header;
            EXPECT_NE(line.find("threads,processes,n"), std::string::npos) << line;
        }
        if (line.rfind("openmp,", 0) == 0) {
            ++rows;
            EXPECT_NE(line.find(",1,2,1001,"), std::string::npos) << line;
        }
    }
    EXPECT_EQ(header, 1) << r.out;
    EXPECT_EQ(rows, 1) << r.out;
}

// The potential of the last row of an energy log (its 4th column).
double last_potential(const std::string& log) {
    std::istringstream in(log);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#') last = line;
    std::istringstream row(last);
    std::string cell;
    for (int c = 0; c < 4; ++c) std::getline(row, cell, ',');
    return std::strtod(cell.c_str(), nullptr);
}

// --steps 0 with an energy log: only rank 0 holds the log, so the others used to skip the potential that
// rank 0 computed, and the two waited in different collectives forever. A large state's potential (the
// tree's, summed on rank 0 from the gathered bodies) is the one-process run's.
TEST_F(MpiTest, StepsZeroWithAnEnergyLogAndALargeStatesPotential) {
    const Result small = run(
        2, "run --backend openmp --threads 1 --n 100 --steps 0 --quiet --energy-log " + file("small.csv"));
    EXPECT_EQ(small.code, 0) << small.err;
    const std::string large =
        "run --backend openmp --threads 1 --n 131073 --steps 0 --force tree --quiet "
        "--energy-log ";
    const Result one = run(0, large + file("one.csv"));
    ASSERT_EQ(one.code, 0) << one.err;
    const Result two = run(2, large + file("two.csv"));
    ASSERT_EQ(two.code, 0) << two.err;
    EXPECT_NE(two.out.find("(potential tree (theta"), std::string::npos) << two.out;
    const double u1 = last_potential(slurp(file("one.csv"))), u2 = last_potential(slurp(file("two.csv")));
    EXPECT_LT(u1, 0.0);
    EXPECT_NEAR(u2, u1, 1e-12 * std::abs(u1));
}

// `mpirun -np 1` is the one-process run, bit for bit.
TEST_F(MpiTest, OneProcessUnderMpirunIsThePlainRun) {
    const std::string args =
        "run --backend openmp --threads 1 --n 300 --steps 10 --quiet --precision double --output ";
    ASSERT_EQ(run(0, args + file("plain.csv")).code, 0);
    const Result r = run(1, args + file("np1.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(file("plain.csv")), slurp(file("np1.csv")));
    EXPECT_EQ(r.out.find("processes"), std::string::npos) << r.out;
}

bool same_vectors(const std::vector<Vec4<double>>& a, const std::vector<Vec4<double>>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
}

// Hermite's snapshots under mpirun hold the whole system's levels, accelerations and jerks, gathered from
// the slices: the one-process run's file. A restart takes them in either direction (each process its
// slice) and goes on as the unbroken one-process run, bit for bit.
TEST_F(MpiTest, HermiteSnapshotsAreTheOneProcessRunsAndRestartEitherWay) {
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5";
    const std::string common =
        " --backend openmp --threads 1 --preset plummer --n 200 --seed 3 --integrator hermite "
        "--precision double --dt 0.125 --quiet";
    ASSERT_EQ(run(0, "run --steps 8 --output " + file("unbroken.h5") + common).code, 0);
    for (int processes : {0, 2}) {
        const std::string dir = file("series" + std::to_string(processes));
        const Result r = run(processes, "run --steps 4 --snapshot-every 4 --snapshot-dir " + dir + common);
        ASSERT_EQ(r.code, 0) << r.err;
    }
    const Snapshot one = read_snapshot(file("series0/snap_000004.h5"));
    const Snapshot two = read_snapshot(file("series2/snap_000004.h5"));
    ASSERT_TRUE(one.block.has_value());
    ASSERT_TRUE(two.block.has_value());
    EXPECT_EQ(one.block->level, two.block->level);
    EXPECT_TRUE(same_vectors(one.block->acc, two.block->acc));
    EXPECT_TRUE(same_vectors(one.block->jerk, two.block->jerk));
    EXPECT_TRUE(same_vectors(one.state.pos_mass, two.state.pos_mass));

    const Snapshot unbroken = read_snapshot(file("unbroken.h5"));
    for (const auto& [processes, from] : {std::pair{2, "series0"}, std::pair{0, "series2"}}) {
        SCOPED_TRACE(std::string(from) + " in " + std::to_string(processes) + " processes");
        const std::string out = file(std::string("from_") + from + ".h5");
        const Result r =
            run(processes, "run --restart " + file(std::string(from) + "/snap_000004.h5") +
                               " --steps 4 --backend openmp --threads 1 --quiet --output " + out);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.err, "");  // the state taken: no note
        const Snapshot end = read_snapshot(out);
        EXPECT_TRUE(same_vectors(end.state.pos_mass, unbroken.state.pos_mass));
        EXPECT_TRUE(same_vectors(end.state.vel, unbroken.state.vel));
    }
}

}  // namespace
}  // namespace nbody
