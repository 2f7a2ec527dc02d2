#pragma once
// How the process was started: shared by the MPI and the no-MPI builds of mpi/ (not for app/).

namespace nbody {

// The number of processes of the job when a launcher (mpirun, srun) started this one, else 0. Read from
// the launcher's environment, so it is known before (and without) initialising MPI.
int mpirun_world_size();

}  // namespace nbody
