#pragma once
// The simulation the Python module wraps, in plain C++ (no Python types): a backend holding the bodies,
// the parameters and what a snapshot records. Every check is the library's own (scenario/, sim/validate),
// so a bad value from Python fails with the words the command line uses. The binding (bind_simulation.cpp)
// converts numpy arrays and releases the GIL; nothing here knows of either.
#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "sim/backend.hpp"
#include "sim/potential_estimate.hpp"

namespace nbody::python {

// A failure of the run rather than of its input (a numerical blow-up, a backend that cannot start here):
// Python sees it as RuntimeError, where bad input (nbody::Error) is ValueError.
struct RunFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Simulation {
  public:
    // Resolves the options as `nbody run` does (presets, files, restarts; notes and warnings to `notes`)
    // and puts the bodies on the chosen backend.
    Simulation(const ScenarioOptions& o, std::int64_t default_n, std::ostream& notes);

    const Params& params() const { return params_; }
    // Replaces the parameters after validate_params for this precision (the command line's checks).
    void set_params(const Params& p);

    std::string backend_name() const { return backend_->name(); }
    // The flag that interrupts a long step (Backend::set_interrupt), on this backend and every later one.
    void set_interrupt(const std::atomic<bool>* flag) {
        interrupt_ = flag;
        backend_->set_interrupt(flag);
    }
    // Moves the bodies, their time and the step count to a new backend; on failure the old one stays.
    void set_backend(const std::string& name);
    Precision precision() const { return precision_; }
    // As set_backend, in the other precision (double -> float rounds the bodies; checked first).
    void set_precision(Precision p);

    std::size_t size() const { return backend_->size(); }
    double time() const { return backend_->time(); }
    std::int64_t steps_done() const { return step_; }
    // An adaptive integrator's work since this simulation was made (its StepReports summed): the blocks,
    // and the force+jerk evaluations of one body against all N over them. 0 with a fixed-step integrator.
    std::int64_t blocks() const { return blocks_; }
    std::uint64_t force_evaluations() const { return body_updates_; }
    std::uint64_t neighbour_evaluations() const { return neighbour_updates_; }
    // What the collisions did since this simulation was made (params().collisions on): the merges and
    // bounces, and the energy they took (E + that is what stays constant, as `nbody run` reports it).
    std::int64_t merges() const { return merges_; }
    std::int64_t bounces() const { return bounces_; }
    double collision_energy_lost() const { return energy_lost_; }
    const std::string& preset() const { return preset_; }
    std::uint64_t seed() const { return seed_; }

    // The bodies widened to double (a float backend's values exactly).
    HostState state() const { return backend_->get_state(); }
    // Replaces the bodies after validate_state (finite, mass > 0, no two at one point with softening 0).
    // The time stays unless s.t says otherwise (callers set it); it must be finite. With collisions on,
    // bodies of radius 0 get the default radius from the density (as a preset's or a file's do).
    void set_state(const HostState& s);

    // k steps of params().dt (k max steps for an adaptive integrator); at most `k` and stops at a blow-up,
    // which throws RunFailure with the command line's message. Returns what the backend reported.
    StepReport step(std::int64_t k);
    // One step of exactly h (the shortened last step of integrate(t_end)).
    StepReport step_of(double h);

    // How diagnostics() finds the potential now: exact up to kExactPotentialMaxN bodies and on a device
    // backend; above it on a host backend the tree's (force tree) or a sample's, as `nbody run`
    // (sim/potential_estimate.hpp).
    PotentialMethod potential_method() const {
        return nbody::potential_method(backend_->size(), params_, backend_->residency());
    }
    // exact: the exact pair sum whatever the size (O(N^2)); else by potential_method().
    Diagnostics diagnostics(bool with_potential, bool exact = false) {
        return backend_diagnostics(*backend_, params_, with_potential,
                                   exact ? PotentialMethod::exact : potential_method());
    }
    std::vector<Vec4<double>> accelerations() { return backend_->accelerations(params_); }
    Backend& backend() { return *backend_; }

    // An HDF5 snapshot (or any format write_snapshot knows, by extension) that load() continues exactly.
    // Returns write_snapshot's notes (what a CSV or Tipsy file cannot hold).
    std::vector<std::string> save(const std::string& path);

  private:
    void check_finite(const StepReport& r, double t0, double dt);
    void tally_collisions(const StepReport& r);

    std::unique_ptr<Backend> backend_;
    const std::atomic<bool>* interrupt_ = nullptr;
    Params params_;
    Precision precision_ = Precision::f32;
    std::int64_t step_ = 0;  // steps since the run began (a restart's continue from the snapshot's)
    std::int64_t blocks_ = 0;
    std::uint64_t body_updates_ = 0;
    std::uint64_t neighbour_updates_ = 0;
    std::int64_t merges_ = 0, bounces_ = 0;
    double energy_lost_ = 0;
    std::string preset_;  // kept in snapshots; empty for bodies from elsewhere
    std::uint64_t seed_ = 0;
};

// create_backend, with a backend that cannot run here (no CUDA device) as RunFailure.
std::unique_ptr<Backend> create_backend_or_fail(const std::string& name, Precision p);

}  // namespace nbody::python
