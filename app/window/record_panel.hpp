#pragma once
// The panel's recording controls (file, frame rate, whether the panel is in the video, Record/Stop) and
// the indicator shown while recording. ImGui only; window_app does the recording.
#include "panel.hpp"

namespace nbody {

// The recording controls (inside the View tab's "Camera path & video" header).
void record_section(PanelModel& m, PanelActions& a, const PanelInfo& info);
// A red "REC" line with the frame count, video time and file, at the top right, while recording. It is
// ImGui drawing: a video without the panel has no indicator either.
void recording_indicator(const PanelInfo& info);

}  // namespace nbody
