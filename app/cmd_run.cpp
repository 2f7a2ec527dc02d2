#include "cmd_run.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "sim/error.hpp"
#include "sim/csv_io.hpp"
#include "sim/interaction.hpp"
#include "sim/presets.hpp"
#include "sim/registry.hpp"
#include "sim/snapshot.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

// A step count typed on the command line: an integer >= min_value, or one clear error.
std::int64_t parse_step_count(const std::string& flag, const std::string& text, std::int64_t min_value) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || v < min_value) {
        throw Error(flag + " must be an integer >= " + std::to_string(min_value) + " (got '" + text + "')");
    }
    return v;
}

std::string format_g(double v, int digits = 6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

// How many steps a run takes and, for --t-end, the length of the last one.
struct StepPlan {
    std::int64_t steps = 0;
    bool shorten_last = false;  // the last step is T - t instead of dt, so the run ends exactly at T
};

StepPlan plan_steps(const RunOptions& o, double t0, double dt, Precision precision) {
    if (!o.t_end) return {o.steps.value_or(kDefaultRunSteps), false};
    const double t_end = *o.t_end;
    if (!is_finite_bits(t_end)) throw Error("--t-end must be a finite number (got " + format_g(t_end) + ")");
    if (!(t_end > t0)) {
        throw Error("--t-end " + format_g(t_end) + " must be later than the start time t = " + format_g(t0));
    }
    // A run shorter than one dt is a single step of T - t0, which a float backend must be able to hold.
    validate_time_interval("the --t-end interval T - t", t_end - t0, precision);
    // The tolerance keeps T = 1, dt = 0.1 at 10 steps although 1/0.1 rounds a hair above 10.
    const double exact = (t_end - t0) / dt;
    const double steps = std::max(1.0, std::ceil(exact - 1e-9 * std::max(1.0, exact)));
    if (steps > 9.0e18) throw Error("--t-end / --dt is too many steps (" + format_g(steps) + ")");
    return {static_cast<std::int64_t>(steps), true};
}

// Two outputs naming one file would each write it, and the second rename would fail after the first
// had already replaced it. Compared after resolving ".", ".." and symbolic links.
void check_distinct_outputs(const RunOptions& o) {
    namespace fs = std::filesystem;
    const std::pair<const char*, const std::string*> outputs[] = {
        {"--output", &o.output}, {"--energy-log", &o.energy_log}, {"--trajectory", &o.trajectory}};
    auto resolved = [](const std::string& path) {
        // Absolute first: weakly_canonical leaves a relative name whose first part does not exist as it is.
        std::error_code ec;
        const fs::path absolute = fs::absolute(fs::path(path), ec).lexically_normal();
        const fs::path p = fs::weakly_canonical(absolute, ec);
        return ec ? absolute : p;
    };
    for (std::size_t a = 0; a < std::size(outputs); ++a) {
        for (std::size_t b = a + 1; b < std::size(outputs); ++b) {
            if (outputs[a].second->empty() || outputs[b].second->empty()) continue;
            if (resolved(*outputs[a].second) == resolved(*outputs[b].second)) {
                throw Error(std::string(outputs[a].first) + " and " + outputs[b].first +
                            " name the same file '" + *outputs[b].second + "' (give each its own file)");
            }
        }
    }
}

// A FILE option whose empty value is an error rather than "no file".
void add_path_option(CLI::App& cmd, const std::string& flag, std::string& target, const std::string& help) {
    cmd.add_option_function<std::string>(
           flag, [flag, &target](const std::string& s) { target = parse_path(flag, s); }, help)
        ->type_name("FILE");
}

}  // namespace

