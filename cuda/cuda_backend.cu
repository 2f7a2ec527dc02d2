// The CUDA backend: state on the device, integrators as a few O(N) kernels around the O(N^2) force
// kernel, one 8-byte read-back per step() call for the failure flag.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/step_kernels.hpp"
#include "sim/error.hpp"
#include "sim/memory.hpp"

namespace nbody {
namespace {

// "" when a device is usable, else CUDA's reason (never throws: the registry is built at start-up).
std::string device_problem() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        // The common laptop case: no NVIDIA driver at all reads "driver version is insufficient".
        if (e == cudaErrorInsufficientDriver) {
            return "no NVIDIA driver is loaded, or it is older than this CUDA runtime";
        }
        return cudaGetErrorString(e);
    }
    return count > 0 ? "" : "no device found";
}

void require_device() {
    const std::string problem = device_problem();
    if (!problem.empty()) throw Error("no CUDA device: " + problem);
}

template <typename T>
class CudaBackend final : public Backend {
  public:
    explicit CudaBackend(const ForceLaunch& launch) : requested_(launch) {
        require_device();
        bad_.resize(1);
        moments_.resize(std::size_t(kMaxMomentRows) * kMomentSums);
    }

    std::string name() const override { return "cuda"; }
    Precision precision() const override { return precision_of<T>(); }
    std::size_t size() const override { return n_; }

    void set_state(const HostState& s) override {
        const std::size_t n = s.size();
        if (n >= (std::size_t(1) << 32)) throw Error("cuda backend: N must be below 2^32");
        const ForceLaunch launch = resolve_force_launch(requested_, n, precision_of<T>());
        check_device_memory(n, launch);
        State<T> host = convert_state<T>(s);
        pos_.resize(n), vel_.resize(n), acc_.resize(n);
        scratch_.resize(force_scratch_count(launch, n));
        if (n > 0) {
            CUDA_CHECK(
                cudaMemcpy(pos_.data(), host.pos_mass.data(), n * sizeof(Vec4<T>), cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(vel_.data(), host.vel.data(), n * sizeof(Vec4<T>), cudaMemcpyHostToDevice));
        }
        n_ = n;
        t_ = s.t;
        launch_ = launch;
        max_mass_ = 0;
        for (const auto& p : host.pos_mass) max_mass_ = std::max(max_mass_, std::abs(double(p.w)));
        acc_valid_ = false;
    }

    HostState get_state() const override {
        State<T> host;
        host.resize(n_);
        host.t = t_;
        if (n_ > 0) {
            CUDA_CHECK(
                cudaMemcpy(host.pos_mass.data(), pos_.data(), n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToHost));
            CUDA_CHECK(
                cudaMemcpy(host.vel.data(), vel_.data(), n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToHost));
        }
        return convert_state<double>(host);
    }

    StepReport step(const Params& p, std::int64_t steps) override {
        StepReport r;
        // Step numbers live in the flag's upper 32 bits: run long calls in chunks.
        constexpr std::int64_t kChunk = std::int64_t(1) << 30;
        while (r.steps_done < steps && r.finite) {
            const std::int64_t k = std::min(kChunk, steps - r.steps_done);
            const StepReport c = step_chunk(p, k);
            if (!c.finite) r.finite = false, r.bad_step = r.steps_done + c.bad_step, r.bad_body = c.bad_body;
            r.steps_done += c.steps_done;
        }
        return r;
    }

    std::vector<Vec4<double>> accelerations(const Params& p) override {
        ensure_accelerations(p, nullptr, 0);
        std::vector<Vec4<T>> acc(n_);
        if (n_ > 0)
            CUDA_CHECK(cudaMemcpy(acc.data(), acc_.data(), n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToHost));
        std::vector<Vec4<double>> out(n_);
        std::transform(acc.begin(), acc.end(), out.begin(), [](const Vec4<T>& a) {
            return Vec4<double>{a.x, a.y, a.z, 0};
        });
        return out;
    }

    Diagnostics diagnostics(const Params& p, bool with_potential) override {
        Diagnostics d;
        const int rows =
            launch_moments(pos_.data(), vel_.data(), n_, moments_.data(), kMaxMomentRows, nullptr);
        std::vector<double> host(static_cast<std::size_t>(rows) * kMomentSums);
        if (rows > 0) {
            CUDA_CHECK(cudaMemcpy(host.data(), moments_.data(), host.size() * sizeof(double),
                                  cudaMemcpyDeviceToHost));
        }
        double s[kMomentSums] = {};
        for (int r = 0; r < rows; ++r) {
            for (int k = 0; k < kMomentSums; ++k) s[k] += host[std::size_t(r) * kMomentSums + k];
        }
        d.mass = s[0];
        d.kinetic = s[1];
        d.momentum = {s[2], s[3], s[4]};
        d.angular_momentum = {s[5], s[6], s[7]};
        if (d.mass > 0) d.center_of_mass = {s[8] / d.mass, s[9] / d.mass, s[10] / d.mass};
        if (with_potential) {
            const std::size_t prow = potential_rows(n_);
            DeviceBuffer<double> partials(prow);
            const int written = launch_potential(pos_.data(), n_, p.softening * p.softening, partials.data(),
                                                 int(prow), nullptr);
            std::vector<double> ph(static_cast<std::size_t>(written));
            if (written > 0) {
                CUDA_CHECK(cudaMemcpy(ph.data(), partials.data(), ph.size() * sizeof(double),
                                      cudaMemcpyDeviceToHost));
            }
            double sum = 0;
            for (double v : ph) sum += v;
            d.potential = -0.5 * p.G * sum;
            d.has_potential = true;
        }
        return d;
    }

    void copy_positions(Vec4<float>* host_out) const override { copy_float4(pos_, false, host_out); }
    void copy_velocities(Vec4<float>* host_out) const override { copy_float4(vel_, true, host_out); }

    bool write_positions_device(void* pos_out, void* vel_out) override {
        if (n_ == 0) return true;
        if (pos_out) launch_to_float4(pos_.data(), static_cast<Vec4<float>*>(pos_out), n_, false, nullptr);
        if (vel_out) launch_to_float4(vel_.data(), static_cast<Vec4<float>*>(vel_out), n_, true, nullptr);
        return true;
    }

  private:
    // Device bytes a state of n bodies needs: position, velocity, acceleration, the force kernel's partial
    // sums and, for copies to float4, one float4 array.
    void check_device_memory(std::size_t n, const ForceLaunch& launch) const {
        const double need = double(n) * 3 * sizeof(Vec4<T>) +
                            double(force_scratch_count(launch, n)) * sizeof(Vec4<T>) +
                            double(n) * sizeof(Vec4<float>);
        const double have =
            double(pos_.bytes() + vel_.bytes() + acc_.bytes() + scratch_.bytes() + f4_.bytes());
        std::size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need > double(free_b) + have) {
            throw Error("N = " + std::to_string(n) + " needs " + format_bytes(need) +
                        " of GPU memory but only " + format_bytes(double(free_b) + have) + " is free");
        }
    }

