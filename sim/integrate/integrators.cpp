#include "integrators.hpp"

#include <cmath>

#include "block_steps.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

// Kick-drift-kick. The closing kick's a(x_{n+1}) stays in the backend's acceleration cache and is the
// next step's opening kick, so a step costs one force evaluation.
void leapfrog_step(Backend& b, const Params& p, double dt) {
    b.update_forces(p);
    b.kick(dt / 2);
    b.drift(dt);
    b.update_forces(p);
    b.kick(dt / 2);
}

void advance_leapfrog(Backend& b, const Params& p) {
    leapfrog_step(b, p, p.dt);
}

// v += a(x) dt, then x += v dt.
void advance_symplectic_euler(Backend& b, const Params& p) {
    b.update_forces(p);
    b.kick(p.dt);
    b.drift(p.dt);
}

// x += v dt, then v += a(x_old) dt: the kick uses the acceleration computed before the drift.
void advance_euler(Backend& b, const Params& p) {
    b.update_forces(p);
    b.drift(p.dt);
    b.kick(p.dt);
}

// Yoshida (1990) / Forest & Ruth (1990): three leapfrog steps of w1 dt, w0 dt, w1 dt with
// w1 = 1 / (2 - 2^(1/3)) and w0 = 1 - 2 w1 (negative: the middle sub-step goes back in time) cancel the
// third-order error term. The kicks meeting between sub-steps share one cached force evaluation.
void advance_yoshida4(Backend& b, const Params& p) {
    static const double w1 = 1.0 / (2.0 - std::cbrt(2.0));
    static const double w0 = 1.0 - 2.0 * w1;
    leapfrog_step(b, p, w1 * p.dt);
    leapfrog_step(b, p, w0 * p.dt);
    leapfrog_step(b, p, w1 * p.dt);
}

const std::vector<IntegratorInfo> kIntegrators = {
    {Integrator::leapfrog, "leapfrog", 2, 1, true,
     "kick-drift-kick leapfrog: 2nd order, symplectic, time-reversible (the default)", advance_leapfrog},
    {Integrator::symplectic_euler, "symplectic-euler", 1, 1, true,
     "v += a dt, then x += v dt: 1st order, symplectic", advance_symplectic_euler},
    {Integrator::euler, "euler", 1, 1, false,
     "explicit Euler: 1st order, energy grows steadily (for teaching)", advance_euler},
    {Integrator::yoshida4, "yoshida4", 4, 3, true,
     "Forest-Ruth / Yoshida triple jump of leapfrog: 4th order, symplectic, 3 force evaluations per step",
     advance_yoshida4},
    {Integrator::hermite,
     "hermite",
     4,
     0,
     false,
     "4th-order Hermite predictor-corrector with block time steps: each body on its own power-of-two "
     "fraction of dt (the max step), chosen by Aarseth's criterion with --eta",
     advance_hermite,
     true,
     {{"eta", "Eta",
       "accuracy of an adaptive integrator: Aarseth's criterion gives each body a step of about "
       "sqrt(eta) times its own time scale; smaller is more accurate and slower, in float down to 0.01 "
       "(below it rounding sets some steps)",
       kLeastEta, 1.0, &Params::eta, true},
      {"neighbours", "Neighbours",
       "Ahmad-Cohen neighbour scheme of an adaptive integrator: each body's force from about this many "
       "nearest bodies at every step, from all the others (a full sum) only at its longer regular steps; "
       "0 is off. Pays on the GPU at large N (e.g. 64 at 65,536 bodies), not on the CPU",
       0, 1024, &Params::neighbours, true, true},
      {"eta-regular", "EtaRegular",
       "the neighbour scheme's accuracy for its regular steps (the full sums), as --eta is for the "
       "irregular ones; 0 takes --eta's value. The energy error follows this one",
       0, 1.0, &Params::eta_regular, true, false, kLeastEta, "eta's value", &Params::neighbours}}},
};

}  // namespace

const std::vector<IntegratorInfo>& builtin_integrators() {
    return kIntegrators;
}

const IntegratorInfo& integrator_info(Integrator i) {
    for (const auto& info : kIntegrators) {
        if (info.id == i) return info;
    }
    return kIntegrators.front();  // unreachable: every enumerator has an entry (tested)
}

bool block_steps_may_stall(const Params& p, Precision precision) {
    return integrator_info(p.integrator).adaptive && precision == Precision::f32 && p.softening == 0;
}

bool eta_below_float_floor(const Params& p, Precision precision) {
    if (!integrator_info(p.integrator).adaptive || precision != Precision::f32) return false;
    return p.eta < kFloatEtaFloor || (p.neighbours > 0 && regular_eta(p) < kFloatEtaFloor);
}

std::string float_eta_warning(const Params& p) {
    const bool irregular = p.eta < kFloatEtaFloor;
    const std::string flag =
        irregular ? "--eta " + format_g(p.eta) : "--eta-regular " + format_g(regular_eta(p));
    return flag + " in float: below " + format_g(kFloatEtaFloor) +
           ", float's rounding of the forces, not the orbits, sets some bodies' steps (many more blocks, no "
           "more accuracy); --precision double takes a smaller eta";
}

std::string energy_advice(const Params& p, Precision precision) {
    const std::string soften = p.softening == 0 ? "a --softening above 0" : "a larger --softening";
    if (!integrator_info(p.integrator).adaptive) return "a smaller --dt or " + soften;
    return std::string("a smaller --eta") + (p.neighbours > 0 ? " and --eta-regular" : "") + ", " +
           (precision == Precision::f32 ? "--precision double, " : "") + "or " + soften;
}

std::string stall_reason(std::size_t body, const Params& p, Precision precision, bool flags) {
    const bool single = precision == Precision::f32;
    const std::string softening = flags
                                      ? (p.softening == 0 ? "a --softening above 0" : "a larger --softening")
                                      : (p.softening == 0 ? "a softening above 0" : "a larger softening");
    // Below the default eta the criterion itself can ask for steps float's rounding cannot resolve (the
    // fit's snap and crackle, from differences of forces, are then mostly rounding): say so.
    const bool small_eta = single && p.eta < kDefaultEta;
    const std::string eta = (flags ? "--eta " : "eta ") + format_g(p.eta);
    return "body " + std::to_string(body) + "'s accuracy criterion asks for steps too short to move it in " +
           (single
                ? (small_eta ? "float (" + eta +
                                   " asks for more than float resolves, or a close encounter "
                                   "does); "
                             : std::string("float (a close encounter float cannot resolve); ")) +
                      std::string(flags ? "--precision double" : "double precision") +
                      (small_eta ? ", a larger " + std::string(flags ? "--eta" : "eta") + "," : "") + " or "
                : std::string("double (a close encounter); ")) +
           softening + " avoids it";
}

const char* to_string(Integrator i) {
    return integrator_info(i).name;
}

std::optional<Integrator> parse_integrator(std::string_view name) {
    for (const auto& info : kIntegrators) {
        if (name == info.name) return info.id;
    }
    return std::nullopt;
}

std::vector<std::string> integrator_names() {
    std::vector<std::string> out;
    for (const auto& info : kIntegrators) out.emplace_back(info.name);
    return out;
}

double interactions_per_step(const Params& p, std::size_t n) {
    return double(integrator_info(p.integrator).force_evaluations) * double(n) * double(n);
}

}  // namespace nbody
