// The `nbody` executable: everything lives in nbody_main so tests can run the same command line.
#include "commands.hpp"
#include "mpi/cluster.hpp"

int main(int argc, char** argv) {
    // Joins the MPI job when mpirun started this process (mpi/cluster.hpp); a no-op otherwise.
    const nbody::ClusterSession session(argc, argv);
    return nbody::nbody_main(argc, argv);
}
