// The CUDA backend: state on the device; the integrator primitives queue O(N) updates that one kernel
// pass applies around each force evaluation; one 8-byte read-back of the failure flag per step() call.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "contact_grid.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "device_force_solver.hpp"
#include "hermite_steps.hpp"
#include "pinned_buffer.hpp"
#include "sim/collide/resolve.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_solver.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/platform/memory.hpp"
#include "step_kernels.hpp"

namespace nbody {
namespace {

void require_device() {
    const std::string problem = cuda_device_problem();
    if (!problem.empty()) throw Error("no CUDA device: " + problem);
}

// A kept state in device memory (the window's scrub timeline): the bodies copied device to device, with
// what set_state would have derived from them, so restoring is set_state without the bus.
template <typename T>
class DeviceKeptState final : public KeptState {
  public:
    DeviceKeptState(const DeviceBuffer<Vec4<T>>& pos, const DeviceBuffer<Vec4<T>>& vel, std::size_t n,
                    double t, double max_mass)
        : pos_(n), vel_(n), n_(n), t_(t), max_mass_(max_mass) {
        copy_device(pos_.data(), pos.data(), n);
        copy_device(vel_.data(), vel.data(), n);
    }
    static std::size_t bytes_for(std::size_t n) { return n * 2 * sizeof(Vec4<T>); }
    static void copy_device(Vec4<T>* dst, const Vec4<T>* src, std::size_t n) {
        // On the stream every kernel of the backend runs on, so ordered after the steps that made them.
        if (n > 0) CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice));
    }

    std::size_t size() const override { return n_; }
    std::size_t bytes() const override { return bytes_for(n_); }
    bool on_device() const override { return true; }
    double time() const override { return t_; }
    HostState to_host() const override {
        State<T> host;
        host.resize(n_);
        pos_.copy_to_host(host.pos_mass.data(), n_);
        vel_.copy_to_host(host.vel.data(), n_);
        HostState out = convert_state<double>(host);
        out.t = t_;
        return out;
    }

    DeviceBuffer<Vec4<T>> pos_, vel_;
    std::size_t n_;
    double t_, max_mass_;
};

template <typename T>
class CudaBackend final : public Backend {
  public:
    explicit CudaBackend(const ForceLaunch& launch) : launch_(launch) {
        require_device();
        bad_.resize(1);
        moments_.resize(std::size_t(kMaxMomentRows) * kMomentSums);
    }

    std::string name() const override { return "cuda"; }
    Precision precision() const override { return precision_of<T>(); }
    std::size_t size() const override { return n_; }
    Residency residency() const override { return Residency::device; }

    void set_state(const HostState& s) override {
        const std::size_t n = s.size();
        if (n >= (std::size_t(1) << 32)) throw Error("cuda backend: N must be below 2^32");
        check_device_memory(n);
        State<T> host = convert_state<T>(s);
        const double max_mass = largest_mass(host.pos_mass.data(), n);
        pos_.resize(n), vel_.resize(n), acc_.resize(n);
        pos_.copy_from_host(host.pos_mass.data(), n);
        vel_.copy_from_host(host.vel.data(), n);
        n_ = n;
        time_ = s.t;
        max_mass_ = max_mass;
        all_max_mass_.reset();
        for (auto& [algorithm, solver] : solvers_) solver->prepare(source_count(), max_mass_);
        pending_ = {};
        acc_for_.reset();
        if (blocks_) blocks_->invalidate();
    }

    HostState get_state() const override {
        State<T> host;
        host.resize(n_);
        pos_.copy_to_host(host.pos_mass.data(), n_);
        vel_.copy_to_host(host.vel.data(), n_);
        HostState out = convert_state<double>(host);
        out.t = time_;
        return out;
    }

