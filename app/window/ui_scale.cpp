#include "ui_scale.hpp"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace nbody {

std::string ui_font_path() {
    for (const char* p :
         {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf"}) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(p, ec)) return p;
    }
    return {};
}

namespace {

// White text on black, bright frames and a yellow accent: readable on a washed-out projector.
void high_contrast_colors(ImGuiStyle& s) {
    ImGui::StyleColorsDark(&s);
    ImVec4* c = s.Colors;
    c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_TextDisabled] = ImVec4(0.85f, 0.85f, 0.85f, 1);
    c[ImGuiCol_WindowBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_PopupBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_Border] = ImVec4(1, 1, 1, 0.8f);
    c[ImGuiCol_FrameBg] = ImVec4(0.18f, 0.18f, 0.18f, 1);
    c[ImGuiCol_SliderGrab] = c[ImGuiCol_CheckMark] = ImVec4(1, 0.85f, 0.1f, 1);
    c[ImGuiCol_Button] = c[ImGuiCol_Header] = c[ImGuiCol_Tab] = ImVec4(0.1f, 0.3f, 0.7f, 1);
    c[ImGuiCol_ButtonHovered] = c[ImGuiCol_HeaderHovered] = c[ImGuiCol_TabHovered] =
        ImVec4(0.2f, 0.45f, 0.95f, 1);
    c[ImGuiCol_TabActive] = ImVec4(0.85f, 0.55f, 0.05f, 1);
    c[ImGuiCol_PlotLines] = ImVec4(1, 1, 0.3f, 1);
    s.FrameBorderSize = 1.0f;
}

}  // namespace

bool apply_ui_scale(const UiLook& want, UiLook& applied, std::string& note) {
    if (want.scale == applied.scale && want.high_contrast == applied.high_contrast) return false;
    const float scale = std::clamp(want.scale, kMinUiScale, kMaxUiScale);
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    const std::string path = ui_font_path();
    const float px = std::round(kUiFontPx * scale);
    ImFont* font = path.empty() ? nullptr : io.Fonts->AddFontFromFileTTF(path.c_str(), px);
    char buf[96];
    if (font) {
        std::snprintf(buf, sizeof buf, "DejaVu Sans %.0f px", double(px));
    } else {
        // ImGui's built-in 13 px bitmap font, drawn at its own size: scaled, it would blur.
        ImFontConfig cfg;
        cfg.SizePixels = std::round(13.0f * scale);
        io.Fonts->AddFontDefault(&cfg);
        std::snprintf(buf, sizeof buf, "ImGui's font %.0f px (no DejaVu Sans: install fonts-dejavu-core)",
                      double(cfg.SizePixels));
    }
    io.FontGlobalScale = 1.0f;
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    ImGuiStyle style;
    if (want.high_contrast) {
        high_contrast_colors(style);
    } else {
        ImGui::StyleColorsDark(&style);
    }
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
    applied = want;
    note = buf;
    return true;
}

}  // namespace nbody
