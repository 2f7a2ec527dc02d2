#pragma once
// How a backend that holds one slice of a larger system sees the rest of it: a distributed run (mpi/)
// gives each process's backend one of these, and every force evaluation then sums over the positions and
// masses of ALL bodies (the sources) onto the backend's own bodies (the targets). sim/ knows nothing of
// the transport: the gather may be MPI, or anything that fills the array in global order.
#include <cstddef>
#include <cstdint>

#include "error.hpp"
#include "state.hpp"

namespace nbody {

class SourceExchange {
  public:
    virtual ~SourceExchange() = default;
    // Bodies in the whole system.
    virtual std::size_t total() const = 0;
    // Global index of this backend's first body: its bodies are [first(), first() + its size()).
    virtual std::size_t first() const = 0;
    // Collective (every slice's backend calls it at the same point of its step): copies every slice's
    // position+mass into all[0, total()) in global order; `local` holds this slice's `count` bodies. Both
    // are host memory (a GPU backend stages through pinned buffers).
    virtual void gather(const Vec4<float>* local, std::size_t count, Vec4<float>* all) = 0;
    virtual void gather(const Vec4<double>* local, std::size_t count, Vec4<double>* all) = 0;

    // This slice's index among slices() (one per process). A backend whose solver can split one
    // evaluation of all the bodies into shares (the CUDA pairwise kernels) takes share slice() of
    // slices() and adds the shares up with sum_into_slices, where can_sum_into_slices(); the others
    // evaluate their own bodies. Every slice gets the same answer from can_sum_into_slices().
    virtual int slice() const { return 0; }
    virtual int slices() const { return 1; }
    virtual bool can_sum_into_slices() const { return false; }
    // Collective: adds up every slice's `all` (total() values each) and leaves this slice's part of the
    // sum, [first(), first() + its count), in `mine`. Host memory. Only where can_sum_into_slices().
    virtual void sum_into_slices(const Vec4<float>* /*all*/, Vec4<float>* /*mine*/) { unsupported(); }
    virtual void sum_into_slices(const Vec4<double>* /*all*/, Vec4<double>* /*mine*/) { unsupported(); }

    // Collective: the smallest of every slice's `v` (an adaptive integrator's next block time), and the
    // sum of every slice's `v` (its counts). A single slice's own value by default.
    virtual std::int64_t min_over_slices(std::int64_t v) { return v; }
    virtual std::uint64_t sum_over_slices(std::uint64_t v) { return v; }

  private:
    [[noreturn]] static void unsupported() { throw Error("this source exchange cannot sum into slices"); }
};

}  // namespace nbody
