#include "process_backend.hpp"

#include <system_error>

#include "backends/registry.hpp"
#include "scenario/scenario.hpp"
#include "sim/error.hpp"

namespace nbody {

std::unique_ptr<Backend> create_process_backend(Cluster& cl, const std::string& name, Precision p) {
    if (cl.distributed()) {
        const BackendInfo* info = find_backend(name);
        if (info && info->available && info->select_device) info->select_device(cl.node_rank());
    }
    return cl.distribute(create_backend(name, p));
}

std::future<void> warm_up_process_backend(const Cluster& cl, const std::string& requested) {
    if (cl.distributed()) return {};
    const BackendInfo* info = nullptr;
    try {
        info = find_backend(resolve_backend(requested));
    } catch (const Error&) {
        return {};  // the run reports the unknown name where it resolves its scenario
    }
    if (!info || !info->available || !info->warm_up) return {};
    try {
        return std::async(std::launch::async, info->warm_up);
    } catch (const std::system_error&) {
        return {};  // no thread to spare: the backend then makes its context itself
    }
}

}  // namespace nbody
