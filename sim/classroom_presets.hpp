#pragma once
// The classroom scenarios (issue 23): small systems in physical units, each with what to look for.
// Their rows are in presets.cpp's table beside the others; the bodies are made here.
#include <cstddef>

#include "rng.hpp"
#include "state.hpp"

namespace nbody {

// G in astronomical units, years and solar masses: Kepler's third law reads P^2 = a^3 for the Sun.
inline constexpr double kGAuYrMsun = 39.47841760435743;  // 4 pi^2

// Moves the bodies into their centre-of-mass frame (position and velocity), so every preset stays in
// view and has zero total momentum (presets.cpp).
void to_center_of_mass_frame(HostState& s);

// Each takes N (only its natural N for a fixed system; presets.cpp checks) and the preset's random numbers.
HostState make_figure_eight(std::size_t n, Rng& rng);
HostState make_sun_earth(std::size_t n, Rng& rng);
HostState make_sun_earth_moon(std::size_t n, Rng& rng);
HostState make_comet(std::size_t n, Rng& rng);
HostState make_binary_planet(std::size_t n, Rng& rng);
HostState make_binary_planet_unstable(std::size_t n, Rng& rng);
HostState make_trojans(std::size_t n, Rng& rng);
HostState make_cold_collapse(std::size_t n, Rng& rng);
HostState make_solar_system(std::size_t n, Rng& rng);

}  // namespace nbody
