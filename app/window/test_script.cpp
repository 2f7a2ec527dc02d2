#include "test_script.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "keys.hpp"
#include "render/body_look.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/params.hpp"
#include "sim/run_settings.hpp"
#include "sim/state.hpp"
#include "sim/util.hpp"

namespace nbody {

namespace {

// The fixed actions, then one per setting of the registries ("theta=T"), as the panel's sliders set them.
std::vector<ScriptAction> with_settings(std::vector<ScriptAction> actions) {
    for (const SettingInfo* s : all_settings())
        actions.push_back({s->name,
                           "NAME=X sets that setting of a force algorithm or integrator, as the "
                           "panel's slider does"});
    return actions;
}

}  // namespace

const std::vector<ScriptAction>& script_actions() {
    static const std::vector<ScriptAction> actions = with_settings({
        {"backend", "backend=NAME switches backend keeping the state"},
        {"precision", "precision=float|double"},
        {"force", "force=NAME sets the force algorithm (direct, tree), as the panel's combo does"},
        {"n", "n=N regenerates the preset with N bodies"},
        {"preset", "preset=NAME loads a preset with its own parameters"},
        {"pause", "pause"},
        {"run", "run"},
        {"step", "step (one step, then paused)"},
        {"fit", "fit (frame the bodies)"},
        {"save", "save=PATH saves a snapshot, as Ctrl+S does (format by extension)"},
        {"drop", "drop=PATH opens a file as if dropped onto the window"},
        {"seek", "seek=K shows snapshot K of a replay (0-based)"},
        {"steps", "steps=K runs exactly K steps, paused before and after"},
        {"reverse", "reverse (negate every velocity)"},
        {"trails", "trails=K turns trails of K positions on"},
        {"vectors", "vectors (velocity arrows on)"},
        {"accelerations", "accelerations (acceleration arrows on)"},
        {"potential", "potential=RES turns the potential view on at RES x RES"},
        {"color",
         "color=MODE colours the bodies by speed, mass, white, group, accel, density, classic, potential or "
         "local_density"},
        {"screenshot", "screenshot=FILE.png saves this frame"},
        {"resize", "resize=WxH resizes the window, as dragging its border does"},
        {"look", "look=nbody|classic sets the picture's style, as the panel's look combo does"},
        {"record", "record=FILE.mp4 starts recording a video, as the Record button does"},
        {"stop_record", "stop_record finishes the video"},
        {"path_key", "path_key=T adds the current view as a camera-path key at T seconds"},
        {"path_save", "path_save=FILE.json saves the camera path"},
        {"path_load", "path_load=FILE.json loads a camera path"},
        {"path_play", "path_play plays the camera path from its start"},
        {"key",
         "key=NAME presses a key through ImGui's input (Escape, Space, R, Home, B, T, V, A, G, H, ?, ...)"},
        {"click", "click=X,Y left-clicks at window coordinates"},
        {"click_body", "click_body=I left-clicks where body I is drawn"},
        {"drag", "drag=X0,Y0,X1,Y1 Shift+left-drags (drops a body)"},
        {"mark", "mark (remembers every position)"},
        {"expect_back", "expect_back=TOL fails unless every body is within TOL of its marked position"},
        {"expect_kept",
         "expect_kept=TOL: the marked bodies are within TOL of where they were (new ones ignored)"},
        {"expect_n", "expect_n=N fails unless there are N bodies"},
        {"expect_selected", "expect_selected=I fails unless body I is selected (-1: none)"},
        {"expect_param",
         "expect_param=NAME:VALUE for dt, softening, G or a setting (theta, eta, neighbours)"},
        {"expect_running", "expect_running fails if the window is closing"},
        {"expect_clock",
         "expect_clock=TEXT fails unless the panel's clock line (N, t, steps) contains TEXT ('_' for a "
         "space; !TEXT: does not)"},
        {"expect_energy",
         "expect_energy=TEXT fails unless the panel's Energy section (KE, PE, E and how PE was found where "
         "it is estimated) contains TEXT ('_' for a space; !TEXT: does not)"},
        {"expect_drift_below", "expect_drift_below=X fails unless the panel's |dE/E| is at most X"},
        {"replay_speed",
         "replay_speed=S plays a replay at S snapshots per second from here, without looping"},
        {"expect_replay_pace",
         "expect_replay_pace fails unless the replay shows at least half the snapshots its speed asks for "
         "since replay_speed"},
        {"expect_apart", "expect_apart=A,B fails if the ImGui windows named A and B overlap on screen"},
        {"ui_scale", "ui_scale=S sets the interface scale, as Ctrl+= / Ctrl+- and the panel's slider do"},
        {"expect_font_px",
         "expect_font_px=PX fails unless the panel's font was rasterised at PX pixels (not magnified)"},
    });
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
    // Items are separated by ';' or whitespace (CMake lists split on ';').
    std::string separated = text;
    for (char& c : separated) {
        if (c == ' ' || c == '\t' || c == '\n') c = ';';
    }
    std::stringstream ss(separated);
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
        if (const SettingInfo* setting = find_setting(s.action)) {
            std::size_t used = 0;
            double t = 0;
            try {
                t = std::stod(s.value, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != s.value.size() || !setting->in_range(t) ||
                (setting->whole && t != std::floor(t))) {
                throw Error("--test-script item '" + item + "': " + s.action + " must be a " +
                            (setting->whole ? "whole number " : "number ") + setting_range(*setting));
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
        auto count = [&](std::size_t want) {
            std::size_t got = 0;
            std::stringstream vs(s.value);
            std::string x;
            while (std::getline(vs, x, ',')) {
                try {
                    std::size_t used = 0;
                    (void)std::stod(x, &used);
                    if (used == x.size()) ++got;
                } catch (const std::exception&) {
                }
            }
            if (got != want || std::count(s.value.begin(), s.value.end(), ',') != std::ptrdiff_t(want - 1)) {
                throw Error("--test-script item '" + item + "': " + s.action + " needs " +
                            std::to_string(want) + " number" + (want > 1 ? "s" : "") +
                            " separated by commas");
            }
        };
        if (s.action == "click") count(2);
        if (s.action == "drag") count(4);
        if (s.action == "expect_back" || s.action == "expect_kept" || s.action == "expect_drift_below" ||
            s.action == "replay_speed" || s.action == "ui_scale" || s.action == "expect_font_px")
            count(1);
        if ((s.action == "expect_clock" || s.action == "expect_energy" || s.action == "expect_apart") &&
            s.value.empty()) {
            throw Error("--test-script item '" + item + "': " + s.action + " needs a value");
        }
        if (s.action == "expect_apart" && std::count(s.value.begin(), s.value.end(), ',') != 1) {
            throw Error("--test-script item '" + item + "': expect_apart needs two window names A,B");
        }
        for (const char* a : {"steps", "trails", "potential", "expect_n", "click_body", "expect_selected"}) {
            if (s.action == a && !is_integer(s.value))
                throw Error("--test-script item '" + item + "': needs an integer");
        }
        if (s.action == "expect_param") {
            auto c = s.value.find(':');
            std::string name = s.value.substr(0, c);
            if (c == std::string::npos ||
                (name != "dt" && name != "softening" && name != "G" && !find_setting(name))) {
                throw Error("--test-script item '" + item +
                            "': expect_param needs dt|softening|G|SETTING:VALUE (SETTING: theta, eta, ...)");
            }
            std::string v = s.value.substr(c + 1);
            std::size_t used = 0;
            try {
                (void)std::stod(v, &used);
            } catch (const std::exception&) {
            }
            if (used == 0 || used != v.size()) throw Error("--test-script item '" + item + "': bad value");
        }
        if (s.action == "look" && !parse_look(s.value)) {
            throw Error("--test-script item '" + item + "': look must be nbody or classic");
        }
        if (s.action == "resize") {
            const auto x = s.value.find('x');
            if (x == std::string::npos || !is_integer(s.value.substr(0, x)) ||
                !is_integer(s.value.substr(x + 1)) || std::stoll(s.value.substr(0, x)) < 1 ||
                std::stoll(s.value.substr(x + 1)) < 1 || std::stoll(s.value.substr(0, x)) > 16384 ||
                std::stoll(s.value.substr(x + 1)) > 16384) {
                throw Error("--test-script item '" + item + "': resize needs WxH (e.g. 640x360)");
            }
        }
        if (s.action == "color" && !parse_color_mode(s.value)) {
            throw Error("--test-script item '" + item + "': no colour mode '" + s.value +
                        "' (valid: " + color_mode_names() + ")");
        }
        if (s.action == "key" && key_code(s.value.c_str()) < 0) {
            throw Error("--test-script item '" + item + "': no key named '" + s.value + "'");
        }
        if ((s.action == "screenshot" || s.action == "key" || s.action == "record" ||
             s.action == "path_save" || s.action == "path_load") &&
            s.value.empty()) {
            throw Error("--test-script item '" + item + "': " + s.action + " needs a value");
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
