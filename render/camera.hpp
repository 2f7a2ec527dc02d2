#pragma once
// Orbit camera: looks at a target from a distance, turned by yaw/pitch. Mouse deltas in pixels.
#include <cstddef>

#include <glm/glm.hpp>

#include "sim/state.hpp"

namespace nbody {

struct Camera {
    glm::vec3 target{0.0f};
    float distance = 5.0f;    // world units from target to eye
    float yaw = 0.6f;         // radians about +y
    float pitch = 0.45f;      // radians above the xz plane, kept inside (-pi/2, pi/2)
    float fov_y = 0.7854f;    // vertical field of view, radians (45 degrees)

    // Rotates about the target by a mouse drag (pixels).
    void orbit(float dx_px, float dy_px);
    // Moves target and eye together by a drag (pixels) in a viewport viewport_h pixels tall.
    void pan(float dx_px, float dy_px, int viewport_h);
    // Wheel zoom: each step moves 15% closer (positive) or further (negative).
    void zoom(float steps);
    // Frames the bodies: centre on their median point, distance so that 95% of them fit in view.
    void fit(const Vec4<float>* pos_mass, std::size_t n);
    // Remembers the current view as the one reset() returns to.
    void set_home();
    // Returns to the view saved by set_home() (or fit()).
    void reset();

    glm::vec3 eye() const;
    glm::mat4 view() const;
    // Perspective for width/height aspect; near/far follow the distance so any scale renders.
    glm::mat4 projection(float aspect) const;

private:
    glm::vec3 home_target_{0.0f};
    float home_distance_ = 5.0f, home_yaw_ = 0.6f, home_pitch_ = 0.45f;
};

}  // namespace nbody
