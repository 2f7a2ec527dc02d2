// The distributed run's backend: each process steps its own contiguous slice of the bodies on its own
// backend; every force evaluation gathers all positions and masses with MPI_Allgatherv, so each slice's
// bodies are summed over exactly the source array a single process would hold, in the same order (the CPU
// backends). The CUDA pairwise kernels instead share out the pairs of all bodies and add the shares up
// with MPI_Reduce_scatter (sum_into_slices): each pair once, in another order.
// docs/ARCHITECTURE.md ("Many processes") says why Allgatherv rather than a ring.
#include "distributed_backend.hpp"

#include <climits>
#include <cstdint>
#include <limits>
#include <string>

#include "cluster.hpp"

namespace nbody {

std::vector<std::size_t> slice_counts(std::size_t n, int k) {
    std::vector<std::size_t> counts(std::size_t(k), n / std::size_t(k));
    for (std::size_t r = 0; r < n % std::size_t(k); ++r) ++counts[r];
    return counts;
}

namespace {

// An MPI type of four contiguous T: one Vec4<T> per element, so counts are body counts.
MPI_Datatype make_vec4_type(MPI_Datatype scalar) {
    MPI_Datatype t;
    MPI_Type_contiguous(4, scalar, &t);
    MPI_Type_commit(&t);
    return t;
}

// The slices' layout (counts and offsets, in bodies) and the gather of positions+mass.
class MpiExchange final : public SourceExchange {
  public:
    explicit MpiExchange(MPI_Comm comm) : comm_(comm) {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
        f4_ = make_vec4_type(MPI_FLOAT);
        d4_ = make_vec4_type(MPI_DOUBLE);
    }
    ~MpiExchange() override {
        MPI_Type_free(&f4_);
        MPI_Type_free(&d4_);
    }
    MpiExchange(const MpiExchange&) = delete;
    MpiExchange& operator=(const MpiExchange&) = delete;

    // Lays out n bodies over the processes. The same n on every process, so all throw alike.
    void resize(std::size_t n) {
        if (n < std::size_t(size_)) {
            throw ClusterError(
                "N = " + std::to_string(n) + " bodies cannot be split over " + std::to_string(size_) +
                " processes (one slice of at least one body each): " + "start at most " + std::to_string(n) +
                " (mpirun -np " + std::to_string(n) + ") or use more bodies");
        }
        const std::vector<std::size_t> c = slice_counts(n, size_);
        if (c[0] > std::size_t(INT_MAX)) {
            throw ClusterError("N = " + std::to_string(n) + " over " + std::to_string(size_) +
                               " processes is more than 2^31 - 1 bodies per process (MPI counts are int): "
                               "start more processes");
        }
        counts_.resize(c.size()), displs_.resize(c.size()), scalar_counts_.resize(c.size());
        std::size_t offset = 0;
        for (std::size_t r = 0; r < c.size(); ++r) {
            counts_[r] = int(c[r]);
            // Offsets are int too: past 2^31 bodies the gather needs a derived type per slice (not done).
            if (offset > std::size_t(INT_MAX)) {
                throw ClusterError("N = " + std::to_string(n) +
                                   " is more than 2^31 bodies in all (MPI "
                                   "offsets are int)");
            }
            displs_[r] = int(offset);
            // Four scalars a body for sum_into_slices; unused (0) where they would not fit an int.
            scalar_counts_[r] = can_sum(n) ? 4 * counts_[r] : 0;
            offset += c[r];
        }
        total_ = n;
        first_ = std::size_t(displs_[std::size_t(rank_)]);
    }

    std::size_t total() const override { return total_; }
    std::size_t first() const override { return first_; }
    std::size_t count() const { return std::size_t(counts_[std::size_t(rank_)]); }
    int rank() const { return rank_; }
    MPI_Comm comm() const { return comm_; }

    void gather(const Vec4<float>* local, std::size_t count, Vec4<float>* all) override {
        MPI_Allgatherv(local, int(count), f4_, all, counts_.data(), displs_.data(), f4_, comm_);
    }
    void gather(const Vec4<double>* local, std::size_t count, Vec4<double>* all) override {
        MPI_Allgatherv(local, int(count), d4_, all, counts_.data(), displs_.data(), d4_, comm_);
    }

    int slice() const override { return rank_; }
    int slices() const override { return size_; }
    // MPI_Reduce_scatter counts scalars in int, and Open MPI adds all the counts up (4 N) in an int too.
    bool can_sum_into_slices() const override { return size_ > 1 && can_sum(total_); }
    // The four components summed as scalars (MPI_SUM is defined on MPI_FLOAT, not on the Vec4 type).
    void sum_into_slices(const Vec4<float>* all, Vec4<float>* mine) override {
        MPI_Reduce_scatter(all, mine, scalar_counts_.data(), MPI_FLOAT, MPI_SUM, comm_);
    }
    void sum_into_slices(const Vec4<double>* all, Vec4<double>* mine) override {
        MPI_Reduce_scatter(all, mine, scalar_counts_.data(), MPI_DOUBLE, MPI_SUM, comm_);
    }

