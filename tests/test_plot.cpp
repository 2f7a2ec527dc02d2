// `nbody plot` (app/cli/plot): several files overlaid with a legend, the energy log's two panels over one t
// range, the bench plot's ticks, thread counts and error bars (issue 23). gnuplot is replaced by
// tests/fake_gnuplot, which writes the script it receives in place of the PNG.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_dir.hpp"

namespace nbody {
namespace {

class Plot : public test::TempDirTest {
  protected:
    // Runs `nbody ARGS` with the fake gnuplot first on PATH; returns its exit status, output in `out`.
    int nbody(const std::string& args, std::string& out) {
        const std::string cmd = "cd '" + file("") +
                                "' && PATH='" NBODY_FAKE_GNUPLOT_DIR "':\"$PATH\" '" NBODY_EXE "' " + args +
                                " 2>&1";
        FILE* p = ::popen(cmd.c_str(), "r");
        std::array<char, 4096> buf{};
        out.clear();
        for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), p)) > 0;)
            out.append(buf.data(), got);
        const int status = ::pclose(p);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::string read(const std::string& name) {
        std::ifstream in(file(name));
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    void write(const std::string& name, const std::string& text) { std::ofstream(file(name)) << text; }
};

const char* kEnergyLog =
    "# N = 8\nstep,t,kinetic,potential,total,rel_drift,px,py,pz\n0,0,1,-2,-1,0,0,0,0\n"
    "10,0.5,1.1,-2.1,-1,1e-6,0,0,0\n20,1,1.2,-2.2,-1,2e-6,0,0,0\n";
const char* kBench =
    "# cpu = test\nbackend,precision,threads,n,ms_per_step,ms_min,ms_max,interactions_per_second,gflops\n"
    "openmp,float,1,1024,2,1,4,5e8,10\nopenmp,float,1,4096,20,10,40,8e8,16\n";

TEST_F(Plot, OverlaysSeveralEnergyLogsWithTheirLabels) {
    write("euler.csv", kEnergyLog);
    write("leapfrog.csv", kEnergyLog);
    std::string out;
    ASSERT_EQ(nbody("plot euler.csv leapfrog.csv -o both.png", out), 0) << out;
    const std::string script = read("both.png");
    EXPECT_NE(script.find("title 'euler.csv'"), std::string::npos) << script;
    EXPECT_NE(script.find("title 'leapfrog.csv'"), std::string::npos) << script;
    ASSERT_EQ(nbody("plot euler.csv leapfrog.csv --label Euler --label leapfrog -o named.png", out), 0)
        << out;
    EXPECT_NE(read("named.png").find("title 'Euler'"), std::string::npos);
    EXPECT_NE(nbody("plot euler.csv leapfrog.csv --label Euler -o x.png", out), 0);
    EXPECT_NE(out.find("--label given 1 times for 2 files"), std::string::npos) << out;
    write("bench.csv", kBench);
    EXPECT_NE(nbody("plot euler.csv bench.csv -o x.png", out), 0);
    EXPECT_NE(out.find("cannot overlay an energy log and a bench CSV"), std::string::npos) << out;
}

// The |dE/E| panel has no point at t = 0 (0 has no place on a log axis): both panels get the log's range.
TEST_F(Plot, EnergyPanelsShareTheirTimeAxis) {
    write("e.csv", kEnergyLog);
    std::string out;
    ASSERT_EQ(nbody("plot e.csv -o e.png", out), 0) << out;
    EXPECT_NE(read("e.png").find("set xrange [0:1]"), std::string::npos) << read("e.png");
}

// A log with NaN or Inf rows (a blow-up) is refused in one line naming the rows' line numbers, instead of
// gnuplot's warnings and a plot that hides them.
TEST_F(Plot, EnergyLogWithNonFiniteRowsIsRefusedNamingTheLines) {
    write("bad.csv",
          std::string(kEnergyLog) + "30,1.5,nan,-2.3,nan,nan,0,0,0\n40,2,1.3,-inf,-1,2e-6,0,0,0\n");
    std::string out;
    EXPECT_NE(nbody("plot bad.csv -o bad.png", out), 0);
    EXPECT_NE(out.find("'bad.csv': NaN or Inf in 2 rows (lines 6, 7): nothing plotted"), std::string::npos)
        << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_FALSE(std::ifstream(file("bad.png")).good());
    write("one.csv", std::string(kEnergyLog) + "30,1.5,1.3,-2.3,-1,Inf,0,0,0\n");
    EXPECT_NE(nbody("plot one.csv -o one.png", out), 0);
    EXPECT_NE(out.find("NaN or Inf in 1 row (line 6)"), std::string::npos) << out;
    // Finite logs still plot.
    write("good.csv", kEnergyLog);
    EXPECT_EQ(nbody("plot good.csv -o good.png", out), 0) << out;
}

TEST_F(Plot, BenchTicksEveryNAndShowsTheSpreadOfTheRepeats) {
    write("bench.csv", kBench);
    std::string out;
    ASSERT_EQ(nbody("plot bench.csv -o b.png", out), 0) << out;
    const std::string script = read("b.png");
    EXPECT_NE(script.find("'1024' 1024, '4096' 4096"), std::string::npos) << script;
    EXPECT_NE(script.find("1 thread'"), std::string::npos) << script;
    EXPECT_EQ(script.find("1 threads"), std::string::npos) << script;
    EXPECT_NE(script.find("yerrorbars"), std::string::npos) << script;
    // The slowest repeat (4 ms of a 2 ms median) runs at half the median rate, the fastest at twice.
    EXPECT_NE(script.find("1024 500000000 250000000 1000000000"), std::string::npos) << script;
}

