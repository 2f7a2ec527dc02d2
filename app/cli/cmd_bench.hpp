#pragma once
// `nbody bench`: time backends x precision x force x integrator x threads x N on the plummer preset and
// print a table, CSV or JSON that a student can hand in (min/median/max, the machine, the thread count).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace nbody {

struct BenchOptions {
    std::vector<std::string> backends;  // empty: every available backend
    std::vector<std::int64_t> ns = {1024, 4096, 16384};
    std::vector<std::string> precisions = {"float"};
    std::vector<std::string> forces;       // empty: direct
    std::vector<std::string> integrators;  // empty: leapfrog
    std::vector<int> threads;              // OpenMP threads to sweep (empty: OMP_NUM_THREADS or every core)
    std::int64_t steps = 5;                // steps per timed repeat
    std::int64_t warmup = 2;       // untimed steps before the first repeat (caches, clocks, first kick)
    std::int64_t repeats = 3;      // timed repeats; min, median and max are reported
    std::string format = "table";  // table, csv or json
    std::uint64_t seed = 1;
    bool compare = false;  // also run the CPU reference and report the difference
    std::map<std::string, std::optional<double>> settings;  // --theta, ...: unset keeps the default
    bool error = false;  // also measure the force error against the float64 direct sum on a sample
    std::size_t error_sample = 1000;
    std::string plot;    // PNG of interactions/s against N
    bool quiet = false;  // no progress line
};

// The machine the numbers come from.
struct MachineInfo {
    std::string cpu;  // /proc/cpuinfo's model name, or "unknown"
    int cores = 0;    // logical CPUs (std::thread::hardware_concurrency)
    std::string gpu;  // CUDA device name, or "none"
};
MachineInfo machine_info();

// One measured configuration. Times are per step over `repeats` timed runs. vs_baseline (cuda rows
// only, < 0 when absent) is how many times faster the tuned force kernel is than the baseline kernel.
// max_diff/rms_diff (< 0 unless --compare) are position differences from the CPU reference after the
// same steps, relative to the reference's RMS radius; diff_bound is the bound they are held to.
struct BenchRow {
    std::string backend, precision, force = "direct", integrator = "leapfrog";
    int threads = 1;    // per process
    int processes = 1;  // under mpirun: the processes sharing the bodies (a column when > 1)
    std::int64_t n = 0;
    double ms_per_step = 0;  // median
    double ms_min = 0, ms_max = 0;
    double interactions_per_second = 0;  // N^2 per force evaluation, at the median
    double gflops = 0;                   // 20 flops per interaction
    double vs_baseline = -1;
    double max_diff = -1, rms_diff = -1, diff_bound = -1;
    // The interactions one force evaluation actually did, per body: N for the direct sum, the counted
    // body-body plus body-cell interactions for a tree (whose interactions/s use that count, not N^2).
    double interactions_per_body = -1;
    // A tree row's opening angle (--theta), < 0 for the direct sum: a column beside the force where a tree
    // row is present, since its speed and its error depend on it.
    double theta = -1;
    // --error: relative force error of the accelerations a step uses against the float64 direct sum on
    // a sample (median, 99th percentile, max; < 0 when not measured).
    double err_median = -1, err_p99 = -1, err_max = -1;
    // Wall ms per unit of simulated time (ms_per_step / dt): the figure that compares an adaptive
    // integrator (a step is a max step) with a fixed-step one. A column when an adaptive row is present.
    double ms_per_time_unit = 0;
    bool adaptive = false;
    // The neighbour scheme's K (--neighbours) of an adaptive row, 0 when off: its interactions/s count K
    // per evaluation of a body against its neighbour list besides N per full evaluation.
    double neighbours = 0;
    // The integrator's settings that say what was measured (hermite: eta, and neighbours and eta-regular
    // where set; sim/run_settings.hpp settings_named), by registry name: a column each where a row has one.
    std::vector<std::pair<std::string, double>> settings;
};

// Adds the `bench` subcommand and its flags to root.
CLI::App* add_bench_command(CLI::App& root, BenchOptions& o);

// Measures every configuration; throws nbody::Error on a bad option or an unavailable backend.
std::vector<BenchRow> run_benchmarks(const BenchOptions& o);

// Formats rows as "table", "csv" or "json". CSV starts with '#' lines naming the machine; JSON is a list
// of objects with the BenchRow field names plus cpu, cores and gpu. The force and integrator columns
// appear when the rows differ in them, the force's also when a row is a tree's (with a theta column, empty
// in the direct rows), the integrator's also when a row is adaptive or has settings, followed by a column
// per setting (`-` written `_`; empty in the rows without it).
std::string format_bench(const std::vector<BenchRow>& rows, const std::string& format, const MachineInfo& m);

// Runs the benchmark and prints it (and the plot). Returns the exit code: 1 when --compare finds a row
// beyond its bound.
int run_bench_command(const BenchOptions& o);

}  // namespace nbody
