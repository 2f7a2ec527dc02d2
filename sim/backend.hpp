#pragma once
// The one interface every backend (serial, openmp, cuda) implements. A backend owns the bodies in its own
// precision and memory (host or device) between steps; the caller moves a HostState in and out only when
// it needs one (switching backends, saving, tests).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "params.hpp"
#include "state.hpp"

namespace nbody {

// What step() did. A numerical blow-up stops the run at the first step that produced a NaN/Inf.
struct StepReport {
    std::int64_t steps_done = 0;
    bool finite = true;          // false: bad_step/bad_body say where it first went non-finite
    std::int64_t bad_step = -1;  // 1-based index of the failing step within this call
    std::size_t bad_body = 0;    // lowest body index with a non-finite position or velocity
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;  // registry name: "serial", "openmp", "cuda"
    virtual Precision precision() const = 0;
    virtual std::size_t size() const = 0;

    // Replace the bodies (and time). Invalidates any cached accelerations.
    virtual void set_state(const HostState& s) = 0;
    // Copy the bodies out (device -> host for GPU backends).
    virtual HostState get_state() const = 0;

    // Advance `steps` steps of p.integrator with p.dt; stops early on a non-finite value.
    virtual StepReport step(const Params& p, std::int64_t steps) = 0;

    // Accelerations of the current positions, widened to double (tests compare backends with these).
    virtual std::vector<Vec4<double>> accelerations(const Params& p) = 0;

    virtual Diagnostics diagnostics(const Params& p, bool with_potential) = 0;

    // Positions+mass as float4 for drawing. CPU backends copy into host memory the renderer uploads.
    virtual void copy_positions(Vec4<float>* host_out) const = 0;
    virtual void copy_velocities(Vec4<float>* host_out) const = 0;

    // GPU backends write positions+mass (and velocities, if vel_out is non-null) as float4 straight into
    // device memory the caller owns (e.g. a mapped OpenGL buffer). Returns false if unsupported.
    virtual bool write_positions_device(void* /*pos_out*/, void* /*vel_out*/) { return false; }
};

}  // namespace nbody
