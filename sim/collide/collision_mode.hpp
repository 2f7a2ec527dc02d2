#pragma once
// The names of Params::collisions: the flag's values, the files' metadata, the panel's choices.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/params.hpp"

namespace nbody {

const char* to_string(CollisionMode m);  // "off", "merge", "bounce"
std::optional<CollisionMode> parse_collision_mode(std::string_view name);
std::vector<std::string> collision_mode_names();

}  // namespace nbody
