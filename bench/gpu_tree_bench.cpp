// nbody_gpu_tree_bench: the GPU Barnes-Hut tree (cuda/device_tree.hpp) on the built-in presets. Per row: ms
// per whole leapfrog step (kick-drift pass, tree forces, kick pass; median over timed steps), where the
// tree's time went (last step), interactions actually evaluated per body, and the relative force error
// of the first evaluation against a float64 direct sum on a fixed sample of bodies.
//   nbody_gpu_tree_bench [--n 262144,1048576] [--preset plummer,cube] [--theta 0.6] [--steps 10] [--sample
//   1000]
//                    [--leaf 16] [--group-cut 1024,...] [--mono-power 2,0,...] [--variant 0]
#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_tree.hpp"
#include "cuda/step_kernels.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_error.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/presets.hpp"

namespace {

using namespace nbody;

// The relative force error over `sample` against the float64 direct sum on the sample
// (sim/gravity/force_error.hpp, the project's one statistic).
ForceErrorStats sample_errors(const std::vector<Vec4<float>>& bodies, const std::vector<Vec4<float>>& acc,
                              const std::vector<std::size_t>& sample, double G, double eps) {
    if (sample.empty()) return {};
    std::vector<Vec4<double>> ref(sample.size());
    direct_accelerations_at(bodies.data(), bodies.size(), sample.data(), sample.size(), G, eps, ref.data());
    std::vector<Vec4<float>> picked;
    for (std::size_t k : sample) picked.push_back(acc[k]);
    return force_error_stats(picked.data(), ref.data(), picked.size());
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Time the GPU Barnes-Hut tree"};
    std::vector<std::size_t> ns{262144, 1048576};
    std::vector<std::string> presets_wanted{"plummer", "cube"};
    float theta = 0.6f;
    int steps = 10, leaf = 16;
    std::size_t sample_size = 1000;
    std::vector<int> group_cuts{DeviceTreeSettings{}.group_cut};
    std::vector<double> mono_powers{DeviceTreeSettings{}.monopole_power};
    int variant = 0;
    app.add_option("--n", ns, "body counts")->delimiter(',');
    app.add_option("--preset", presets_wanted, "presets")->delimiter(',');
    app.add_option("--theta", theta, "opening angle")->check(CLI::Range(0.0f, 1.0f));
    app.add_option("--steps", steps, "timed steps per row (median reported)")->check(CLI::PositiveNumber);
    app.add_option("--sample", sample_size, "bodies in the error sample (0: no error column)");
    app.add_option("--leaf", leaf, "leaf size")->check(CLI::PositiveNumber);
    app.add_option("--group-cut", group_cuts,
                   "walk groups never span children of cells above this many bodies "
                   "(0: plain runs of 32); several values: one row each")
        ->delimiter(',');
    app.add_option("--mono-power", mono_powers,
                   "far cells as monopoles beyond the opening rule at theta^p (<= 0: never); several values: "
                   "one row each")
        ->delimiter(',');
    app.add_option("--variant", variant, "walk kernel variant (experiments)");
    CLI11_PARSE(app, argc, argv);

    try {
        const auto dev = cuda_device_info();
        if (!dev) throw Error("no CUDA device");
        std::printf("device: %s, %d SMs; theta %.2f, leaf %d, groups of 32\n", dev->name.c_str(),
                    dev->sm_count, double(theta), leaf);
        std::printf(
            "csv,preset,n,theta,group_cut,mono_power,ms_step,ms_step_back_to_back,ms_sort,ms_build,ms_"
            "moments,ms_walk,"
            "interactions_per_body,"
            "err_median,err_p99,err_max,nodes,leaves,depth\n");
        std::vector<std::pair<int, double>> configs;  // one row each
        for (const int cut : group_cuts)
            for (const double p : mono_powers) configs.emplace_back(cut, p);
        cudaStream_t stream = nullptr;
        CUDA_CHECK(cudaStreamCreate(&stream));
        for (const std::string& preset : presets_wanted) {
            const PresetInfo* info = find_preset(preset);
            if (!info) throw Error("unknown preset '" + preset + "'");
            for (const std::size_t n : ns) {
                for (const auto& [group_cut, mono_power] : configs) {
                    const HostState hs = make_preset(preset, n, 42);
                    std::vector<Vec4<float>> pos(n), vel(n);
                    for (std::size_t i = 0; i < n; ++i) {
                        const auto& p = hs.pos_mass[i];
                        const auto& v = hs.vel[i];
                        pos[i] = {float(p.x), float(p.y), float(p.z), float(p.w)};
                        vel[i] = {float(v.x), float(v.y), float(v.z), 0.0f};
                    }
                    const float G = float(info->params.G);
                    const float eps2 = softening2<float>(info->params), dt = float(info->params.dt);
                    DeviceBuffer<Vec4<float>> d_pos(n), d_vel(n), d_acc(n);
                    DeviceBuffer<unsigned long long> bad(1);
                    CUDA_CHECK(cudaMemcpy(d_pos.data(), pos.data(), d_pos.bytes(), cudaMemcpyHostToDevice));
                    CUDA_CHECK(cudaMemcpy(d_vel.data(), vel.data(), d_vel.bytes(), cudaMemcpyHostToDevice));
                    CUDA_CHECK(cudaMemset(bad.data(), 0xff, bad.bytes()));
                    DeviceTreeSettings settings;
                    settings.leaf_size = leaf;
                    settings.time_phases = true;
                    settings.group_cut = group_cut;
                    settings.walk_variant = variant;
                    settings.monopole_power = mono_power;
                    DeviceTree tree(n, 0, settings);

                    // The first evaluation: counts and the error sample.
                    tree.reset_interactions(stream);
                    tree.accelerations(d_pos.data(), n, d_acc.data(), nullptr, G, eps2, theta, stream);
                    const DeviceTreeStats st = tree.stats(stream);
                    std::vector<Vec4<float>> acc(n);
                    CUDA_CHECK(cudaMemcpy(acc.data(), d_acc.data(), d_acc.bytes(), cudaMemcpyDeviceToHost));
                    const std::vector<std::size_t> sample =
                        sample_size > 0 ? error_sample(n, sample_size) : std::vector<std::size_t>{};
                    const ForceErrorStats err = sample_errors(pos, acc, sample, G, info->params.softening);

                    // Whole leapfrog steps: kick + drift, forces, kick.
                    UpdateSequence<float> kick_drift, kick;
                    kick_drift.count = 2;
                    kick_drift.op[0] = UpdateOp::kick, kick_drift.h[0] = 0.5f * dt;
                    kick_drift.op[1] = UpdateOp::drift, kick_drift.h[1] = dt;
                    kick.count = 1;
                    kick.op[0] = UpdateOp::kick, kick.h[0] = 0.5f * dt;
                    cudaEvent_t e0, e1;
                    CUDA_CHECK(cudaEventCreate(&e0));
                    CUDA_CHECK(cudaEventCreate(&e1));
                    std::vector<float> ms;
                    DeviceTreePhases ph;
                    for (int s = 0; s < steps + 2; ++s) {
                        CUDA_CHECK(cudaEventRecord(e0, stream));
                        launch_update<float>(d_pos.data(), d_vel.data(), d_acc.data(), n, kick_drift,
                                             bad.data(), std::uint64_t(s), stream);
                        tree.accelerations(d_pos.data(), n, d_acc.data(), nullptr, G, eps2, theta, stream);
                        launch_update<float>(d_pos.data(), d_vel.data(), d_acc.data(), n, kick, bad.data(),
                                             std::uint64_t(s), stream);
                        CUDA_CHECK(cudaEventRecord(e1, stream));
                        CUDA_CHECK(cudaEventSynchronize(e1));
                        float t = 0;
                        CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
                        if (s >= 2) ms.push_back(t);  // two warm-up steps
                        ph = tree.phase_ms(stream);
                    }
                    std::sort(ms.begin(), ms.end());
                    const double med = ms[ms.size() / 2];
                    // Steady state: the same steps back to back without waiting for each (as a run does),
                    // so the host's launches of one step overlap the previous step's walk.
                    CUDA_CHECK(cudaEventRecord(e0, stream));
                    for (int s = 0; s < steps; ++s) {
                        launch_update<float>(d_pos.data(), d_vel.data(), d_acc.data(), n, kick_drift,
                                             bad.data(), std::uint64_t(s), stream);
                        tree.accelerations(d_pos.data(), n, d_acc.data(), nullptr, G, eps2, theta, stream);
                        launch_update<float>(d_pos.data(), d_vel.data(), d_acc.data(), n, kick, bad.data(),
                                             std::uint64_t(s), stream);
                    }
                    CUDA_CHECK(cudaEventRecord(e1, stream));
                    CUDA_CHECK(cudaEventSynchronize(e1));
                    float steady_total = 0;
                    CUDA_CHECK(cudaEventElapsedTime(&steady_total, e0, e1));
                    const double steady = double(steady_total) / steps;
                    const DeviceTreeStats st2 = tree.stats(stream);
                    std::printf(
                        "%-8s n=%9zu cut %5d p %.1f %8.3f ms/step (%.3f back to back)  (sort %.3f build "
                        "%.3f "
                        "moments %.3f walk %.3f)  "
                        "%6.0f int/body  err median %.2e p99 %.2e max %.2e  nodes %zu depth %d%s\n",
                        preset.c_str(), n, group_cut, mono_power, med, steady, double(ph.sort),
                        double(ph.build), double(ph.moments), double(ph.walk),
                        double(st.interactions) / double(n), err.median, err.p99, err.max, st.nodes, st.depth,
                        st2.node_overflow ? "  NODE STORAGE FULL" : "");
                    std::printf(
                        "    cells %.0f/body (%.0f as monopoles), lane use %.1f%%, %.1f walk iterations "
                        "and %.0f sources "
                        "evaluated per run of 32 targets; stack peak %d of %d\n",
                        double(st.cell_interactions) / double(n),
                        double(st.monopole_interactions) / double(n),
                        100.0 * double(st.interactions) / (32.0 * double(st.warp_evaluations)),
                        32.0 * double(st.walk_iterations) / double(n),
                        32.0 * double(st.warp_evaluations) / double(n), st2.stack_peak,
                        kDeviceTreeStackBound);
                    std::printf(
                        "csv,%s,%zu,%.3f,%d,%.2f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.1f,%.3e,%.3e,%.3e,%zu,%"
                        "zu,%d\n",
                        preset.c_str(), n, double(theta), group_cut, mono_power, med, steady, double(ph.sort),
                        double(ph.build), double(ph.moments), double(ph.walk),
                        double(st.interactions) / double(n), err.median, err.p99, err.max, st.nodes,
                        st.leaves, st.depth);
                    std::fflush(stdout);
                    CUDA_CHECK(cudaEventDestroy(e0));
                    CUDA_CHECK(cudaEventDestroy(e1));
                }
            }
        }
        CUDA_CHECK(cudaStreamDestroy(stream));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nbody: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
