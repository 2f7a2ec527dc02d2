// nbody_cuda_bench: times one force evaluation of the tuned kernel (automatic or swept launch shapes)
// and of the GPU Gems 3 baseline, in one process, and prints interactions/s, GFLOP/s and the ratio.
//   nbody_cuda_bench [--n 16384,65536] [--precision float|double|both] [--repeats 7] [--sweep] [--pairwise]
//                    [--launches auto,tuned,tuned:K:B[:S],pw:K:B,grid:K:B]
// With --hermite, the Hermite integrator's blocks instead (cuda/hermite_steps.hpp): per N:active case,
// the force+jerk evaluation of `active` bodies against all N (pair interactions/s, GFLOP/s at 42 FLOPs)
// and the whole block around it (next_block with its read-back, predict all N, evaluate, correct).
//   nbody_cuda_bench --hermite [--hermite-cases 65536:65536,1048576:256] [--precision float]
//                    [--jerk-launches auto,one,K:B[:S],pair:K:B]
// (auto: the automatic plans, with every body at once by the pairwise kernel where it serves N; one: the
// automatic one-sided plans everywhere; K:B[:S]: that one-sided shape everywhere; pair:K:B: that pairwise
// shape for every body at once.)
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cuda/baseline_kernel.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/hermite_steps.hpp"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/params.hpp"

namespace {

using namespace nbody;

void row(const char* prec, std::size_t n, const std::string& what, double ms, double baseline_ms) {
    const double ips = double(n) * double(n) / (ms * 1e-3);
    std::printf("%-6s %8zu  %-32s %9.3f ms  %6.3fe12 int/s  %7.0f GFLOP/s", prec, n, what.c_str(), ms,
                ips * 1e-12, ips * kFlopsPerInteraction * 1e-9);
    if (baseline_ms > 0) std::printf("  x%.2f vs baseline", baseline_ms / ms);
    std::printf("\n");
    std::fflush(stdout);
}

// "auto", "tuned", "tuned:K:B[:S]", "pw:K:B" (tournament rounds), "grid:K:B" (one launch + partial sums).
ForceLaunch parse_launch(const std::string& spec) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (std::size_t c = 0; c <= spec.size(); ++c) {
        if (c == spec.size() || spec[c] == ':') f.push_back(spec.substr(start, c - start)), start = c + 1;
    }
    ForceLaunch l;
    if (f[0] == "auto") return l;
    if (f[0] == "tuned") {
        l.kernel = ForceKernel::tuned;
    } else if (f[0] == "pw") {
        l.kernel = ForceKernel::pairwise;
    } else if (f[0] == "grid") {
        l.kernel = ForceKernel::pairwise_grid;
    } else {
        throw Error("unknown launch '" + spec + "'");
    }
    if (f.size() > 1) l.bodies_per_thread = std::stoi(f[1]);
    if (f.size() > 2) l.block = std::stoi(f[2]);
    if (f.size() > 3) l.splits = std::stoi(f[3]);
    return l;
}

// "N:active" -> (N, active).
std::pair<std::size_t, std::size_t> parse_case(const std::string& spec) {
    const std::size_t colon = spec.find(':');
    if (colon == std::string::npos) throw Error("hermite case '" + spec + "' is not N:active");
    return {std::stoull(spec.substr(0, colon)), std::stoull(spec.substr(colon + 1))};
}

// The integers of "a:b:c".
std::vector<int> colon_ints(const std::string& spec) {
    std::vector<int> f;
    std::size_t start = 0;
    for (std::size_t c = 0; c <= spec.size(); ++c) {
        if (c == spec.size() || spec[c] == ':')
            f.push_back(std::stoi(spec.substr(start, c - start))), start = c + 1;
    }
    return f;
}

// "auto", "one", "K:B[:S]" or "pair:K:B" (a zero is automatic): the one-sided and the pairwise requests.
std::pair<JerkLaunch, PairJerkLaunch> parse_jerk_launch(const std::string& spec) {
    JerkLaunch l;
    PairJerkLaunch pair;
    if (spec == "auto") return {l, pair};
    if (spec == "one") return {l, PairJerkLaunch{0, 0, true}};
    if (spec.rfind("pair:", 0) == 0) {
        const std::vector<int> f = colon_ints(spec.substr(5));
        if (f.size() != 2) throw Error("jerk launch '" + spec + "' is not pair:K:B");
        return {l, PairJerkLaunch{f[0], f[1], false}};
    }
    const std::vector<int> f = colon_ints(spec);
    if (f.size() < 2 || f.size() > 3) throw Error("jerk launch '" + spec + "' is not K:B[:S]");
    l.bodies_per_thread = f[0];
    l.block = f[1];
    if (f.size() > 2) l.splits = f[2];
    return {l, PairJerkLaunch{0, 0, true}};
}