    std::int64_t min_over_slices(std::int64_t v) override {
        std::int64_t out = 0;
        MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MIN, comm_);
        return out;
    }
    std::uint64_t sum_over_slices(std::uint64_t v) override {
        std::uint64_t out = 0;
        MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, comm_);
        return out;
    }

    // Rank 0's n bodies `all` into each process's `mine` (count() of them).
    void scatter(const Vec4<double>* all, Vec4<double>* mine) const {
        MPI_Scatterv(all, counts_.data(), displs_.data(), d4_, mine, int(count()), d4_, 0, comm_);
    }
    // Each process's slice into rank 0's `all` (total() bodies; ignored elsewhere).
    void gather_to_root(const Vec4<double>* mine, Vec4<double>* all) const {
        MPI_Gatherv(mine, int(count()), d4_, all, counts_.data(), displs_.data(), d4_, 0, comm_);
    }
    void gather_all(const Vec4<double>* mine, Vec4<double>* all) const {
        MPI_Allgatherv(mine, int(count()), d4_, all, counts_.data(), displs_.data(), d4_, comm_);
    }
    void gather_all(const Vec4<float>* mine, Vec4<float>* all) const {
        MPI_Allgatherv(mine, int(count()), f4_, all, counts_.data(), displs_.data(), f4_, comm_);
    }

  private:
    static bool can_sum(std::size_t n) { return n <= std::size_t(INT_MAX) / 4; }

    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    MPI_Datatype f4_, d4_;
    std::vector<int> counts_, displs_, scalar_counts_;  // scalar_counts_: 4 per body
    std::size_t total_ = 0, first_ = 0;
};

class DistributedBackend final : public Backend {
  public:
    DistributedBackend(std::unique_ptr<Backend> local, MPI_Comm comm)
        : local_(std::move(local)), exchange_(std::make_shared<MpiExchange>(comm)) {
        if (!local_->set_source_exchange(exchange_)) {
            throw Error("the " + local_->name() + " backend cannot run one slice of a distributed run");
        }
    }

    std::string name() const override { return local_->name(); }
    Precision precision() const override { return local_->precision(); }
    std::size_t size() const override { return exchange_->total(); }
    Residency residency() const override { return local_->residency(); }

    void set_state(const HostState& s) override {
        const bool root = exchange_->rank() == 0;
        const std::uint64_t n = broadcast_value(std::uint64_t(root ? s.size() : 0));
        const double t = broadcast_value(root ? s.t : 0.0);
        exchange_->resize(std::size_t(n));
        HostState mine;
        mine.resize(exchange_->count());
        mine.t = t;
        exchange_->scatter(root ? s.pos_mass.data() : nullptr, mine.pos_mass.data());
        exchange_->scatter(root ? s.vel.data() : nullptr, mine.vel.data());
        local_->set_state(mine);
        time_ = t;
    }

    HostState get_state() const override {
        HostState mine = local_->get_state();
        HostState all;
        const bool root = exchange_->rank() == 0;
        if (root) all.resize(exchange_->total());
        exchange_->gather_to_root(mine.pos_mass.data(), root ? all.pos_mass.data() : nullptr);
        exchange_->gather_to_root(mine.vel.data(), root ? all.vel.data() : nullptr);
        HostState& out = root ? all : mine;
        out.t = time_;
        return std::move(out);
    }

    void kick(double h) override { local_->kick(h); }
    void drift(double h) override { local_->drift(h); }
    void update_forces(const Params& p) override { local_->update_forces(p); }
    void damp(double factor) override { local_->damp(factor); }
    // The local backend's own block steps, which evaluate each slice's active bodies against every slice's
    // predicted bodies and agree on each block's time over the exchange, so the run is the one-process run
    // bit for bit. The generic host-copy ones would see this slice alone: none then.
    BlockSteps* block_steps() override {
        BlockSteps* s = local_->block_steps();
        return s && !s->host_copy() ? s : nullptr;
    }
    void synchronize() override { local_->synchronize(); }
    void begin_steps(std::int64_t count) override { local_->begin_steps(count); }
    void begin_step(std::int64_t k) override { local_->begin_step(k); }

    // Every process stops at the same step: a non-finite body on any slice ends the step everywhere.
    std::optional<std::size_t> end_step() override {
        const std::optional<std::size_t> bad = local_->end_step();
        std::uint64_t mine = bad ? std::uint64_t(exchange_->first() + *bad) : kNone, first = kNone;
        MPI_Allreduce(&mine, &first, 1, MPI_UINT64_T, MPI_MIN, exchange_->comm());
        if (first == kNone) return std::nullopt;
        return std::size_t(first);
    }

