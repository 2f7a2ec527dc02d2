#include "camera_path_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace nbody {

void camera_path_section(PanelModel& m, PanelActions& a) {
    ImGui::TextDisabled("Camera path");
    CameraPath& path = m.camera_path;
    // The next key's time: 2 s after the last by default, editable before adding.
    ImGui::InputDouble("new key at (s)", &m.new_key_time, 0.5, 2.0, "%.2f");
    m.new_key_time = std::max(0.0, m.new_key_time);
    if (ImGui::Button("Add key from view (K)")) a.add_camera_key = true;
    ImGui::SameLine();
    ImGui::BeginDisabled(path.keys.size() < 2);
    if (ImGui::Button(m.path_playing ? "Stop" : "Play")) {
        m.path_playing = !m.path_playing;
        m.path_time = 0;
    }
    ImGui::EndDisabled();
    if (m.path_playing) ImGui::TextDisabled("playing: %.2f of %.2f s", m.path_time, path.duration());
    for (std::size_t i = 0; i < path.keys.size(); ++i) {
        ImGui::PushID(int(i));
        double t = path.keys[i].time;
        ImGui::PushItemWidth(ImGui::GetFontSize() * 5);
        // Retimed when the edit is done, so the list does not reorder under the cursor.
        ImGui::InputDouble("##t", &t, 0, 0, "%.2f s");
        if (ImGui::IsItemDeactivatedAfterEdit()) path.retime(i, std::max(0.0, t));
        ImGui::PopItemWidth();
        ImGui::SameLine();
        ImGui::TextDisabled("d %.3g  yaw %.0f  pitch %.0f", double(path.keys[i].distance),
                            double(path.keys[i].yaw) * 57.2958, double(path.keys[i].pitch) * 57.2958);
        ImGui::SameLine();
        if (ImGui::SmallButton("go")) a.goto_camera_key = int(i);
        ImGui::SameLine();
        if (ImGui::SmallButton("x")) {
            path.remove(i);
            ImGui::PopID();
            break;
        }
        ImGui::PopID();
    }
    char file[512];
    std::snprintf(file, sizeof file, "%s", m.camera_path_file.c_str());
    if (ImGui::InputText("path file", file, sizeof file)) m.camera_path_file = file;
    if (ImGui::Button("Save")) a.save_camera_path = true;
    ImGui::SameLine();
    if (ImGui::Button("Load")) a.load_camera_path = true;
    ImGui::SameLine();
    ImGui::TextDisabled("(nbody render --camera-path FILE)");
}

}  // namespace nbody
