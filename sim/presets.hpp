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
    bool fixed_n = false;    // a system of exactly natural_n bodies (the figure-eight's 3)
    std::string look_for{};  // for a class: what to watch for, one paragraph
    std::string units{};     // "AU, years, solar masses (G = 4 pi^2)"; empty: N-body units (G = 1)
    // Units of length and time for the numbers shown ("AU", "yr"); empty: N-body units.
    std::string length_unit{}, time_unit{};
    // Steps `nbody render` takes when --steps is not given, so a first image shows the interesting part
    // (the collision: after first passage, tails thrown out); 0: the command's own default.
    std::int64_t demo_steps = 0;
    // Unit of mass for the numbers shown ("Msun", "1e10 Msun"); empty: N-body units.
    std::string mass_unit{};
};

// All presets in a fixed order; the first is the default scenario.
const std::vector<PresetInfo>& presets();

// nullptr if unknown.
const PresetInfo* find_preset(std::string_view name);

// Names, for "unknown preset 'x' (valid: ...)" messages.
std::vector<std::string> preset_names();

// Where each set of bodies starts, as index ranges in make_preset's order: {0, first of the second
// galaxy} for collision, {0, 1} where a central mass leads (disk, solar: the star, then the rest); {0}
// for one set or an unknown name. No backend reorders bodies, so the ranges hold for the whole run.
std::vector<std::size_t> preset_group_starts(std::string_view name, std::size_t n);

// N bodies of the named preset. Throws nbody::Error for an unknown name or n < min_n.
HostState make_preset(std::string_view name, std::size_t n, std::uint64_t seed);

}  // namespace nbody
