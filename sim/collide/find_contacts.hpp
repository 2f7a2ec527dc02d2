#pragma once
// Finding the pairs that touch during a step, on the host, in O(N log N): a uniform grid of the bodies'
// swept spheres.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/state.hpp"

namespace nbody {

// A pair whose spheres touch during the step (sim/collide/contact.hpp), i < j.
struct Contact {
    std::uint64_t i = 0, j = 0;
    double s = 0;  // time into the step of the first contact

    bool operator<(const Contact& o) const { return i != o.i ? i < o.i : j < o.j; }
};

// Every touching pair of the step of length dt that ended at the given positions and velocities (radius
// in vel.w), sorted by (i, j): the resolution order. Non-finite bodies are left out.
//
// How: each body's path over the step lies in its swept sphere, centre x - v dt/2 and extent
// r + |v| dt/2; two bodies can only touch if their swept spheres overlap. The swept spheres are binned
// in a uniform grid of cells twice the largest extent (keys sorted, cells found by binary search), each
// body is tested against the bodies of its own and the 26 neighbouring cells, and only pairs whose swept
// spheres overlap go to the exact test. A few bodies far larger than the rest (a star among
// planetesimals, extent above 8x the median) are tested against everyone instead, so that they do not
// make every cell huge.
template <typename T>
std::vector<Contact> find_contacts(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n, double dt);

// The O(N^2) reference of the same (tests).
template <typename T>
std::vector<Contact> find_contacts_all_pairs(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n,
                                             double dt);

}  // namespace nbody
