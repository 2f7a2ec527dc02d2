// Timing one force evaluation: CUDA events around each launch, warm-up first, median of the repeats.
#include <cuda_runtime.h>

#include <algorithm>
#include <random>
#include <vector>

#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "sim/error.hpp"
#include "sim/gravity/interaction.hpp"

namespace nbody {
namespace {

// Softening for the timed bodies: nonzero, as in every preset, so the tuned kernel runs its unguarded
// form; the bodies fill the unit cube, so no pair comes near overflow.
constexpr double kBenchSoftening = 0.01;

class Event {
  public:
    Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() { CUDA_CHECK_LOG(cudaEventDestroy(e_)); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

  private:
    cudaEvent_t e_{};
};

// Random bodies uniform in [-1, 1]^3 with masses around 1/n (never zeros: they hide wrong indexing).
template <typename T>
DeviceBuffer<Vec4<T>> random_positions(std::size_t n) {
    std::mt19937_64 g(12345);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<Vec4<T>> host(n);
    for (auto& p : host) p = {T(u(g)), T(u(g)), T(u(g)), T((1.0 + 0.5 * u(g)) / double(n))};
    DeviceBuffer<Vec4<T>> pos(n);
    pos.copy_from_host(host.data(), n);
    return pos;
}

// Median milliseconds of run() (which launches one force evaluation on the default stream).
template <typename Run>
double median_event_ms(Run&& run, int repeats) {
    run();  // warm-up: module load, caches, clocks
    run();
    CUDA_CHECK(cudaDeviceSynchronize());
    Event start, stop;
    std::vector<double> ms;
    for (int r = 0; r < std::max(1, repeats); ++r) {
        CUDA_CHECK(cudaEventRecord(start.get()));
        run();
        CUDA_CHECK(cudaEventRecord(stop.get()));
        CUDA_CHECK(cudaEventSynchronize(stop.get()));
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, start.get(), stop.get()));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const std::size_t m = ms.size();
    return m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]);
}

template <typename T>
double time_launch(const ForceLaunch& l, const DeviceBuffer<Vec4<T>>& pos, std::size_t n, int repeats) {
    DeviceBuffer<Vec4<T>> acc(n), scratch(force_scratch_count(l, n));
    const T eps2 = softening2<T>(kBenchSoftening);
    return median_event_ms(
        [&] {
            launch_forces<T>(l, pos.data(), acc.data(), scratch.data(), n, T(1), eps2, false, nullptr, 0,
                             nullptr);
        },
        repeats);
}

template <typename T, typename Kernel>
double time_external(Kernel kernel, const DeviceBuffer<Vec4<T>>& pos, std::size_t n, int repeats) {
    if (!kernel) return 0;
    DeviceBuffer<Vec4<T>> acc(n);
    const T eps2 = softening2<T>(kBenchSoftening);
    return median_event_ms([&] { kernel(pos.data(), acc.data(), n, T(1), eps2, nullptr); }, repeats);
}

void require_bench_device(std::size_t n) {
    if (!cuda_device_info()) throw Error("no CUDA device: cannot time the CUDA kernels");
    if (n == 0) throw Error("benchmark N must be positive");
}

}  // namespace

double time_force_launch(const ForceLaunch& launch, std::size_t n, Precision p, int repeats) {
    require_bench_device(n);
    const ForceLaunch l = resolve_force_launch(launch, n, p);
    if (p == Precision::f32) return time_launch<float>(l, random_positions<float>(n), n, repeats);
    return time_launch<double>(l, random_positions<double>(n), n, repeats);
}

ForceKernelTiming time_force_kernels(std::size_t n, Precision p, int repeats,
                                     const ExternalForceKernel& other) {
    require_bench_device(n);
    ForceKernelTiming t;
    const ForceLaunch production = resolve_force_launch({}, n, p);
    t.production_launch = to_string(production);
    if (p == Precision::f32) {
        const auto pos = random_positions<float>(n);
        t.production_ms = time_launch<float>(production, pos, n, repeats);
        t.other_ms = time_external<float>(other.f32, pos, n, repeats);
    } else {
        const auto pos = random_positions<double>(n);
        t.production_ms = time_launch<double>(production, pos, n, repeats);
        t.other_ms = time_external<double>(other.f64, pos, n, repeats);
    }
    return t;
}

}  // namespace nbody
