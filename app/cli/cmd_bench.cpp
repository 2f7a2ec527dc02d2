#include "cmd_bench.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "backends/registry.hpp"
#include "mpi/cluster.hpp"
#include "plot.hpp"
#include "process_backend.hpp"
#include "progress.hpp"
#include "scenario_flags.hpp"
#include "sim/error.hpp"
#include "sim/gravity/backend_force_error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/platform/memory.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

constexpr const char* kBenchPreset = "plummer";
// An adaptive integrator's rows (hermite), in every format's header or legend and in --help.
constexpr const char* kAdaptiveCounting =
    "hermite rows: a step is a max step (dt), interactions/s count each body's force+jerk evaluation against "
    "all N (the sum over blocks of active x N) and GFLOP/s 42 flops each; ms/t_unit (ms_per_time_unit) is "
    "wall ms per unit of simulated time, the figure to compare integrators by";
// With the neighbour scheme (--neighbours K), in the legends and in --help.
constexpr const char* kNeighbourCounting =
    "with --neighbours K, each evaluation of a body against its neighbour list counts K interactions "
    "(N - 1 at most)";
constexpr const char* kFootnote =
    "interactions/s count N^2 per force evaluation for every backend (at the median time); GFLOP/s counts 20 "
    "flops per "
    "interaction";

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// s right-aligned in a column `width` wide.
std::string fmt_width(int width, const std::string& s) {
    return s.size() >= std::size_t(width) ? s : std::string(std::size_t(width) - s.size(), ' ') + s;
}

// One point of the sweep, before it is measured.
struct BenchCase {
    std::string backend;
    Precision precision;
    ForceAlgorithm force;
    Integrator integrator;
    int threads;  // 0: leave OpenMP's default
    std::int64_t n;
};

// Only a backend whose steps run on OpenMP's threads gets a row per thread count; the others get one.
bool sweeps_threads(const std::string& backend) {
    const BackendInfo* b = find_backend(backend);
    return b && b->uses_threads;
}

// The bound --compare holds a backend to: fp32 direct sums agree with the fp64 reference to about
// 1e-6 of the system's size after a few steps; 1e-4 leaves room for chaotic growth while a wrong kernel
// (a missing factor, a wrong sign, a skipped tile) is off by far more. A tree's error depends on theta.
double compare_bound(Precision p, ForceAlgorithm f) {
    if (force_algorithm_info(f).approximate) return 1e-2;
    return p == Precision::f32 ? 1e-4 : 1e-10;
}

// Under mpirun every process has the same report (failures are reduced), so all stop together.
void check_step(const StepReport& r, const BenchCase& c, const Params& p, Precision precision) {
    if (r.stalled) {
        throw ClusterError("bench: " + c.backend + " N = " + std::to_string(c.n) +
                           ": block steps stalled at step " + std::to_string(r.bad_step) + ": " +
                           stall_reason(r.bad_body, p, precision));
    }
    if (!r.finite) {
        throw ClusterError("bench: " + c.backend + " N = " + std::to_string(c.n) +
                           " produced a non-finite value at step " + std::to_string(r.bad_step));
    }
}

Params bench_params(const BenchCase& c, const BenchOptions& o) {
    Params p = find_preset(kBenchPreset)->params;
    p.integrator = c.integrator;
    p.force = c.force;
    for (const auto& [name, value] : o.settings) {
        if (value) p.*find_setting(name)->field = *value;
    }
    return p;
}

