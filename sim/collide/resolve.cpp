#include "resolve.hpp"

#include <cmath>
#include <limits>

#include "radius.hpp"

namespace nbody {
namespace {

struct D3 {
    double x, y, z;
};
D3 operator+(D3 a, D3 b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
D3 operator-(D3 a, D3 b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
D3 operator*(double k, D3 a) {
    return {k * a.x, k * a.y, k * a.z};
}
double dot(D3 a, D3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

template <typename T>
D3 xyz(const Vec4<T>& v) {
    return {double(v.x), double(v.y), double(v.z)};
}

// Kinetic energy of the pair plus their mutual potential energy, in double from the state's values.
template <typename T>
double pair_energy(const State<T>& s, std::size_t i, std::size_t j, const Params& p) {
    const double mi = s.pos_mass[i].w, mj = s.pos_mass[j].w;
    const D3 vi = xyz(s.vel[i]), vj = xyz(s.vel[j]), d = xyz(s.pos_mass[i]) - xyz(s.pos_mass[j]);
    const double r2 = dot(d, d) + p.softening * p.softening;
    const double potential = r2 > 0 ? -p.G * mi * mj / std::sqrt(r2) : 0.0;  // coincident unsoftened: none
    return 0.5 * mi * dot(vi, vi) + 0.5 * mj * dot(vj, vj) + potential;
}

template <typename T>
void merge_pair(State<T>& s, std::size_t i, std::size_t j) {
    const double mi = s.pos_mass[i].w, mj = s.pos_mass[j].w, m = mi + mj;
    const D3 x = (1.0 / m) * (mi * xyz(s.pos_mass[i]) + mj * xyz(s.pos_mass[j]));
    const D3 v = (1.0 / m) * (mi * xyz(s.vel[i]) + mj * xyz(s.vel[j]));
    const double r = merged_radius(double(s.vel[i].w), double(s.vel[j].w));
    s.pos_mass[i] = {T(x.x), T(x.y), T(x.z), T(m)};
    s.vel[i] = {T(v.x), T(v.y), T(v.z), T(r)};
}

// Returns false when the pair does not approach at the contact and does not overlap: nothing to do.
template <typename T>
bool bounce_pair(State<T>& s, std::size_t i, std::size_t j, double contact_s, const Params& p, double dt) {
    const double mi = s.pos_mass[i].w, mj = s.pos_mass[j].w, m = mi + mj;
    const double R = double(s.vel[i].w) + double(s.vel[j].w);
    const double back = dt - contact_s;  // from the contact to the end of the step
    D3 vi = xyz(s.vel[i]), vj = xyz(s.vel[j]);
    D3 xi = xyz(s.pos_mass[i]) - back * vi, xj = xyz(s.pos_mass[j]) - back * vj;  // at the contact
    D3 n = xi - xj;
    if (dot(n, n) == 0) n = xyz(s.pos_mass[i]) - xyz(s.pos_mass[j]);
    if (dot(n, n) == 0) n = {1, 0, 0};
    n = (1.0 / std::sqrt(dot(n, n))) * n;
    const double un = dot(vi - vj, n);
    const bool approaching = un < 0;
    if (approaching) {
        const double J = -(1.0 + p.restitution) * un * mi * mj / m;
        vi = vi + (J / mi) * n;
        vj = vj - (J / mj) * n;
    }
    xi = xi + back * vi, xj = xj + back * vj;
    D3 d = xi - xj;
    const double dist = std::sqrt(dot(d, d));
    if (!approaching && dist >= R) return false;
    // Pushed apart to R plus a margin of a few units in the last place of the coordinates, grown until the
    // separation measured on the rounded values is at least R.
    const D3 dir = dist > 0 ? (1.0 / dist) * d : n;
    const double ulp =
        std::numeric_limits<T>::epsilon() * (std::fabs(xi.x) + std::fabs(xi.y) + std::fabs(xi.z) +
                                             std::fabs(xj.x) + std::fabs(xj.y) + std::fabs(xj.z) + R);
    Vec4<T> pi, pj;
    double margin = 2 * ulp;
    for (int tries = 0; tries < 64; ++tries, margin *= 2) {
        const double push = dist < R ? R - dist + margin : 0.0;
        const D3 yi = xi + (push * mj / m) * dir, yj = xj - (push * mi / m) * dir;
        pi = {T(yi.x), T(yi.y), T(yi.z), s.pos_mass[i].w};
        pj = {T(yj.x), T(yj.y), T(yj.z), s.pos_mass[j].w};
        const D3 e = xyz(pi) - xyz(pj);
        if (dot(e, e) >= R * R) break;
    }
    s.pos_mass[i] = pi, s.pos_mass[j] = pj;
    s.vel[i] = {T(vi.x), T(vi.y), T(vi.z), s.vel[i].w};
    s.vel[j] = {T(vj.x), T(vj.y), T(vj.z), s.vel[j].w};
    return true;
}

}  // namespace

template <typename T>
CollisionTally resolve_contacts_in_place(State<T>& s, const std::vector<Contact>& contacts, const Params& p,
                                         double dt, double t_end, std::vector<char>& removed) {
    CollisionTally tally;
    removed.assign(s.size(), 0);
    if (contacts.empty() || p.collisions == CollisionMode::off) return tally;
    std::vector<char> busy(s.size(), 0);
    for (const Contact& c : contacts) {
        const std::size_t i = c.i, j = c.j;
        if (busy[i] || busy[j]) continue;
        const D3 u = xyz(s.vel[i]) - xyz(s.vel[j]);
        CollisionEvent e;
        e.t = t_end - dt + c.s;
        e.i = i, e.j = j;
        e.mi = s.pos_mass[i].w, e.mj = s.pos_mass[j].w;
        e.speed = std::sqrt(dot(u, u));
        const double before = pair_energy(s, i, j, p);
        if (p.collisions == CollisionMode::merge) {
            merge_pair(s, i, j);
            const D3 v = xyz(s.vel[i]);
            e.energy_lost = before - 0.5 * double(s.pos_mass[i].w) * dot(v, v);
            e.merged = true;
            removed[j] = 1;
        } else {
            if (!bounce_pair(s, i, j, c.s, p, dt)) continue;
            e.energy_lost = before - pair_energy(s, i, j, p);
        }
        busy[i] = busy[j] = 1;
        tally.add(e);
    }
    return tally;
}

template <typename T>
CollisionTally resolve_contacts(State<T>& s, const std::vector<Contact>& contacts, const Params& p, double dt,
                                double t_end) {
    std::vector<char> removed;
    CollisionTally tally = resolve_contacts_in_place(s, contacts, p, dt, t_end, removed);
    if (tally.merges > 0) {
        std::size_t w = 0;
        for (std::size_t k = 0; k < s.size(); ++k) {
            if (removed[k]) continue;
            s.pos_mass[w] = s.pos_mass[k];
            s.vel[w] = s.vel[k];
            ++w;
        }
        s.pos_mass.resize(w);
        s.vel.resize(w);
    }
    return tally;
}

template <typename T>
CollisionTally collide_bodies(State<T>& s, const Params& p, double dt, double t_end) {
    if (p.collisions == CollisionMode::off) return {};
    const std::vector<Contact> contacts = find_contacts(s.pos_mass.data(), s.vel.data(), s.size(), dt);
    return resolve_contacts(s, contacts, p, dt, t_end);
}

template CollisionTally resolve_contacts_in_place(State<float>&, const std::vector<Contact>&, const Params&,
                                                  double, double, std::vector<char>&);
template CollisionTally resolve_contacts_in_place(State<double>&, const std::vector<Contact>&, const Params&,
                                                  double, double, std::vector<char>&);
template CollisionTally resolve_contacts(State<float>&, const std::vector<Contact>&, const Params&, double,
                                         double);
template CollisionTally resolve_contacts(State<double>&, const std::vector<Contact>&, const Params&, double,
                                         double);
template CollisionTally collide_bodies(State<float>&, const Params&, double, double);
template CollisionTally collide_bodies(State<double>&, const Params&, double, double);

}  // namespace nbody
