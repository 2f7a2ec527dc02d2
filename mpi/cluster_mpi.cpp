// The MPI run: Open MPI's MPI_COMM_WORLD, joined when mpirun started this process.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>

#include "cluster.hpp"
#include "distributed_backend.hpp"
#include "launch.hpp"

namespace nbody {

void set_process_cluster(Cluster* c);  // cluster.cpp

namespace {

class MpiCluster final : public Cluster {
  public:
    MpiCluster() {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        // The processes that share this node's memory (and GPUs): one GPU each, by their rank among them.
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &node_rank_);
        MPI_Comm_free(&node);
    }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int node_rank() const override { return node_rank_; }

    std::string first_error(const std::string& mine) override {
        int failed = mine.empty() ? size_ : rank_, first = size_;
        MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (first == size_) return "";
        // The failing process's message, from it to everyone (length first).
        std::string message = rank_ == first ? mine : std::string();
        unsigned long long length = message.size();
        MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, MPI_COMM_WORLD);
        message.resize(length);
        MPI_Bcast(message.data(), int(length), MPI_CHAR, first, MPI_COMM_WORLD);
        return message;
    }

    bool same_everywhere(std::uint64_t value) override {
        // Equal everywhere exactly when the smallest and the largest are equal: one reduction of both.
        unsigned long long mine[2] = {value, ~value}, extremes[2] = {0, 0};
        MPI_Allreduce(mine, extremes, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        return extremes[0] == value && ~extremes[1] == value;
    }

    void broadcast_bytes(void* data, std::size_t bytes) override {
        auto* p = static_cast<char*>(data);
        // MPI counts are int: large buffers go in pieces.
        constexpr std::size_t kPiece = std::size_t(1) << 30;
        for (std::size_t done = 0; done < bytes; done += kPiece) {
            const std::size_t n = std::min(kPiece, bytes - done);
            MPI_Bcast(p + done, int(n), MPI_BYTE, 0, MPI_COMM_WORLD);
        }
    }

    std::unique_ptr<Backend> distribute(std::unique_ptr<Backend> local) override {
        if (size_ == 1) return local;
        return make_distributed_backend(std::move(local), MPI_COMM_WORLD);
    }

    [[noreturn]] void abort(int code) override {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
    }

  private:
    int rank_ = 0, size_ = 1, node_rank_ = 0;
};

std::unique_ptr<MpiCluster> g_mpi;

}  // namespace

ClusterSession::ClusterSession(int& argc, char**& argv) {
    if (mpirun_world_size() == 0) return;  // a plain process: MPI stays untouched
    // OpenMP threads compute between MPI calls, which only the main thread makes.
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    g_mpi = std::make_unique<MpiCluster>();
    set_process_cluster(g_mpi.get());
}

ClusterSession::~ClusterSession() {
    if (!g_mpi) return;
    set_process_cluster(nullptr);
    g_mpi.reset();
    MPI_Finalize();
}

}  // namespace nbody
