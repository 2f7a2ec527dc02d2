#pragma once
// The processes of one run: one without mpirun, K under `mpirun -np K` (Open MPI). app/ asks this
// interface, never MPI itself; no MPI header here. A build without MPI (NBODY_WITH_MPI=OFF, or no MPI
// found) has only the single process, and so does `mpirun -np 1`: then nothing is distributed and the run
// is the one-process run, bit for bit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/backend.hpp"
#include "sim/error.hpp"

namespace nbody {

// An error every process of the run throws at the same point (a verdict they agreed on, or a check they
// all made on the same data): rank 0 reports it, the others end quietly with the same exit status.
struct ClusterError : Error {
    using Error::Error;
};

class Cluster {
  public:
    virtual ~Cluster() = default;
    virtual int rank() const = 0;  // 0 .. size() - 1
    virtual int size() const = 0;  // processes in the run
    // This process's index among the run's processes on its own node (the GPU it takes).
    virtual int node_rank() const = 0;
    bool root() const { return rank() == 0; }
    bool distributed() const { return size() > 1; }

    // Collective: `mine` is this process's error ("" if none). Returns, on every process, the error of
    // the lowest-ranked process that had one, or "" if none had.
    virtual std::string first_error(const std::string& mine) = 0;
    // Collective: whether every process passed the same `value` (e.g. a hash of its command line).
    virtual bool same_everywhere(std::uint64_t value) = 0;
    // Collective: rank 0's bytes into every process's `data`.
    virtual void broadcast_bytes(void* data, std::size_t bytes) = 0;
    // Collective: a backend for this process's contiguous slice of the bodies, which steps them on
    // `local` with the forces of all bodies (mpi/distributed_backend.hpp). Its set_state takes the whole
    // system on rank 0 and scatters it; get_state gathers it back to rank 0 (other processes get their
    // own slice); diagnostics, failures and interaction counts are the whole system's on every process.
    // With one process, `local` itself.
    virtual std::unique_ptr<Backend> distribute(std::unique_ptr<Backend> local) = 0;
    // Ends every process of the run at once (after a failure the others cannot learn of in step).
    [[noreturn]] virtual void abort(int code) = 0;

    // Whether this process still takes part in the command's collective steps. A command leaves them
    // once rank 0 has everything it needs (writing files, printing): a failure after that is its own
    // and needs no abort of the others.
    bool in_lockstep() const { return distributed() && lockstep_; }
    void leave_lockstep() { lockstep_ = false; }

  private:
    bool lockstep_ = true;
};

// This process's cluster: the MPI run it joined in ClusterSession, else the single process.
Cluster& cluster();

// Joins the MPI run when the process was started by mpirun (its environment says so), from main() before
// anything else; otherwise does nothing, so a plain `nbody` never touches MPI. Ends MPI when destroyed.
class ClusterSession {
  public:
    ClusterSession(int& argc, char**& argv);
    ~ClusterSession();
    ClusterSession(const ClusterSession&) = delete;
    ClusterSession& operator=(const ClusterSession&) = delete;
};

// Rank 0's value of a trivially copyable v, on every process (collective).
template <typename T>
T broadcast(Cluster& c, T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (c.distributed()) c.broadcast_bytes(&v, sizeof v);
    return v;
}
std::string broadcast(Cluster& c, std::string s);
// Rank 0's vector of trivially copyable values, on every process (collective).
template <typename T>
std::vector<T> broadcast(Cluster& c, std::vector<T> v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!c.distributed()) return v;
    v.resize(broadcast(c, v.size()));
    if (!v.empty()) c.broadcast_bytes(v.data(), v.size() * sizeof(T));
    return v;
}

// Collective, before any other: throws ClusterError on every process unless all parsed the same command
// line (`parsed_hash`, app/cli/argument_hash.hpp: values as parsed, so `--dt 0.01` and `--dt 1e-2` agree).
// `mpirun -np 1 nbody run ... : -np 1 nbody run ... --dt nan` would otherwise fail on one process only and
// leave the other waiting in its first collective forever; different --log-every values would deadlock
// later. With one process, nothing.
void check_same_arguments(Cluster& c, std::uint64_t parsed_hash);

// Runs f on every process of the run and agrees on the outcome: if f threw on any process, every process
// throws ClusterError with the message of the lowest-ranked one that failed (collective). With one
// process, f runs as it is and its exceptions pass unchanged.
template <typename F>
void agree(Cluster& c, F&& f) {
    if (!c.distributed()) {
        f();
        return;
    }
    std::string mine;
    try {
        f();
    } catch (const std::bad_alloc&) {
        mine = "out of memory";
    } catch (const std::exception& e) {
        mine = e.what();
        if (mine.empty()) mine = "unknown error";
    }
    const std::string first = c.first_error(mine);
    if (!first.empty()) throw ClusterError(first);
}

}  // namespace nbody
