#pragma once
// An exact copy of a backend's bodies, kept where they live for going back to later (the window's scrub
// timeline): host memory for the CPU backends, device memory for cuda (no copy over the bus while the run
// goes on). Backend::keep_state makes one, Backend::restore_state loads one back as set_state would.
#include <cstddef>
#include <utility>

#include "state.hpp"

namespace nbody {

class KeptState {
  public:
    virtual ~KeptState() = default;
    virtual std::size_t size() const = 0;   // bodies
    virtual std::size_t bytes() const = 0;  // memory it holds (device memory where on_device())
    virtual bool on_device() const = 0;
    virtual double time() const = 0;  // the simulated time of the bodies
    // The bodies in double, exactly (a float state converts back bit for bit); a device copy is read back.
    virtual HostState to_host() const = 0;
};

// The host kind: the bodies in double, as get_state gives them.
class HostKeptState final : public KeptState {
  public:
    explicit HostKeptState(HostState s) : state_(std::move(s)) {}
    // Bytes a host copy of n bodies holds: positions+mass and velocities in double.
    static std::size_t bytes_for(std::size_t n) { return n * 2 * sizeof(Vec4<double>); }
    std::size_t size() const override { return state_.size(); }
    std::size_t bytes() const override { return bytes_for(state_.size()); }
    bool on_device() const override { return false; }
    double time() const override { return state_.t; }
    HostState to_host() const override { return state_; }
    const HostState& state() const { return state_; }

  private:
    HostState state_;
};

}  // namespace nbody
