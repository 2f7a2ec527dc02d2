#include "params.hpp"

#include "sim/gravity/force_solver.hpp"
#include "sim/integrate/integrators.hpp"

namespace nbody {

const char* to_string(Integrator i) {
    return integrator_info(i).name;
}

std::optional<Integrator> parse_integrator(std::string_view name) {
    for (const auto& info : builtin_integrators()) {
        if (name == info.name) return info.id;
    }
    return std::nullopt;
}

std::vector<std::string> integrator_names() {
    std::vector<std::string> out;
    for (const auto& info : builtin_integrators()) out.emplace_back(info.name);
    return out;
}

const char* to_string(ForceAlgorithm a) {
    return force_algorithm_info(a).name;
}

std::optional<ForceAlgorithm> parse_force_algorithm(std::string_view name) {
    for (const auto& info : builtin_force_algorithms()) {
        if (name == info.name) return info.id;
    }
    return std::nullopt;
}

std::vector<std::string> force_algorithm_names() {
    std::vector<std::string> out;
    for (const auto& info : builtin_force_algorithms()) out.emplace_back(info.name);
    return out;
}

}  // namespace nbody
