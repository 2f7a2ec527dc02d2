// The CUDA backend's block time steps (hermite_steps.hpp): the O(N) kernels of a block (predict,
// correct, start, end of a max step), the active set through CUB, and the one read-back per block.
// Built without -ftz (as step_kernels.cu): float denormals behave as on the host, and the finiteness check
// of the corrected bodies sees real NaN/Inf bits.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <random>
#include <unordered_map>
#include <vector>

#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "finite_bits.cuh"
#include "hermite_steps.hpp"
#include "launch.cuh"
#include "pinned_buffer.hpp"
#include "sim/error.hpp"
#include "sim/integrate/hermite.hpp"
#include "step_kernels.hpp"

namespace nbody {
namespace {

constexpr unsigned kBlock = 256;

// What next_block reads back: the block time, the number of bodies due then, and the failure flag.
struct DeviceNextBlock {
    std::int64_t tick;
    std::int64_t active;
    unsigned long long bad;
};

// Body i is due at the block time.
struct IsDue {
    const std::int64_t* __restrict__ due;
    const std::int64_t* __restrict__ tick;
    __device__ bool operator()(std::uint32_t i) const { return due[i] == *tick; }
};

__global__ void iota_kernel(std::uint32_t* __restrict__ out, std::size_t n) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = std::uint32_t(i);
}

// After the start's force+jerk evaluation of every body (a1, j1 in body order): the body's first level
// from hermite_start_step, its clock at tick 0 (due one step later).
template <typename T>
__global__ void start_kernel(const Vec4<T>* __restrict__ a1, const Vec4<T>* __restrict__ j1, std::size_t n,
                             double eta, double dt, Vec4<T>* __restrict__ acc, Vec4<T>* __restrict__ jerk,
                             int* __restrict__ level, std::int64_t* __restrict__ due,
                             const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    const Vec4<T> a = a1[i], j = j1[i];
    acc[i] = a;
    jerk[i] = j;
    const int l = level_for_step(hermite_start_step(eta, a, j), dt);
    level[i] = l;
    due[i] = level_ticks(l);
}

// Every body predicted to `tick` from its own time (its due tick minus its step).
template <typename T>
__global__ void predict_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel,
                               const Vec4<T>* __restrict__ acc, const Vec4<T>* __restrict__ jerk,
                               const int* __restrict__ level, const std::int64_t* __restrict__ due,
                               std::size_t n, std::int64_t tick, double dt, Vec4<T>* __restrict__ xp,
                               Vec4<T>* __restrict__ vp, const unsigned long long* __restrict__ bad,
                               unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    const std::int64_t own = due[i] - level_ticks(level[i]);
    const T h = static_cast<T>(ticks_to_time(tick - own, dt));
    Vec4<T> x, v;
    hermite_predict(pos[i], vel[i], acc[i], jerk[i], h, x, v);
    xp[i] = x;
    vp[i] = v;
}

// The active body k (index active[k]) corrected to `tick` with its new force and jerk (a1[k], j1[k]):
// new position and velocity, its acceleration and jerk kept, its clock at `tick`, its next level; a
// non-finite result is recorded in *bad as bad_code(step, body).
template <typename T>
__global__ void correct_kernel(const std::uint32_t* __restrict__ active, std::size_t m, std::int64_t tick,
                               double dt, double eta, const Vec4<T>* __restrict__ xp,
                               const Vec4<T>* __restrict__ vp, const Vec4<T>* __restrict__ a1,
                               const Vec4<T>* __restrict__ j1, Vec4<T>* __restrict__ pos,
                               Vec4<T>* __restrict__ vel, Vec4<T>* __restrict__ acc,
                               Vec4<T>* __restrict__ jerk, int* __restrict__ level,
                               std::int64_t* __restrict__ due, unsigned long long* __restrict__ bad,
                               unsigned long long step_code) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= m || (bad && *bad < step_code)) return;
    const std::uint32_t i = active[k];
    const int l = level[i];
    const std::int64_t own = due[i] - level_ticks(l);
    const T h = static_cast<T>(ticks_to_time(tick - own, dt));
    const Vec4<T> a = a1[k], j = j1[k];
    Vec4<T> x, v;
    const double wanted = hermite_correct(xp[i], vp[i], acc[i], jerk[i], a, j, h, eta, x, v);
    pos[i] = x;
    vel[i] = v;
    acc[i] = a;
    jerk[i] = j;
    const int next = next_level(l, level_for_step(wanted, dt), tick);
    level[i] = next;
    due[i] = tick + level_ticks(next);
    if (bad) {
        const bool ok = finite_bits(x.x) && finite_bits(x.y) && finite_bits(x.z) && finite_bits(v.x) &&
                        finite_bits(v.y) && finite_bits(v.z);
        if (!ok) atomicMin(bad, step_code | i);
    }
}

