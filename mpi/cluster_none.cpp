// A build without MPI: every run is one process, whatever launched it.
#include <iostream>

#include "cluster.hpp"
#include "launch.hpp"

namespace nbody {

ClusterSession::ClusterSession(int& /*argc*/, char**& /*argv*/) {
    if (mpirun_world_size() > 1) {
        std::cerr << "nbody: warning: started by mpirun, but this nbody was built without MPI "
                     "(NBODY_WITH_MPI=OFF or no MPI found): every process runs the whole simulation alone\n";
    }
}
ClusterSession::~ClusterSession() = default;

}  // namespace nbody
