#include "timeline_bar.hpp"

#include <imgui.h>

#include <algorithm>

namespace nbody {

TimelineBarResult draw_timeline_bar(const StateTimeline& t, int& index, int& budget_mib) {
    TimelineBarResult r;
    if (t.size() == 0) return r;
    index = std::clamp(index, 0, int(t.size()) - 1);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y - 12),
                            ImGuiCond_Always, ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowSize(ImVec2(std::min(vp->Size.x - 24, 900.0f), 0), ImGuiCond_Always);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("Timeline", nullptr, flags)) {
        const TimelineEntry& e = t.at(std::size_t(index));
        ImGui::SetNextItemWidth(-200);
        if (ImGui::SliderInt("##state", &index, 0, int(t.size()) - 1, "")) r.moved = true;
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "The states kept, in the order the run reached them: the oldest at the left, the "
                "last one at the right. While time runs backwards (B) the step count goes down "
                "along the bar.");
        ImGui::SameLine();
        ImGui::BeginDisabled(index == int(t.size()) - 1);
        if (ImGui::Button("Resume from here")) r.resume = true;
        ImGui::EndDisabled();
        ImGui::Text("step %lld   t = %.6g   (state %d of %zu%s)", static_cast<long long>(e.step),
                    e.state->time(), index + 1, t.size(), e.reversed ? ", time running backwards" : "");
        ImGui::SameLine();
        // Where the states are: device memory for cuda (Backend::keep_state), host memory otherwise.
        ImGui::TextDisabled(
            t.on_device() ? "  kept in device memory: %.0f of" : "  kept in host memory: %.0f of",
            double(t.bytes()) / double(1 << 20));
        ImGui::SameLine();
        ImGui::SetNextItemWidth(110);
        ImGui::SliderInt("MiB budget", &budget_mib, 0, 8192, "%d", ImGuiSliderFlags_Logarithmic);
        budget_mib = std::clamp(budget_mib, 0, 8192);
    }
    ImGui::End();
    return r;
}

}  // namespace nbody
