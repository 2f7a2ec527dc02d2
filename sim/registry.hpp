#pragma once
// The list of backends this build and this machine offer. Feeds the command line, the panel's combo box
// and the tests that check every backend against serial.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend.hpp"

namespace nbody {

struct BackendInfo {
    std::string name;         // "serial", "openmp", "cuda"
    std::string description;  // one line for --help and tooltips
    bool available = true;    // false: built without it, or no device on this machine
    std::string unavailable_reason;
    // Creates an empty backend (size 0). Throws nbody::Error if the device cannot be used.
    std::function<std::unique_ptr<Backend>(Precision)> create;
};

// Every backend known to this build, available or not, in a fixed order (serial, openmp, cuda).
const std::vector<BackendInfo>& builtin_backends();

// nullptr if the name is not a backend of this build.
const BackendInfo* find_backend(std::string_view name);

// Names of all backends, and of the available ones, for error messages.
std::vector<std::string> backend_names();
std::vector<std::string> available_backend_names();

// Creates the backend, throwing nbody::Error with a clear one-line message if it does not exist
// ("unknown backend 'x' (valid: ...)") or cannot run here ("no CUDA device: ... (available: ...)").
std::unique_ptr<Backend> create_backend(std::string_view name, Precision p);

}  // namespace nbody
