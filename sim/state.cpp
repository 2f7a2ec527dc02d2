#include "state.hpp"

namespace nbody {

const char* to_string(Precision p) {
    return p == Precision::f32 ? "float" : "double";
}

std::optional<Precision> parse_precision(std::string_view name) {
    if (name == "float" || name == "f32" || name == "single") return Precision::f32;
    if (name == "double" || name == "f64") return Precision::f64;
    return std::nullopt;
}

}  // namespace nbody
