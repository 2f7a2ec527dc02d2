#include "params.hpp"

namespace nbody {

const char* to_string(Integrator i) {
    switch (i) {
        case Integrator::leapfrog: return "leapfrog";
        case Integrator::symplectic_euler: return "symplectic-euler";
        case Integrator::euler: return "euler";
    }
    return "?";
}

std::optional<Integrator> parse_integrator(std::string_view name) {
    for (Integrator i : {Integrator::leapfrog, Integrator::symplectic_euler, Integrator::euler}) {
        if (name == to_string(i)) return i;
    }
    return std::nullopt;
}

std::vector<std::string> integrator_names() { return {"leapfrog", "symplectic-euler", "euler"}; }

const char* to_string(ForceAlgorithm a) {
    switch (a) {
        case ForceAlgorithm::direct: return "direct";
    }
    return "?";
}

std::optional<ForceAlgorithm> parse_force_algorithm(std::string_view name) {
    if (name == "direct") return ForceAlgorithm::direct;
    return std::nullopt;
}

std::vector<std::string> force_algorithm_names() { return {"direct"}; }

}  // namespace nbody
