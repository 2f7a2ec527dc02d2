#pragma once
// Built-in initial conditions, deterministic for a given seed on every platform.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "params.hpp"
#include "state.hpp"

namespace nbody {

struct PresetInfo {
    std::string name;         // "plummer", "disk", ...
    std::string description;  // one line: what it is, its units, what it is good for
    Params params;            // dt, softening, G suited to it (integrator leapfrog, damping 1)
    std::size_t min_n = 1;    // smallest N it accepts
    // The N it is meant to be seen with (solar: the Sun and 8 planets), used when no N is asked for and when
    // the window loads it; 0: any N, the caller's default.
    std::size_t natural_n = 0;
};

// All presets in a fixed order; the first is the default scenario.
const std::vector<PresetInfo>& presets();

// nullptr if unknown.
const PresetInfo* find_preset(std::string_view name);

// Names, for "unknown preset 'x' (valid: ...)" messages.
std::vector<std::string> preset_names();

// N bodies of the named preset. Throws nbody::Error for an unknown name or n < min_n.
HostState make_preset(std::string_view name, std::size_t n, std::uint64_t seed);

}  // namespace nbody
