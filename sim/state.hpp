#pragma once
// Bodies in the layout the GPU shares: position+mass and velocity as 4-vectors of T (float or double).
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace nbody {

// x, y, z, w. Aligned like CUDA's float4 / double4 so device code can reinterpret the same bytes.
template <typename T>
struct alignas(4 * sizeof(T)) Vec4 {
    T x, y, z, w;
};

enum class Precision { f32, f64 };

// "float" / "double".
const char* to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view name);

template <typename T>
constexpr Precision precision_of() {
    return sizeof(T) == 4 ? Precision::f32 : Precision::f64;
}

// The simulated bodies. pos_mass[i] = (x, y, z, m); vel[i] = (vx, vy, vz, r), r the body's radius (0: a
// point, given the default radius when collisions are on; sim/collide/radius.hpp). The radius rides in the
// velocity's spare lane so that every backend, device buffer and process slice carries it with no copy
// of its own; only collisions read it.
template <typename T>
struct State {
    std::vector<Vec4<T>> pos_mass;
    std::vector<Vec4<T>> vel;
    double t = 0;  // simulated time

    std::size_t size() const { return pos_mass.size(); }
    void resize(std::size_t n) {
        pos_mass.resize(n, Vec4<T>{0, 0, 0, 0});
        vel.resize(n, Vec4<T>{0, 0, 0, 0});
    }
};

// The precision-neutral state that moves between backends, files and presets. A float state converted
// to HostState and back is bit-identical, so switching backends never perturbs the bodies.
using HostState = State<double>;

template <typename To, typename From>
State<To> convert_state(const State<From>& in) {
    State<To> out;
    out.t = in.t;
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const auto& p = in.pos_mass[i];
        const auto& v = in.vel[i];
        out.pos_mass[i] = {To(p.x), To(p.y), To(p.z), To(p.w)};
        out.vel[i] = {To(v.x), To(v.y), To(v.z), To(v.w)};
    }
    return out;
}

// Vec4s of T widened to double one for one: how accelerations and field samples leave a backend.
template <typename T>
std::vector<Vec4<double>> widen(const std::vector<Vec4<T>>& in) {
    std::vector<Vec4<double>> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
        out[i] = {double(in[i].x), double(in[i].y), double(in[i].z), double(in[i].w)};
    return out;
}

}  // namespace nbody
