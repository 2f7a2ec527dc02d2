#pragma once
// Projector mode: the whole ImGui interface at a scale (1x..4x), with its font rasterised at that size so
// text stays crisp (not ImGui's FontGlobalScale, which magnifies a small bitmap), and a high-contrast
// colour scheme. Call apply_ui_scale between frames, before ImGui::NewFrame.
#include <string>

namespace nbody {

inline constexpr float kMinUiScale = 0.75f, kMaxUiScale = 4.0f;
// The panel's font size at scale 1, in pixels.
inline constexpr float kUiFontPx = 13.0f;  // the size of ImGui's own font: the panel keeps its layout

struct UiLook {
    float scale = 1.0f;
    bool high_contrast = false;
};

// Debian's DejaVu Sans (fonts-dejavu-core), or "" where it is missing (ImGui's own font is used then).
std::string ui_font_path();

// Rebuilds the font atlas at kUiFontPx * scale from ui_font_path() and the style (sizes scaled, colours
// dark or high-contrast) when `want` differs from `applied`; `applied` becomes `want` and `note` says
// what font it took ("DejaVu Sans 30 px"). Needs the ImGui OpenGL 3 backend initialised. True if it did.
bool apply_ui_scale(const UiLook& want, UiLook& applied, std::string& note);

}  // namespace nbody
