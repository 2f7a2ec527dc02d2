#include "validate.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <string>
#include <vector>

#include "error.hpp"

// Body indices in messages are 0-based, as in the body CSV's data rows (the first body is body 0) and in
// trajectory files; the CSV reader's own messages give file line numbers instead.
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

template <typename T>
void check_bodies(const HostState& s, const Params& p) {
    constexpr const char* kNames[7] = {"x", "y", "z", "m", "vx", "vy", "vz"};
    const bool narrowed = precision_of<T>() == Precision::f32;
    const std::size_t n = s.size();
    std::vector<Vec4<T>> pos(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& pm = s.pos_mass[i];
        const auto& v = s.vel[i];
        const double values[7] = {pm.x, pm.y, pm.z, pm.w, v.x, v.y, v.z};
        for (int k = 0; k < 7; ++k) {
            if (!is_finite_bits(values[k]))
                throw Error(body(i) + ": " + kNames[k] + " is not finite (" + num(values[k]) + ")");
            if (narrowed && !is_finite_bits(T(values[k])))
                throw Error(body(i) + ": " + kNames[k] + " = " + num(values[k]) +
                            " is too large for float precision (use --precision double)");
        }
        if (!(pm.w > 0)) throw Error(body(i) + ": mass must be > 0 (got " + num(pm.w) + ")");
        if (narrowed && !(T(pm.w) > 0))
            throw Error(body(i) + ": mass " + num(pm.w) +
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
        const std::size_t a = order[k - 1], b = order[k];
        const auto &pa = pos[a], &pb = pos[b];
        if (pa.x == pb.x && pa.y == pb.y && pa.z == pb.z)
            throw Error("bodies " + std::to_string(a) + " and " + std::to_string(b) +
                        " (0-based) are at the same point (" + num(double(pa.x)) + ", " + num(double(pa.y)) +
                        ", " + num(double(pa.z)) + ")" + (narrowed ? " in float precision" : "") +
                        " and softening is 0: their force is infinite (set softening > 0 or move one)");
    }
}

}  // namespace

void validate_state(const HostState& s, const Params& p) {
    validate_state(s, p, Precision::f64);
}

void validate_state(const HostState& s, const Params& p, Precision precision) {
    if (s.pos_mass.size() != s.vel.size())
        throw Error("state has " + std::to_string(s.pos_mass.size()) + " positions but " +
                    std::to_string(s.vel.size()) + " velocities");
    if (precision == Precision::f32)
        check_bodies<float>(s, p);
    else
        check_bodies<double>(s, p);
}

void validate_params(const Params& p) {
    auto check = [](bool ok, const char* name, const char* rule, double value) {
        if (!ok) throw Error(std::string(name) + " must be " + rule + " (got " + num(value) + ")");
    };
    check(is_finite_bits(p.dt) && p.dt > 0, "dt", "a finite number > 0", p.dt);
    check(is_finite_bits(p.softening) && p.softening >= 0, "softening", "a finite number >= 0", p.softening);
    check(is_finite_bits(p.G) && p.G > 0, "G", "a finite number > 0", p.G);
    check(is_finite_bits(p.damping) && p.damping > 0 && p.damping <= 1, "damping", "in (0, 1]", p.damping);
}

}  // namespace nbody
