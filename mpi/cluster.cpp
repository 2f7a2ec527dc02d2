// The single process (no mpirun, or a build without MPI) and what every cluster shares.
#include "cluster.hpp"

#include <cstdlib>

#include "launch.hpp"

namespace nbody {
namespace {

class SingleProcess final : public Cluster {
  public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    int node_rank() const override { return 0; }
    std::string first_error(const std::string& mine) override { return mine; }
    bool same_everywhere(std::uint64_t /*value*/) override { return true; }
    void broadcast_bytes(void* /*data*/, std::size_t /*bytes*/) override {}
    std::unique_ptr<Backend> distribute(std::unique_ptr<Backend> local) override { return local; }
    [[noreturn]] void abort(int code) override { std::exit(code); }
};

Cluster* g_cluster = nullptr;  // set while a ClusterSession holds an MPI run

}  // namespace

// The hook cluster_mpi.cpp sets (declared there, not in the header: nothing else may swap the cluster).
void set_process_cluster(Cluster* c) {
    g_cluster = c;
}

int mpirun_world_size() {
    // Open MPI's launcher, then PMIx and PMI (Slurm, MPICH's Hydra).
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
        if (const char* v = std::getenv(name)) {
            const int n = std::atoi(v);
            if (n > 0) return n;
        }
    }
    return 0;
}

Cluster& cluster() {
    static SingleProcess single;
    return g_cluster ? *g_cluster : single;
}

void check_same_arguments(Cluster& c, std::uint64_t parsed_hash) {
    if (!c.distributed()) return;
    if (!c.same_everywhere(parsed_hash)) {
        throw ClusterError("the " + std::to_string(c.size()) +
                           " processes were started with different arguments: every process of a run "
                           "needs the same command line (check the parts of an `mpirun ... : ...` line)");
    }
}

std::string broadcast(Cluster& c, std::string s) {
    if (!c.distributed()) return s;
    std::uint64_t n = broadcast(c, std::uint64_t(s.size()));
    s.resize(n);
    if (n > 0) c.broadcast_bytes(s.data(), n);
    return s;
}

}  // namespace nbody
