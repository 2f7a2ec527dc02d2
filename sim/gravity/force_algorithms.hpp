#pragma once
// The force-algorithm registry: every way of summing gravity (Params::force), described once. --force,
// --help, the panel, validation, the files' metadata, bench and the tests read these entries instead of
// naming an algorithm or a setting; the solvers that run them are in force_solver.hpp (host) and cuda/.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/params.hpp"

namespace nbody {

struct ForceAlgorithmInfo {
    ForceAlgorithm id;
    const char* name;         // --force NAME, the panel's combo
    const char* description;  // one line for --help and tooltips
    // Its forces carry an error beyond rounding: the panel shows the live force error against the float64
    // direct sum, bench --compare allows more, and no textbook kernel compares with it.
    bool approximate;
    // Its solvers count the interactions they evaluate (Backend::last_force_interactions): rates are
    // reported from that count, never as N^2 per evaluation, and no GFLOP/s (cells and pairs differ).
    bool counts_interactions;
    std::vector<SettingInfo> settings;  // what it takes besides G and softening
};

// Every force algorithm, in a fixed order (direct first: the default).
const std::vector<ForceAlgorithmInfo>& builtin_force_algorithms();
const ForceAlgorithmInfo& force_algorithm_info(ForceAlgorithm a);

// Name <-> value ("direct", "tree").
const char* to_string(ForceAlgorithm a);
std::optional<ForceAlgorithm> parse_force_algorithm(std::string_view name);
std::vector<std::string> force_algorithm_names();

// Whether a and b give the same accelerations for the same positions (force algorithm and its settings,
// G, softening): what a backend's acceleration cache is keyed on.
bool same_force_model(const Params& a, const Params& b);

}  // namespace nbody
