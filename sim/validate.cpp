#include "validate.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "error.hpp"
#include "run_settings.hpp"
#include "sim/gravity/interaction.hpp"
#include "sim/integrate/block_steps.hpp"
#include "sim/integrate/hermite.hpp"
#include "sim/integrate/integrators.hpp"

// Body indices in messages are 0-based, as in the body CSV's data rows (the first body is body 0) and in
// trajectory files. A state read from a file (BodySource) is also named by FILE:LINE, as the reader does.
namespace nbody {
namespace {

std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string body(std::size_t i) {
    return "body " + std::to_string(i) + " (0-based)";
}

// "FILE:LINE: " for body i when the state came from a file, else "".
std::string where(const BodySource* source, std::size_t i) {
    if (!source || i >= source->lines.size()) return "";
    return source->file + ":" + std::to_string(source->lines[i]) + ": ";
}

template <typename T>
void check_bodies(const HostState& s, const Params& p, const BodySource* source) {
    constexpr const char* kNames[7] = {"x", "y", "z", "m", "vx", "vy", "vz"};
    const bool narrowed = precision_of<T>() == Precision::f32;
    const std::size_t n = s.size();
    std::vector<Vec4<T>> pos(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& pm = s.pos_mass[i];
        const auto& v = s.vel[i];
        const std::string who = where(source, i) + body(i);
        const double values[7] = {pm.x, pm.y, pm.z, pm.w, v.x, v.y, v.z};
        for (int k = 0; k < 7; ++k) {
            if (!is_finite_bits(values[k]))
                throw Error(who + ": " + kNames[k] + " is not finite (" + num(values[k]) + ")");
            if (narrowed && !is_finite_bits(T(values[k])))
                throw Error(who + ": " + kNames[k] + " = " + num(values[k]) +
                            " is too large for float precision (use --precision double)");
        }
        if (!(pm.w > 0)) throw Error(who + ": mass must be > 0 (got " + num(pm.w) + ")");
        // The radius (vel.w, sim/state.hpp): 0 is a point; NaN fails the test as well.
        if (!(is_finite_bits(v.w) && v.w >= 0))
            throw Error(who + ": radius r must be a finite number >= 0 (got " + num(v.w) + ")");
        if (narrowed && !(T(pm.w) > 0))
            throw Error(who + ": mass " + num(pm.w) +
                        " rounds to 0 in float precision (use --precision double)");
        pos[i] = {T(pm.x), T(pm.y), T(pm.z), T(pm.w)};
    }

    // With softening the force between two bodies at one point is finite (and zero); without, it is not.
    if (p.softening != 0 || n < 2) return;
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto &pa = pos[a], &pb = pos[b];
        if (pa.x != pb.x) return pa.x < pb.x;
        if (pa.y != pb.y) return pa.y < pb.y;
        if (pa.z != pb.z) return pa.z < pb.z;
        return a < b;
    });
    for (std::size_t k = 1; k < n; ++k) {
        const std::size_t a = order[k - 1], b = order[k];  // a < b: ties sort by index
        const auto &pa = pos[a], &pb = pos[b];
        if (pa.x == pb.x && pa.y == pb.y && pa.z == pb.z) {
            // The later body's line leads, as a reader would report it; the earlier one's is named too.
            const std::string lines = where(source, a).empty()
                                          ? ""
                                          : ", lines " + std::to_string(source->lines[a]) + " and " +
                                                std::to_string(source->lines[b]);
            throw Error(where(source, b) + "bodies " + std::to_string(a) + " and " + std::to_string(b) +
                        " (0-based" + lines + ") are at the same point (" + num(double(pa.x)) + ", " +
                        num(double(pa.y)) + ", " + num(double(pa.z)) + ")" +
                        (narrowed ? " in float precision" : "") +
                        " and softening is 0: their force is infinite (set softening > 0 or move one)");
        }
    }
}

// Why v (> 0) is not a normal value of T once rounded to T, or nullptr if it is one.
template <typename T>
const char* range_problem(double v) {
    const T rounded = static_cast<T>(v);
    if (!is_finite_bits(rounded)) return "too large";
    if (rounded < std::numeric_limits<T>::min()) return "too small";
    return nullptr;
}

}  // namespace

void validate_state(const HostState& s, const Params& p) {
    validate_state(s, p, Precision::f64);
}

void validate_state(const HostState& s, const Params& p, Precision precision) {
    validate_state(s, p, precision, nullptr);
}

