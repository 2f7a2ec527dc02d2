#pragma once
// The window's --test-script mini-language: 'FRAME:ACTION[=VALUE];...' (or separated by spaces), a testing
// aid that drives the real window frame by frame (e.g. '10:backend=serial;20:n=256'). Parsing and validation
// live here; app/window/script_runner carries the actions out.
#include <string>
#include <vector>

namespace nbody {

struct ScriptStep {
    int frame = 0;
    std::string action, value;
    std::string text() const { return value.empty() ? action : action + "=" + value; }
};

// Every ACTION the window understands, with a one-line description (for --help and error messages).
struct ScriptAction {
    const char* name;
    const char* help;
};
const std::vector<ScriptAction>& script_actions();

// Parses the script. Throws nbody::Error (one line) on an unknown action or a malformed value.
std::vector<ScriptStep> parse_script(const std::string& text);

// "backend=NAME, precision=float|double, ..." for --help.
std::string script_help();

}  // namespace nbody
