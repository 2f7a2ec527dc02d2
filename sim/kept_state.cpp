// Backend's default kept states: host copies through get_state / set_state, so every backend can go back.
#include "kept_state.hpp"

#include <memory>

#include "backend.hpp"

namespace nbody {

std::shared_ptr<const KeptState> Backend::keep_state() const {
    return std::make_shared<const HostKeptState>(get_state());
}

void Backend::restore_state(const KeptState& k) {
    if (const auto* host = dynamic_cast<const HostKeptState*>(&k)) {
        set_state(host->state());
    } else {
        set_state(k.to_host());
    }
}

}  // namespace nbody