    // The bodies copied device to device: the scrub timeline's states stay on the GPU.
    std::shared_ptr<const KeptState> keep_state() const override {
        if (exchange_) return Backend::keep_state();  // a slice of a distributed run: gathered on the host
        return std::make_shared<const DeviceKeptState<T>>(pos_, vel_, n_, time_, max_mass_);
    }
    // One of ours (same precision) is copied back device to device and then treated exactly as set_state
    // treats new bodies; any other kind goes through the host.
    void restore_state(const KeptState& k) override {
        const auto* d = dynamic_cast<const DeviceKeptState<T>*>(&k);
        if (!d || exchange_) {
            Backend::restore_state(k);
            return;
        }
        const std::size_t n = d->size();
        check_device_memory(n);
        pos_.resize(n), vel_.resize(n), acc_.resize(n);
        DeviceKeptState<T>::copy_device(pos_.data(), d->pos_.data(), n);
        DeviceKeptState<T>::copy_device(vel_.data(), d->vel_.data(), n);
        n_ = n;
        time_ = d->time();
        max_mass_ = d->max_mass_;
        all_max_mass_.reset();
        for (auto& [algorithm, solver] : solvers_) solver->prepare(source_count(), max_mass_);
        pending_ = {};
        acc_for_.reset();
        if (blocks_) blocks_->invalidate();
    }
    std::size_t kept_state_bytes(std::size_t n) const override { return DeviceKeptState<T>::bytes_for(n); }
    bool keeps_states_on_device() const override { return true; }

    // ---- Primitives: kicks, drifts and dampings are queued and applied by one kernel pass (flush) when
    // the forces are next needed or the step ends, so nothing is pending between step() calls.
    // Each also changes the bodies under the block steps, which then start over from them.
    void kick(double h) override {
        queue(UpdateOp::kick, h);
        if (blocks_) blocks_->invalidate();
    }
    void drift(double h) override {
        queue(UpdateOp::drift, h);
        acc_for_.reset();
        if (blocks_) blocks_->invalidate();
    }
    void damp(double factor) override {
        queue(UpdateOp::damp, factor);
        if (blocks_) blocks_->invalidate();
    }

    // The block time steps of --integrator hermite on the device (hermite_steps.hpp): the blocks run as
    // replayed CUDA graphs, one small read-back per batch of blocks, nothing else leaves the GPU. A
    // distributed run's slice gets the generic host copy instead, which the distributed backend refuses
    // (these would need the gathered predicted bodies).
    BlockSteps* block_steps() override {
        if (exchange_) return Backend::block_steps();
        flush();  // queued kicks, drifts and dampings belong to the bodies the blocks start from
        if (!blocks_) {
            blocks_ = make_device_block_steps<T>(
                [this] {
                    return DeviceBodies<T>{pos_.data(), vel_.data(), n_, step_ == 0 ? nullptr : bad_.data(),
                                           step_};
                },
                [this] { acc_for_.reset(); });
        }
        return blocks_.get();
    }
    void synchronize() override {
        if (blocks_) blocks_->invalidate();
        Backend::synchronize();
    }

    void update_forces(const Params& p) override {
        flush();
        if (acc_for_ && same_force_model(*acc_for_, p)) return;
        if (exchange_) {
            // A distributed run's slice: every slice's bodies are the sources, this slice's the targets.
            // A body exactly at a target adds nothing there, which is the self-term for the slice's own.
            const std::size_t total = gather_sources();
            if (!shared_forces(p, total) && n_ > 0) {
                solver(p.force).evaluate_at(sources_.data(), total, pos_.data(), n_, p, acc_.data(), nullptr,
                                            nullptr);
            }
        } else if (n_ > 0) {
            solver(p.force).accelerations(pos_.data(), n_, p, acc_.data(), gate(), nullptr);
        }
        acc_for_ = p;
    }

    void begin_steps(std::int64_t /*count*/) override {
        CUDA_CHECK(cudaMemset(bad_.data(), 0xff, sizeof(unsigned long long)));
        if (blocks_) blocks_->clear_failure();
    }
    void begin_step(std::int64_t k) override { step_ = std::uint64_t(k); }
    std::optional<std::size_t> end_step() override {
        flush();
        // Checked on the device and read once in end_steps; but the block steps read the flag with every
        // block anyway, and once it shows a failure the call stops here (end_steps then names the step).
        if (blocks_) return blocks_->failed_body();
        return std::nullopt;
    }
    std::optional<StepFailure> end_steps() override {
        step_ = 0;
        unsigned long long flag = kNoBadBody;
        CUDA_CHECK(cudaMemcpy(&flag, bad_.data(), sizeof flag, cudaMemcpyDeviceToHost));
        if (flag == kNoBadBody) return std::nullopt;
        acc_for_.reset();  // later launches of the call skipped: acc_ is not a(pos_)
        return StepFailure{std::int64_t(flag >> 32), std::size_t(flagged_body(flag)),
                           (flag & kStallFlag) != 0};
    }

