#pragma once
// One exception type for runtime failures at module boundaries (bad input, out of memory, no device).
// The message is a single line meant for the user; callers add no prefix beyond "nbody: error: ".
#include <stdexcept>
#include <string>

namespace nbody {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace nbody
