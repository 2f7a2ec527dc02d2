#pragma once
// Resolving a step's contacts: merge (perfectly inelastic) or bounce (hard spheres with restitution).
//
// Order: the contacts are taken in ascending (i, j) (find_contacts sorts them so), and each body takes part
// in at most one collision per step: a contact whose i or j was already resolved in this step waits for
// the next step, where it is found again if the bodies still touch. Index order rather than contact time
// makes the result the same on every backend even when two contacts fall within a rounding of each other.
//
// Merge: the lower index survives with m = mi + mj, the mass-weighted position and velocity (centre of
// mass and momentum kept, computed in double and rounded once to the state's precision) and the radius of
// the summed volume; the other body is removed and the bodies after it move down one index (N shrinks).
// Bounce: both bodies go back along their straight paths to the contact, exchange the normal impulse
// J = (1 + C) mu |u.n| (mu the reduced mass, C = Params::restitution) if they approach there, and move on
// for the rest of the step; a pair still overlapping then (it overlapped when the step began) is pushed
// apart along the line of centres, each body by the share of the other's mass, so no overlap is left.
//
// Energy: each event records what it removed from the sum the diagnostics compute, the pair's kinetic
// plus mutual (softened) potential energy before minus after. A merger also removes the pair's binding
// energy from that sum, so its energy_lost can be negative. The change of the pair's potential energy
// with the other bodies (the merged body's mass at the centre of mass instead of two points, or a bounce's
// small displacement) is not counted: it is of the order of the tidal field times the contact distance.
#include <vector>

#include "collision_event.hpp"
#include "find_contacts.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

// Resolves `contacts` (sorted by (i, j)) of the step of length dt that ended at t_end in the bodies `s`,
// under p.collisions, p.restitution, p.G and p.softening; removes merged bodies. Returns the events.
template <typename T>
CollisionTally resolve_contacts(State<T>& s, const std::vector<Contact>& contacts, const Params& p, double dt,
                                double t_end);

// The same without removing anything: removed[k] (resized to s.size()) is 1 for each body merged away.
// For a backend that resolves a gathered subset of its bodies and compacts its own arrays.
template <typename T>
CollisionTally resolve_contacts_in_place(State<T>& s, const std::vector<Contact>& contacts, const Params& p,
                                         double dt, double t_end, std::vector<char>& removed);

// find_contacts then resolve_contacts: the collisions of one step on host bodies.
template <typename T>
CollisionTally collide_bodies(State<T>& s, const Params& p, double dt, double t_end);

}  // namespace nbody