    std::optional<std::uint64_t> last_force_interactions() const override {
        if (!acc_for_) return std::nullopt;
        const auto it = solvers_.find(acc_for_->force);
        return it == solvers_.end() ? std::nullopt : it->second->last_interactions(nullptr);
    }

    // Collisions on the device: the contacts through the grid (contact_grid.cu), the few bodies they name
    // copied out, resolved by the host's own code (sim/collide/resolve.hpp, the same order and arithmetic
    // as the host backends) and copied back, the merged-away bodies removed by a stable compaction.
    CollisionTally collide(const Params& p, double dt, double t_end) override {
        if (p.collisions == CollisionMode::off || n_ < 2) return {};
        if (exchange_) return Backend::collide(p, dt, t_end);  // one slice: the host copies see it all
        flush();
        if (!grid_) grid_ = std::make_unique<DeviceContactGrid>();
        std::vector<Contact> contacts = grid_->find(pos_.data(), vel_.data(), n_, dt);
        if (contacts.empty()) return {};
        // The bodies named, ascending: their local indices keep the (i, j) order of the contacts.
        std::vector<std::uint32_t> idx;
        idx.reserve(2 * contacts.size());
        for (const Contact& c : contacts)
            idx.push_back(std::uint32_t(c.i)), idx.push_back(std::uint32_t(c.j));
        std::sort(idx.begin(), idx.end());
        idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
        auto local = [&](std::uint64_t g) {
            return std::uint64_t(std::lower_bound(idx.begin(), idx.end(), std::uint32_t(g)) - idx.begin());
        };
        for (Contact& c : contacts) c.i = local(c.i), c.j = local(c.j);
        State<T> some;
        some.resize(idx.size());
        grid_->gather(pos_.data(), vel_.data(), idx, some.pos_mass.data(), some.vel.data());
        std::vector<char> removed;
        CollisionTally tally = resolve_contacts_in_place(some, contacts, p, dt, t_end, removed);
        if (tally.events.empty()) return tally;
        for (CollisionEvent& e : tally.events) e.i = idx[e.i], e.j = idx[e.j];
        grid_->scatter(pos_.data(), vel_.data(), idx, some.pos_mass.data(), some.vel.data());
        std::vector<std::uint32_t> gone;
        for (std::size_t k = 0; k < idx.size(); ++k) {
            if (removed[k]) gone.push_back(idx[k]);
            max_mass_ = std::max(max_mass_, std::fabs(double(some.pos_mass[k].w)));
        }
        if (!gone.empty()) {
            n_ = grid_->remove(pos_.data(), vel_.data(), n_, gone);
            for (auto& [algorithm, solver] : solvers_) solver->prepare(source_count(), max_mass_);
        }
        acc_for_.reset();
        if (blocks_) blocks_->invalidate();
        return tally;
    }

    std::vector<Vec4<double>> accelerations(const Params& p) override {
        update_forces(p);
        std::vector<Vec4<T>> acc(n_);
        acc_.copy_to_host(acc.data(), n_);
        return widen(acc);
    }

    FieldSample field_at(const Params& p, const std::vector<Vec4<double>>& points,
                         bool with_potential) override {
        flush();
        const std::size_t m = points.size();
        std::vector<Vec4<T>> host(m);
        std::transform(points.begin(), points.end(), host.begin(), [](const Vec4<double>& q) {
            return Vec4<T>{T(q.x), T(q.y), T(q.z), T(0)};
        });
        DeviceBuffer<Vec4<T>> targets(m), acc(m);
        DeviceBuffer<T> pot(with_potential ? m : 0);
        targets.copy_from_host(host.data(), m);
        if (m > 0) {
            solver(p.force).evaluate_at(pos_.data(), n_, targets.data(), m, p, acc.data(),
                                        with_potential ? pot.data() : nullptr, nullptr);
        }
        acc.copy_to_host(host.data(), m);
        FieldSample out;
        out.acc = widen(host);
        std::vector<T> ph(pot.size());
        pot.copy_to_host(ph.data(), ph.size());
        out.potential.assign(ph.begin(), ph.end());
        return out;
    }

