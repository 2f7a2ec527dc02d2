#pragma once
// Orbit camera: looks at a target from a distance, turned by yaw/pitch. Mouse deltas in pixels.
#include <cstddef>
#include <glm/glm.hpp>

#include "sim/state.hpp"

namespace nbody {

struct Camera {
    glm::vec3 target{0.0f};
    float distance = 5.0f;  // world units from target to eye
    float yaw = 0.6f;       // radians about +y
    float pitch = 0.45f;    // radians above the xz plane, kept inside (-pi/2, pi/2)
    float fov_y = 0.7854f;  // vertical field of view, radians (45 degrees)
    // Moves the picture right by this fraction of the viewport width, so the scene centres in the area
    // a side panel leaves free (0: centred). Part of projection(), so picking and overlays agree.
    float shift_x = 0.0f;

    // Rotates about the target by a mouse drag (pixels).
    void orbit(float dx_px, float dy_px);
    // Moves target and eye together by a drag (pixels) in a viewport viewport_h pixels tall.
    void pan(float dx_px, float dy_px, int viewport_h);
    // Wheel zoom: each step moves 15% closer (positive) or further (negative).
    void zoom(float steps);
    // Frames the bodies robustly: centre on their mass-weighted median point, distance so that the 95th
    // percentile of distances from it fits in view (far outliers and escapers are ignored).
    void fit(const Vec4<float>* pos_mass, std::size_t n);
    // Remembers the current view as the one reset() returns to.
    void set_home();
    // Returns to the view saved by set_home() (or fit()).
    void reset();

    glm::vec3 eye() const;
    glm::mat4 view() const;
    // Perspective for width/height aspect; near/far follow the distance so any scale renders.
    glm::mat4 projection(float aspect) const;

    // Pixel position (x right, y down, origin top-left) of a world point in a w x h viewport; z < 0 or
    // > 1 when it is behind the eye or past the far plane.
    glm::vec3 project(const glm::vec3& world, int w, int h) const;
    // The world point under pixel (x, y) on the plane through the target facing the camera.
    glm::vec3 unproject_on_focus_plane(float x, float y, int w, int h) const;
    // World units per pixel at the target's depth in a viewport h pixels tall.
    float units_per_pixel(int h) const;

  private:
    glm::vec3 home_target_{0.0f};
    float home_distance_ = 5.0f, home_yaw_ = 0.6f, home_pitch_ = 0.45f;
};

}  // namespace nbody
