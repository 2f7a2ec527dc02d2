#pragma once
// The panel's "Camera path" section: keyframes from the current view (K), their list with times to
// edit, jump-to and delete, play/stop, save/load as JSON. ImGui only; window_app moves the camera.
#include "panel.hpp"

namespace nbody {

// The camera-path controls (inside the View tab's "Camera path & video" header).
void camera_path_section(PanelModel& m, PanelActions& a);

}  // namespace nbody
