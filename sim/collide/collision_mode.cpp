#include "collision_mode.hpp"

namespace nbody {

const char* to_string(CollisionMode m) {
    switch (m) {
        case CollisionMode::merge:
            return "merge";
        case CollisionMode::bounce:
            return "bounce";
        case CollisionMode::off:
            break;
    }
    return "off";
}

std::optional<CollisionMode> parse_collision_mode(std::string_view name) {
    for (const CollisionMode m : {CollisionMode::off, CollisionMode::merge, CollisionMode::bounce})
        if (name == to_string(m)) return m;
    return std::nullopt;
}

std::vector<std::string> collision_mode_names() {
    return {"off", "merge", "bounce"};
}

}  // namespace nbody
