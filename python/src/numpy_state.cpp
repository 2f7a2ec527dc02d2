#include "numpy_state.hpp"

#include <string>

#include "sim/error.hpp"

namespace nbody::python {
namespace {

std::string shape_text(const DoubleArray& a) {
    std::string s = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

void require_rows_of_3(const char* name, const DoubleArray& a, py::ssize_t n) {
    if (a.ndim() != 2 || a.shape(1) != 3 || a.shape(0) != n) {
        throw Error(std::string(name) + " must have shape (" + (n < 0 ? "N" : std::to_string(n)) +
                    ", 3), got " + shape_text(a));
    }
}

py::array_t<double> columns(const HostState& s, bool velocity) {
    const py::ssize_t n = static_cast<py::ssize_t>(s.size());
    py::array_t<double> out({n, py::ssize_t{3}});
    auto w = out.mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < n; ++i) {
        const Vec4<double>& v = velocity ? s.vel[std::size_t(i)] : s.pos_mass[std::size_t(i)];
        w(i, 0) = v.x, w(i, 1) = v.y, w(i, 2) = v.z;
    }
    return out;
}

void require_rows(const char* name, const DoubleArray& a, py::ssize_t n) {
    if (a.ndim() != 1 || a.shape(0) != n)
        throw Error(std::string(name) + " must have shape (" + std::to_string(n) + ",), got " +
                    shape_text(a));
}

}  // namespace

HostState state_from_arrays(const DoubleArray& positions, const DoubleArray& velocities,
                            const DoubleArray& masses, double t, const DoubleArray* radii) {
    if (positions.ndim() != 2 || positions.shape(1) != 3)
        throw Error("positions must have shape (N, 3), got " + shape_text(positions));
    const py::ssize_t n = positions.shape(0);
    if (n == 0) throw Error("no bodies (positions has 0 rows)");
    require_rows_of_3("velocities", velocities, n);
    require_rows("masses", masses, n);
    if (radii) require_rows("radii", *radii, n);
    HostState s;
    s.t = t;
    s.resize(static_cast<std::size_t>(n));
    const auto p = positions.unchecked<2>();
    const auto v = velocities.unchecked<2>();
    const auto m = masses.unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) {
        s.pos_mass[std::size_t(i)] = {p(i, 0), p(i, 1), p(i, 2), m(i)};
        s.vel[std::size_t(i)] = {v(i, 0), v(i, 1), v(i, 2), radii ? radii->at(i) : 0.0};
    }
    return s;
}

HostState with_column(HostState s, Column c, const DoubleArray& a) {
    const auto n = static_cast<py::ssize_t>(s.size());
    switch (c) {
        case Column::positions:
        case Column::velocities: {
            const bool pos = c == Column::positions;
            require_rows_of_3(pos ? "positions" : "velocities", a, n);
            const auto r = a.unchecked<2>();
            for (py::ssize_t i = 0; i < n; ++i) {
                Vec4<double>& v = pos ? s.pos_mass[std::size_t(i)] : s.vel[std::size_t(i)];
                v.x = r(i, 0), v.y = r(i, 1), v.z = r(i, 2);  // w (mass, radius) kept
            }
            break;
        }
        case Column::masses:
        case Column::radii: {
            const bool mass = c == Column::masses;
            require_rows(mass ? "masses" : "radii", a, n);
            const auto r = a.unchecked<1>();
            for (py::ssize_t i = 0; i < n; ++i) (mass ? s.pos_mass : s.vel)[std::size_t(i)].w = r(i);
            break;
        }
    }
    return s;
}

void append_body(HostState& s, const DoubleArray& position, const DoubleArray& velocity, double mass,
                 double radius) {
    for (const auto& [name, a] : {std::pair{"position", &position}, std::pair{"velocity", &velocity}}) {
        if (a->ndim() != 1 || a->shape(0) != 3)
            throw Error(std::string(name) + " must have shape (3,), got " + shape_text(*a));
    }
    const auto p = position.unchecked<1>();
    const auto v = velocity.unchecked<1>();
    s.pos_mass.push_back({p(0), p(1), p(2), mass});
    s.vel.push_back({v(0), v(1), v(2), radius});
}

py::array_t<double> positions_of(const HostState& s) {
    return columns(s, false);
}
py::array_t<double> velocities_of(const HostState& s) {
    return columns(s, true);
}

py::array_t<double> masses_of(const HostState& s) {
    py::array_t<double> out(static_cast<py::ssize_t>(s.size()));
    auto w = out.mutable_unchecked<1>();
    for (std::size_t i = 0; i < s.size(); ++i) w(py::ssize_t(i)) = s.pos_mass[i].w;
    return out;
}

py::array_t<double> radii_of(const HostState& s) {
    py::array_t<double> out(static_cast<py::ssize_t>(s.size()));
    auto w = out.mutable_unchecked<1>();
    for (std::size_t i = 0; i < s.size(); ++i) w(py::ssize_t(i)) = s.vel[i].w;
    return out;
}

py::array_t<double> column_of(const HostState& s, Column c) {
    switch (c) {
        case Column::positions:
            return positions_of(s);
        case Column::velocities:
            return velocities_of(s);
        case Column::masses:
            return masses_of(s);
        case Column::radii:
            break;
    }
    return radii_of(s);
}

py::array_t<double> xyz_of(const std::vector<Vec4<double>>& v) {
    const py::ssize_t n = static_cast<py::ssize_t>(v.size());
    py::array_t<double> out({n, py::ssize_t{3}});
    auto w = out.mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < n; ++i)
        w(i, 0) = v[std::size_t(i)].x, w(i, 1) = v[std::size_t(i)].y, w(i, 2) = v[std::size_t(i)].z;
    return out;
}

}  // namespace nbody::python