    Diagnostics diagnostics(const Params& p, bool with_potential) override {
        flush();
        Diagnostics d;
        const int rows =
            launch_moments(pos_.data(), vel_.data(), n_, moments_.data(), kMaxMomentRows, nullptr);
        std::vector<double> host(static_cast<std::size_t>(rows) * kMomentSums);
        moments_.copy_to_host(host.data(), host.size());
        double s[kMomentSums] = {};
        for (int r = 0; r < rows; ++r) {
            for (int k = 0; k < kMomentSums; ++k) s[k] += host[std::size_t(r) * kMomentSums + k];
        }
        d.mass = s[0];
        d.kinetic = s[1];
        d.momentum = {s[2], s[3], s[4]};
        d.angular_momentum = {s[5], s[6], s[7]};
        if (d.mass > 0) d.center_of_mass = {s[8] / d.mass, s[9] / d.mass, s[10] / d.mass};
        if (with_potential && exchange_) {
            // This slice's share, -1/2 sum_i m_i phi(x_i) with phi from every slice's bodies (in T on the
            // device, summed in double here; the single-device path below sums in double throughout).
            const std::size_t total = gather_sources();
            DeviceBuffer<T> phi(n_);
            if (n_ > 0) {
                solver(p.force).evaluate_at(sources_.data(), total, pos_.data(), n_, p, nullptr, phi.data(),
                                            nullptr);
            }
            std::vector<T> ph(n_);
            phi.copy_to_host(ph.data(), n_);
            double sum = 0;
            for (std::size_t i = 0; i < n_; ++i) sum += double(local_host_.data()[i].w) * double(ph[i]);
            d.potential = 0.5 * sum;
            d.has_potential = true;
        } else if (with_potential) {
            const std::size_t prow = kPotentialRows;
            DeviceBuffer<double> partials(prow);
            const int written =
                launch_potential(pos_.data(), n_, softening2<double>(p), partials.data(), int(prow), nullptr);
            std::vector<double> ph(static_cast<std::size_t>(written));
            partials.copy_to_host(ph.data(), ph.size());
            double sum = 0;
            for (double v : ph) sum += v;
            d.potential = -p.G * sum;  // each pair once
            d.has_potential = true;
        }
        return d;
    }

    BodyValues body(std::size_t i) const override {
        if (i >= n_) throw Error("cuda backend: no body " + std::to_string(i) + " of " + std::to_string(n_));
        Vec4<T> x{}, v{};
        CUDA_CHECK(cudaMemcpy(&x, pos_.data() + i, sizeof x, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&v, vel_.data() + i, sizeof v, cudaMemcpyDeviceToHost));
        return {{x.x, x.y, x.z, x.w}, {v.x, v.y, v.z, v.w}};
    }

    void copy_accelerations(const Params& p, Vec4<float>* host_out) override {
        update_forces(p);
        copy_float4(acc_, true, host_out);
    }
    bool write_accelerations_device(const Params& p, void* acc_out) override {
        if (n_ == 0) return true;
        update_forces(p);
        launch_to_float4(acc_.data(), static_cast<Vec4<float>*>(acc_out), n_, true, nullptr);
        return true;
    }

    void copy_positions(Vec4<float>* host_out) const override { copy_float4(pos_, false, host_out); }
    void copy_velocities(Vec4<float>* host_out) const override { copy_float4(vel_, false, host_out); }

    bool write_positions_device(void* pos_out, void* vel_out) override {
        if (n_ == 0) return true;
        if (pos_out) launch_to_float4(pos_.data(), static_cast<Vec4<float>*>(pos_out), n_, false, nullptr);
        // The radius rides along in w (sim/state.hpp): the picked body's numbers read it; shaders use xyz.
        if (vel_out) launch_to_float4(vel_.data(), static_cast<Vec4<float>*>(vel_out), n_, false, nullptr);
        return true;
    }

    bool set_source_exchange(std::shared_ptr<SourceExchange> exchange) override {
        exchange_ = std::move(exchange);
        acc_for_.reset();
        if (blocks_) blocks_->invalidate();
        return true;
    }

