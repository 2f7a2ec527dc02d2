#include "scale_bar.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>

namespace nbody {

ScaleBar nice_scale_bar(double units_per_pixel, float max_pixels, const std::string& unit) {
    ScaleBar bar;
    if (!(units_per_pixel > 0) || !(max_pixels > 0) || !std::isfinite(units_per_pixel)) return bar;
    const double most = units_per_pixel * double(max_pixels);
    const double decade = std::pow(10.0, std::floor(std::log10(most)));
    for (double step : {5.0, 2.0, 1.0}) {
        if (step * decade <= most) {
            bar.length = step * decade;
            break;
        }
    }
    bar.pixels = float(bar.length / units_per_pixel);
    char text[64];
    std::snprintf(text, sizeof text, "%g%s%s", bar.length, unit.empty() ? "" : " ", unit.c_str());
    bar.label = text;
    return bar;
}

void draw_scale_bar(const ScaleBar& bar, float right, float bottom) {
    if (bar.pixels <= 0) return;
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const ImU32 white = IM_COL32(235, 235, 235, 230);
    const float left = right - bar.pixels, tick = 5.0f;
    dl->AddLine(ImVec2(left, bottom), ImVec2(right, bottom), white, 2.0f);
    dl->AddLine(ImVec2(left, bottom - tick), ImVec2(left, bottom + 1), white, 2.0f);
    dl->AddLine(ImVec2(right, bottom - tick), ImVec2(right, bottom + 1), white, 2.0f);
    const ImVec2 size = ImGui::CalcTextSize(bar.label.c_str());
    dl->AddText(ImVec2(left + 0.5f * (bar.pixels - size.x), bottom - tick - size.y - 2), white,
                bar.label.c_str());
}

}  // namespace nbody
