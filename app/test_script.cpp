#include "test_script.hpp"

#include <sstream>

#include "sim/error.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

const std::vector<ScriptAction>& script_actions() {
    static const std::vector<ScriptAction> actions = {
        {"backend", "backend=NAME switches backend keeping the state"},
        {"precision", "precision=float|double"},
        {"force", "force=NAME sets the force algorithm (direct, tree), as the panel's combo does"},
        {"theta", "theta=T sets the tree's opening angle, as the panel's slider does"},
        {"n", "n=N regenerates the preset with N bodies"},
        {"preset", "preset=NAME loads a preset with its own parameters"},
        {"pause", "pause"},
        {"run", "run"},
        {"step", "step (one step, then paused)"},
        {"fit", "fit (frame the bodies)"},
        {"save", "save=PATH saves a snapshot, as Ctrl+S does (format by extension)"},
        {"drop", "drop=PATH opens a file as if dropped onto the window"},
        {"seek", "seek=K shows snapshot K of a replay (0-based)"},
    };
    return actions;
}

namespace {

bool is_integer(const std::string& v) {
    std::size_t used = 0;
    try {
        (void)std::stoll(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    return used != 0 && used == v.size();
}

}  // namespace

std::vector<ScriptStep> parse_script(const std::string& text) {
    std::vector<ScriptStep> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ';')) {
        if (item.empty()) continue;
        auto colon = item.find(':');
        if (colon == std::string::npos) throw Error("--test-script item '" + item + "' needs FRAME:ACTION");
        ScriptStep s;
        try {
            s.frame = std::stoi(item.substr(0, colon));
        } catch (const std::exception&) {
            throw Error("--test-script item '" + item + "' has no frame number");
        }
        std::string rest = item.substr(colon + 1);
        auto eq = rest.find('=');
        s.action = rest.substr(0, eq);
        if (eq != std::string::npos) s.value = rest.substr(eq + 1);
        bool ok = false;
        for (const ScriptAction& a : script_actions()) ok = ok || s.action == a.name;
        if (!ok) throw Error("--test-script action '" + s.action + "' is unknown");
        // Malformed values are mistakes in the script, not actions that fail: refuse them up front.
        if (s.action == "precision" && !parse_precision(s.value)) {
            throw Error("--test-script item '" + item + "': precision must be float or double");
        }
        if (s.action == "force" && !parse_force_algorithm(s.value)) {
            throw Error("--test-script item '" + item + "': unknown force algorithm");
        }
        if (s.action == "theta") {
            std::size_t used = 0;
            double t = 0;
            try {
                t = std::stod(s.value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != s.value.size() || !(t > 0 && t <= 1)) {
                throw Error("--test-script item '" + item + "': theta must be a number in (0, 1]");
            }
        }
        if ((s.action == "save" || s.action == "drop") && s.value.empty()) {
            throw Error("--test-script item '" + item + "': " + s.action + " needs a file name");
        }
        if (s.action == "seek" && !is_integer(s.value)) {
            throw Error("--test-script item '" + item + "': seek needs an integer");
        }
        if (s.action == "n" && !is_integer(s.value)) {
            throw Error("--test-script item '" + item + "': n needs an integer");
        }
        out.push_back(s);
    }
    return out;
}

std::string script_help() {
    std::string out;
    for (const ScriptAction& a : script_actions()) {
        if (!out.empty()) out += ", ";
        out += a.name;
    }
    return out;
}

}  // namespace nbody