  private:
    // Bodies the solvers sum over: this backend's, or in a distributed run every slice's.
    std::size_t source_count() const { return exchange_ ? exchange_->total() : n_; }

    // A distributed run: this slice's positions to pinned host memory, every slice's gathered into pinned
    // memory by the exchange, then up to sources_. Blocking: the exchange is collective and the forces
    // need all of it. Returns the number of sources.
    std::size_t gather_sources() {
        const std::size_t total = exchange_->total();
        local_host_.reserve(n_);
        all_host_.reserve(total);
        sources_.resize(total);
        if (n_ > 0) {
            CUDA_CHECK(
                cudaMemcpy(local_host_.data(), pos_.data(), n_ * sizeof(Vec4<T>), cudaMemcpyDeviceToHost));
        }
        exchange_->gather(local_host_.data(), n_, all_host_.data());
        CUDA_CHECK(
            cudaMemcpy(sources_.data(), all_host_.data(), total * sizeof(Vec4<T>), cudaMemcpyHostToDevice));
        return total;
    }

    // A distributed run where the solver shares out the pairs of all bodies (the pairwise kernels, each
    // pair once): this process evaluates its share for every body, the exchange adds the shares up into
    // each slice. Half the pair evaluations of each slice against all, for one copy of the N
    // accelerations down and up. Every process decides alike (same N, same solver). False: not shared.
    bool shared_forces(const Params& p, std::size_t total) {
        DeviceForceSolver<T>& s = solver(p.force);
        if (!exchange_->can_sum_into_slices() || !s.can_share(total)) return false;
        if (!all_max_mass_) all_max_mass_ = largest_mass(all_host_.data(), total);
        acc_all_.resize(total);
        s.accelerations_share(sources_.data(), total, p, *all_max_mass_, exchange_->slice(),
                              exchange_->slices(), acc_all_.data(), nullptr);
        acc_all_host_.reserve(total);
        acc_mine_host_.reserve(n_);
        CUDA_CHECK(cudaMemcpy(acc_all_host_.data(), acc_all_.data(), total * sizeof(Vec4<T>),
                              cudaMemcpyDeviceToHost));
        exchange_->sum_into_slices(acc_all_host_.data(), acc_mine_host_.data());
        if (n_ > 0) {
            CUDA_CHECK(
                cudaMemcpy(acc_.data(), acc_mine_host_.data(), n_ * sizeof(Vec4<T>), cudaMemcpyHostToDevice));
        }
        return true;
    }