// Runs the same steps on the serial float64 backend (the CPU reference) and on the case's backend, and
// compares the positions: max and RMS distance, over the reference's RMS radius. Under mpirun the tested
// backend is distributed and rank 0 alone runs the reference and compares.
void compare_with_reference(const BenchCase& c, const HostState& start, const BenchOptions& o,
                            BenchRow& row) {
    Cluster& cl = cluster();
    const Params p = bench_params(c, o);
    const std::int64_t steps = o.steps;
    std::unique_ptr<Backend> tested;
    agree(cl, [&] {
        tested = create_process_backend(cl, c.backend, c.precision);
        tested->set_state(start);
    });
    check_step(tested->step(p, steps), c, p, c.precision);
    const HostState b = tested->get_state();
    if (!cl.root()) return;
    auto reference = create_backend("serial", Precision::f64);
    reference->set_state(start);
    check_step(reference->step(p, steps), c, p, Precision::f64);
    const HostState a = reference->get_state();
    double max2 = 0, sum2 = 0, radius2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double dx = b.pos_mass[i].x - a.pos_mass[i].x, dy = b.pos_mass[i].y - a.pos_mass[i].y,
                     dz = b.pos_mass[i].z - a.pos_mass[i].z;
        const double d2 = dx * dx + dy * dy + dz * dz;
        max2 = std::max(max2, d2);
        sum2 += d2;
        radius2 += a.pos_mass[i].x * a.pos_mass[i].x + a.pos_mass[i].y * a.pos_mass[i].y +
                   a.pos_mass[i].z * a.pos_mass[i].z;
    }
    const double n = static_cast<double>(a.size());
    const double scale = std::sqrt(radius2 / n) > 0 ? std::sqrt(radius2 / n) : 1.0;
    row.max_diff = std::sqrt(max2) / scale;
    row.rms_diff = std::sqrt(sum2 / n) / scale;
    row.diff_bound = compare_bound(c.precision, c.force);
}

// Under mpirun every process makes the preset (the same bodies, from the seed) and steps its slice;
// rank 0's clock times the steps, which all processes take together.
BenchRow measure(const BenchCase& c, const BenchOptions& o, const std::string& label) {
    Cluster& cl = cluster();
    const int default_threads = omp_get_max_threads();
    if (c.threads > 0) omp_set_num_threads(c.threads);
    HostState start;
    std::unique_ptr<Backend> backend;
    const Params p = bench_params(c, o);
    agree(cl, [&] {
        check_host_memory(static_cast<std::size_t>(c.n), c.precision);
        start = make_preset(kBenchPreset, static_cast<std::size_t>(c.n), o.seed);
        backend =
            create_process_backend(cl, c.backend, c.precision);  // run_benchmarks checked its block steps
        backend->set_state(start);
    });

    const double n = static_cast<double>(c.n);
    const bool adaptive = integrator_info(c.integrator).adaptive;
    Progress progress(label, o.warmup + o.repeats * o.steps, adaptive ? 0.0 : n * n,
                      progress_settings_from_environment(o.quiet || !cl.root()), std::cerr);
    if (adaptive) progress.set_units("max step", "max steps");
    if (o.warmup > 0) check_step(backend->step(p, o.warmup), c, p, c.precision);
    progress.update(o.warmup);
    std::vector<double> seconds;
    double updates = 0;  // an adaptive integrator's force+jerk evaluations of one body, over the repeats
    double neighbour_updates = 0;  // of those the neighbour scheme's, of one body against its list
    for (std::int64_t r = 0; r < o.repeats; ++r) {
        const double start_s = now_s();
        const StepReport rep = backend->step(p, o.steps);
        updates += double(rep.body_updates);
        neighbour_updates += double(rep.neighbour_updates);
        // step() returns after device work completes (its finiteness check reads the result back), so
        // the wall clock covers the whole computation.
        seconds.push_back(now_s() - start_s);
        check_step(rep, c, p, c.precision);
        progress.update(o.warmup + (r + 1) * o.steps);
    }
    progress.finish();

    BenchRow row;
    row.backend = c.backend;
    row.precision = to_string(c.precision);
    row.force = to_string(c.force);
    row.integrator = to_string(c.integrator);
    for (const SettingInfo* s : settings_named(integrator_info(c.integrator).settings, p))
        row.settings.emplace_back(s->name, p.*s->field);
    row.threads = sweeps_threads(c.backend) ? omp_get_max_threads() : 1;
    row.processes = cl.size();
    row.n = c.n;
    const double steps = static_cast<double>(o.steps);
    const double s_per_step = median(seconds) / steps;
    row.ms_per_step = s_per_step * 1e3;
    row.ms_per_time_unit = row.ms_per_step / p.dt;
    row.adaptive = adaptive;
    row.ms_min = *std::min_element(seconds.begin(), seconds.end()) / steps * 1e3;
    row.ms_max = *std::max_element(seconds.begin(), seconds.end()) / steps * 1e3;
    row.interactions_per_second = interactions_per_step(p, static_cast<std::size_t>(c.n)) / s_per_step;
    row.gflops = row.interactions_per_second * kFlopsPerInteraction * 1e-9;
    row.interactions_per_body = n;
    if (force_algorithm_info(c.force).approximate) row.theta = p.theta;
    if (adaptive) {
        // Each body evaluated against all N (with the neighbour scheme: each full evaluation, and K per
        // evaluation against a list); the repeats' total over their total time (the blocks vary).
        double total_s = 0;
        for (double sec : seconds) total_s += sec;
        row.neighbours = p.neighbours;
        const double interactions = updates * n + neighbour_updates * counted_list_length(p.neighbours, n);
        row.interactions_per_second = total_s > 0 ? interactions / total_s : 0;
        row.gflops = row.interactions_per_second * kFlopsPerJerkInteraction * 1e-9;
    } else if (const auto counted = backend->last_force_interactions()) {
        // A tree: its own count (the last evaluation's), never N^2; no GFLOP/s (cells and pairs differ).
        const double evaluations = double(integrator_info(c.integrator).force_evaluations);
        row.interactions_per_body = double(*counted) / n;
        row.interactions_per_second = double(*counted) * evaluations / s_per_step;
        row.gflops = 0;
    }
    if (o.error) {
        const ForceErrorStats e = backend_force_error(*backend, p, o.error_sample);
        row.err_median = e.median, row.err_p99 = e.p99, row.err_max = e.max;
    }
    const BackendInfo* info = find_backend(c.backend);
    // One process's kernels on its own device: not a distributed measurement.
    // The baseline is a textbook direct sum: only an exact algorithm's kernel compares with it.
    if (info && info->compare_kernels && !force_algorithm_info(c.force).approximate && !cl.distributed()) {
        const KernelComparison k =
            info->compare_kernels(static_cast<std::size_t>(c.n), c.precision, static_cast<int>(o.repeats));
        if (k.production_ms > 0 && k.reference_ms > 0) row.vs_baseline = k.reference_ms / k.production_ms;
    }
    if (o.compare) compare_with_reference(c, start, o, row);
    omp_set_num_threads(default_threads);
    return row;
}