    void copy_float4(const DeviceBuffer<Vec4<T>>& src, bool zero_w, Vec4<float>* host_out) const {
        if (n_ == 0) return;
        const Vec4<float>* from = reinterpret_cast<const Vec4<float>*>(src.data());
        if constexpr (sizeof(T) != sizeof(float)) {
            f4_.resize(n_);
            launch_to_float4(src.data(), f4_.data(), n_, zero_w, nullptr);
            from = f4_.data();
        }
        CUDA_CHECK(cudaMemcpy(host_out, from, n_ * sizeof(Vec4<float>), cudaMemcpyDeviceToHost));
    }

    // acc_ = a(pos_) for p's G and softening, unless already cached for them.
    void ensure_accelerations(const Params& p, const unsigned long long* bad, unsigned long long bad_before) {
        if (acc_valid_ && acc_G_ == p.G && acc_eps_ == p.softening) return;
        compute_accelerations(p, bad, bad_before);
    }

    void compute_accelerations(const Params& p, const unsigned long long* bad,
                               unsigned long long bad_before) {
        const double eps2 = p.softening * p.softening;
        launch_forces<T>(launch_, pos_.data(), acc_.data(), scratch_.data(), n_, T(p.G), T(eps2),
                         force_needs_guard(eps2, max_mass_, precision_of<T>()), bad, bad_before, nullptr);
        acc_valid_ = true, acc_G_ = p.G, acc_eps_ = p.softening;
    }

