#pragma once
// The potential energy of a state too large for the exact pair sum (O(N^2): 45 minutes at N = 3M on a
// CPU). Above kExactPotentialMaxN bodies on a host backend, a run that uses the tree sums the potential
// with the tree, and any other run estimates it from the exact rows of a sample of bodies; a device backend
// sums its own exactly. Either way the result says how it was found (Diagnostics::potential_method), so
// `nbody run`'s summary and energy log, the window's Energy section and Python's energy() can say so.
#include <cstddef>
#include <functional>
#include <string>

#include "backend.hpp"
#include "diagnostics.hpp"
#include "params.hpp"
#include "state.hpp"

namespace nbody {

// Up to this many bodies the potential is the exact double sum (about 8.6e9 pair terms at most).
inline constexpr std::size_t kExactPotentialMaxN = 131072;
// Bodies whose rows make a sampled estimate (each row sums all N sources in double).
inline constexpr std::size_t kPotentialSampleSize = 4096;

// exact for n <= kExactPotentialMaxN; above it tree where p.force is the tree, else sampled.
PotentialMethod potential_method(std::size_t n, const Params& p);
// The policy for bodies that live `where`: a device backend sums its own potential exactly (a GPU does a
// million bodies in seconds); host memory as potential_method(n, p).
PotentialMethod potential_method(std::size_t n, const Params& p, Residency where);

// "" for exact; "tree (theta 0.5)" or "sampled (4096 of 200000 bodies)": how a large state's
// potential is found, for the summary and the energy log.
std::string potential_method_text(PotentialMethod m, std::size_t n, const Params& p);

// "" for an exact potential; else "potential tree (theta 0.5): above 131072 bodies the energy is
// estimated", or "potential sampled (4096 of 200000 bodies), each estimate +-0.31%: above ...".
std::string potential_method_note(const Diagnostics& d, std::size_t n, const Params& p);

// Called now and then during a long sum with the work done so far and the whole (arbitrary units).
using PotentialProgress = std::function<void(std::size_t done, std::size_t total)>;

// -G/2 sum_i m_i phi(x_i) with phi from a Barnes-Hut tree of all bodies in double at p.theta (monopole +
// quadrupole, as the tree force); a body adds nothing at its own position.
double tree_potential(const HostState& s, const Params& p, const PotentialProgress& progress = {});

struct PotentialSample {
    double potential = 0;
    double standard_error = 0;  // of the estimate, from the spread of the sampled rows
    std::size_t sampled = 0;    // rows summed (all n when n <= samples)
};

// N/M * (-G/2) sum_k m_i phi(x_i) over M = min(samples, n) bodies i = floor((k + 1/2) n / M), each row
// exact in double; the same bodies every time for the same n, so drifts compare like with like.
PotentialSample sampled_potential(const HostState& s, const Params& p, std::size_t samples,
                                  const PotentialProgress& progress = {});

// Sets d's potential, potential_method and potential_error to those of s found by method m (tree or
// sampled; exact asks compute_diagnostics, bit for bit as without this function).
void estimate_potential(Diagnostics& d, const HostState& s, const Params& p, PotentialMethod m,
                        const PotentialProgress& progress = {});

// The diagnostics of a backend's bodies, the potential (with_potential) found by m: exact asks the backend
// itself (bit for bit Backend::diagnostics), tree or sampled sum a host copy of the bodies.
Diagnostics backend_diagnostics(Backend& b, const Params& p, bool with_potential, PotentialMethod m,
                                const PotentialProgress& progress = {});
// As above with m = potential_method(b.size(), p, b.residency()).
Diagnostics backend_diagnostics(Backend& b, const Params& p, bool with_potential);

}  // namespace nbody