// Comma-separated registry names (or the fallback when none were given) as values.
template <typename T, typename Parse>
std::vector<T> parse_names(const std::vector<std::string>& names, const std::vector<std::string>& fallback,
                           const char* what, const std::vector<std::string>& valid, Parse parse) {
    std::vector<T> out;
    for (const auto& name : names.empty() ? fallback : names)
        out.push_back(parse_choice(name, what, valid, parse));
    return out;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out + "\"";
}

}  // namespace

MachineInfo machine_info() {
    MachineInfo m;
    m.cpu = "unknown";
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
            std::string v = line.substr(line.find(':') + 1);
            const std::size_t a = v.find_first_not_of(' ');
            m.cpu = a == std::string::npos ? "unknown" : v.substr(a);
            break;
        }
    }
    m.cores = static_cast<int>(std::thread::hardware_concurrency());
    m.gpu = "none";
    for (const auto& b : builtin_backends()) {
        if (!b.available() || !b.device_name) continue;
        if (const std::string d = b.device_name(); !d.empty()) m.gpu = d;
    }
    return m;
}

CLI::App* add_bench_command(CLI::App& root, BenchOptions& o) {
    CLI::App* cmd = root.add_subcommand("bench", "time the force backends on the plummer preset");
    add_name_list_option(
        *cmd, "--backend", o.backends,
        "backends to time, comma-separated: " + join(backend_names()) + " (default: every available one)");
    cmd->add_option_function<std::vector<std::string>>(
           "--n",
           [&o](const std::vector<std::string>& v) {
               o.ns.clear();
               for (const auto& text : v) {
                   for (const auto& s : split_list("--n", text)) o.ns.push_back(parse_body_count("--n", s));
               }
           },
           "body counts, comma-separated (default 1024,4096,16384)")
        ->type_name("N,...");
    add_name_list_option(*cmd, "--precision", o.precisions,
                         "float and/or double, comma-separated (default float)");
    add_name_list_option(
        *cmd, "--force", o.forces,
        "force algorithms, comma-separated: " + join(force_algorithm_names()) + " (default direct)");
    add_name_list_option(*cmd, "--integrator", o.integrators,
                         "integrators, comma-separated: " + join(integrator_names()) + " (default leapfrog)");
    cmd->add_option_function<std::vector<std::string>>(
           "--threads",
           [&o](const std::vector<std::string>& v) {
               o.threads.clear();
               for (const auto& text : v) {
                   for (const auto& s : split_list("--threads", text))
                       o.threads.push_back(int(parse_integer("--threads", s, 1, max_threads())));
               }
           },
           "OpenMP thread counts to sweep, comma-separated, e.g. 1,2,4 (each at most " +
               std::to_string(max_threads()) +
               "; default: OMP_NUM_THREADS or every core); the openmp backend gets a row for each")
        ->type_name("T,...");
    const std::int64_t most = std::numeric_limits<std::int64_t>::max();
    add_integer_option(*cmd, "--steps", o.steps, 1, most, "steps per timed repeat");
    add_integer_option(*cmd, "--warmup", o.warmup, 0, most, "untimed steps first");
    add_integer_option(*cmd, "--repeats", o.repeats, 1, std::numeric_limits<int>::max(),
                       "timed repeats; min, median and max are reported");
    add_name_option(*cmd, "--format", o.format, "table, csv or json");
    cmd->add_option_function<std::string>(
           "--seed", [&o](const std::string& s) { o.seed = parse_seed("--seed", s); },
           "random seed of the preset, an integer >= 0 (default " + std::to_string(o.seed) + ")")
        ->type_name("S");
    for (const SettingInfo* s : all_settings()) add_setting_option(*cmd, *s, o.settings[s->name]);
    cmd->add_flag("--error", o.error,
                  "also measure the relative force error of each row's accelerations against the float64 "
                  "direct sum on a sample of bodies: err_median, err_p99, err_max columns");
    cmd->add_option_function<std::string>(
           "--error-sample",
           [&o](const std::string& s) {
               // Said with what it is: the number of bodies whose force error --error measures.
               const std::int64_t v = parse_integer(
                   "--error-sample (bodies whose force error --error measures)", s, 1, std::int64_t(1) << 24);
               o.error_sample = static_cast<std::size_t>(v);
           },
           "bodies in the --error sample, 1..16777216 (default " + std::to_string(o.error_sample) + ")")
        ->type_name("M");
    cmd->add_flag("--compare", o.compare,
                  "also run the same steps on the CPU reference (serial, double) and report the max and RMS "
                  "position difference; exit status 1 if a row exceeds its bound");
    cmd->add_option_function<std::string>(
           "--plot", [&o](const std::string& s) { o.plot = parse_path("--plot", s); },
           "also plot interactions/s against N to this PNG (needs gnuplot)")
        ->type_name("FILE.png");
    cmd->add_flag("--quiet", o.quiet, "no progress line on stderr");
    cmd->footer(
        std::string(
            "Columns: backend, precision, [force when several are asked or one is the tree, and theta beside "
            "a tree row,] [integrator when several are "
            "asked or one is adaptive, then its settings (hermite: eta, and neighbours and eta_regular "
            "where set),] threads, n, "
            "ms_per_step (median), ms_min, ms_max, interactions_per_second, gflops (and "
            "vs_baseline for cuda: production force kernel speed / GPU Gems 3 baseline kernel speed; "
            "max_diff, rms_diff, "
            "diff_bound with --compare; ms_per_time_unit with an adaptive integrator).\n") +
        kFootnote + "; " + kAdaptiveCounting + "; " + kNeighbourCounting + ".");
    return cmd;
}

