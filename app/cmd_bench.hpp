#pragma once
// `nbody bench`: time backends x N x precision on the plummer preset and print a table, CSV or JSON.
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace nbody {

struct BenchOptions {
    std::vector<std::string> backends;      // empty: every available backend
    std::vector<std::int64_t> ns = {1024, 4096, 16384};
    std::vector<std::string> precisions = {"float"};
    std::int64_t steps = 5;    // steps per timed repeat
    std::int64_t warmup = 2;   // untimed steps before the first repeat (caches, clocks, first kick)
    std::int64_t repeats = 3;  // timed repeats; the median is reported
    std::string format = "table";  // table, csv or json
    int threads = 0;           // OpenMP threads (0: OMP_NUM_THREADS or every core)
    std::uint64_t seed = 1;
};

// One measured configuration. vs_baseline (cuda rows only, < 0 when absent) is how many times faster the
// tuned force kernel is than the baseline kernel.
struct BenchRow {
    std::string backend, precision;
    std::int64_t n = 0;
    double ms_per_step = 0;
    double interactions_per_second = 0;  // N^2 per step
    double gflops = 0;                   // 20 flops per interaction
    double vs_baseline = -1;
};

// Adds the `bench` subcommand and its flags to root.
CLI::App* add_bench_command(CLI::App& root, BenchOptions& o);

// Measures every configuration; throws nbody::Error on a bad option or an unavailable backend.
std::vector<BenchRow> run_benchmarks(const BenchOptions& o);

// Formats rows as "table", "csv" or "json" (a list of objects with the BenchRow field names).
std::string format_bench(const std::vector<BenchRow>& rows, const std::string& format);

// Runs the benchmark and prints it. Returns the exit code.
int run_bench_command(const BenchOptions& o);

}  // namespace nbody
