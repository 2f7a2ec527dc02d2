// The `nbody` executable: everything lives in nbody_main so tests can run the same command line.
#include "backends/registry.hpp"
#include "commands.hpp"
#include "mpi/cluster.hpp"

int main(int argc, char** argv) {
    // Before MPI_Init too: a CUDA-aware MPI may make the device's context there.
    nbody::prepare_process_for_devices();
    // Joins the MPI job when mpirun started this process (mpi/cluster.hpp); a no-op otherwise.
    const nbody::ClusterSession session(argc, argv);
    return nbody::nbody_main(argc, argv);
}