namespace {

// The checked options, as the list of cases to measure.
std::vector<BenchCase> plan_cases(const BenchOptions& o) {
    if (o.format != "table" && o.format != "csv" && o.format != "json") {
        throw Error("unknown format '" + o.format + "' (valid: table, csv, json)");
    }
    if (o.steps < 1) throw Error("--steps must be >= 1 (got " + std::to_string(o.steps) + ")");
    if (o.warmup < 0) throw Error("--warmup must be >= 0 (got " + std::to_string(o.warmup) + ")");
    if (o.repeats < 1) throw Error("--repeats must be >= 1 (got " + std::to_string(o.repeats) + ")");
    for (int t : o.threads) check_thread_count(t);
    if (o.threads.empty()) check_thread_count(0);  // OMP_NUM_THREADS within bounds
    for (std::int64_t n : o.ns) {
        if (n <= 0) throw Error("--n must be a positive integer (got " + std::to_string(n) + ")");
    }
    if (!find_preset(kBenchPreset)) throw Error(std::string("bench needs the '") + kBenchPreset + "' preset");
    const auto precisions = parse_names<Precision>(o.precisions, {"float"}, "precision", {"float", "double"},
                                                   [](const std::string& s) { return parse_precision(s); });
    const auto forces =
        parse_names<ForceAlgorithm>(o.forces, {"direct"}, "force algorithm", force_algorithm_names(),
                                    [](const std::string& s) { return parse_force_algorithm(s); });
    const auto integrators =
        parse_names<Integrator>(o.integrators, {"leapfrog"}, "integrator", integrator_names(),
                                [](const std::string& s) { return parse_integrator(s); });
    const std::vector<std::string> backends = o.backends.empty() ? available_backend_names() : o.backends;
    for (const auto& b : backends) {
        if (!find_backend(b))
            throw Error("unknown backend '" + b + "' (valid: " + join(backend_names()) + ")");
    }
    if (!o.plot.empty()) check_plot_output(o.plot, "--plot");

    std::vector<BenchCase> cases;
    for (const auto& b : backends) {
        const std::vector<int> threads =
            sweeps_threads(b) && !o.threads.empty() ? o.threads : std::vector<int>{0};
        for (Precision p : precisions) {
            for (ForceAlgorithm f : forces) {
                for (Integrator i : integrators) {
                    for (int t : threads) {
                        for (std::int64_t n : o.ns) cases.push_back({b, p, f, i, t, n});
                    }
                }
            }
        }
    }
    return cases;
}

// A setting none of the cases takes (--theta without tree in --force) changes nothing: say so once, as
// `nbody run` does, rather than ignore it silently.
void note_unused_settings(const std::vector<BenchCase>& cases, const BenchOptions& o) {
    if (!cluster().root()) return;
    for (const auto& [name, value] : o.settings) {
        if (!value) continue;
        bool used = false;
        const SettingInfo* needed = nullptr;  // a setting it acts only with, 0 in these cases
        for (const BenchCase& c : cases) {
            const Params p = bench_params(c, o);
            for (const SettingInfo* s : settings_used(p)) used = used || name == s->name;
            if (const SettingInfo* s = find_setting(name)) needed = needed ? needed : missing_need(p, *s);
        }
        if (used) continue;
        // As `nbody run` says it (scenario.cpp): the setting that is off, or the algorithms that lack it.
        if (needed)
            std::cerr << "nbody: note: --" << name << " has no effect with --" << needed->name << " 0\n";
        else
            std::cerr << "nbody: note: --" << name
                      << " has no effect on these cases (its algorithm is not in --force or --integrator)\n";
    }
}

}  // namespace

