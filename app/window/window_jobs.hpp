#pragma once
// The window's work in flight: requests queued on the simulation thread until their results come back,
// and the potential evaluations waited for off the render thread. The window starts them and applies
// what comes back.
#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "render/body_look.hpp"
#include "render/camera.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

class SimSession;

// A request queued on the simulation thread; what to apply when it succeeds.
struct PendingRequest {
    std::uint64_t id = 0;
    std::string label;     // "regenerating 4096 bodies", "switching to cuda (float)"
    int script_frame = 0;  // > 0: queued by --test-script at this frame
    std::string script_action;
    std::optional<std::int64_t> n;  // load: the new N, its body stats and the framed camera
    BodyStats stats;
    Camera camera;
    std::optional<Params> params;     // preset load: its own parameters
    std::string save_path;            // capture: where the snapshot goes
    std::string opened;               // load of a file: its name (shown once loaded)
    std::optional<bool> from_preset;  // a load: whether the bodies are a preset's (its units apply)
};

// A request to load bodies `s`: their N and body stats, and `camera` framing them when `refit` (from the
// host copy: on a GPU the bodies are not on the host once loaded).
PendingRequest load_request(std::string label, const HostState& s, const Camera& camera, bool refit);

// The requests in flight, oldest first.
class PendingRequests {
  public:
    // Keeps r until the result with its id comes back.
    void add(PendingRequest r) { list_.push_back(std::move(r)); }
    // The request a result answers, no longer pending; nullopt if the result is not for one of these.
    std::optional<PendingRequest> take(std::uint64_t id);
    bool empty() const { return list_.empty(); }
    // What the oldest request is doing, for the panel's busy line; empty when none is in flight.
    std::string busy_label() const;

  private:
    std::vector<PendingRequest> list_;
};

// A potential-field grid evaluated by the session's force solver, waited for off the render thread.
struct PotentialGrid {
    std::vector<float> phi;
    int cols = 0, rows = 0;
    double ms = 0;
    std::string error;  // non-empty: the evaluation failed (shown instead of the grid)
};

// The potential view's grids, one at a time: a few a second, less often when one is slow (an evaluation
// holds up the steps).
class PotentialJob {
  public:
    // The grid finished since the last call, if one did.
    std::optional<PotentialGrid> take_finished();
    // Whether to start the next grid: none in flight, and the last one started long enough ago.
    bool due() const;
    // Starts evaluating the potential at the cols x rows `targets` by the session's force solver.
    void start(SimSession& session, std::vector<Vec4<double>> targets, int cols, int rows);
    // Waits for the evaluation in flight, if any (it reads the session).
    void wait();

  private:
    std::future<PotentialGrid> job_;
    double launched_ = -1e9, interval_ = 0.4;
};

// Every body's potential, for colouring by potential.
struct BodyPotentials {
    bool densities = false;  // local densities (sim/local_density.hpp) instead of potentials
    std::vector<float> phi;  // body order
    double ms = 0;
    std::string error;
};

// The bodies' potentials for the colours, one evaluation at a time: at most every half second, and less
// often when one is slow (at least 20 times its own duration apart, so it takes under 5% of the run).
class BodyPotentialJob {
  public:
    std::optional<BodyPotentials> take_finished();
    bool due() const;
    // densities: every body's local density instead of its potential.
    void start(SimSession& session, bool densities = false);
    void wait();
    double interval_s() const { return interval_; }

  private:
    std::future<BodyPotentials> job_;
    double launched_ = -1e9, interval_ = 0.5;
};

// The selected body's potential energy, evaluated the same way.
struct PickEnergy {
    std::int64_t index = -1;
    std::optional<double> energy;  // nullopt: no such body any more, or the evaluation failed
};

// The selected body's energy, refreshed at once for a new selection and every 15 frames for the same one.
class PickJob {
  public:
    // The energy finished since the last call, if one did.
    std::optional<PickEnergy> take_finished();
    // Whether to start the next evaluation at this frame: none in flight, and a new body or 15 frames on.
    bool due(bool same_body, int frame) const;
    // Starts evaluating body `index`'s potential energy by the session's force solver.
    void start(SimSession& session, std::int64_t index, int frame);
    // Waits for the evaluation in flight, if any (it reads the session).
    void wait();

  private:
    std::future<PickEnergy> job_;
    int last_frame_ = -1000;
};

}  // namespace nbody