void validate_state(const HostState& s, const Params& p, Precision precision, const BodySource* source) {
    if (s.pos_mass.size() != s.vel.size())
        throw Error("state has " + std::to_string(s.pos_mass.size()) + " positions but " +
                    std::to_string(s.vel.size()) + " velocities");
    if (source && source->lines.size() != s.size()) source = nullptr;  // not this state's: name by index
    if (precision == Precision::f32)
        check_bodies<float>(s, p, source);
    else
        check_bodies<double>(s, p, source);
}

void validate_params(const Params& p) {
    auto check = [](bool ok, const char* name, const char* rule, double value) {
        if (!ok) throw Error(std::string(name) + " must be " + rule + " (got " + num(value) + ")");
    };
    check(is_finite_bits(p.dt) && p.dt > 0, "dt", "a finite number > 0", p.dt);
    check(is_finite_bits(p.softening) && p.softening >= 0, "softening", "a finite number >= 0", p.softening);
    check(is_finite_bits(p.G) && p.G > 0, "G", "a finite number > 0", p.G);
    check(is_finite_bits(p.damping) && p.damping > 0 && p.damping <= 1, "damping", "in (0, 1]", p.damping);
    // Every algorithm's and integrator's settings, also those the run does not use: a bad value is a
    // mistake wherever it was given.
    for (const SettingInfo* s : all_settings()) {
        const double v = p.*s->field;
        if (!is_finite_bits(v) || !s->in_range(v))
            throw Error(std::string(s->name) + " must be " + setting_range(*s) + " (got " + num(v) + ")");
        if (s->whole && v != std::floor(v))
            throw Error(std::string(s->name) + " must be a whole number (got " + num(v) + ")");
    }
    check_block_model(p);
    check(is_finite_bits(p.restitution) && p.restitution >= 0 && p.restitution <= 1, "restitution",
          "in [0, 1] (1: elastic, 0: the normal motion stops)", p.restitution);
    check(is_finite_bits(p.density) && p.density > 0, "density", "a finite number > 0", p.density);
}

void validate_params(const Params& p, Precision precision) {
    validate_params(p);
    const bool f32 = precision == Precision::f32;
    // The kernels use softening^2 in the run's precision: if it rounds to 0 the softening silently
    // vanishes (and coincident bodies, allowed because softening > 0, get an infinite force).
    if (p.softening > 0) {
        const double eps2 = softening2<double>(p);
        if (const char* problem = range_problem<double>(eps2))
            throw Error("softening = " + num(p.softening) + " is " + problem +
                        ": its square is out of double range");
        if (const char* problem = f32 ? range_problem<float>(eps2) : nullptr)
            throw Error("softening = " + num(p.softening) + " is " + problem +
                        " for float precision (its square is out of float range; use --precision double)");
    }
    // An adaptive integrator's finest step, dt / 2^kMaxBlockLevel, must be a normal number: below that the
    // predictor's steps would flush to zero and the bodies freeze while their clocks run.
    if (integrator_info(p.integrator).adaptive) {
        const double finest = std::ldexp(p.dt, -kMaxBlockLevel);
        // Only "too small": a dt too large for float is the check below's (its own words).
        const double least =
            f32 ? double(std::numeric_limits<float>::min()) : std::numeric_limits<double>::min();
        if (p.dt > 0 && finest < least) {
            throw Error("dt = " + num(p.dt) + " is too small a max step for the " + to_string(p.integrator) +
                        " integrator: its finest step dt / 2^" + std::to_string(kMaxBlockLevel) + " = " +
                        num(finest) + " underflows " + to_string(precision) +
                        " precision (use a larger --dt)");
        }
    }
    if (!f32) return;
    const struct {
        const char* name;
        double value;
    } checks[] = {{"dt", p.dt}, {"G", p.G}};
    for (const auto& c : checks) {
        if (const char* problem = range_problem<float>(c.value))
            throw Error(std::string(c.name) + " = " + num(c.value) + " is " + problem +
                        " for float precision (use --precision double)");
    }
}

void validate_time_interval(const std::string& what, double interval, Precision precision) {
    if (!(is_finite_bits(interval) && interval > 0))
        throw Error(what + " must be a finite number > 0 (got " + num(interval) + ")");
    if (precision != Precision::f32) return;
    if (const char* problem = range_problem<float>(interval))
        throw Error(what + " = " + num(interval) + " is " + problem +
                    " for float precision (use --precision double)");
}

}  // namespace nbody

namespace nbody {

void validate_clock_step(double t, double dt) {
    const double step = (t + dt) - t;
    if (std::fabs(step - dt) <= 0.01 * std::fabs(dt)) return;
    throw Error("--dt " + num(dt) + " is too small for the clock at t = " + num(t) + ": t + dt rounds to " +
                (step == 0 ? std::string("t") : "t + " + num(step)) +
                " (give a larger --dt, or start the bodies from an earlier t)");
}

}  // namespace nbody