std::vector<BenchRow> run_benchmarks(const BenchOptions& o) {
    std::vector<BenchCase> cases;
    // Under mpirun every process checks the same options; rank 0 reports a bad one.
    // Each case's parameters are checked as a run's are (--neighbours 2.5, --eta-regular 1e-9 refused), and
    // what does not run under mpirun yet is refused before the first case, in run's words: the block steps'
    // own refusal would come from every process, mid-sweep.
    agree(cluster(), [&] {
        cases = plan_cases(o);
        std::vector<std::pair<std::string, Precision>> checked;
        for (const BenchCase& c : cases) {
            const Params p = bench_params(c, o);
            validate_params(p, c.precision);
            check_distributable(cluster(), p);
            // An adaptive integrator needs the backend's own block steps under mpirun: asked of an empty
            // backend of each kind once, so a sweep does not stop at its first such case.
            const std::pair<std::string, Precision> kind{c.backend, c.precision};
            if (!cluster().distributed() || !integrator_info(c.integrator).adaptive ||
                std::find(checked.begin(), checked.end(), kind) != checked.end())
                continue;
            checked.push_back(kind);
            check_block_steps(p, *create_process_backend(cluster(), c.backend, c.precision), c.backend);
        }
    });
    note_unused_settings(cases, o);
    std::vector<BenchRow> rows;
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const BenchCase& c = cases[k];
        const std::string label = "bench " + std::to_string(k + 1) + "/" + std::to_string(cases.size()) +
                                  " " + c.backend + " " + to_string(c.precision) +
                                  " N=" + std::to_string(c.n) +
                                  (c.threads > 0 ? " threads=" + std::to_string(c.threads) : "");
        rows.push_back(measure(c, o, label));
    }
    return rows;
}