// The end of a max step: every body is at kTicksPerMaxStep, which becomes tick 0 of the next one.
__global__ void finish_kernel(const int* __restrict__ level, std::int64_t* __restrict__ due, std::size_t n,
                              const unsigned long long* __restrict__ bad, unsigned long long bad_before) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (bad && *bad < bad_before)) return;
    due[i] = level_ticks(level[i]);
}

// Levels set from outside, every clock at tick 0 (the benchmark's block of a chosen size).
__global__ void set_levels_kernel(const int* __restrict__ wanted, std::size_t n, int* __restrict__ level,
                                  std::int64_t* __restrict__ due) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    level[i] = wanted[i];
    due[i] = level_ticks(wanted[i]);
}

template <typename T>
class CudaBlockSteps final : public DeviceBlockSteps {
  public:
    CudaBlockSteps(std::function<DeviceBodies<T>()> bodies, std::function<void()> on_move)
        : bodies_(std::move(bodies)), on_move_(std::move(on_move)) {
        next_.resize(1);
        next_host_.reserve(1);
    }

    bool ready(const Params& p) override {
        return params_ && same_block_model(*params_, p) && bodies_().n == n_;
    }

    void init(const Params& p) override {
        const DeviceBodies<T> b = bodies_();
        params_.reset();
        allocate(b.n);
        stopped_ = false;
        if (n_ > 0) {
            // Every body is active at the start, at its own position: force and jerk, then its level.
            CUDA_CHECK(cudaMemcpyAsync(xp_.data(), b.pos, n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpyAsync(vp_.data(), b.vel, n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice));
            launch_kernel(iota_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, nullptr, active_.data(),
                          n_);
            m_ = n_;
            evaluate_active(b, p);
            launch_kernel(start_kernel<T>, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, nullptr, a1_.data(),
                          j1_.data(), n_, p.eta, p.dt, acc_.data(), jerk_.data(), level_.data(), due_.data(),
                          b.bad, gate(b));
        }
        params_ = p;
        ++counters_.starts;
        counters_.body_updates += n_;
    }

    NextBlock next_block() override {
        const DeviceBodies<T> b = bodies_();
        m_ = 0;
        stopped_ = false;
        if (n_ == 0) return {kTicksPerMaxStep, 0};
        DeviceNextBlock* d = next_.data();
        std::size_t bytes = cub_bytes_;
        CUDA_CHECK(cub::DeviceReduce::Min(cub_temp_.data(), bytes, due_.data(), &d->tick, n_, nullptr));
        bytes = cub_bytes_;
        CUDA_CHECK(cub::DeviceSelect::If(cub_temp_.data(), bytes, thrust::counting_iterator<std::uint32_t>(0),
                                         active_.data(), &d->active, std::int64_t(n_),
                                         IsDue{due_.data(), &d->tick}, nullptr));
        if (b.bad) {
            CUDA_CHECK(cudaMemcpyAsync(&d->bad, b.bad, sizeof d->bad, cudaMemcpyDeviceToDevice));
        }
        // The one read-back of the block (it waits for the two CUB calls).
        DeviceNextBlock* h = next_host_.data();
        CUDA_CHECK(cudaMemcpy(h, d, sizeof *h, cudaMemcpyDeviceToHost));
        seen_bad_ = b.bad ? h->bad : kNoBadBody;
        if (b.bad && seen_bad_ < bad_code(b.step, 0)) {
            // An earlier step of this call failed: the bodies stay as that step left them, and this max
            // step ends at once (its kernels would all return at the gate anyway).
            stopped_ = true;
            return {kTicksPerMaxStep, 0};
        }
        m_ = std::size_t(h->active);
        return {h->tick, m_};
    }

    void predict(std::int64_t tick) override {
        if (stopped_ || n_ == 0) return;
        const DeviceBodies<T> b = bodies_();
        launch_kernel(predict_kernel<T>, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, nullptr, b.pos, b.vel,
                      acc_.data(), jerk_.data(), level_.data(), due_.data(), n_, tick, params_->dt,
                      xp_.data(), vp_.data(), b.bad, gate(b));
    }

    void evaluate() override {
        if (stopped_ || m_ == 0) return;
        evaluate_active(bodies_(), *params_);
    }

    void correct(std::int64_t tick) override {
        if (stopped_) return;
        const DeviceBodies<T> b = bodies_();
        launch_kernel(correct_kernel<T>, dim3(blocks_for(m_, kBlock)), dim3(kBlock), 0, nullptr,
                      active_.data(), m_, tick, params_->dt, params_->eta, xp_.data(), vp_.data(), a1_.data(),
                      j1_.data(), b.pos, b.vel, acc_.data(), jerk_.data(), level_.data(), due_.data(), b.bad,
                      gate(b));
        ++counters_.blocks;
        pending_updates_ += m_;
        if (on_move_ && m_ > 0) on_move_();
    }

    void finish_max_step() override {
        if (!stopped_ && n_ > 0) {
            const DeviceBodies<T> b = bodies_();
            launch_kernel(finish_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, nullptr,
                          level_.data(), due_.data(), n_, b.bad, gate(b));
        }
        counters_.body_updates += pending_updates_;
        pending_updates_ = 0;
    }

    void invalidate() override { params_.reset(); }
    BlockCounters counters() const override { return counters_; }

    std::vector<int> levels() const override {
        if (!params_) return {};
        std::vector<int> out(n_);
        level_.copy_to_host(out.data(), n_);
        return out;
    }

    std::optional<std::size_t> failed_body() const override {
        if (seen_bad_ == kNoBadBody) return std::nullopt;
        return std::size_t(seen_bad_ & 0xffffffffull);
    }
    void clear_failure() override { seen_bad_ = kNoBadBody; }

    // The benchmark's hook: levels chosen from outside (host copy, one per body), every clock at 0.
    void set_levels(const std::vector<int>& levels) {
        if (!params_ || levels.size() != n_)
            throw Error("block steps: set_levels needs a started state of N");
        DeviceBuffer<int> wanted(n_);
        wanted.copy_from_host(levels.data(), n_);
        launch_kernel(set_levels_kernel, dim3(blocks_for(n_, kBlock)), dim3(kBlock), 0, nullptr,
                      wanted.data(), n_, level_.data(), due_.data());
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    // The benchmark's: evaluations from now on at this launch (zero fields automatic per block).
    void set_launch(const JerkLaunch& requested) {
        requested_ = requested;
        launches_.clear();
    }

  private:
    // The kernels of step s return at once when an earlier step failed (*bad < bad_code(s, 0)).
    static unsigned long long gate(const DeviceBodies<T>& b) { return b.bad ? bad_code(b.step, 0) : 0; }

    void allocate(std::size_t n) {
        if (n != n_) launches_.clear();
        n_ = n;
        for (DeviceBuffer<Vec4<T>>* v : {&acc_, &jerk_, &xp_, &vp_, &a1_, &j1_}) v->resize(n);
        due_.resize(n);
        level_.resize(n);
        active_.resize(n);
        // Scratch for both CUB calls at this N (the largest of the two).
        std::size_t reduce_bytes = 0, select_bytes = 0;
        if (n > 0) {
            CUDA_CHECK(
                cub::DeviceReduce::Min(nullptr, reduce_bytes, due_.data(), &next_.data()->tick, n, nullptr));
            CUDA_CHECK(cub::DeviceSelect::If(
                nullptr, select_bytes, thrust::counting_iterator<std::uint32_t>(0), active_.data(),
                &next_.data()->active, std::int64_t(n), IsDue{due_.data(), &next_.data()->tick}, nullptr));
        }
        cub_bytes_ = std::max<std::size_t>({reduce_bytes, select_bytes, 1});
        cub_temp_.resize(cub_bytes_);
    }

    JerkLaunch launch_for(std::size_t m) {
        auto it = launches_.find(m);
        if (it == launches_.end()) {
            it = launches_.emplace(m, resolve_jerk_launch(requested_, m, n_, precision_of<T>())).first;
        }
        return it->second;
    }

    // Force and jerk of the m_ bodies in active_ against all n_ predicted bodies, into a1_, j1_.
    void evaluate_active(const DeviceBodies<T>& b, const Params& p) {
        const JerkLaunch l = launch_for(m_);
        const std::size_t need = jerk_scratch_count(l, m_);
        if (scratch_.size() < need) scratch_.resize(need);
        launch_jerks<T>(l, xp_.data(), vp_.data(), n_, active_.data(), m_, T(p.G), softening2<T>(p),
                        a1_.data(), j1_.data(), scratch_.data(), b.bad, gate(b), nullptr);
    }

    std::function<DeviceBodies<T>()> bodies_;
    std::function<void()> on_move_;
    std::optional<Params> params_;  // what init was given; empty: no valid state
    std::size_t n_ = 0;
    DeviceBuffer<Vec4<T>> acc_, jerk_;    // at each body's own time (its last correction)
    DeviceBuffer<Vec4<T>> xp_, vp_;       // every body predicted to the current block
    DeviceBuffer<Vec4<T>> a1_, j1_;       // the active bodies' new force and jerk, in active-set order
    DeviceBuffer<std::int64_t> due_;      // each body's next time, ticks since the max step began
    DeviceBuffer<int> level_;             // its step is dt / 2^level; its own time is due - level_ticks
    DeviceBuffer<std::uint32_t> active_;  // the active set: indices of the bodies due, ascending
    DeviceBuffer<Vec4<T>> scratch_;       // the force+jerk kernel's partial sums
    DeviceBuffer<unsigned char> cub_temp_;
    std::size_t cub_bytes_ = 0;
    DeviceBuffer<DeviceNextBlock> next_;
    PinnedBuffer<DeviceNextBlock> next_host_;
    JerkLaunch requested_;                                  // all automatic but in the benchmark
    std::unordered_map<std::size_t, JerkLaunch> launches_;  // resolved per active count
    std::size_t m_ = 0;                                     // the current block's active count
    bool stopped_ = false;  // an earlier step of this step() call failed: this max step does nothing
    unsigned long long seen_bad_ = kNoBadBody;
    BlockCounters counters_;
    std::uint64_t pending_updates_ = 0;  // active bodies since the last count
};

// Random bodies uniform in [-1, 1]^3, masses around 1/n, small velocities (force_timing.cu's bodies, with
// velocities for the jerk).
State<double> random_bench_bodies(std::size_t n) {
    std::mt19937_64 g(12345);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    State<double> s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.pos_mass[i] = {u(g), u(g), u(g), (1.0 + 0.5 * u(g)) / double(n)};
        s.vel[i] = {0.1 * u(g), 0.1 * u(g), 0.1 * u(g), 0.0};
    }
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size();
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

template <typename T>
HermiteBlockTiming time_block(std::size_t n, std::size_t active, int repeats, const JerkLaunch& requested) {
    const State<T> host = convert_state<T>(random_bench_bodies(n));
    DeviceBuffer<Vec4<T>> pos(n), vel(n);
    pos.copy_from_host(host.pos_mass.data(), n);
    vel.copy_from_host(host.vel.data(), n);
    CudaBlockSteps<T> steps([&] { return DeviceBodies<T>{pos.data(), vel.data(), n, nullptr, 0}; }, nullptr);
    Params p;
    p.integrator = Integrator::hermite;
    p.softening = 0.01;
    p.dt = 1.0 / 64;
    p.eta = 1e30;  // every body's start step is the max step: level 0
    steps.init(p);
    // `active` bodies spread evenly over the indices at level 1 (due at half the max step), the rest at 0;
    // all at level 0 when every body is active.
    std::vector<int> levels(n, 0);
    if (active < n) {
        for (std::size_t k = 0; k < active; ++k) levels[k * n / active] = 1;
    }
    steps.set_launch(requested);
    HermiteBlockTiming t;
    t.launch = to_string(resolve_jerk_launch(requested, active, n, precision_of<T>()));
    std::vector<double> block_ms, eval_ms;
    cudaEvent_t start{}, stop{};
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    try {
        for (int r = -2; r < std::max(1, repeats); ++r) {  // two warm-up rounds
            steps.set_levels(levels);
            const auto t0 = std::chrono::steady_clock::now();
            const NextBlock b = steps.next_block();
            if (b.active != active)
                throw Error("benchmark block: " + std::to_string(b.active) + " bodies due");
            steps.predict(b.tick);
            steps.evaluate();
            steps.correct(b.tick);
            CUDA_CHECK(cudaDeviceSynchronize());
            const auto t1 = std::chrono::steady_clock::now();
            if (r >= 0) block_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
        // The evaluation alone, again and again on the same active set and predicted bodies.
        steps.set_levels(levels);
        const NextBlock b = steps.next_block();
        steps.predict(b.tick);
        for (int r = -2; r < std::max(1, repeats); ++r) {
            CUDA_CHECK(cudaEventRecord(start));
            steps.evaluate();
            CUDA_CHECK(cudaEventRecord(stop));
            CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (r >= 0) eval_ms.push_back(ms);
        }
    } catch (...) {
        CUDA_CHECK_LOG(cudaEventDestroy(start));
        CUDA_CHECK_LOG(cudaEventDestroy(stop));
        throw;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    t.block_ms = median(block_ms);
    t.evaluate_ms = median(eval_ms);
    return t;
}

}  // namespace

template <typename T>
std::unique_ptr<DeviceBlockSteps> make_device_block_steps(std::function<DeviceBodies<T>()> bodies,
                                                          std::function<void()> on_move) {
    return std::make_unique<CudaBlockSteps<T>>(std::move(bodies), std::move(on_move));
}

template std::unique_ptr<DeviceBlockSteps> make_device_block_steps<float>(
    std::function<DeviceBodies<float>()>, std::function<void()>);
template std::unique_ptr<DeviceBlockSteps> make_device_block_steps<double>(
    std::function<DeviceBodies<double>()>, std::function<void()>);

HermiteBlockTiming time_hermite_block(std::size_t n, std::size_t active, Precision p, int repeats,
                                      const JerkLaunch& launch) {
    if (!cuda_device_info()) throw Error("no CUDA device: cannot time the Hermite block");
    if (n == 0 || active == 0 || active > n) throw Error("benchmark block: need 0 < active <= N");
    if (n >= (std::size_t(1) << 32)) throw Error("benchmark block: N must be below 2^32");
    if (p == Precision::f32) return time_block<float>(n, active, repeats, launch);
    return time_block<double>(n, active, repeats, launch);
}

}  // namespace nbody
