// nbody_cpu_tree_bench: the CPU Barnes-Hut tree on its own (issue 15) - force-evaluation time by phase,
// interactions evaluated per body and the relative force error against the float64 direct sum on a
// sample, for one preset, N, precision and a list of opening angles; optionally the OpenMP direct sum
// at a smaller N for the speed-up estimate. One CSV row per theta on stdout.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "sim/gravity/force_error.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/gravity/kernels_cpu.hpp"
#include "sim/gravity/octree.hpp"
#include "sim/gravity/tree_walk.hpp"
#include "sim/presets.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

struct Options {
    std::string preset = "plummer";
    std::size_t n = 65536;
    std::string precision = "float";
    std::vector<double> thetas{kDefaultTheta};
    std::size_t leaf = kDefaultLeafSize;
    std::size_t group = kDefaultGroupSize;
    std::size_t sample = 1000;
    int repeats = 3;
    std::size_t direct_n = 0;
    std::uint64_t seed = 42;
    bool header = true;
};

// CPU seconds of the whole process (all threads): on a machine shared with other jobs the wall clock
// says little, CPU time / threads estimates the wall time on idle cores.
double cpu_s() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

template <typename T>
std::vector<Vec4<T>> bodies_of(const HostState& s) {
    std::vector<Vec4<T>> b(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        b[i] = {T(s.pos_mass[i].x), T(s.pos_mass[i].y), T(s.pos_mass[i].z), T(s.pos_mass[i].w)};
    }
    return b;
}

template <typename T>
void run(const Options& o) {
    const PresetInfo* info = find_preset(o.preset);
    if (!info) throw Error("unknown preset '" + o.preset + "' (valid: " + join(preset_names()) + ")");
    const HostState s = make_preset(o.preset, o.n, o.seed);
    const auto bodies = bodies_of<T>(s);
    const std::size_t n = bodies.size();

    // The reference once: the float64 direct sum on the sample.
    const auto sample = error_sample(n, o.sample);
    std::vector<Vec4<double>> ref(sample.size());
    const double t_ref = now_s();
    direct_accelerations_at(bodies.data(), n, sample.data(), sample.size(), info->params.G,
                            info->params.softening, ref.data());
    std::fprintf(stderr, "reference: float64 direct sum on %zu sample bodies in %.2f s\n", sample.size(),
                 now_s() - t_ref);

    if (o.header) {
        std::printf(
            "preset,n,precision,threads,theta,leaf,group,keys_sort_ms,cells_ms,moments_ms,walk_ms,total_ms,"
            "total_ms_median,cpu_ms,interactions_per_body,body_body_per_body,body_cell_per_body,err_median,"
            "err_p99,"
            "err_max\n");
    }
    Octree<T> tree;
    std::vector<Vec4<T>> acc(n);
    for (double theta : o.thetas) {
        TreeWalkParams p;
        p.theta = theta, p.G = info->params.G, p.softening = info->params.softening, p.group_size = o.group;
        std::vector<double> totals;
        double best = 1e300, best_walk = 0, best_cpu = 0;
        OctreeBuildTimes best_build;
        TreeWalkCounts counts;
        for (int r = 0; r < o.repeats; ++r) {
            const double t0 = now_s(), c0 = cpu_s();
            tree.build(bodies.data(), n, o.leaf);
            const double t1 = now_s();
            counts = tree_accelerations(tree, p, acc.data(), static_cast<T*>(nullptr));
            const double t2 = now_s(), c2 = cpu_s();
            totals.push_back(t2 - t0);
            if (t2 - t0 < best)
                best = t2 - t0, best_walk = t2 - t1, best_build = tree.build_times(), best_cpu = c2 - c0;
        }
        std::vector<Vec4<T>> got(sample.size());
        for (std::size_t k = 0; k < sample.size(); ++k) got[k] = acc[sample[k]];
        const ForceErrorStats e = force_error_stats(got.data(), ref.data(), sample.size());
        std::printf(
            "%s,%zu,%s,%d,%.3f,%zu,%zu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.0f,%.1f,%.1f,%.1f,%.3e,%.3e,%.3e\n",
            o.preset.c_str(), n, o.precision.c_str(), omp_get_max_threads(), theta, o.leaf, o.group,
            1e3 * best_build.keys_sort, 1e3 * best_build.cells, 1e3 * best_build.moments, 1e3 * best_walk,
            1e3 * best, 1e3 * median(totals), 1e3 * best_cpu, double(counts.total()) / double(n),
            double(counts.body_body) / double(n), double(counts.body_cell) / double(n), e.median, e.p99,
            e.max);
        std::fflush(stdout);
    }

    if (o.direct_n > 0) {
        // The OpenMP direct sum (the openmp backend's kernel) at a smaller N, scaled by N^2 to this N.
        const HostState sd = make_preset(o.preset, o.direct_n, o.seed);
        const auto bd = bodies_of<T>(sd);
        std::vector<Vec4<T>> ad(bd.size());
        ForceScratch<T> scratch;
        const T eps2 = softening2<T>(info->params);
        double best = 1e300, best_cpu = 0;
        for (int r = 0; r < std::max(1, o.repeats); ++r) {
            const double t0 = now_s(), c0 = cpu_s();
            accelerations_rows(bd.data(), ad.data(), bd.size(), T(info->params.G), eps2, scratch);
            if (now_s() - t0 < best) best = now_s() - t0, best_cpu = cpu_s() - c0;
        }
        const double scale = (double(n) / double(o.direct_n)) * (double(n) / double(o.direct_n));
        std::fprintf(
            stderr,
            "direct (openmp rows) at N = %zu: %.1f ms wall, %.1f ms cpu (%.3e interactions/s); scaled "
            "by (N/%zu)^2 to N = %zu: %.1f s wall, %.1f s cpu\n",
            o.direct_n, 1e3 * best, 1e3 * best_cpu, double(o.direct_n) * double(o.direct_n) / best,
            o.direct_n, n, best * scale, best_cpu * scale);
    }
}

}  // namespace
}  // namespace nbody

int main(int argc, char** argv) {
    nbody::Options o;
    CLI::App app{"CPU Barnes-Hut tree: time by phase, interactions per body, force error vs the direct sum"};
    app.add_option("--preset", o.preset, "initial conditions");
    app.add_option("--n", o.n, "bodies")->check(CLI::Range(std::size_t(1), std::size_t(1) << 28));
    app.add_option("--precision", o.precision, "float or double")->check(CLI::IsMember({"float", "double"}));
    app.add_option("--theta", o.thetas, "opening angles (several: one row each)")
        ->check(CLI::Range(1e-6, 1.0))
        ->delimiter(',');
    app.add_option("--leaf", o.leaf, "bodies per leaf")->check(CLI::Range(1, 1 << 20));
    app.add_option("--group", o.group, "targets per walk group")->check(CLI::Range(1, 1 << 20));
    app.add_option("--sample", o.sample, "bodies in the error sample")->check(CLI::Range(1, 1 << 24));
    app.add_option("--repeats", o.repeats, "timed builds + walks per theta (best reported)")
        ->check(CLI::Range(1, 1000));
    app.add_option("--direct-n", o.direct_n, "also time the OpenMP direct sum at this N and scale it by N^2");
    app.add_option("--seed", o.seed, "preset seed");
    bool no_header = false;
    app.add_flag("--no-header", no_header, "omit the CSV header");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    o.header = !no_header;
    try {
        if (o.precision == "float") {
            nbody::run<float>(o);
        } else {
            nbody::run<double>(o);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nbody: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