CLI::App* add_run_command(CLI::App& root, RunOptions& o) {
    CLI::App* cmd = root.add_subcommand("run", "simulate without a window, write files, print a summary");
    add_scenario_flags(*cmd, o.scenario);
    cmd->add_option_function<std::string>(
           "--steps", [&o](const std::string& s) { o.steps = parse_step_count("--steps", s, 0); },
           "number of steps (default " + std::to_string(kDefaultRunSteps) +
               "; 0 writes the initial state to --output)")
        ->type_name("K");
    cmd->add_option_function<double>(
           "--t-end,--finalTime", [&o](double v) { o.t_end = v; },
           "run until exactly this simulated time (the last step is shortened); excludes --steps")
        ->type_name("T");
    add_path_option(
        *cmd, "--output", o.output,
        "write the final bodies; the extension picks the format: .csv (x,y,z,vx,vy,vz,m), .h5/.hdf5 "
        "(a snapshot --restart continues), .tipsy/.std or .bin (Tipsy)");
    add_path_option(*cmd, "--energy-log", o.energy_log,
                    "write energies, drift and momentum to this CSV every --log-every steps");
    cmd->add_option_function<std::string>(
           "--log-every", [&o](const std::string& s) { o.log_every = parse_step_count("--log-every", s, 0); },
           "compute diagnostics (an O(N^2) potential) every K steps; 0: at the start and end only "
           "(default " + std::to_string(kDefaultLogEvery) + " with --energy-log, else 0)")
        ->type_name("K");
    add_path_option(*cmd, "--trajectory", o.trajectory, "write positions (step,t,body,x,y,z) to this CSV");
    cmd->add_option_function<std::string>(
           "--trajectory-every",
           [&o](const std::string& s) { o.trajectory_every = parse_step_count("--trajectory-every", s, 1); },
           "record the trajectory every K steps (default 1)")
        ->type_name("K");
    add_snapshot_flags(*cmd, o.snapshots, o.scenario);
    cmd->add_option("--threads", o.threads, "OpenMP threads (default: OMP_NUM_THREADS or every core)");
    cmd->add_flag("--energyDiff", o.energy_diff, "print only the final relative energy change |dE/E|");
    cmd->footer(
        "Defaults: preset plummer, N = " + std::to_string(kDefaultRunN) + ", " +
        std::to_string(kDefaultRunSteps) +
        " steps, the preset's dt and softening, leapfrog, float, cuda if available else openmp.\n"
        "Interactions/s count N^2 per step for every backend.");
    return cmd;
}

