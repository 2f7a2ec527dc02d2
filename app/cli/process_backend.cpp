#include "process_backend.hpp"

#include "backends/registry.hpp"

namespace nbody {

std::unique_ptr<Backend> create_process_backend(Cluster& cl, const std::string& name, Precision p) {
    if (cl.distributed()) {
        const BackendInfo* info = find_backend(name);
        if (info && info->available && info->select_device) info->select_device(cl.node_rank());
    }
    return cl.distribute(create_backend(name, p));
}

}  // namespace nbody
