#pragma once
// The classroom scenarios (issue 23): small systems in physical units, each with what to look for.
// Their rows are in presets.cpp's table beside the others; the bodies are made here.
#include <cstddef>

#include "rng.hpp"
#include "state.hpp"

namespace nbody {

// G in astronomical units, years and solar masses: Kepler's third law reads P^2 = a^3 for the Sun.
inline constexpr double kGAuYrMsun = 39.47841760435743;  // 4 pi^2

// G in kiloparsecs, megayears and 10^10 solar masses, about 4.50e-2, from G M_sun = 1.32712440018e20
// m^3/s^2 (IAU 2015 nominal), the astronomical unit 149597870700 m (the parsec is 648000 / pi of them) and
// the Julian year of 365.25 days of 86400 s.
inline constexpr double kGKpcMyr = [] {
    constexpr double gm_sun = 1.32712440018e20;                                  // m^3 / s^2
    constexpr double kpc = 1e3 * 648000.0 / 3.141592653589793 * 149597870700.0;  // m
    constexpr double myr = 1e6 * 365.25 * 86400.0;                               // s
    return 1e10 * gm_sun * myr * myr / (kpc * kpc * kpc);
}();

// The galaxy scenario's scales against the collision preset's N-body units (G = 1, central masses 1,
// disk radius 1): a disk radius is 10 kpc, a central mass 10^11 solar masses, so the N-body time unit is
// sqrt(10^3 / (10 G)) = 47.1 Myr and its speed unit 0.212 kpc/Myr (207 km/s).
inline constexpr double kGalaxyLength = 10.0;  // kpc per N-body length
inline constexpr double kGalaxyMass = 10.0;    // 10^10 solar masses per N-body mass

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
