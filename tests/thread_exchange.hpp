#pragma once
// Slices of one system on threads, for tests: the exchange is shared arrays and a barrier (what
// MPI_Allgatherv and MPI_Reduce_scatter do across processes in mpi/).
#include <algorithm>
#include <barrier>
#include <cstddef>
#include <vector>

#include "sim/source_exchange.hpp"

namespace nbody::test {

// Bodies [first, first + count) of s: one slice's state.
inline HostState slice_of(const HostState& s, std::size_t first, std::size_t count) {
    HostState mine;
    mine.resize(count);
    std::copy_n(s.pos_mass.begin() + std::ptrdiff_t(first), count, mine.pos_mass.begin());
    std::copy_n(s.vel.begin() + std::ptrdiff_t(first), count, mine.vel.begin());
    mine.t = s.t;
    return mine;
}

class ThreadExchange final : public SourceExchange {
  public:
    // What the slices' threads share: one per slice, `total` bodies in all.
    struct Shared {
        Shared(int slices, std::size_t total)
            : sync(slices), f(total), d(total), parts_f(std::size_t(slices)), parts_d(std::size_t(slices)) {
            for (auto& p : parts_f) p.resize(total);
            for (auto& p : parts_d) p.resize(total);
        }
        std::barrier<> sync;
        std::vector<Vec4<float>> f;
        std::vector<Vec4<double>> d;
        std::vector<std::vector<Vec4<float>>> parts_f;  // each slice's `all` for sum_into_slices
        std::vector<std::vector<Vec4<double>>> parts_d;
        int sums = 0;  // sum_into_slices calls, counted by slice 0
    };
    // Slice `slice` of `slices` holds bodies [first, first + count) of `total`.
    ThreadExchange(Shared& shared, std::size_t total, std::size_t first, std::size_t count, int slice,
                   int slices)
        : shared_(shared), total_(total), first_(first), count_(count), slice_(slice), slices_(slices) {}
    std::size_t total() const override { return total_; }
    std::size_t first() const override { return first_; }
    void gather(const Vec4<float>* local, std::size_t count, Vec4<float>* all) override {
        gather_into(shared_.f, local, count, all);
    }
    void gather(const Vec4<double>* local, std::size_t count, Vec4<double>* all) override {
        gather_into(shared_.d, local, count, all);
    }
    int slice() const override { return slice_; }
    int slices() const override { return slices_; }
    bool can_sum_into_slices() const override { return slices_ > 1; }
    void sum_into_slices(const Vec4<float>* all, Vec4<float>* mine) override {
        sum_into(shared_.parts_f, all, mine);
    }
    void sum_into_slices(const Vec4<double>* all, Vec4<double>* mine) override {
        sum_into(shared_.parts_d, all, mine);
    }

  private:
    template <typename T>
    void gather_into(std::vector<Vec4<T>>& shared, const Vec4<T>* local, std::size_t count, Vec4<T>* all) {
        std::copy(local, local + count, shared.begin() + std::ptrdiff_t(first_));
        shared_.sync.arrive_and_wait();
        std::copy(shared.begin(), shared.end(), all);
        shared_.sync.arrive_and_wait();
    }
    // Each slice's `all` into its part, then each slice adds its own bodies' values in slice order.
    template <typename T>
    void sum_into(std::vector<std::vector<Vec4<T>>>& parts, const Vec4<T>* all, Vec4<T>* mine) {
        std::copy(all, all + total_, parts[std::size_t(slice_)].begin());
        if (slice_ == 0) ++shared_.sums;
        shared_.sync.arrive_and_wait();
        for (std::size_t i = 0; i < count_; ++i) {
            Vec4<T> s{0, 0, 0, 0};
            for (const auto& part : parts) {
                const Vec4<T>& v = part[first_ + i];
                s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
            }
            mine[i] = s;
        }
        shared_.sync.arrive_and_wait();
    }
    Shared& shared_;
    std::size_t total_, first_, count_;
    int slice_, slices_;
};

}  // namespace nbody::test