    // At most 2^30 steps: the same sequence as sim/integrator.hpp, on the device.
    StepReport step_chunk(const Params& p, std::int64_t steps) {
        StepReport r;
        if (n_ == 0) {
            r.steps_done = steps;
            for (std::int64_t k = 0; k < steps; ++k) t_ += p.dt;
            return r;
        }
        CUDA_CHECK(cudaMemset(bad_.data(), 0xff, sizeof(unsigned long long)));
        const T dt = T(p.dt), half = dt / 2, damping = T(p.damping);
        for (std::int64_t k = 1; k <= steps; ++k) {
            const unsigned long long before = bad_code(std::uint64_t(k), 0);
            ensure_accelerations(p, bad_.data(), before);
            switch (p.integrator) {
                case Integrator::leapfrog:
                    launch_update<T>(pos_.data(), vel_.data(), acc_.data(), n_, UpdateOrder::kick_drift, half,
                                     dt, T(1), bad_.data(), std::uint64_t(k), nullptr);
                    compute_accelerations(p, bad_.data(), before);
                    launch_update<T>(pos_.data(), vel_.data(), acc_.data(), n_, UpdateOrder::kick, half, T(0),
                                     damping, bad_.data(), std::uint64_t(k), nullptr);
                    break;
                case Integrator::symplectic_euler:
                    launch_update<T>(pos_.data(), vel_.data(), acc_.data(), n_, UpdateOrder::kick_drift, dt,
                                     dt, damping, bad_.data(), std::uint64_t(k), nullptr);
                    acc_valid_ = false;
                    break;
                case Integrator::euler:
                    launch_update<T>(pos_.data(), vel_.data(), acc_.data(), n_, UpdateOrder::drift_kick, dt,
                                     dt, damping, bad_.data(), std::uint64_t(k), nullptr);
                    acc_valid_ = false;
                    break;
            }
        }
        unsigned long long flag = kNoBadBody;
        CUDA_CHECK(cudaMemcpy(&flag, bad_.data(), sizeof flag, cudaMemcpyDeviceToHost));
        if (flag == kNoBadBody) {
            r.steps_done = steps;
        } else {
            r.finite = false;
            r.bad_step = std::int64_t(flag >> 32);
            r.bad_body = std::size_t(flag & 0xffffffffull);
            r.steps_done = r.bad_step;
            acc_valid_ = false;  // later launches of the call skipped: acc_ is not a(pos_)
        }
        // Added step by step, as the CPU backends do, so both report the same t bit for bit.
        for (std::int64_t k = 0; k < r.steps_done; ++k) t_ += p.dt;
        return r;
    }

    ForceLaunch requested_, launch_;
    std::size_t n_ = 0;
    double t_ = 0, max_mass_ = 0;
    DeviceBuffer<Vec4<T>> pos_, vel_, acc_, scratch_;
    mutable DeviceBuffer<Vec4<float>> f4_;
    DeviceBuffer<unsigned long long> bad_;
    DeviceBuffer<double> moments_;
    bool acc_valid_ = false;
    double acc_G_ = 0, acc_eps_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(Precision p, const ForceLaunch& launch) {
    if (p == Precision::f32) return std::make_unique<CudaBackend<float>>(launch);
    return std::make_unique<CudaBackend<double>>(launch);
}

BackendInfo cuda_backend_info() {
    BackendInfo b;
    b.name = "cuda";
    b.description = "NVIDIA GPU: tiled all-pairs kernels, state kept on the device";
    const std::string problem = device_problem();
    b.available = problem.empty();
    if (!b.available) b.unavailable_reason = "no CUDA device: " + problem;
    b.create = [](Precision p) { return make_cuda_backend(p); };
    return b;
}

std::optional<CudaDeviceInfo> cuda_device_info() {
    if (!device_problem().empty()) return std::nullopt;
    int dev = 0;
    cudaDeviceProp prop{};
    std::size_t free_b = 0, total_b = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    CudaDeviceInfo info;
    info.name = prop.name;
    info.total_bytes = total_b;
    info.free_bytes = free_b;
    info.sm_count = prop.multiProcessorCount;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    return info;
}

}  // namespace nbody