void hermite_rows(const std::vector<std::string>& cases, const std::vector<Precision>& precs,
                  const std::vector<std::string>& launches, int repeats) {
    std::printf("%-6s %8s %8s  %-26s %10s %14s %9s %10s %14s\n", "prec", "N", "active", "force+jerk launch",
                "eval ms", "eval int/s", "GFLOP/s", "block ms", "block int/s");
    for (const Precision p : precs) {
        for (const std::string& spec : cases) {
            const auto [n, active] = parse_case(spec);
            for (const std::string& ls : launches) {
                const auto [one_sided, pair] = parse_jerk_launch(ls);
                const HermiteBlockTiming t = time_hermite_block(n, active, p, repeats, one_sided, pair);
                const double pairs = double(n) * double(active);
                const double eval_ips = pairs / (t.evaluate_ms * 1e-3),
                             block_ips = pairs / (t.block_ms * 1e-3);
                std::printf("%-6s %8zu %8zu  %-26s %10.3f %10.3fe12 %9.0f %10.3f %10.3fe12\n", to_string(p),
                            n, active, t.launch.c_str(), t.evaluate_ms, eval_ips * 1e-12,
                            eval_ips * kFlopsPerJerkInteraction * 1e-9, t.block_ms, block_ips * 1e-12);
                std::fflush(stdout);
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Time the CUDA force kernels"};
    std::vector<std::size_t> ns{16384, 65536, 262144, 1048576};
    std::string precision = "both";
    int repeats = 7;
    bool sweep = false;
    app.add_option("--n", ns, "body counts")->delimiter(',');
    app.add_option("--precision", precision, "float, double or both")
        ->check(CLI::IsMember({"float", "double", "both"}));
    app.add_option("--repeats", repeats, "timed evaluations per row (median reported)")
        ->check(CLI::PositiveNumber);
    app.add_flag("--sweep", sweep, "also time K x block shapes (splits automatic) and split counts");
    bool pairwise = false;
    app.add_flag(
        "--pairwise", pairwise,
        "fp32 only: the tuned kernel (automatic shape), then pairwise K x block shapes, then tuned again "
        "(no baseline)");
    std::vector<std::string> launches;
    app.add_option("--launches", launches,
                   "time these launches per precision and N, in the order given (no baseline): auto, tuned, "
                   "tuned:K:B[:S], pw:K:B, grid:K:B")
        ->delimiter(',');
    bool hermite = false;
    app.add_flag(
        "--hermite", hermite,
        "time the Hermite integrator's force+jerk evaluation and whole blocks instead (no baseline)");
    std::vector<std::string> hermite_cases{"65536:65536", "1048576:256"};
    app.add_option("--hermite-cases", hermite_cases, "--hermite: N:active, active bodies among N sources")
        ->delimiter(',');
    std::vector<std::string> jerk_launches{"auto"};
    app.add_option(
           "--jerk-launches", jerk_launches,
           "--hermite: force+jerk launches per case: auto, one (no pairwise), K:B[:S] (one-sided: K 1, 2, 4; "
           "B 32, 64, 128; 0 = auto), pair:K:B (all active: K 1, 2, 4; B 64, 128, 256)")
        ->delimiter(',');
    CLI11_PARSE(app, argc, argv);

    try {
        const auto dev = cuda_device_info();
        if (!dev) throw Error("no CUDA device");
        std::printf("device: %s, %d SMs, cc %d.%d\n", dev->name.c_str(), dev->sm_count, dev->cc_major,
                    dev->cc_minor);
        std::vector<Precision> precs;
        if (precision != "double") precs.push_back(Precision::f32);
        if (precision != "float") precs.push_back(Precision::f64);
        if (hermite) {
            hermite_rows(hermite_cases, precs, jerk_launches, repeats);
            return 0;
        }
        if (!launches.empty()) {
            for (const Precision p : precs) {
                for (const std::size_t n : ns) {
                    for (const std::string& spec : launches) {
                        const ForceLaunch l = resolve_force_launch(parse_launch(spec), n, p);
                        row(to_string(p), n, spec + ": " + to_string(l), time_force_launch(l, n, p, repeats),
                            0);
                    }
                }
            }
            return 0;
        }
        if (pairwise) {
            for (const std::size_t n : ns) {
                const ForceLaunch a = resolve_force_launch({ForceKernel::tuned, 0, 0, 0}, n, Precision::f32);
                row("float", n, "tuned: " + to_string(a), time_force_launch(a, n, Precision::f32, repeats),
                    0);
                for (int k : {2, 4, 8}) {
                    for (int b : {64, 128, 256}) {
                        const ForceLaunch l =
                            resolve_force_launch({ForceKernel::pairwise, k, b, 0}, n, Precision::f32);
                        row("float", n, to_string(l), time_force_launch(l, n, Precision::f32, repeats), 0);
                    }
                }
                row("float", n, "tuned: " + to_string(a), time_force_launch(a, n, Precision::f32, repeats),
                    0);
            }
            return 0;
        }
        for (const Precision p : precs) {
            for (const std::size_t n : ns) {
                const ExternalForceKernel baseline = baseline_force_kernel();
                const ForceKernelTiming t = time_force_kernels(n, p, repeats, baseline);
                row(to_string(p), n, baseline.name, t.other_ms, 0);
                if (sweep) {
                    for (int k : {2, 4, 8}) {
                        for (int b : {64, 128, 256}) {
                            const ForceLaunch l = resolve_force_launch({ForceKernel::tuned, k, b, 0}, n, p);
                            row(to_string(p), n, to_string(l), time_force_launch(l, n, p, repeats),
                                t.other_ms);
                        }
                    }
                    // The automatic K and block with other split counts.
                    const ForceLaunch a = resolve_force_launch({}, n, p);
                    for (int s : {1, 4, 16, 24, 32, 48, 64}) {
                        const ForceLaunch l =
                            resolve_force_launch({ForceKernel::tuned, a.bodies_per_thread, a.block, s}, n, p);
                        row(to_string(p), n, to_string(l), time_force_launch(l, n, p, repeats), t.other_ms);
                    }
                }
                row(to_string(p), n, "auto: " + t.production_launch, t.production_ms, t.other_ms);
            }
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "nbody_cuda_bench: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
