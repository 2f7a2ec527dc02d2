#include "record_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace nbody {

void record_section(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    ImGui::TextDisabled("Record video");
    ImGui::BeginDisabled(info.recording);
    char path[512];
    std::snprintf(path, sizeof path, "%s", m.record_path.c_str());
    if (ImGui::InputText("file", path, sizeof path)) m.record_path = path;
    ImGui::SliderInt("fps", &m.record_fps, 1, 120, "%d", ImGuiSliderFlags_AlwaysClamp);
    m.record_fps = std::clamp(m.record_fps, 1, 120);
    ImGui::Checkbox("panel in the video", &m.record_panel);
    ImGui::EndDisabled();
    ImGui::TextDisabled("%d steps per frame (Physics tab), %.3g time units per video second",
                        m.steps_per_frame, double(m.steps_per_frame) * m.params.dt * m.record_fps);
    if (ImGui::Button(info.recording ? "Stop (Ctrl+R)" : "Record (Ctrl+R)")) a.toggle_record = true;
    if (!info.record_note.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", info.record_note.c_str());
        ImGui::PopTextWrapPos();
    }
}

void recording_indicator(const PanelInfo& info) {
    if (!info.recording) return;
    char line[600];
    const double seconds = info.record_fps > 0 ? double(info.record_frames) / info.record_fps : 0.0;
    std::snprintf(line, sizeof line, "REC  %lld frames  %02d:%04.1f  %s",
                  static_cast<long long>(info.record_frames), int(seconds) / 60,
                  seconds - 60.0 * (int(seconds) / 60), info.record_path.c_str());
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const ImVec2 size = ImGui::CalcTextSize(line);
    const float r = ImGui::GetTextLineHeight() * 0.4f;
    const ImVec2 at(vp->WorkPos.x + vp->WorkSize.x - size.x - 4 * r - 8, vp->WorkPos.y + 8);
    dl->AddRectFilled(ImVec2(at.x - r, at.y - r * 0.5f),
                      ImVec2(at.x + size.x + 4 * r, at.y + size.y + r * 0.5f), IM_COL32(0, 0, 0, 170), r);
    dl->AddCircleFilled(ImVec2(at.x + r, at.y + size.y * 0.5f), r, IM_COL32(235, 40, 40, 255));
    dl->AddText(ImVec2(at.x + 3 * r, at.y), IM_COL32(255, 235, 235, 255), line);
}

}  // namespace nbody