std::string format_bench(const std::vector<BenchRow>& rows, const std::string& format, const MachineInfo& m) {
    auto differ = [&](auto field) {
        return std::any_of(rows.begin(), rows.end(),
                           [&](const BenchRow& r) { return field(r) != field(rows[0]); });
    };
    // A tree row always says so, and its theta: its speed and its error depend on it.
    const bool any_theta =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.theta >= 0; });
    const bool show_force = !rows.empty() && (any_theta || differ([](const BenchRow& r) { return r.force; }));
    auto theta_cell = [](const BenchRow& r) { return r.theta >= 0 ? fmt("%.6g", r.theta) : std::string(); };
    // A CSV must say what it measured: an adaptive row's integrator and its settings (eta) even where every
    // row has the same, since its steps and interactions count otherwise.
    const bool show_integrator =
        !rows.empty() && (differ([](const BenchRow& r) { return r.integrator; }) ||
                          std::any_of(rows.begin(), rows.end(),
                                      [](const BenchRow& r) { return r.adaptive || !r.settings.empty(); }));
    std::vector<std::string> setting_names;  // a column each, in registry order as the rows name them
    for (const BenchRow& r : rows) {
        for (const auto& [name, value] : r.settings) {
            if (std::find(setting_names.begin(), setting_names.end(), name) == setting_names.end())
                setting_names.push_back(name);
        }
    }
    // A row's value of a setting column, "" where it has none (a fixed-step row beside a hermite one).
    auto setting_cell = [](const BenchRow& r, const std::string& name) {
        for (const auto& [n, value] : r.settings) {
            if (n == name) return fmt("%.6g", value);
        }
        return std::string();
    };
    const bool show_processes =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.processes > 1; });
    const bool any_baseline =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.vs_baseline >= 0; });
    const bool any_compare =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.max_diff >= 0; });
    // Direct-only runs keep their columns: the per-body count appears with a tree row or --error.
    const bool any_error =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.err_median >= 0; });
    const bool any_adaptive =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.adaptive; });
    const bool any_neighbours =
        std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.neighbours > 0; });
    const std::string adaptive_counting =
        std::string(kAdaptiveCounting) + (any_neighbours ? std::string("; ") + kNeighbourCounting : "");
    const bool show_per_body = any_error || std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) {
                                   return r.force != "direct";
                               });
    std::ostringstream out;
    if (format == "json") {
        out << "[";
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const BenchRow& r = rows[i];
            out << (i ? ",\n " : "\n ") << "{\"backend\": \"" << r.backend << "\", \"precision\": \""
                << r.precision << "\", \"force\": \"" << r.force << "\"";
            if (r.theta >= 0) out << ", \"theta\": " << theta_cell(r);
            out << ", \"integrator\": \"" << r.integrator << "\"";
            for (const auto& [name, value] : r.settings)
                out << ", \"" << setting_key(name) << "\": " << fmt("%.6g", value);
            out << ", \"threads\": " << r.threads << (show_processes ? ", \"processes\": " : "")
                << (show_processes ? std::to_string(r.processes) : "") << ", \"n\": " << r.n
                << ", \"ms_per_step\": " << fmt("%.6g", r.ms_per_step)
                << ", \"ms_min\": " << fmt("%.6g", r.ms_min) << ", \"ms_max\": " << fmt("%.6g", r.ms_max)
                << ", \"interactions_per_second\": " << fmt("%.6g", r.interactions_per_second)
                << ", \"gflops\": " << fmt("%.6g", r.gflops);
            if (any_adaptive) out << ", \"ms_per_time_unit\": " << fmt("%.6g", r.ms_per_time_unit);
            if (r.vs_baseline >= 0) out << ", \"vs_baseline\": " << fmt("%.4g", r.vs_baseline);
            if (show_per_body) out << ", \"interactions_per_body\": " << fmt("%.6g", r.interactions_per_body);
            if (r.err_median >= 0) {
                out << ", \"err_median\": " << fmt("%.3g", r.err_median)
                    << ", \"err_p99\": " << fmt("%.3g", r.err_p99)
                    << ", \"err_max\": " << fmt("%.3g", r.err_max);
            }
            if (r.max_diff >= 0) {
                out << ", \"max_diff\": " << fmt("%.3g", r.max_diff)
                    << ", \"rms_diff\": " << fmt("%.3g", r.rms_diff)
                    << ", \"diff_bound\": " << fmt("%.3g", r.diff_bound);
            }
            out << ", \"cpu\": " << json_string(m.cpu) << ", \"cores\": " << m.cores
                << ", \"gpu\": " << json_string(m.gpu) << "}";
        }
        out << (rows.empty() ? "]\n" : "\n]\n");
    } else if (format == "csv") {
        out << "# cpu = " << m.cpu << "\n# cores = " << m.cores << "\n# gpu = " << m.gpu << '\n';
        // How an adaptive row counts, above the columns it explains (issue 21), as the table's legend says.
        if (any_adaptive) out << "# " << adaptive_counting << '\n';
        out << "backend,precision," << (show_force ? "force," : "") << (any_theta ? "theta," : "")
            << (show_integrator ? "integrator," : "");
        for (const std::string& name : setting_names) out << setting_key(name) << ',';
        out << (show_processes ? "threads,processes," : "threads,")
            << "n,ms_per_step,ms_min,ms_max,interactions_per_second,gflops"
            << (any_adaptive ? ",ms_per_time_unit" : "") << (any_baseline ? ",vs_baseline" : "")
            << (any_compare ? ",max_diff,rms_diff,diff_bound" : "")
            << (show_per_body ? ",interactions_per_body" : "")
            << (any_error ? ",err_median,err_p99,err_max" : "") << '\n';
        for (const BenchRow& r : rows) {
            out << r.backend << ',' << r.precision << ',';
            if (show_force) out << r.force << ',';
            if (any_theta) out << theta_cell(r) << ',';
            if (show_integrator) out << r.integrator << ',';
            for (const std::string& name : setting_names) out << setting_cell(r, name) << ',';
            out << r.threads << ',';
            if (show_processes) out << r.processes << ',';
            out << r.n << ',' << fmt("%.6g", r.ms_per_step) << ',' << fmt("%.6g", r.ms_min) << ','
                << fmt("%.6g", r.ms_max) << ',' << fmt("%.6g", r.interactions_per_second) << ','
                << fmt("%.6g", r.gflops);
            if (any_adaptive) out << ',' << fmt("%.6g", r.ms_per_time_unit);
            if (any_baseline) out << ',' << (r.vs_baseline >= 0 ? fmt("%.4g", r.vs_baseline) : "");
            if (any_compare) {
                out << ',' << fmt("%.3g", r.max_diff) << ',' << fmt("%.3g", r.rms_diff) << ','
                    << fmt("%.3g", r.diff_bound);
            }
            if (show_per_body) out << ',' << fmt("%.6g", r.interactions_per_body);
            if (any_error) {
                out << ',' << (r.err_median >= 0 ? fmt("%.3g", r.err_median) : "") << ','
                    << (r.err_p99 >= 0 ? fmt("%.3g", r.err_p99) : "") << ','
                    << (r.err_max >= 0 ? fmt("%.3g", r.err_max) : "");
            }
            out << '\n';
        }
    } else {
        out << "machine: " << m.cpu << " (" << m.cores << " logical cores), GPU: " << m.gpu << '\n';
        // Above the rows it explains, as CSV's '#' line: a hermite row's step and interactions are not
        // leapfrog's, and a reader meets the numbers before any footer (issue 21 asked the header).
        if (any_adaptive) out << adaptive_counting << ".\n";
        char line[256];
        // A setting's column is as wide as its name, and at least as a value of six digits.
        auto setting_width = [](const std::string& name) { return std::max<int>(int(name.size()), 7); };
        std::string settings_header;
        for (const std::string& name : setting_names)
            settings_header += fmt_width(setting_width(name), name) + " ";
        std::snprintf(line, sizeof line, "%-8s %-9s %s%s%s%s%7s %s%8s %10s %10s %10s %15s %9s", "backend",
                      "precision", show_force ? "force    " : "", any_theta ? "theta  " : "",
                      show_integrator ? "integrator       " : "", settings_header.c_str(), "threads",
                      show_processes ? "processes " : "", "n", "ms/step", "min", "max", "interactions/s",
                      "GFLOP/s");
        out << line << (any_adaptive ? "  ms/t_unit" : "") << (any_baseline ? "  vs_baseline" : "")
            << (any_compare ? "   max_diff   rms_diff  bound" : "") << (show_per_body ? "  inter/body" : "")
            << (any_error ? "  err_median    err_p99    err_max" : "") << '\n';
        for (const BenchRow& r : rows) {
            std::snprintf(line, sizeof line, "%-8s %-9s ", r.backend.c_str(), r.precision.c_str());
            out << line;
            if (show_force) {
                std::snprintf(line, sizeof line, "%-8s ", r.force.c_str());
                out << line;
            }
            if (any_theta) {
                std::snprintf(line, sizeof line, "%-6s ", theta_cell(r).c_str());
                out << line;
            }
            if (show_integrator) {
                std::snprintf(line, sizeof line, "%-16s ", r.integrator.c_str());
                out << line;
            }
            for (const std::string& name : setting_names)
                out << fmt_width(setting_width(name), setting_cell(r, name)) << ' ';
            std::snprintf(line, sizeof line, "%7d ", r.threads);
            out << line;
            if (show_processes) {
                std::snprintf(line, sizeof line, "%9d ", r.processes);
                out << line;
            }
            std::snprintf(line, sizeof line, "%8lld %10.4g %10.4g %10.4g %15.4g %9.4g",
                          static_cast<long long>(r.n), r.ms_per_step, r.ms_min, r.ms_max,
                          r.interactions_per_second, r.gflops);
            out << line;
            if (any_adaptive) out << fmt("  %9.4g", r.ms_per_time_unit);
            if (any_baseline)
                out << (r.vs_baseline >= 0 ? fmt("  %10.2fx", r.vs_baseline) : std::string(13, ' '));
            if (any_compare) {
                out << fmt(" %10.3g", r.max_diff) << fmt(" %10.3g", r.rms_diff)
                    << fmt(" %6.0e", r.diff_bound);
            }
            if (show_per_body) out << fmt("  %10.4g", r.interactions_per_body);
            if (any_error) {
                out << fmt("  %10.2e", r.err_median) << fmt(" %10.2e", r.err_p99)
                    << fmt(" %10.2e", r.err_max);
            }
            out << '\n';
        }
        // N^2 per evaluation holds for the fixed-step rows only; the adaptive ones' count is above.
        const bool any_fixed =
            std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return !r.adaptive; });
        out << "ms/step is the median of the repeats (min and max beside it)"
            << (any_fixed ? std::string(any_adaptive ? "; the other rows: " : "; ") + kFootnote
                          : std::string())
            << (any_baseline ? "; vs_baseline = production / baseline kernel speed" : "")
            << (any_compare ? "; max_diff and rms_diff: positions against serial double, over the RMS radius"
                            : "")
            << (show_per_body
                    ? "; tree rows count the interactions they evaluate (inter/body, interactions/s), "
                      "GFLOP/s 0 there"
                    : "")
            << (any_error ? "; err_*: relative force error against the float64 direct sum on a sample" : "")
            << ".\n";
    }
    return out.str();
}

int run_bench_command(const BenchOptions& o) {
    const std::vector<BenchRow> rows = run_benchmarks(o);
    // Rank 0 alone from here: it prints, plots and judges --compare.
    cluster().leave_lockstep();
    if (!cluster().root()) return 0;
    const MachineInfo machine = machine_info();
    std::cout << format_bench(rows, o.format, machine) << std::flush;
    if (!o.plot.empty()) {
        PlotRequest plot;
        plot.output = o.plot;
        plot_csv_text(format_bench(rows, "csv", machine), "bench results", plot);
    }
    for (const BenchRow& r : rows) {
        if (r.max_diff > r.diff_bound && r.diff_bound >= 0) {
            throw Error("--compare: " + r.backend + " " + r.precision + " N = " + std::to_string(r.n) +
                        " differs from the CPU reference by " + fmt("%.3g", r.max_diff) +
                        " (max, relative) > " + fmt("%.3g", r.diff_bound));
        }
    }
    return 0;
}

}  // namespace nbody
