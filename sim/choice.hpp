#pragma once
// A registry's value by its name (integrator, force algorithm, precision...), with the one error wording
// every front end shares: the command line's flags, the window's script and the Python module.
#include <string>
#include <vector>

#include "error.hpp"

namespace nbody {

// Throws nbody::Error "unknown WHAT 'NAME' (valid: VALID)" (parse_choice's error, out of the template).
[[noreturn]] inline void throw_unknown_choice(const char* what, const std::string& name,
                                              const std::string& valid) {
    throw Error("unknown " + std::string(what) + " '" + name + "' (valid: " + valid + ")");
}

// parse(name), or one nbody::Error "unknown WHAT 'NAME' (valid: a, b, c)".
template <typename Parse>
auto parse_choice(const std::string& name, const char* what, const std::vector<std::string>& valid,
                  Parse parse) {
    const auto value = parse(name);
    if (!value) {
        std::string list;
        for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
        throw_unknown_choice(what, name, list);
    }
    return *value;
}

}  // namespace nbody
