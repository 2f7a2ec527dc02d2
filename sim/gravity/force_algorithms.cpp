#include "force_algorithms.hpp"

namespace nbody {
namespace {

const std::vector<ForceAlgorithmInfo> kForceAlgorithms = {
    {ForceAlgorithm::direct,
     "direct",
     "direct summation of all N^2 pairs: exact up to rounding",
     false,
     false,
     {}},
    {ForceAlgorithm::tree,
     "tree",
     "Barnes-Hut octree with quadrupoles, O(N log N); --theta sets the opening angle (median force error "
     "<= 1e-3 at the default 0.6)",
     true,
     true,
     {{"theta", "Theta",
       "opening angle of the tree: a cell acts as one multipole beyond side / theta; smaller is more "
       "accurate and slower",
       // Below 0.01 the tree opens nearly every cell: the direct sum is then the faster exact answer.
       0.01, 1.0, &Params::theta}}},
};

}  // namespace

const std::vector<ForceAlgorithmInfo>& builtin_force_algorithms() {
    return kForceAlgorithms;
}

const ForceAlgorithmInfo& force_algorithm_info(ForceAlgorithm a) {
    for (const auto& info : kForceAlgorithms) {
        if (info.id == a) return info;
    }
    return kForceAlgorithms.front();  // unreachable: every enumerator has an entry (tested)
}

const char* to_string(ForceAlgorithm a) {
    return force_algorithm_info(a).name;
}

std::optional<ForceAlgorithm> parse_force_algorithm(std::string_view name) {
    for (const auto& info : kForceAlgorithms) {
        if (name == info.name) return info.id;
    }
    return std::nullopt;
}

std::vector<std::string> force_algorithm_names() {
    std::vector<std::string> out;
    for (const auto& info : kForceAlgorithms) out.emplace_back(info.name);
    return out;
}

bool same_force_model(const Params& a, const Params& b) {
    if (a.force != b.force || a.G != b.G || a.softening != b.softening) return false;
    for (const SettingInfo& s : force_algorithm_info(a.force).settings) {
        if (a.*s.field != b.*s.field) return false;
    }
    return true;
}

}  // namespace nbody
