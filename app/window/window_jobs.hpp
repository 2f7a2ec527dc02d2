#pragma once
// The window's work in flight: requests queued on the simulation thread until their results come back,
// and the potential evaluations waited for off the render thread.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/body_look.hpp"
#include "render/camera.hpp"
#include "sim/params.hpp"

namespace nbody {

// A request queued on the simulation thread; what to apply when it succeeds.
struct PendingRequest {
    std::uint64_t id = 0;
    std::string label;     // "regenerating 4096 bodies", "switching to cuda (float)"
    int script_frame = 0;  // > 0: queued by --test-script at this frame
    std::string script_action;
    std::optional<std::int64_t> n;  // load: the new N, its body stats and the framed camera
    BodyStats stats;
    Camera camera;
    std::optional<Params> params;  // preset load: its own parameters
    std::string save_path;         // capture: where the snapshot goes
    std::string opened;            // load of a file: its name (shown once loaded)
};

// A potential-field grid evaluated by the session's force solver, waited for off the render thread.
struct PotentialJob {
    std::vector<float> phi;
    int cols = 0, rows = 0;
    double ms = 0;
    std::string error;  // non-empty: the evaluation failed (shown instead of the grid)
};

// The selected body's potential energy, evaluated the same way.
struct PickJob {
    std::int64_t index = -1;
    std::optional<double> energy;  // nullopt: no such body any more, or the evaluation failed
};

}  // namespace nbody
