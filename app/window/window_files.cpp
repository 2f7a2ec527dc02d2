#include "window_files.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <vector>

#include "sim/io/snapshot.hpp"

namespace nbody {

std::vector<std::string> open_dialog_entries(const std::string& dir) {
    namespace fs = std::filesystem;
    std::vector<std::string> dirs, files;
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.front() == '.') continue;
        std::error_code e2;
        if (it->is_directory(e2)) {
            dirs.push_back(name + "/");
        } else if (format_from_extension(name)) {
            files.push_back(name);
        }
    }
    std::sort(dirs.begin(), dirs.end());
    std::sort(files.begin(), files.end());
    std::vector<std::string> out;
    const fs::path abs = fs::absolute(dir.empty() ? "." : dir, ec).lexically_normal();
    if (abs.has_relative_path() && abs != abs.root_path()) out.push_back("../");
    out.insert(out.end(), dirs.begin(), dirs.end());
    out.insert(out.end(), files.begin(), files.end());
    return out;
}

namespace {

// The folder list: a click on a folder enters it, on a file fills the path, a double-click opens it.
std::optional<std::string> browse(OpenDialog& d) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path dir = fs::absolute(d.dir.empty() ? "." : d.dir, ec).lexically_normal();
    ImGui::TextDisabled("%s", dir.string().c_str());
    std::optional<std::string> chosen;
    if (ImGui::BeginChild("files", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 12), true)) {
        for (const std::string& e : open_dialog_entries(dir.string())) {
            const bool folder = !e.empty() && e.back() == '/';
            const fs::path full = (dir / e).lexically_normal();
            if (ImGui::Selectable(e.c_str(), full.string() == d.path,
                                  ImGuiSelectableFlags_AllowDoubleClick)) {
                if (folder) {
                    d.dir = (e == "../" ? dir.parent_path() : dir / e.substr(0, e.size() - 1)).string();
                } else {
                    std::snprintf(d.path, sizeof d.path, "%s", full.string().c_str());
                    if (ImGui::IsMouseDoubleClicked(0)) chosen = full.string();
                }
            }
        }
    }
    ImGui::EndChild();
    return chosen;
}

}  // namespace

std::optional<std::string> draw_open_dialog(OpenDialog& d) {
    if (!d.visible) return std::nullopt;
    std::optional<std::string> chosen;
    ImGui::SetNextWindowSize(ImVec2(520 * ImGui::GetFontSize() / 13.0f, 0), ImGuiCond_Appearing);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.3f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (ImGui::Begin("Open bodies", &d.visible, ImGuiWindowFlags_NoCollapse)) {
        // Wrapped: at 520 px the hint was cut off.
        ImGui::TextWrapped(
            "A snapshot (.h5), Tipsy (.tipsy/.std/.bin) or CSV file; or drop one on the window. Ctrl+S "
            "saves into %s.",
            snapshot_directory().c_str());
        if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
        const bool enter =
            ImGui::InputText("path", d.path, sizeof d.path, ImGuiInputTextFlags_EnterReturnsTrue);
        chosen = browse(d);
        if (chosen) d.visible = false;
        if ((ImGui::Button("Open") || enter) && d.path[0] != '\0') {
            chosen = std::string(d.path);
            d.visible = false;
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) d.visible = false;
    }
    ImGui::End();
    return chosen;
}

std::optional<std::size_t> draw_replay_bar(ReplayTimeline& t, const std::string& file, double sim_time,
                                           float panel_width) {
    std::optional<std::size_t> seek;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    // Centred in the part of the view the panel leaves free, with a margin on each side.
    const float left = vp->Pos.x + panel_width, free_w = std::max(vp->Size.x - panel_width, 1.0f);
    ImGui::SetNextWindowPos(ImVec2(left + free_w * 0.5f, vp->Pos.y + vp->Size.y - 12), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowSize(ImVec2(std::clamp(free_w - 24, 1.0f, 900.0f), 0), ImGuiCond_Always);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Replay", nullptr, flags)) {
        if (ImGui::Button(t.playing ? "Pause" : "Play")) t.playing = !t.playing;
        ImGui::SameLine();
        int frame = int(t.current());
        ImGui::SetNextItemWidth(-260);
        if (ImGui::SliderInt("##frame", &frame, 0, int(t.frames()) - 1, "snapshot %d"))
            seek = std::size_t(frame);
        ImGui::SameLine();
        float speed = float(t.speed);
        ImGui::SetNextItemWidth(140);
        if (ImGui::SliderFloat("per s", &speed, 0.5f, 60.0f, "%.1f", ImGuiSliderFlags_Logarithmic))
            t.speed = speed;
        ImGui::SameLine();
        ImGui::Checkbox("loop", &t.loop);
        ImGui::Text("%s   t = %.6g   (%zu of %zu)", std::filesystem::path(file).filename().string().c_str(),
                    sim_time, t.current() + 1, t.frames());
    }
    ImGui::End();
    return seek;
}

std::string snapshot_directory() {
    namespace fs = std::filesystem;
    const char* dir = std::getenv("NBODY_SNAPSHOT_DIR");
    const char* home = std::getenv("HOME");
    fs::path p = dir && *dir     ? fs::path(dir)
                 : home && *home ? fs::path(home) / "nbody-snapshots"
                                 : fs::path("nbody-snapshots");
    std::error_code ec;
    const fs::path abs = fs::absolute(p, ec);
    return (ec ? p : abs).lexically_normal().string();
}

std::string default_snapshot_name() {
    const std::time_t t = std::time(nullptr);
    char name[64];
    std::strftime(name, sizeof name, "nbody-%Y%m%d-%H%M%S", std::localtime(&t));
    return (std::filesystem::path(snapshot_directory()) /
            (std::string(name) + (have_hdf5() ? ".h5" : ".csv")))
        .string();
}

std::string default_screenshot_name() {
    const std::time_t t = std::time(nullptr);
    char name[64];
    std::strftime(name, sizeof name, "nbody-%Y%m%d-%H%M%S.png", std::localtime(&t));
    return name;
}

}  // namespace nbody
