#include "script_runner.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // FindWindowByName: where the panel and the replay bar were drawn

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "app/cli/replay.hpp"
#include "keys.hpp"
#include "panel.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/params.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim_session.hpp"

namespace nbody {
namespace {

std::vector<double> numbers(const std::string& v) {
    std::vector<double> out;
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(std::stod(item));
    return out;
}

double max_distance(const std::vector<Vec4<float>>& a, const std::vector<Vec4<float>>& b, std::size_t n) {
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double dx = double(a[i].x) - b[i].x, dy = double(a[i].y) - b[i].y, dz = double(a[i].z) - b[i].z;
        worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
    return worst;
}

// A text check of the script: whether `text` contains `want`, or with a leading '!' does not; '_' in
// `want` stands for a space (spaces separate the script's items).
bool reads_as_asked(const std::string& text, std::string want) {
    std::replace(want.begin(), want.end(), '_', ' ');
    const bool absent = !want.empty() && want.front() == '!';
    if (absent) want.erase(0, 1);
    return (text.find(want) != std::string::npos) != absent;
}

}  // namespace

void ScriptRunner::run(int frame, ScriptWindow& w) {
    frame_ = frame;
    PanelModel& model = w.panel_model();
    SimSession& session = w.simulation();
    for (const ScriptStep& s : steps_) {
        if (s.frame != frame) continue;
        ++actions_;
        step_ = &s;
        std::cout << "nbody: frame " << frame << ": " << s.text() << std::endl;
        PanelActions a;
        if (s.action == "backend") {
            model.backend = s.value;
            a.switch_backend = true;
        } else if (s.action == "precision") {
            model.precision = *parse_precision(s.value);  // checked by parse_script
            a.switch_backend = true;
        } else if (s.action == "force") {
            model.params.force = *parse_force_algorithm(s.value);  // checked by parse_script
        } else if (const SettingInfo* setting = find_setting(s.action)) {
            model.params.*setting->field = std::stod(s.value);  // checked by parse_script
        } else if (s.action == "n") {
            model.n_edit = std::stoll(s.value);
            a.regenerate = true;
        } else if (s.action == "preset") {
            model.preset = s.value;
            a.load_preset = true;
        } else if (s.action == "pause" || s.action == "run") {
            model.paused = s.action == "pause";
            a.pause_changed = true;
        } else if (s.action == "step") {
            a.single_step = true;
        } else if (s.action == "steps") {
            model.paused = true;
            session.set_paused(true);
            session.request_steps(std::stoi(s.value));
            session.wait_for_steps();
        } else if (s.action == "fit") {
            a.fit_camera = true;
        } else if (s.action == "reverse") {
            a.reverse = true;
        } else if (s.action == "trails") {
            model.trails = true;
            model.trail_length = std::stoi(s.value);
        } else if (s.action == "vectors") {
            model.vectors = true;
        } else if (s.action == "accelerations") {
            model.accel_vectors = true;
        } else if (s.action == "potential") {
            model.potential = true;
            model.potential_res = std::stoi(s.value);
        } else if (s.action == "look") {
            model.look = *parse_look(s.value);  // checked by parse_script
            a.look_changed = true;
        } else if (s.action == "resize") {
            const auto x = s.value.find('x');  // checked by parse_script
            const int rw = std::stoi(s.value.substr(0, x)), rh = std::stoi(s.value.substr(x + 1));
            if (!w.resize_window(rw, rh)) fail("the window did not take the size " + s.value);
        } else if (s.action == "color") {
            model.particles.color = *parse_color_mode(s.value);
        } else if (s.action == "screenshot") {
            screenshot_ = s.value;
        } else if (s.action == "record") {
            model.record_path = s.value;
            a.start_record = true;
        } else if (s.action == "stop_record") {
            a.stop_record = true;
        } else if (s.action == "path_key") {
            model.new_key_time = std::stod(s.value);
            a.add_camera_key = true;
        } else if (s.action == "path_save" || s.action == "path_load") {
            model.camera_path_file = s.value;
            (s.action == "path_save" ? a.save_camera_path : a.load_camera_path) = true;
        } else if (s.action == "path_play") {
            model.path_playing = true;
            model.path_time = 0;
        } else if (s.action == "key") {
            ScriptInput in;
            in.active = true;
            in.key = key_code(s.value.c_str());
            input_[frame] = in;
            input_[frame + 1] = ScriptInput{true};
        } else if (s.action == "click" || s.action == "click_body") {
            ScriptInput in;
            in.active = in.down = true;
            if (s.action == "click") {
                std::vector<double> v = numbers(s.value);
                in.x = float(v[0]), in.y = float(v[1]);
            } else {
                // Where the body is on screen now, from its position and the camera.
                w.settle();
                std::vector<Vec4<float>> pos = session.positions_for_fit();
                std::size_t i = std::stoul(s.value);
                if (i >= pos.size()) {
                    fail("no body " + s.value);
                } else {
                    glm::vec2 p = w.window_position(glm::vec3(pos[i].x, pos[i].y, pos[i].z));
                    in.x = p.x, in.y = p.y;
                }
            }
            input_[frame] = in;
            in.down = false;
            input_[frame + 1] = in;
        } else if (s.action == "drag") {
            std::vector<double> v = numbers(s.value);
            ScriptInput in;
            in.active = in.down = in.shift = true;
            in.x = float(v[0]), in.y = float(v[1]);
            input_[frame] = in;
            in.x = float(v[2]), in.y = float(v[3]);
            input_[frame + 1] = in;
            in.down = false;
            input_[frame + 2] = in;
        } else if (s.action == "mark") {
            w.settle();
            marked_ = session.positions_for_fit();
        } else if (s.action == "expect_back" || s.action == "expect_kept") {
            w.settle();
            std::vector<Vec4<float>> pos = session.positions_for_fit();
            double tol = std::stod(s.value);
            std::size_t n = std::min(pos.size(), marked_.size());
            double d = max_distance(pos, marked_, n);
            std::cout << "nbody: " << s.action << ": largest distance from the marked positions " << d
                      << " over " << n << " bodies" << std::endl;
            if (marked_.empty() || !(d <= tol)) fail("distance " + std::to_string(d) + " > " + s.value);
        } else if (s.action == "expect_n") {
            w.settle();
            if (std::to_string(session.size()) != s.value) {
                fail("N = " + std::to_string(session.size()));
            }
        } else if (s.action == "expect_selected") {
            if (std::to_string(model.selected) != s.value) fail("selected " + std::to_string(model.selected));
        } else if (s.action == "expect_param") {
            w.settle();
            auto colon = s.value.find(':');
            std::string name = s.value.substr(0, colon);
            double want = std::stod(s.value.substr(colon + 1));
            const SettingInfo* expected = find_setting(name);
            double got = expected              ? model.params.*expected->field
                         : name == "dt"        ? model.params.dt
                         : name == "softening" ? model.params.softening
                                               : model.params.G;
            if (std::abs(got - want) > 1e-12 * std::max(1.0, std::abs(want))) {
                fail(name + " = " + std::to_string(got));
            }
        } else if (s.action == "save") {
            w.save_snapshot(s.value);
        } else if (s.action == "drop") {
            w.drop_file(s.value);
        } else if (s.action == "seek") {
            if (!w.seek_replay(std::size_t(std::max(0LL, std::stoll(s.value))))) fail("not in replay mode");
        } else if (s.action == "expect_running") {
            if (w.closing()) fail("the window is closing");
        } else if (s.action == "expect_clock") {
            w.settle();
            const std::string clock = clock_text(w.panel_info_now());
            std::cout << "nbody: clock: " << clock << std::endl;
            if (!reads_as_asked(clock, s.value)) fail("the clock reads '" + clock + "'");
        } else if (s.action == "expect_energy") {
            w.settle();
            const PanelInfo& info = w.panel_info_now();
            const std::string energy =
                energy_text(info) + (info.energy_note.empty() ? "" : " " + info.energy_note);
            std::cout << "nbody: energy: " << energy << std::endl;
            if (!reads_as_asked(energy, s.value)) fail("the Energy section reads '" + energy + "'");
        } else if (s.action == "expect_drift_below") {
            w.settle();
            const PanelInfo& info = w.panel_info_now();
            std::cout << "nbody: |dE/E| " << info.drift_now << std::endl;
            if (!info.have_energy || !(info.drift_now <= std::stod(s.value)))
                fail("|dE/E| = " + std::to_string(info.drift_now));
        } else if (s.action == "replay_speed") {
            if (ReplayTimeline* t = w.replay_timeline()) {
                t->speed = std::stod(s.value);
                t->loop = false;
                t->playing = true;
                pace_since_ = now_s();
                pace_from_ = w.replay_shown();
            } else {
                fail("not in replay mode");
            }
        } else if (s.action == "expect_replay_pace") {
            ReplayTimeline* t = w.replay_timeline();
            if (!t || pace_since_ < 0) {
                fail("no replay_speed before it");
            } else {
                // Half of what the speed asks for leaves room for a slow load; a timeline that loses the
                // time spent drawing shows a small fraction of it.
                const double elapsed = now_s() - pace_since_;
                const std::size_t asked = pace_from_ + std::size_t(0.5 * t->speed * elapsed);
                const std::size_t want = std::min(asked, t->frames() - 1);
                const std::size_t shown = w.replay_shown();
                std::cout << "nbody: replay pace: snapshot " << shown << " shown after " << elapsed
                          << " s at " << t->speed << " per s" << std::endl;
                if (shown < want) fail("snapshot " + std::to_string(shown) + " < " + std::to_string(want));
            }
        } else if (s.action == "ui_scale") {
            model.ui.scale = std::stof(s.value);
        } else if (s.action == "expect_font_px") {
            // Checked at the start of a frame: the atlas of the scale set before it.
            const ImGuiIO& io = ImGui::GetIO();
            const float px = io.Fonts->Fonts.empty() ? 0.0f : io.Fonts->Fonts[0]->FontSize;
            std::cout << "nbody: font " << px << " px, FontGlobalScale " << io.FontGlobalScale << std::endl;
            if (px != std::stof(s.value) || io.FontGlobalScale != 1.0f)
                fail("font " + std::to_string(px) + " px at FontGlobalScale " +
                     std::to_string(io.FontGlobalScale));
        } else if (s.action == "expect_apart") {
            const auto comma = s.value.find(',');
            ImGuiWindow* wa = ImGui::FindWindowByName(s.value.substr(0, comma).c_str());
            ImGuiWindow* wb = ImGui::FindWindowByName(s.value.substr(comma + 1).c_str());
            if (!wa || !wb || !wa->WasActive || !wb->WasActive) {
                fail("not both drawn");
            } else if (wa->Rect().Overlaps(wb->Rect())) {
                fail("they overlap");
            }
        }
        w.apply(a);
        step_ = nullptr;
    }
}

void ScriptRunner::fail(const std::string& why) {
    request_failed(step_ ? step_->frame : frame_, step_ ? step_->text() : std::string("?"), why);
}

void ScriptRunner::request_failed(int frame, const std::string& action, const std::string& why) {
    ++failures_;
    std::cout << "nbody: test-script: frame " << frame << ": " << action << " FAILED: " << why << std::endl;
}

const ScriptInput* ScriptRunner::input(int frame) const {
    auto it = input_.find(frame);
    return it == input_.end() ? nullptr : &it->second;
}

std::string ScriptRunner::take_screenshot() {
    std::string path;
    path.swap(screenshot_);
    return path;
}

}  // namespace nbody
