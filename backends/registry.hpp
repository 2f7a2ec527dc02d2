#pragma once
// The list of backends this build and this machine offer: above sim/ and cuda/, which know nothing of
// it. Feeds the command line, the panel's combo box and the tests that check every backend against
// serial. Callers ask an entry what it can do (residency, device, kernel comparison), never its name.
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/backend.hpp"

namespace nbody {

// The production force kernel timed against a reference kernel in the same process (GPU backends).
struct KernelComparison {
    double production_ms = 0;       // median ms of one force evaluation, as a step runs it
    double reference_ms = 0;        // the same for the reference (GPU Gems 3 textbook kernel)
    std::string production_launch;  // which kernel and launch shape the production one used
};

struct BackendInfo {
    std::string name;         // "serial", "openmp", "cuda"
    std::string description;  // one line for --help and tooltips
    // Why it cannot run here ("no CUDA device: ..."), or "" where it can; empty for backends that always
    // can. Asked once, when available() or unavailable_reason() is first called, not when the registry is
    // made: the CUDA probe pays the driver's start-up (cuInit, ~0.1 s, and ~0.05 s of teardown at exit),
    // which `nbody --version`, serial runs and plots should not.
    std::function<std::string()> probe;
    // false: built without it, or no device on this machine. The first call runs the probe (thread-safe:
    // a second caller waits for the first's answer).
    bool available() const { return unavailable_reason().empty(); }
    const std::string& unavailable_reason() const;
    Residency residency = Residency::host;  // where the bodies live (device: positions can go to GL directly)
    // Its steps run on OpenMP's host threads: --threads applies, and bench reports the thread count and
    // sweeps --threads for it (the others run on one host thread or on a device).
    bool uses_threads = false;
    // Creates an empty backend (size 0). Throws nbody::Error if the device cannot be used.
    std::function<std::unique_ptr<Backend>(Precision)> create;
    // One line naming the device and its memory ("NVIDIA H200, 139.8 GiB total, 139.2 GiB free"); empty
    // for host backends or when unavailable. Asked when shown, so the free memory is current.
    std::function<std::string()> device_description;
    // The device's name alone ("NVIDIA H200"), for tables; empty as above.
    std::function<std::string()> device_name;
    // Times the production force kernel against the reference kernel for n bodies; empty when the
    // backend has no such comparison.
    std::function<KernelComparison(std::size_t n, Precision p, int repeats)> compare_kernels;
    // Makes the backends this process creates next use the device `index` modulo the devices present
    // (under mpirun: the process's rank on its node); empty for host backends.
    std::function<void(int index)> select_device;
    // Prepares the device that `create` would use now (its context: ~0.1 s for CUDA), safe to call on
    // another thread while this one does other work, so that `create` then costs less; empty for host
    // backends. Never throws.
    std::function<void()> warm_up;

  private:
    struct Answer {
        std::once_flag once;
        std::string reason;
    };
    std::shared_ptr<Answer> answer_ = std::make_shared<Answer>();  // the probe's, once; shared by copies
};

// Every backend known to this build, available or not, in a fixed order (serial, openmp, cuda).
const std::vector<BackendInfo>& builtin_backends();

// nullptr if the name is not a backend of this build.
const BackendInfo* find_backend(std::string_view name);

// The fastest available backend for interactive use: the first available device-resident one, else
// openmp. Probes the device-resident ones.
const BackendInfo& default_interactive_backend();

// The backend default_interactive_backend() tries first, without probing: the first device-resident one
// of this build (nullptr where there is none).
const BackendInfo* first_device_backend();

// Names of all backends, and of the available ones, for error messages.
std::vector<std::string> backend_names();
std::vector<std::string> available_backend_names();

// Settles, before this process's first device call, how it asks for its devices: called once, first thing,
// by a program that owns its process (the nbody executable; not the Python module, whose process may hold
// other CUDA libraries). CUDA builds ask for one hardware work queue per context
// (CUDA_DEVICE_MAX_CONNECTIONS=1, where the environment does not set it): nbody's kernels and copies run one
// after another anyway (the legacy default stream, and the block steps' one blocking stream, which it
// orders with), so the other seven default queues only make the context slower to create (H100: ~0.12 s
// with eight, ~0.06 s with one; the steps the same). Without CUDA it does nothing.
void prepare_process_for_devices();

// Creates the backend, throwing nbody::Error with a clear one-line message if it does not exist
// ("unknown backend 'x' (valid: ...)") or cannot run here ("no CUDA device: ... (available: ...)").
std::unique_ptr<Backend> create_backend(std::string_view name, Precision p);

}  // namespace nbody
