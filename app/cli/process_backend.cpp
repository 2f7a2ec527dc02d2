#include "process_backend.hpp"

#include <system_error>

#include "backends/registry.hpp"
#include "scenario/scenario.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"

namespace nbody {

std::unique_ptr<Backend> create_process_backend(Cluster& cl, const std::string& name, Precision p) {
    if (cl.distributed()) {
        const BackendInfo* info = find_backend(name);
        if (info && info->available() && info->select_device) info->select_device(cl.node_rank());
    }
    return cl.distribute(create_backend(name, p));
}

void check_distributable(const Cluster& cl, const Params& p) {
    if (!cl.distributed()) return;
    // The neighbour lists hold indices of the whole system: one process's block steps only.
    if (integrator_info(p.integrator).adaptive && p.neighbours > 0)
        throw Error(
            "--neighbours does not run under mpirun yet (each list indexes the whole system): run it in one "
            "process, or use --neighbours 0");
    // Contacts between bodies of different processes are not searched for: refused rather than missed.
    if (p.collisions != CollisionMode::off)
        throw Error(
            "--collisions " + std::string(to_string(p.collisions)) +
            " does not run under mpirun yet (contacts across processes are not searched): run it in one "
            "process");
}

void check_block_steps(const Params& p, Backend& backend, const std::string& name) {
    // Under mpirun only a backend with block steps of its own can share them out (exactly).
    if (integrator_info(p.integrator).adaptive && !backend.block_steps()) {
        throw Error(std::string("--integrator ") + to_string(p.integrator) + " under mpirun needs a " +
                    "backend with block time steps of its own, which " + name +
                    " has not (yet): use --backend openmp or serial, or run in one process");
    }
}

std::future<void> warm_up_process_backend(const Cluster& cl, const std::string& requested) {
    if (cl.distributed()) return {};
    // The backend that will run, named or the default's first choice, without asking the device here: the
    // thread asks (the driver's start-up, ~0.1 s on CUDA) and makes the context while this one reads the
    // scenario. An unknown name is reported where the run resolves its scenario.
    const BackendInfo* info = requested.empty() ? first_device_backend() : find_backend(requested);
    if (!info || !info->warm_up) return {};
    try {
        return std::async(std::launch::async, [info] {
            if (info->available()) info->warm_up();
        });
    } catch (const std::system_error&) {
        return {};  // no thread to spare: the backend then makes its context itself
    }
}

}  // namespace nbody