// An adaptive integrator's dt is its max step, and its accuracy is in the title as `nbody run`'s summary
// gives them: eta, and neighbours / eta-regular where they act.
TEST_F(Plot, EnergyTitleOfAnAdaptiveRunSaysMaxDtAndItsSettings) {
    auto title_of = [&](const std::string& parameters) {
        write("e.csv", parameters + kEnergyLog);
        std::string out;
        EXPECT_EQ(nbody("plot e.csv -o e.png", out), 0) << out;
        const std::string script = read("e.png");
        const std::size_t a = script.find("multiplot layout 2,1 title '");
        return a == std::string::npos ? script : script.substr(a, script.find('\n', a) - a);
    };
    const std::string neighbours = title_of(
        "# integrator = hermite\n# eta = 0.02\n# neighbours = 8\n# eta-regular = 0.05\n# dt = 0.01\n");
    EXPECT_NE(neighbours.find("hermite (eta 0.02, neighbours 8, eta-regular 0.05), max dt = 0.01"),
              std::string::npos)
        << neighbours;
    // eta-regular acts only with neighbours, and neighbours 0 is off: neither is named.
    const std::string plain = title_of(
        "# integrator = hermite\n# eta = 0.03\n# neighbours = 0\n# eta-regular = 0.05\n# dt = 0.01\n");
    EXPECT_NE(plain.find("hermite (eta 0.03), max dt = 0.01"), std::string::npos) << plain;
    const std::string fixed = title_of("# integrator = leapfrog\n# eta = 0.02\n# dt = 0.01\n");
    EXPECT_NE(fixed.find("leapfrog, dt = 0.01"), std::string::npos) << fixed;
}

// A hermite row's line names its integrator and settings, and the y axis says how its interactions count
// (active x N per block, bench --help), which is not the N^2 a step of the fixed-step rows; a tree row's
// likewise (its theta, the interactions it evaluates).
TEST_F(Plot, BenchNamesTheAdaptiveIntegratorAndHowItsRowsCount) {
    write("mixed.csv",
          "# cpu = test\nbackend,precision,integrator,eta,neighbours,threads,n,ms_per_step,ms_min,ms_max,"
          "interactions_per_second,gflops,ms_per_time_unit\n"
          "serial,float,hermite,0.02,8,1,1024,2,1,4,5e7,2,200\nserial,float,leapfrog,,,1,1024,2,1,4,5e8,10,"
          "200\n");
    std::string out;
    ASSERT_EQ(nbody("plot mixed.csv -o m.png", out), 0) << out;
    std::string script = read("m.png");
    EXPECT_NE(script.find("title 'serial float hermite (eta 0.02, neighbours 8) 1 thread'"),
              std::string::npos)
        << script;
    EXPECT_NE(script.find("title 'serial float leapfrog 1 thread'"), std::string::npos) << script;
    EXPECT_NE(script.find("'N^2 per step; hermite: active x N per block (neighbours per list evaluation)'"),
              std::string::npos)
        << script;

    write("hermite.csv",
          "# cpu = test\nbackend,precision,integrator,eta,threads,n,ms_per_step,ms_min,ms_max,"
          "interactions_per_second,gflops,ms_per_time_unit\nopenmp,float,hermite,0.02,2,1024,2,1,4,5e8,10,"
          "200\n");
    ASSERT_EQ(nbody("plot hermite.csv -o h.png", out), 0) << out;
    script = read("h.png");
    EXPECT_NE(script.find("title 'openmp float hermite (eta 0.02) 2 threads'"), std::string::npos) << script;
    EXPECT_NE(script.find("'hermite: active x N per block'"), std::string::npos) << script;
    EXPECT_EQ(script.find("N^2"), std::string::npos) << "no fixed-step row: " << script;

    // A CSV from before the integrator column: the ms_per_time_unit column is written only beside an
    // adaptive row, and without the integrator column every row had the same integrator.
    write(
        "old.csv",
        "# cpu = test\nbackend,precision,threads,n,ms_per_step,ms_min,ms_max,interactions_per_second,gflops,"
        "ms_per_time_unit\nopenmp,float,2,1024,2,1,4,5e8,10,200\n");
    ASSERT_EQ(nbody("plot old.csv -o o.png", out), 0) << out;
    script = read("o.png");
    EXPECT_NE(script.find("'adaptive integrator: active x N per block'"), std::string::npos) << script;
    EXPECT_EQ(script.find("N^2"), std::string::npos) << script;

    // A tree row's line names its theta (a direct row's empty cell adds nothing), and the axis says its
    // interactions are those it evaluates, not N^2.
    write("tree.csv",
          "# cpu = test\nbackend,precision,force,theta,threads,n,ms_per_step,ms_min,ms_max,"
          "interactions_per_second,gflops,interactions_per_body\n"
          "serial,float,tree,0.4,1,1024,2,1,4,5e8,0,300\nserial,float,direct,,1,1024,2,1,4,5e8,10,1024\n");
    ASSERT_EQ(nbody("plot tree.csv -o t.png", out), 0) << out;
    script = read("t.png");
    EXPECT_NE(script.find("title 'serial float tree theta 0.4 1 thread'"), std::string::npos) << script;
    EXPECT_NE(script.find("title 'serial float direct 1 thread'"), std::string::npos) << script;
    EXPECT_NE(script.find("(N^2 per step; tree: those it evaluates; bars"), std::string::npos) << script;

    write("bench.csv", kBench);
    ASSERT_EQ(nbody("plot bench.csv -o b.png", out), 0) << out;
    EXPECT_NE(
        read("b.png").find("set ylabel 'interactions per second (N^2 per step; bars: slowest to fastest "
                           "repeat)'"),
        std::string::npos)
        << read("b.png");
}

}  // namespace
}  // namespace nbody