    static double largest_mass(const Vec4<T>* bodies, std::size_t n) {
        double m = 0;
        for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(double(bodies[i].w)));
        return m;
    }

    // Device bytes a state of n bodies needs: position, velocity, acceleration, the solvers' buffers and,
    // for copies to float4, one float4 array.
    void check_device_memory(std::size_t n) {
        double need = double(n) * 3 * sizeof(Vec4<T>) + double(n) * sizeof(Vec4<float>);
        const std::size_t sources = exchange_ ? exchange_->total() : n;
        // The gathered positions and, where the pairs are shared out (shared_forces), the share for all.
        if (exchange_) need += 2 * double(sources) * sizeof(Vec4<T>);
        solver_for(ForceAlgorithm::direct);  // the default solver is always counted
        for (auto& [algorithm, s] : solvers_) need += s->device_bytes(sources);
        const double have = double(pos_.bytes() + vel_.bytes() + acc_.bytes() + f4_.bytes());
        std::size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need > double(free_b) + have) {
            throw Error("N = " + std::to_string(n) + " needs " + format_bytes(need) +
                        " of GPU memory but only " + format_bytes(double(free_b) + have) + " is free");
        }
    }

    // The solver object for algorithm a (made on first use, without sizing it).
    DeviceForceSolver<T>& solver_for(ForceAlgorithm a) {
        auto& s = solvers_[a];
        if (!s) {
            switch (a) {
                case ForceAlgorithm::direct:
                    s = make_device_direct_solver<T>(launch_);
                    break;
                case ForceAlgorithm::tree:
                    s = make_device_tree_solver<T>();
                    break;
            }
            if (!s) throw Error(std::string("the cuda backend has no '") + to_string(a) + "' force solver");
        }
        return *s;
    }
    // ... sized for the current bodies (set_state sizes every solver that exists then).
    DeviceForceSolver<T>& solver(ForceAlgorithm a) {
        const bool fresh = solvers_.find(a) == solvers_.end();
        DeviceForceSolver<T>& s = solver_for(a);
        if (fresh) s.prepare(source_count(), max_mass_);
        return s;
    }

    FailureGate gate() const {
        // Outside a step() call (accelerations(), field_at()) nothing has failed: no gate.
        if (step_ == 0) return {};
        return {bad_.data(), bad_code(step_, 0)};
    }

    void queue(UpdateOp op, double h) {
        if (pending_.count == kMaxUpdateOps) flush();
        pending_.op[pending_.count] = op;
        pending_.h[pending_.count] = T(h);
        ++pending_.count;
    }

    // Applies the queued updates in one pass (checking finiteness when inside a step() call).
    void flush() {
        if (pending_.count == 0) return;
        if (n_ > 0) {
            if (step_ == 0) {
                // Outside step(): no failure tracking, but the kernel still needs a flag to write.
                CUDA_CHECK(cudaMemset(bad_.data(), 0xff, sizeof(unsigned long long)));
            }
            launch_update<T>(pos_.data(), vel_.data(), acc_.data(), n_, pending_, bad_.data(),
                             step_ == 0 ? 1 : step_, nullptr);
        }
        pending_ = {};
    }

    void copy_float4(const DeviceBuffer<Vec4<T>>& src, bool zero_w, Vec4<float>* host_out) const {
        if (n_ == 0) return;
        if constexpr (sizeof(T) != sizeof(float)) {
            f4_.resize(n_);
            launch_to_float4(src.data(), f4_.data(), n_, zero_w, nullptr);
            f4_.copy_to_host(host_out, n_);
        } else {
            src.copy_to_host(host_out, n_);
        }
    }

    ForceLaunch launch_;
    std::size_t n_ = 0;
    double max_mass_ = 0;
    DeviceBuffer<Vec4<T>> pos_, vel_, acc_;
    mutable DeviceBuffer<Vec4<float>> f4_;
    DeviceBuffer<unsigned long long> bad_;
    DeviceBuffer<double> moments_;
    std::map<ForceAlgorithm, std::unique_ptr<DeviceForceSolver<T>>> solvers_;
    std::optional<Params> acc_for_;  // the parameters acc_ was computed with; empty: stale
    UpdateSequence<T> pending_;
    std::uint64_t step_ = 0;                       // the step being run (1-based) inside step(); 0 outside
    std::shared_ptr<SourceExchange> exchange_;     // set: one slice of a distributed run
    PinnedBuffer<Vec4<T>> local_host_, all_host_;  // staging for the exchange (no CUDA-aware MPI)
    DeviceBuffer<Vec4<T>> sources_;                // every slice's positions+mass, for one evaluation
    std::optional<double> all_max_mass_;           // the largest |mass| of every slice's bodies
    DeviceBuffer<Vec4<T>> acc_all_;                // shared_forces: this process's share, every body
    PinnedBuffer<Vec4<T>> acc_all_host_, acc_mine_host_;
    std::unique_ptr<DeviceBlockSteps> blocks_;  // an adaptive integrator's state, made when first asked
    std::unique_ptr<DeviceContactGrid> grid_;   // collisions' scratch, made when first asked
};

}  // namespace

std::string cuda_device_problem() {
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

void select_cuda_device(int index) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        return;  // creating the backend then reports why
    }
    CUDA_CHECK(cudaSetDevice(index % count));
}

void warm_up_cuda_device() {
    // cudaFree(nullptr) does nothing but make the context, where the runtime makes it on a first call.
    if (cudaFree(nullptr) != cudaSuccess) (void)cudaGetLastError();
}

std::unique_ptr<Backend> make_cuda_backend(Precision p, const ForceLaunch& launch) {
    if (p == Precision::f32) return std::make_unique<CudaBackend<float>>(launch);
    return std::make_unique<CudaBackend<double>>(launch);
}

std::optional<CudaDeviceInfo> cuda_device_info() {
    if (!cuda_device_problem().empty()) return std::nullopt;
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
