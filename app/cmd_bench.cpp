#include "cmd_bench.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "scenario.hpp"
#include "sim/error.hpp"
#include "sim/interaction.hpp"
#include "sim/memory.hpp"
#include "sim/presets.hpp"
#include "sim/registry.hpp"
#include "sim/util.hpp"

#if defined(NBODY_HAVE_CUDA)
#include "cuda/cuda_backend.hpp"
#endif

namespace nbody {
namespace {

constexpr const char* kBenchPreset = "plummer";
constexpr const char* kFootnote =
    "interactions/s count N^2 per step for every backend; GFLOP/s counts 20 flops per interaction";

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

BenchRow measure(const std::string& backend_name, Precision precision, std::int64_t n, const BenchOptions& o) {
    const PresetInfo* preset = find_preset(kBenchPreset);
    if (!preset) throw Error(std::string("bench needs the '") + kBenchPreset + "' preset");
    check_host_memory(static_cast<std::size_t>(n), precision);
    std::unique_ptr<Backend> backend = create_backend(backend_name, precision);
    backend->set_state(make_preset(kBenchPreset, static_cast<std::size_t>(n), o.seed));

    const Params& p = preset->params;
    auto check = [&](const StepReport& r) {
        if (!r.finite) {
            throw Error("bench: " + backend_name + " N = " + std::to_string(n) +
                        " produced a non-finite value at step " + std::to_string(r.bad_step));
        }
    };
    if (o.warmup > 0) check(backend->step(p, o.warmup));
    std::vector<double> seconds;
    for (std::int64_t r = 0; r < o.repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const StepReport rep = backend->step(p, o.steps);
        // step() returns after device work completes (its finiteness check reads the result back), so
        // the wall clock covers the whole computation.
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        check(rep);
    }

    BenchRow row;
    row.backend = backend_name;
    row.precision = to_string(precision);
    row.n = n;
    const double s_per_step = median(seconds) / static_cast<double>(o.steps);
    row.ms_per_step = s_per_step * 1e3;
    row.interactions_per_second = static_cast<double>(n) * static_cast<double>(n) / s_per_step;
    row.gflops = row.interactions_per_second * kFlopsPerInteraction * 1e-9;
#if defined(NBODY_HAVE_CUDA)
    if (backend_name == "cuda") {
        const ForceKernelTiming k = time_force_kernels(static_cast<std::size_t>(n), precision,
                                                       static_cast<int>(o.repeats));
        if (k.tuned_ms > 0) row.vs_baseline = k.baseline_ms / k.tuned_ms;
    }
#endif
    return row;
}

}  // namespace

CLI::App* add_bench_command(CLI::App& root, BenchOptions& o) {
    CLI::App* cmd = root.add_subcommand("bench", "time the force backends on the plummer preset");
    cmd->add_option(
           "--backend", o.backends,
           "backends to time, comma-separated: " + join(backend_names()) + " (default: every available one)")
        ->delimiter(',');
    cmd->add_option_function<std::vector<std::string>>(
           "--n",
           [&o](const std::vector<std::string>& v) {
               o.ns.clear();
               for (const auto& s : v) o.ns.push_back(parse_body_count("--n", s));
           },
           "body counts, comma-separated (default 1024,4096,16384)")
        ->delimiter(',')
        ->type_name("N,...");
    cmd->add_option("--precision", o.precisions, "float and/or double, comma-separated (default float)")
        ->delimiter(',');
    cmd->add_option("--steps", o.steps, "steps per timed repeat")->capture_default_str();
    cmd->add_option("--warmup", o.warmup, "untimed steps first")->capture_default_str();
    cmd->add_option("--repeats", o.repeats, "timed repeats; the median is reported")->capture_default_str();
    cmd->add_option("--format", o.format, "table, csv or json")->capture_default_str();
    cmd->add_option("--threads", o.threads, "OpenMP threads (default: OMP_NUM_THREADS or every core)");
    cmd->add_option_function<std::string>(
           "--seed", [&o](const std::string& s) { o.seed = parse_seed("--seed", s); },
           "random seed of the preset, an integer >= 0 (default " + std::to_string(o.seed) + ")")
        ->type_name("S");
    cmd->footer(std::string("Columns: backend, precision, n, ms_per_step, interactions_per_second, gflops") +
                " (and vs_baseline for cuda: tuned kernel speed / baseline kernel speed).\n" + kFootnote +
                ".");
    return cmd;
}

std::vector<BenchRow> run_benchmarks(const BenchOptions& o) {
    if (o.format != "table" && o.format != "csv" && o.format != "json") {
        throw Error("unknown format '" + o.format + "' (valid: table, csv, json)");
    }
    if (o.steps < 1) throw Error("--steps must be >= 1 (got " + std::to_string(o.steps) + ")");
    if (o.warmup < 0) throw Error("--warmup must be >= 0 (got " + std::to_string(o.warmup) + ")");
    if (o.repeats < 1) throw Error("--repeats must be >= 1 (got " + std::to_string(o.repeats) + ")");
    if (o.threads < 0) throw Error("--threads must be >= 0 (got " + std::to_string(o.threads) + ")");
    for (std::int64_t n : o.ns) {
        if (n <= 0) throw Error("--n must be a positive integer (got " + std::to_string(n) + ")");
    }
    std::vector<Precision> precisions;
    for (const auto& name : o.precisions) {
        const auto p = parse_precision(name);
        if (!p) throw Error("unknown precision '" + name + "' (valid: float, double)");
        precisions.push_back(*p);
    }
    const std::vector<std::string> backends = o.backends.empty() ? available_backend_names() : o.backends;
    for (const auto& b : backends) {
        if (!find_backend(b)) {
            throw Error("unknown backend '" + b + "' (valid: " + join(backend_names()) + ")");
        }
    }
    if (o.threads > 0) omp_set_num_threads(o.threads);

    std::vector<BenchRow> rows;
    for (const auto& b : backends) {
        for (Precision p : precisions) {
            for (std::int64_t n : o.ns) rows.push_back(measure(b, p, n, o));
        }
    }
    return rows;
}

std::string format_bench(const std::vector<BenchRow>& rows, const std::string& format) {
    const bool any_baseline =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.vs_baseline >= 0; });
    std::ostringstream out;
    if (format == "json") {
        out << "[";
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const BenchRow& r = rows[i];
            out << (i ? ",\n " : "\n ") << "{\"backend\": \"" << r.backend << "\", \"precision\": \""
                << r.precision << "\", \"n\": " << r.n << ", \"ms_per_step\": " << fmt("%.6g", r.ms_per_step)
                << ", \"interactions_per_second\": " << fmt("%.6g", r.interactions_per_second)
                << ", \"gflops\": " << fmt("%.6g", r.gflops);
            if (r.vs_baseline >= 0) out << ", \"vs_baseline\": " << fmt("%.4g", r.vs_baseline);
            out << "}";
        }
        out << (rows.empty() ? "]\n" : "\n]\n");
    } else if (format == "csv") {
        out << "backend,precision,n,ms_per_step,interactions_per_second,gflops"
            << (any_baseline ? ",vs_baseline" : "") << '\n';
        for (const BenchRow& r : rows) {
            out << r.backend << ',' << r.precision << ',' << r.n << ',' << fmt("%.6g", r.ms_per_step) << ','
                << fmt("%.6g", r.interactions_per_second) << ',' << fmt("%.6g", r.gflops);
            if (any_baseline) out << ',' << (r.vs_baseline >= 0 ? fmt("%.4g", r.vs_baseline) : "");
            out << '\n';
        }
    } else {
        char line[160];
        std::snprintf(line, sizeof line, "%-8s %-9s %8s %11s %16s %9s%s\n", "backend", "precision", "n",
                      "ms/step", "interactions/s", "GFLOP/s", any_baseline ? "  vs_baseline" : "");
        out << line;
        for (const BenchRow& r : rows) {
            std::snprintf(line, sizeof line, "%-8s %-9s %8lld %11.4g %16.4g %9.4g", r.backend.c_str(),
                          r.precision.c_str(), static_cast<long long>(r.n), r.ms_per_step,
                          r.interactions_per_second, r.gflops);
            out << line;
            if (r.vs_baseline >= 0) out << fmt("  %10.2fx", r.vs_baseline);
            out << '\n';
        }
        out << kFootnote << (any_baseline ? "; vs_baseline = tuned / baseline kernel speed" : "") << ".\n";
    }
    return out.str();
}

int run_bench_command(const BenchOptions& o) {
    const std::vector<BenchRow> rows = run_benchmarks(o);
    std::cout << format_bench(rows, o.format) << std::flush;
    return 0;
}

}  // namespace nbody
