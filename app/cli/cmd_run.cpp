#include "cmd_run.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "backends/registry.hpp"
#include "max_step_watch.hpp"
#include "mpi/cluster.hpp"
#include "plot.hpp"
#include "process_backend.hpp"
#include "progress.hpp"
#include "scenario/step_plan.hpp"
#include "sim/closest_pair.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/io/run_metadata.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/platform/file_identity.hpp"
#include "sim/potential_estimate.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody {
namespace {

// |dE/E| above which the summary warns that energy is not conserved.
constexpr double kEnergyWarning = 1e-2;
// More max steps than this is a --dt far below any time scale of an adaptive run (plan check).
constexpr std::int64_t kMaxAdaptiveMaxSteps = 1'000'000'000;
// With softening 0, an encounter whose time scale spans fewer steps than this is not resolved.
constexpr double kMinStepsPerEncounter = 10.0;

std::string force_text(const Params& p) {
    return with_settings(to_string(p.force), force_algorithm_info(p.force).settings, p);
}

std::string integrator_text(const Params& p) {
    return with_settings(to_string(p.integrator), integrator_info(p.integrator).settings, p);
}

// How many steps a run takes and, for --t-end, the length of the last one.
StepPlan plan_steps(const RunOptions& o, double t0, double dt, Precision precision) {
    if (!o.t_end) {
        const std::int64_t steps = o.steps.value_or(kDefaultRunSteps);
        if (steps > 0) validate_clock_step(t0, dt);
        return {steps, false};
    }
    return plan_steps_until("--t-end", t0, *o.t_end, dt, precision);
}

// Two outputs naming one file would each write it, and the second rename would fail after the first
// had already replaced it. Compared after resolving ".", ".." and symbolic links.
void check_distinct_outputs(const RunOptions& o) {
    namespace fs = std::filesystem;
    const std::pair<const char*, const std::string*> outputs[] = {{"--output", &o.output},
                                                                  {"--energy-log", &o.energy_log},
                                                                  {"--trajectory", &o.trajectory},
                                                                  {"--collision-log", &o.collision_log},
                                                                  {"--plot", &o.plot}};
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

}  // namespace

CLI::App* add_run_command(CLI::App& root, RunOptions& o) {
    CLI::App* cmd = root.add_subcommand("run", "simulate without a window, write files, print a summary");
    add_scenario_flags(*cmd, o.scenario);
    cmd->add_option_function<std::string>(
           "--steps", [&o](const std::string& s) { o.steps = parse_integer("--steps", s, 0); },
           "number of steps (default " + std::to_string(kDefaultRunSteps) +
               "; max steps of --dt with --integrator hermite; 0 writes the initial state to --output)")
        ->type_name("K");
    add_real_option(*cmd, "--t-end,--finalTime", o.t_end, {},
                    "run until exactly this simulated time (the last step is shortened); excludes --steps")
        ->type_name("T");
    add_path_option(
        *cmd, "--output", o.output,
        "write the final bodies; the extension picks the format: .csv (x,y,z,vx,vy,vz,m), .h5/.hdf5 "
        "(a snapshot --restart continues), .tipsy/.std or .bin (Tipsy)");
    add_path_option(*cmd, "--energy-log", o.energy_log,
                    "write energies, drift and momentum to this CSV every --log-every steps");
    cmd->add_option_function<std::string>(
           "--log-every", [&o](const std::string& s) { o.log_every = parse_integer("--log-every", s, 0); },
           "compute diagnostics (an O(N^2) potential) every K steps; 0: at the start and end only "
           "(default " +
               std::to_string(kDefaultLogEvery) + " with --energy-log, else 0)")
        ->type_name("K");
    add_path_option(*cmd, "--trajectory", o.trajectory, "write positions (step,t,body,x,y,z) to this CSV");
    add_path_option(*cmd, "--collision-log", o.collision_log,
                    "write each collision (step,t,i,j,mi,mj,speed,energy_lost,kind) to this CSV (needs "
                    "--collisions merge or bounce, or a preset with collisions)");
    cmd->add_option_function<std::string>(
           "--trajectory-every",
           [&o](const std::string& s) { o.trajectory_every = parse_integer("--trajectory-every", s, 1); },
           "record the trajectory every K steps (default 1)")
        ->type_name("K");
    add_snapshot_flags(*cmd, o.snapshots, o.scenario);
    add_thread_option(*cmd, o.threads);
    cmd->add_flag("--energyDiff", o.energy_diff, "print only the final relative energy change |dE/E|");
    cmd->add_flag("--quiet", o.quiet, "no progress line on stderr");
    add_path_option(*cmd, "--plot", o.plot,
                    "after the run, plot the --energy-log to this PNG (needs gnuplot)");
    cmd->footer(
        "Defaults: preset plummer, N = " + std::to_string(kDefaultRunN) + ", " +
        std::to_string(kDefaultRunSteps) +
        " steps, the preset's dt and softening, leapfrog, float, cuda if available else openmp.\n"
        "Interactions/s count N^2 per force evaluation for every backend; with hermite, N per body "
        "evaluated (each block's active bodies) and K per neighbour evaluation with --neighbours K (N - 1 "
        "at most).");
    return cmd;
}

namespace {

// Bad combinations that the flags' own parsers cannot see.
void check_run_options(const RunOptions& o) {
    if (o.steps && o.t_end) throw Error("--steps and --t-end cannot be used together (choose one)");
    check_thread_count(o.threads);
    if (!o.plot.empty() && o.energy_log.empty()) {
        throw Error("--plot draws the energy log: give --energy-log FILE.csv too");
    }
    check_distinct_outputs(o);
    // By identity, not by name: "./in.csv", a link or a hard link to the input is the input.
    const std::vector<NamedInput> inputs = {{"--input", o.scenario.input}, {"--restart", o.scenario.restart}};
    check_output_is_no_input("--output", o.output, inputs);
    check_output_is_no_input("--energy-log", o.energy_log, inputs, {".partial"});
    check_output_is_no_input("--trajectory", o.trajectory, inputs, {".partial"});
    check_output_is_no_input("--collision-log", o.collision_log, inputs, {".partial"});
    check_output_is_no_input("--plot", o.plot, inputs);
    if (!o.output.empty()) check_output_format("--output", o.output);
    if (!o.plot.empty()) check_plot_output(o.plot, "--plot");
}

// The parameter lines of the logs: those of a CSV snapshot of the start, and the backend.
std::string log_preamble(const Scenario& sc) {
    RunMetadata m = csv_metadata(make_snapshot(sc, sc.state, sc.step));
    m.set("backend", sc.backend);
    // A scenario in physical units says which (read back as a comment: --input ignores it).
    if (const PresetInfo* preset = find_preset(sc.preset); preset && !preset->units.empty())
        m.set("units", preset->units);
    return format_metadata(m, NBODY_VERSION);
}

// The run's files, written under temporary names until commit_files.
struct RunFiles {
    std::unique_ptr<AtomicFile> output;
    std::unique_ptr<EnergyLog> energy_log;
    std::unique_ptr<TrajectoryLog> trajectory;
    std::unique_ptr<CollisionLog> collision_log;
};

RunFiles open_files(const RunOptions& o, const Scenario& sc) {
    const std::string preamble = log_preamble(sc);
    RunFiles f;
    if (!o.output.empty()) f.output = std::make_unique<AtomicFile>(o.output);
    const bool collisions = sc.params.collisions != CollisionMode::off;
    // Times with the digits that resolve a thousandth of the step, not the summation's rounding noise.
    const double resolution = std::abs(sc.params.dt) / 1000;
    if (!o.energy_log.empty()) {
        // A large state's potential is an estimate: the log says which, above its header.
        std::string log_preamble = preamble;
        // The backend is not made yet: where its bodies will live, from its registry entry.
        const BackendInfo* b = find_backend(sc.backend);
        const PotentialMethod m =
            potential_method(sc.state.size(), sc.params, b ? b->residency : Residency::host);
        if (m != PotentialMethod::exact) {
            log_preamble += "# potential: " + potential_method_text(m, sc.state.size(), sc.params) +
                            ", an estimate (more than " + std::to_string(kExactPotentialMaxN) +
                            " bodies: no exact pair sum)\n";
        }
        // An adaptive run's rows say what its max steps did: the blocks and force+jerk evaluations so far
        // (and the neighbour-list evaluations with the neighbour scheme).
        const bool adaptive = integrator_info(sc.params.integrator).adaptive;
        f.energy_log = std::make_unique<EnergyLog>(o.energy_log, log_preamble, collisions, resolution,
                                                   adaptive, adaptive && sc.params.neighbours > 0);
    }
    if (!o.trajectory.empty())
        f.trajectory = std::make_unique<TrajectoryLog>(o.trajectory, preamble, resolution);
    if (!o.collision_log.empty()) {
        if (!collisions)
            throw Error("--collision-log records collisions: give --collisions merge or bounce too");
        f.collision_log = std::make_unique<CollisionLog>(o.collision_log, preamble, resolution);
    }
    return f;
}

// All files are complete and closed before the first is renamed: a write error leaves none behind.
// The logs (already visible as NAME.partial) are renamed last, once the output is in place. `last` is the
// final state (read only when there is an --output).
void commit_files(RunFiles& f, const Scenario& sc, const HostState& last,
                  std::optional<BlockState> last_block, std::int64_t done) {
    if (f.energy_log) f.energy_log->file().finish();
    if (f.trajectory) f.trajectory->file().finish();
    if (f.collision_log) f.collision_log->file().finish();
    if (f.output) {
        for (const std::string& note :
             write_snapshot(*f.output, make_snapshot(sc, last, sc.step + done, std::move(last_block))))
            std::cerr << "nbody: note: " << note << '\n';
        commit_all({f.output.get()});
    }
    if (f.energy_log) f.energy_log->commit();
    if (f.trajectory) f.trajectory->commit();
    if (f.collision_log) f.collision_log->commit();
}

// After a blow-up the logs up to it are what a student needs to see why: keep them as NAME.partial.
std::string keep_partial_logs(RunFiles& f) {
    std::vector<std::string> kept;
    for (PartialFile* p :
         {f.energy_log ? &f.energy_log->file() : nullptr, f.trajectory ? &f.trajectory->file() : nullptr,
          f.collision_log ? &f.collision_log->file() : nullptr}) {
        if (!p) continue;
        p->keep();
        kept.push_back(p->partial_path());
    }
    return kept.empty() ? "" : "; the logs up to it are kept in " + join(kept);
}

// The encounter that a run with softening 0 resolves worst: the closest pair sampled at each progress
// update, judged by its own time scale sqrt(r^3 / G(m_i + m_j)).
struct Encounter {
    ClosestPair pair;
    double time_scale = std::numeric_limits<double>::infinity();
};

void sample_encounter(const HostState& s, double G, Encounter& worst) {
    const ClosestPair c = closest_pair(s);
    if (!std::isfinite(c.distance)) return;
    const double m = s.pos_mass[c.i].w + s.pos_mass[c.j].w;
    const double t = std::sqrt(c.distance * c.distance * c.distance / (G * m));
    if (t < worst.time_scale) worst = {c, t};
}

// The diagnostics of the backend's bodies. Above kExactPotentialMaxN bodies the potential comes from the
// tree or a sample (sim/potential_estimate.hpp), summed on rank 0 from the gathered bodies with a progress
// line, and shared with every process; small states ask the backend, exactly as before.
Diagnostics run_diagnostics(Backend& backend, const Params& p, bool with_potential, bool quiet, Cluster& cl) {
    const PotentialMethod m = potential_method(backend.size(), p, backend.residency());
    if (!with_potential || m == PotentialMethod::exact) return backend.diagnostics(p, with_potential);
    Diagnostics d = backend.diagnostics(p, false);
    const HostState s = backend.get_state();  // the whole system on rank 0
    if (cl.root()) {
        const std::size_t total =
            m == PotentialMethod::tree ? s.size() : std::min(s.size(), kPotentialSampleSize);
        Progress progress("potential, " + potential_method_text(m, s.size(), p), std::int64_t(total), 0.0,
                          progress_settings_from_environment(quiet), std::cerr);
        progress.set_units("body", "bodies");
        estimate_potential(d, s, p, m,
                           [&](std::size_t done, std::size_t) { progress.update(std::int64_t(done)); });
    }
    return broadcast(cl, d);
}

struct RunOutcome {
    std::int64_t done = 0;
    double t = 0;             // simulated time at the end (the integrator's clock)
    std::int64_t blocks = 0;  // an adaptive integrator's blocks and force+jerk evaluations (StepReport)
    std::uint64_t body_updates = 0;
    std::uint64_t neighbour_updates = 0;  // the neighbour scheme's evaluations against a list (StepReport)
    double step_seconds = 0;              // inside Backend::step only
    Diagnostics last;
    double drift = 0;         // |dE/E| from the start to the end (of E + energy_lost with collisions)
    std::size_t n_start = 0;  // N at the start (collisions' merges shrink it)
    std::int64_t merges = 0, bounces = 0;
    double energy_lost = 0;      // removed by the collisions (sim/collide/resolve.hpp)
    double n2_interactions = 0;  // N^2 per force evaluation, summed step by step with each step's N
    Encounter encounter;         // sampled only with softening 0
};

// The direct sum's interactions over `steps` steps that began with n bodies, the step's merges (events of
// step() numbered from 1) shrinking N for the steps after theirs.
double n2_interactions(const Params& p, std::size_t n, std::int64_t steps, const CollisionTally& c) {
    std::vector<std::int64_t> merged_after;
    for (const CollisionEvent& e : c.events) {
        if (e.merged) merged_after.push_back(e.step);
    }
    std::sort(merged_after.begin(), merged_after.end());
    double sum = 0;
    std::size_t gone = 0;
    for (std::int64_t k = 1; k <= steps; ++k) {
        while (gone < merged_after.size() && merged_after[gone] < k) ++gone;
        sum += interactions_per_step(p, n - gone);
    }
    return sum;
}

// Advice that names --precision double, for a --restart: it keeps its snapshot's precision (and refuses
// --precision), so say how to get double from the same bodies.
std::string restart_advice(const std::string& advice, const RunOptions& o) {
    if (o.scenario.restart.empty() || advice.find("--precision double") == std::string::npos) return advice;
    return advice +
           " (--restart keeps the snapshot's float: for double start a new run from it with --input)";
}

// Steps in chunks that end at the next log or trajectory point, or after about a quarter second for the
// progress line; between them only the backend works. At each chunk end t is read from the backend's own
// clock (an O(N) copy next to O(N^2) steps), so the shortened last step, T - t, lands exactly on T.
// Under mpirun every process runs this loop in step (rank 0 picks the chunks); only rank 0 has the
// bodies of the whole system after get_state, and the files.
RunOutcome simulate(const RunOptions& o, const Scenario& sc, const StepPlan& plan, Backend& backend,
                    RunFiles& files, const SnapshotSeries& series, Cluster& cl) {
    const std::int64_t log_every = o.log_every.value_or(o.energy_log.empty() ? 0 : kDefaultLogEvery);
    const bool adaptive = integrator_info(sc.params.integrator).adaptive;
    const bool neighbours = adaptive && sc.params.neighbours > 0;  // the neighbour scheme's counts too
    // An adaptive integrator resolves encounters by its own steps; its max step says nothing of them.
    const bool watch_encounters = sc.params.softening == 0 && cl.root() && !adaptive;
    const double n = static_cast<double>(backend.size());
    // Interactions per step are N^2 per force evaluation for fixed steps; an adaptive integrator's vary
    // (0: the progress line shows none).
    const ProgressSettings shown = progress_settings_from_environment(o.quiet || !cl.root());
    Progress progress("run", plan.steps, adaptive ? 0.0 : n * n, shown, std::cerr);
    if (adaptive) progress.set_units("max step", "max steps");
    // Inside a long max step the line goes on from a thread of its own (max_step_watch.hpp).
    std::optional<MaxStepWatch> watch;
    if (adaptive && shown.enabled) {
        try {
            watch.emplace(progress, shown.terminal ? shown.live_interval_s : shown.plain_interval_s);
        } catch (const std::system_error&) {
            // No thread to spare: the line then moves at max-step ends only, as before.
        }
    }
    // The backend outlives this call: it must not keep a pointer into it.
    struct Unpublish {
        Backend& b;
        ~Unpublish() { b.set_progress(nullptr); }
    } unpublish{backend};
    if (watch) backend.set_progress(watch->published());

    RunOutcome r;
    r.t = sc.state.t;
    r.n_start = backend.size();
    // The potential is an O(N^2) sum (45 minutes at N = 3M): a --steps 0 conversion without an energy log
    // has no use for it, and |dE/E| over no steps is 0 by definition.
    // Rank 0 alone holds the files: every process must ask alike (a collective either way).
    const bool potential = broadcast(cl, plan.steps > 0 || files.energy_log != nullptr);
    const Diagnostics d0 = run_diagnostics(backend, sc.params, potential, o.quiet, cl);
    const double e0 = d0.total();
    r.last = d0;
    // The logs' rows count steps as the snapshots and the collision log do: from the scenario's step (a
    // restart's), which their parameter lines give.
    if (files.energy_log) files.energy_log->write(sc.step, sc.state.t, d0, 0.0);
    if (files.trajectory) files.trajectory->write(sc.step, sc.state);
    if (watch_encounters) sample_encounter(sc.state, sc.params.G, r.encounter);
    // A restart begins at a step its snapshot already holds. (No block steps have run yet: the file holds
    // the bodies alone, and a restart from it starts as this run does.)
    if (broadcast(cl, series.due(sc.step) && o.scenario.restart.empty())) {
        const HostState start = backend.get_state();
        if (cl.root()) series.write(sc, start, sc.step);
    }

    std::int64_t last_diag_step = 0, chunk = 0;
    double chunk_seconds = 0;
    while (r.done < plan.steps) {
        std::int64_t next = plan.steps;
        if (log_every > 0) next = std::min(next, (r.done / log_every + 1) * log_every);
        if (files.trajectory) next = std::min(next, (r.done / o.trajectory_every + 1) * o.trajectory_every);
        next = std::min(next, series.next_after(sc.step + r.done) - sc.step);
        Params p = sc.params;
        if (plan.shorten_last) {
            if (r.done == plan.steps - 1) {
                p.dt = *o.t_end - r.t;
            } else {
                next = std::min(next, plan.steps - 1);
            }
        }
        // Timed on each process: rank 0's choice holds for all, which step together.
        chunk = broadcast(cl, next_chunk(chunk, chunk_seconds, next - r.done));

        const double start = now_s();
        const std::size_t n_before = backend.size();
        if (watch) watch->begin_chunk(r.done, r.t, p.dt);
        const StepReport rep = backend.step(p, chunk);
        if (watch) watch->end_chunk();
        chunk_seconds = now_s() - start;
        r.step_seconds += chunk_seconds;
        if (!rep.ok()) {
            progress.finish();
            const std::int64_t bad = r.done + rep.bad_step;
            // The step and body (a global index) are the same on every process: they stop together.
            const std::string message =
                rep.stalled
                    ? "block steps stalled in max step " + std::to_string(bad) +
                          " (from t = " + format_g(r.t + static_cast<double>(rep.bad_step - 1) * p.dt) +
                          "): " + restart_advice(stall_reason(rep.bad_body, p, backend.precision()), o) +
                          keep_partial_logs(files)
                    : "numerical blow-up at step " + std::to_string(bad) +
                          " (t = " + format_g(r.t + static_cast<double>(rep.bad_step) * p.dt) + "): body " +
                          std::to_string(rep.bad_body) + " has a non-finite position or velocity" +
                          keep_partial_logs(files);
            if (cl.distributed()) throw ClusterError(message);
            throw Error(message);
        }
        r.done += chunk;
        r.n2_interactions += rep.collisions.merges > 0
                                 ? n2_interactions(p, n_before, chunk, rep.collisions)
                                 : interactions_per_step(p, n_before) * static_cast<double>(chunk);
        r.merges += rep.collisions.merges;
        r.bounces += rep.collisions.bounces;
        r.energy_lost += rep.collisions.energy_lost;
        if (files.collision_log) files.collision_log->write(sc.step + r.done, rep.collisions.events);
        r.blocks += rep.blocks;
        r.body_updates += rep.body_updates;
        r.neighbour_updates += rep.neighbour_updates;
        r.t = backend.time();
        // The bodies are copied out only where this chunk's end needs them (the copy of 1M bodies from a
        // GPU is milliseconds a chunk); every process asks alike, as the copy gathers them.
        const bool at_trajectory =
            files.trajectory && (r.done % o.trajectory_every == 0 || r.done == plan.steps);
        const bool at_snapshot = series.due(sc.step + r.done);
        HostState now;
        if (broadcast(cl, watch_encounters || at_trajectory || at_snapshot)) now = backend.get_state();
        // A max step says little of an adaptive run's work: the line shows its clock, blocks and evaluations.
        if (adaptive) {
            progress.set_detail(block_work_detail(r.t, sc.params.dt, r.blocks, r.body_updates,
                                                  r.neighbour_updates, neighbours));
        }
        progress.update(r.done);
        if (watch_encounters) sample_encounter(now, sc.params.G, r.encounter);

        const bool at_log = log_every > 0 && r.done % log_every == 0;
        if (at_log || r.done == plan.steps) {
            r.last = run_diagnostics(backend, sc.params, true, o.quiet, cl);
            last_diag_step = r.done;
            if (files.energy_log) {
                files.energy_log->write(sc.step + r.done, r.t, r.last,
                                        relative_energy_drift(e0, r.last.total() + r.energy_lost),
                                        r.energy_lost, r.blocks, r.body_updates, r.neighbour_updates);
            }
        }
        if (at_trajectory) files.trajectory->write(sc.step + r.done, now);
        // A snapshot is a restart point: an adaptive integrator's levels, accelerations and jerks go into
        // it, so that a restart goes on as this run does (every process, in step: a distributed run
        // gathers them). Block steps that cannot give them drop them instead, as such a restart starts
        // without them.
        std::optional<BlockState> block;
        if (adaptive && broadcast(cl, at_snapshot)) {
            block = backend.export_block_state(p);
            if (!block || !snapshot_keeps(sc, *block, backend.size())) backend.synchronize();
        }
        if (at_snapshot) series.write(sc, now, sc.step + r.done, std::move(block));
    }
    progress.finish();
    // The end state always has its diagnostics (also for --steps 0), and the energy log its last row.
    if (last_diag_step != r.done) r.last = run_diagnostics(backend, sc.params, true, o.quiet, cl);
    r.drift = relative_energy_drift(e0, r.last.total() + r.energy_lost);
    return r;
}

// How the energies' potential was found, where it was not the exact pair sum (after |dE/E|).
std::string potential_note(const Diagnostics& d, std::size_t n, const Params& p) {
    const std::string note = potential_method_note(d, n, p);
    return note.empty() ? note : " (" + note + ")";
}

void print_summary(const RunOptions& o, const Scenario& sc, const Backend& backend, const RunOutcome& r,
                   double wall) {
    const std::string source =
        !o.scenario.restart.empty() ? o.scenario.restart + " (from step " + std::to_string(sc.step) + ")"
        : o.scenario.input.empty()  ? (o.scenario.preset.empty() ? presets().front().name : o.scenario.preset)
                                    : o.scenario.input;
    // A tree counts what it evaluated (its last force evaluation, times the evaluations per step); the
    // direct sum N^2 per evaluation; an adaptive integrator N per body it evaluated (force and jerk), and
    // with the neighbour scheme K (--neighbours, the lists' target length) per evaluation against a list.
    const bool adaptive = integrator_info(sc.params.integrator).adaptive;
    const bool neighbours = adaptive && sc.params.neighbours > 0;
    const std::optional<std::uint64_t> evaluated =
        adaptive ? std::nullopt : backend.last_force_interactions();
    // (The direct sum's N^2 is summed with each step's N: merges shrink it.)
    const double interactions =
        adaptive ? double(r.body_updates) * double(backend.size()) +
                       double(r.neighbour_updates) * counted_list_length(sc.params.neighbours, backend.size())
        : evaluated ? double(*evaluated) * integrator_info(sc.params.integrator).force_evaluations *
                          static_cast<double>(r.done)
                    : r.n2_interactions;
    const double per_second = r.step_seconds > 0 ? interactions / r.step_seconds : 0.0;
    const double flops = adaptive ? kFlopsPerJerkInteraction : kFlopsPerInteraction;
    const Cluster& cl = cluster();
    const std::string processes =
        cl.distributed() ? " on " + std::to_string(cl.size()) + " processes (mpirun)" : std::string();
    std::cout << "nbody run: " << source << ", N = " << backend.size() << ", " << backend.name() << processes
              << ", " << to_string(sc.precision) << ", " << integrator_text(sc.params) << ", "
              << force_text(sc.params) << (adaptive ? ", max dt = " : ", dt = ") << format_g(sc.params.dt)
              << ", softening = " << format_g(sc.params.softening) << '\n';
    if (!sc.from_file.empty() || !sc.overridden.empty()) {
        std::cout << "  parameters      ";
        const std::string& file = o.scenario.restart.empty() ? o.scenario.input : o.scenario.restart;
        if (!sc.from_file.empty()) std::cout << join(sc.from_file) << " from " << file;
        if (!sc.overridden.empty()) {
            std::cout << (sc.from_file.empty() ? "" : "; ") << "flags override the file's "
                      << join(sc.overridden);
        }
        std::cout << '\n';
    }
    // A preset in physical units says which, so t, dt and the energies read right.
    if (const PresetInfo* preset = find_preset(sc.preset); preset && !preset->units.empty())
        std::cout << "  units           " << preset->units << '\n';
    // The times to a thousandth of the step, but a --t-end reached exactly as it was asked (0.30000001 at dt
    // 0.1 is not "0.3").
    const double resolution = std::abs(sc.params.dt) / 1000;
    const bool at_t_end = o.t_end && r.t == *o.t_end;
    std::cout << "  " << (adaptive ? "max steps       " : "steps           ") << r.done
              << " (t = " << format_time(sc.state.t, resolution) << " -> "
              << format_time(r.t, at_t_end ? 0.0 : resolution) << ")\n";
    if (adaptive) {
        // Each block evaluates its active bodies against all N: body_updates of them in all (every body at
        // each (re)start included), i.e. this many full N^2 evaluations' worth.
        const double n = double(backend.size());
        std::cout << "  blocks          " << r.blocks << ", " << r.body_updates << (neighbours ? " full" : "")
                  << " force+jerk evaluations of a body (" << format_g(double(r.body_updates) / n, 4)
                  << " per body, "
                  << format_g(r.blocks > 0 ? double(r.body_updates) / double(r.blocks) : 0.0, 4)
                  << " per block)";
        // The neighbour scheme's irregular steps: one body against its list (about K bodies) each.
        if (neighbours) {
            std::cout << ", " << r.neighbour_updates << " neighbour evaluations ("
                      << format_g(double(r.neighbour_updates) / n, 4) << " per body)";
        }
        std::cout << '\n';
    }
    if (sc.params.collisions != CollisionMode::off) {
        std::cout << "  collisions      " << to_string(sc.params.collisions) << ": " << r.merges
                  << " merges, " << r.bounces << " bounces (N " << r.n_start << " -> " << backend.size()
                  << "), energy lost " << format_g(r.energy_lost, 4) << " (|dE/E| below is of E + that)\n";
    }
    std::cout << "  wall time       " << format_g(wall, 4) << " s (stepping " << format_g(r.step_seconds, 4)
              << " s)\n"
              << "  interactions/s  ";
    if (r.done == 0) {
        std::cout << "none (no steps)\n";
    } else {
        std::cout << format_g(per_second, 4)
                  << (neighbours ? " (N per full evaluation, " +
                                       format_g(counted_list_length(sc.params.neighbours, backend.size())) +
                                       " per neighbour evaluation; "
                      : adaptive  ? std::string(" (N per body evaluated; ")
                      : evaluated ? " (as evaluated by the " + std::string(to_string(sc.params.force)) + "; "
                                  : std::string(" (N^2 per force evaluation; "))
                  << format_g(per_second * flops * 1e-9, 4) << " GFLOP/s at " << format_g(flops)
                  << " flops each)\n";
    }
    std::cout << "  |dE/E|          "
              << (r.last.has_potential ? format_g(r.drift, 4)
                                       : std::string("0 (no steps: the energy was not computed)"))
              << potential_note(r.last, backend.size(), sc.params) << '\n';
}

// The max steps an adaptive run takes before it is told that its max step bound every body (fewer say
// little).
constexpr std::int64_t kMaxStepsForLevelNote = 10;

// Warnings that teach: what went wrong physically and which flag to try. On stderr, after the summary.
void print_warnings(const RunOptions& o, const Scenario& sc, const RunOutcome& r) {
    // A damped run loses energy on purpose (--damping below 1): its drift is the damping's, not an error.
    if (r.last.has_potential && r.drift > kEnergyWarning && sc.params.damping == 1) {
        std::cerr << "nbody: warning: energy not conserved (|dE/E| = " << format_g(r.drift, 3) << " > "
                  << format_g(kEnergyWarning) << "): try "
                  << restart_advice(energy_advice(sc.params, sc.precision), o) << '\n';
    }
    // An adaptive integrator whose max step bound every body all run long (a preset's dt, tuned for a fixed
    // step, is often that short: the comet's takes 10,000 blocks of one max step each) did a fixed step's
    // work: say that its steps adapt only below --dt.
    if (integrator_info(sc.params.integrator).adaptive && r.done >= kMaxStepsForLevelNote &&
        r.blocks == r.done) {
        std::cerr
            << "nbody: note: every body took each max step whole (each one's accuracy allowed longer steps "
               "than --dt "
            << format_g(sc.params.dt) << "): " << to_string(sc.params.integrator)
            << "'s steps adapt only below its max step, so a larger --dt lets them adapt\n";
    }
    const Encounter& e = r.encounter;
    if (sc.params.softening == 0 && !integrator_info(sc.params.integrator).adaptive &&
        sc.params.dt * kMinStepsPerEncounter > e.time_scale) {
        std::cerr << "nbody: warning: close encounter with softening 0: bodies " << e.pair.i << " and "
                  << e.pair.j << " came within " << format_g(e.pair.distance, 3)
                  << " (their encounter takes about " << format_g(e.time_scale, 3) << ", less than "
                  << format_g(kMinStepsPerEncounter) << " steps of dt = " << format_g(sc.params.dt)
                  << "): try a --softening near that distance or a smaller --dt\n";
    }
}

// What the other processes of a distributed run need of rank 0's scenario: the physics, backend,
// precision, start time and step plan (the bodies reach them through the backend's set_state).
void share_scenario(Cluster& cl, Scenario& sc, StepPlan& plan) {
    if (!cl.distributed()) return;
    sc.params = broadcast(cl, sc.params);
    sc.precision = broadcast(cl, sc.precision);
    sc.step = broadcast(cl, sc.step);
    sc.state.t = broadcast(cl, sc.state.t);
    plan = broadcast(cl, plan);
    sc.backend = broadcast(cl, sc.backend);
    // A restart's block-step state: every process takes its slice of the whole system's.
    if (!broadcast(cl, sc.block.has_value())) return;
    if (!sc.block) sc.block.emplace();
    BlockState& b = *sc.block;
    b.model = broadcast(cl, b.model);
    b.precision = broadcast(cl, b.precision);
    b.level = broadcast(cl, std::move(b.level));
    b.acc = broadcast(cl, std::move(b.acc));
    b.jerk = broadcast(cl, std::move(b.jerk));
    // The neighbour scheme is refused under mpirun (check_distributable): its state never travels.
}

// A restart's block-step state goes to the backend once it holds the bodies; one line where it cannot take
// it, or where an adaptive run's snapshot after its first step holds none (written before nbody kept it; at
// step 0 no block steps had run, and the restart starts as that run did).
void take_block_state(Cluster& cl, const RunOptions& o, const Scenario& sc, Backend& backend) {
    if (o.scenario.restart.empty() || !integrator_info(sc.params.integrator).adaptive) return;
    if (!sc.block) {
        if (cl.root() && sc.step > 0) {
            std::cerr << "nbody: note: " << o.scenario.restart << " holds no "
                      << to_string(sc.params.integrator)
                      << " state (levels, accelerations, jerks): the run restarts them from its bodies\n";
        }
        return;
    }
    if (!backend.import_block_state(sc.params, *sc.block) && cl.root()) {
        std::cerr << "nbody: note: the " << backend.name() << " backend cannot take the "
                  << to_string(sc.params.integrator) << " state stored in " << o.scenario.restart
                  << ": the run restarts its levels, accelerations and jerks from its bodies\n";
    }
}

}  // namespace

int run_run_command(const RunOptions& o) {
    Cluster& cl = cluster();
    const double wall_start = now_s();
    // A device's context (~0.1 s for CUDA) is made on a thread of its own while the scenario is. A bad
    // flag or file found meanwhile still waits for it (the future's destructor) before its error line.
    std::future<void> warming = warm_up_process_backend(cl, o.scenario.backend);
    Scenario sc;
    std::optional<SnapshotSeries> series;
    StepPlan plan;
    RunFiles files;
    // Rank 0 reads the input and opens the files. Every process learns whether that worked before any
    // goes on, so a bad flag or file is one error line (from rank 0) and no process waits forever.
    agree(cl, [&] {
        check_run_options(o);
        if (!cl.root()) return;
        sc = resolve_scenario(o.scenario, kDefaultRunN);
        series.emplace(o.snapshots, sc, o.scenario);
        // An adaptive integrator's --dt is only its largest step: each body takes the steps it needs below
        // it, and every max step still costs a block of all N. A billion of them is a mistyped --dt (told
        // before planning, which replays the clock's additions for --t-end).
        if (integrator_info(sc.params.integrator).adaptive) {
            const double count =
                o.t_end ? (*o.t_end - sc.state.t) / sc.params.dt : double(o.steps.value_or(kDefaultRunSteps));
            if (count > double(kMaxAdaptiveMaxSteps)) {
                const std::string asked = o.t_end ? "--t-end " + format_g(*o.t_end) + " at max dt " +
                                                        format_g(sc.params.dt) + " is "
                                                  : "--steps ";
                throw Error(asked + format_g(std::ceil(count), 3) + " max steps of " +
                            to_string(sc.params.integrator) + ", more than " +
                            format_g(double(kMaxAdaptiveMaxSteps)) +
                            ": its --dt is the largest step any body takes (each takes smaller ones where it "
                            "needs them), so give one near the system's time scale");
            }
        }
        plan = plan_steps(o, sc.state.t, sc.params.dt, sc.precision);
        // The global step counter (a restart's, plus these) must stay a number the run can count in.
        if (plan.steps > kMaxStepCounter * 64 - sc.step) {
            throw Error("--steps " + std::to_string(plan.steps) + " from step " + std::to_string(sc.step) +
                        " is more steps than a run can count (at most " +
                        std::to_string(kMaxStepCounter * 64) + " in all)");
        }
        // Ctrl-C removes every temporary; the files are opened before the run so a bad path fails now.
        remove_temp_files_on_signal();
        files = open_files(o, sc);
    });
    share_scenario(cl, sc, plan);
    if (!series)
        series.emplace(SnapshotOptions{}, sc, ScenarioOptions{});  // the other processes write no snapshots
    if (o.threads > 0) omp_set_num_threads(o.threads);

    std::unique_ptr<Backend> backend;
    agree(cl, [&] {
        if (warming.valid()) warming.wait();
        backend = create_process_backend(cl, sc.backend, sc.precision);
        check_block_steps(sc.params, *backend, sc.backend);
    });
    agree(cl, [&] { check_distributable(cl, sc.params); });
    agree(cl, [&] { backend->set_state(sc.state); });  // under mpirun: rank 0's bodies, scattered
    agree(cl, [&] { take_block_state(cl, o, sc, *backend); });
    // Before the steps: such a run may never end, so the warning cannot wait for the summary.
    if (cl.root() && plan.steps > 0 && block_steps_may_stall(sc.params, sc.precision))
        std::cerr << "nbody: warning: " << restart_advice(kStallWarning, o) << '\n';
    if (cl.root() && plan.steps > 0 && eta_below_float_floor(sc.params, sc.precision))
        std::cerr << "nbody: warning: " << float_eta_warning(sc.params) << '\n';

    const RunOutcome r = simulate(o, sc, plan, *backend, files, *series, cl);
    HostState last;
    std::optional<BlockState> last_block;
    if (!o.output.empty()) {
        last = backend->get_state();  // the whole system, on rank 0
        // With the integrator's state where it keeps one (collective), so that --restart goes on exactly.
        if (integrator_info(sc.params.integrator).adaptive)
            last_block = backend->export_block_state(sc.params);
    }
    // Rank 0 alone from here: it writes and prints.
    cl.leave_lockstep();
    if (!cl.root()) return 0;
    commit_files(files, sc, last, std::move(last_block), r.done);
    const double wall = now_s() - wall_start;
    if (!o.plot.empty()) {
        PlotRequest plot;
        plot.inputs = {o.energy_log};
        plot.output = o.plot;
        plot_csv(plot);
    }

    if (o.energy_diff) {
        std::cout << format_g(r.drift, 9) << '\n';
    } else {
        print_summary(o, sc, *backend, r, wall);
    }
    print_warnings(o, sc, r);
    return 0;
}

}  // namespace nbody