    // Device backends report at the end of a call: the earliest failing step of any slice, and the lowest
    // global body index that failed in it. The interaction count is refreshed here too (every process
    // comes here together).
    std::optional<StepFailure> end_steps() override {
        const std::optional<StepFailure> bad = local_->end_steps();
        std::int64_t step = bad ? bad->step : std::numeric_limits<std::int64_t>::max(), earliest = 0;
        MPI_Allreduce(&step, &earliest, 1, MPI_INT64_T, MPI_MIN, exchange_->comm());
        refresh_interactions();
        if (earliest == std::numeric_limits<std::int64_t>::max()) return std::nullopt;
        std::uint64_t mine = bad && bad->step == earliest ? std::uint64_t(exchange_->first() + bad->body)
                                                          : kNone,
                      body = kNone;
        MPI_Allreduce(&mine, &body, 1, MPI_UINT64_T, MPI_MIN, exchange_->comm());
        // Whether that body stalled (StepReport::stalled) rather than went non-finite: its slice says.
        int stalled = bad && mine == body && bad->stalled ? 1 : 0, any = 0;
        MPI_Allreduce(&stalled, &any, 1, MPI_INT, MPI_MAX, exchange_->comm());
        return StepFailure{earliest, std::size_t(body), any != 0};
    }

    std::vector<Vec4<double>> accelerations(const Params& p) override {
        const std::vector<Vec4<double>> mine = local_->accelerations(p);
        refresh_interactions();
        std::vector<Vec4<double>> all(exchange_->total());
        exchange_->gather_all(mine.data(), all.data());
        return all;
    }

    std::optional<std::uint64_t> last_force_interactions() const override { return interactions_; }

    // Each slice's field at the points, added up.
    FieldSample field_at(const Params& p, const std::vector<Vec4<double>>& points,
                         bool with_potential) override {
        FieldSample f = local_->field_at(p, points, with_potential);
        MPI_Allreduce(MPI_IN_PLACE, f.acc.data(), int(4 * f.acc.size()), MPI_DOUBLE, MPI_SUM,
                      exchange_->comm());
        MPI_Allreduce(MPI_IN_PLACE, f.potential.data(), int(f.potential.size()), MPI_DOUBLE, MPI_SUM,
                      exchange_->comm());
        return f;
    }

    // Sums of the slices' shares (the potential's share is already over all sources, halved).
    Diagnostics diagnostics(const Params& p, bool with_potential) override {
        const Diagnostics d = local_->diagnostics(p, with_potential);
        double v[12] = {d.mass,
                        d.kinetic,
                        d.potential,
                        d.momentum.x,
                        d.momentum.y,
                        d.momentum.z,
                        d.angular_momentum.x,
                        d.angular_momentum.y,
                        d.angular_momentum.z,
                        d.mass * d.center_of_mass.x,
                        d.mass * d.center_of_mass.y,
                        d.mass * d.center_of_mass.z};
        MPI_Allreduce(MPI_IN_PLACE, v, 12, MPI_DOUBLE, MPI_SUM, exchange_->comm());
        Diagnostics out;
        out.mass = v[0], out.kinetic = v[1], out.potential = v[2], out.has_potential = d.has_potential;
        out.momentum = {v[3], v[4], v[5]};
        out.angular_momentum = {v[6], v[7], v[8]};
        if (out.mass > 0) out.center_of_mass = {v[9] / out.mass, v[10] / out.mass, v[11] / out.mass};
        return out;
    }

    void copy_positions(Vec4<float>* host_out) const override { copy_all(host_out, false); }
    void copy_velocities(Vec4<float>* host_out) const override { copy_all(host_out, true); }

  private:
    static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

    template <typename T>
    T broadcast_value(T v) const {
        MPI_Bcast(&v, int(sizeof v), MPI_BYTE, 0, exchange_->comm());
        return v;
    }

    void refresh_interactions() {
        const std::optional<std::uint64_t> mine = local_->last_force_interactions();
        std::uint64_t v[2] = {mine.value_or(0), mine ? 1u : 0u};
        MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_SUM, exchange_->comm());
        interactions_ = v[1] > 0 ? std::optional<std::uint64_t>(v[0]) : std::nullopt;
    }

    void copy_all(Vec4<float>* out, bool velocities) const {
        std::vector<Vec4<float>> mine(exchange_->count());
        if (velocities) {
            local_->copy_velocities(mine.data());
        } else {
            local_->copy_positions(mine.data());
        }
        exchange_->gather_all(mine.data(), out);
    }

    std::unique_ptr<Backend> local_;
    std::shared_ptr<MpiExchange> exchange_;
    std::optional<std::uint64_t> interactions_;
};

}  // namespace

std::unique_ptr<Backend> make_distributed_backend(std::unique_ptr<Backend> local, MPI_Comm comm) {
    return std::make_unique<DistributedBackend>(std::move(local), comm);
}

}  // namespace nbody