int run_run_command(const RunOptions& o) {
    const auto wall_start = std::chrono::steady_clock::now();
    if (o.steps && o.t_end) throw Error("--steps and --t-end cannot be used together (choose one)");
    if (o.threads < 0) throw Error("--threads must be >= 0 (got " + std::to_string(o.threads) + ")");
    check_distinct_outputs(o);

    if (!o.output.empty()) check_output_format("--output", o.output);
    Scenario sc = resolve_scenario(o.scenario, kDefaultRunN);
    const SnapshotSeries series(o.snapshots, sc);
    const StepPlan plan = plan_steps(o, sc.state.t, sc.params.dt, sc.precision);
    const std::int64_t log_every = o.log_every.value_or(o.energy_log.empty() ? 0 : kDefaultLogEvery);
    if (o.threads > 0) omp_set_num_threads(o.threads);

    // Every file is opened before the run so a bad path fails now, and written under a temporary name
    // so nothing appears under the real name unless the whole run succeeds. Ctrl-C removes the temporaries.
    remove_temp_files_on_signal();
    std::unique_ptr<AtomicFile> output;
    if (!o.output.empty()) output = std::make_unique<AtomicFile>(o.output);
    std::unique_ptr<EnergyLog> energy_log;
    if (!o.energy_log.empty()) energy_log = std::make_unique<EnergyLog>(o.energy_log);
    std::unique_ptr<TrajectoryLog> trajectory;
    if (!o.trajectory.empty()) trajectory = std::make_unique<TrajectoryLog>(o.trajectory);

    std::unique_ptr<Backend> backend = create_backend(sc.backend, sc.precision);
    backend->set_state(sc.state);
    const double n = static_cast<double>(backend->size());

    const Diagnostics d0 = backend->diagnostics(sc.params, true);
    const double e0 = d0.total();
    if (energy_log) energy_log->write(0, sc.state.t, d0, 0.0);
    if (trajectory) trajectory->write(0, backend->get_state());
    // A restart begins at a step its snapshot already holds.
    if (series.due(sc.step) && o.scenario.restart.empty()) series.write(sc, backend->get_state(), sc.step);

    // Step in chunks that end at the next log or trajectory point; between them only the backend works.
    // At each chunk end t is read from the backend's own clock (an O(N) copy next to O(N^2) steps), so
    // the shortened last step, T - t, lands exactly on T whatever way the backend sums its time.
    double t = sc.state.t;
    double step_seconds = 0;
    std::int64_t done = 0;
    Diagnostics last = d0;
    std::int64_t last_diag_step = 0;
    while (done < plan.steps) {
        std::int64_t next = plan.steps;
        if (log_every > 0) next = std::min(next, (done / log_every + 1) * log_every);
        if (trajectory) next = std::min(next, (done / o.trajectory_every + 1) * o.trajectory_every);
        next = std::min(next, series.next_after(sc.step + done) - sc.step);
        Params p = sc.params;
        if (plan.shorten_last) {
            if (done == plan.steps - 1) {
                p.dt = *o.t_end - t;
            } else {
                next = std::min(next, plan.steps - 1);
            }
        }
        const std::int64_t count = next - done;

        const auto start = std::chrono::steady_clock::now();
        const StepReport r = backend->step(p, count);
        step_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!r.finite) {
            const std::int64_t bad = done + r.bad_step;
            throw Error("numerical blow-up at step " + std::to_string(bad) + " (t = " +
                        format_g(t + static_cast<double>(r.bad_step) * p.dt) + "): body " +
                        std::to_string(r.bad_body) + " has a non-finite position or velocity");
        }
        done = next;
        const HostState now = backend->get_state();
        t = now.t;

        const bool at_log = log_every > 0 && done % log_every == 0;
        if (at_log || done == plan.steps) {
            last = backend->diagnostics(sc.params, true);
            last_diag_step = done;
            if (energy_log) energy_log->write(done, t, last, relative_energy_drift(e0, last.total()));
        }
        if (trajectory && (done % o.trajectory_every == 0 || done == plan.steps)) trajectory->write(done, now);
        if (series.due(sc.step + done)) series.write(sc, now, sc.step + done);
    }
    // The end state always has its diagnostics (also for --steps 0), and the energy log its last row.
    if (last_diag_step != done) last = backend->diagnostics(sc.params, true);
    const double drift = relative_energy_drift(e0, last.total());

    // All files are complete and closed before the first is renamed: a write error leaves none behind.
    std::vector<AtomicFile*> files;
    if (output) {
        for (const std::string& note :
             write_snapshot(*output, make_snapshot(sc, backend->get_state(), sc.step + done)))
            std::cerr << "nbody: note: " << note << '\n';
        files.push_back(output.get());
    }
    if (energy_log) files.push_back(&energy_log->file());
    if (trajectory) files.push_back(&trajectory->file());
    commit_all(files);

    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (o.energy_diff) {
        std::cout << format_g(drift, 9) << '\n';
        return 0;
    }
    const std::string source =
        !o.scenario.restart.empty() ? o.scenario.restart + " (from step " + std::to_string(sc.step) + ")"
        : o.scenario.input.empty()  ? (o.scenario.preset.empty() ? presets().front().name : o.scenario.preset)
                                    : o.scenario.input;
    const double per_second = step_seconds > 0 ? n * n * static_cast<double>(done) / step_seconds : 0.0;
    std::cout << "nbody run: " << source << ", N = " << backend->size() << ", " << backend->name() << ", "
              << to_string(sc.precision) << ", " << to_string(sc.params.integrator)
              << ", dt = " << format_g(sc.params.dt) << ", softening = " << format_g(sc.params.softening)
              << '\n'
              << "  steps           " << done << " (t = " << format_g(sc.state.t, 9) << " -> "
              << format_g(t, 9) << ")\n"
              << "  wall time       " << format_g(wall, 4) << " s (stepping " << format_g(step_seconds, 4)
              << " s)\n"
              << "  interactions/s  " << format_g(per_second, 4) << " (N^2 per step; "
              << format_g(per_second * kFlopsPerInteraction * 1e-9, 4) << " GFLOP/s at 20 flops each)\n"
              << "  |dE/E|          " << format_g(drift, 4) << '\n';
    return 0;
}

}  // namespace nbody
