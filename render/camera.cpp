#include "render/camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <vector>

#include "sim/util.hpp"

namespace nbody {
namespace {
constexpr float kRadiansPerPixel = 0.005f;
constexpr float kMaxPitch = 1.55f;
}  // namespace

void Camera::orbit(float dx_px, float dy_px) {
    yaw -= dx_px * kRadiansPerPixel;
    pitch = std::clamp(pitch + dy_px * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void Camera::pan(float dx_px, float dy_px, int viewport_h) {
    // World units per pixel at the target's depth, so the point under the cursor follows it.
    float units = 2.0f * distance * std::tan(fov_y * 0.5f) / float(std::max(viewport_h, 1));
    glm::mat4 v = view();
    glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    target += (-dx_px * right + dy_px * up) * units;
}

void Camera::zoom(float steps) {
    distance *= std::pow(0.85f, steps);
    distance = std::clamp(distance, 1e-6f, 1e12f);
}

void Camera::fit(const Vec4<float>* pos_mass, std::size_t n) {
    if (n == 0) {
        target = glm::vec3(0.0f);
        distance = 5.0f;
        set_home();
        return;
    }
    // Median per axis and a 95th-percentile radius: a few escapers must not shrink the view to a dot.
    std::vector<float> xs(n), ys(n), zs(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = pos_mass[i].x;
        ys[i] = pos_mass[i].y;
        zs[i] = pos_mass[i].z;
    }
    glm::vec3 c(median(xs), median(ys), median(zs));
    std::vector<float> r(n);
    for (std::size_t i = 0; i < n; ++i) {
        r[i] = glm::length(glm::vec3(pos_mass[i].x, pos_mass[i].y, pos_mass[i].z) - c);
    }
    auto k = r.begin() + std::ptrdiff_t(std::min(n - 1, n * 95 / 100));
    std::nth_element(r.begin(), k, r.end());
    float radius = std::max(*k, 1e-3f);
    target = c;
    distance = 1.15f * radius / std::sin(fov_y * 0.5f);
    set_home();
}

void Camera::set_home() {
    home_target_ = target;
    home_distance_ = distance;
    home_yaw_ = yaw;
    home_pitch_ = pitch;
}

void Camera::reset() {
    target = home_target_;
    distance = home_distance_;
    yaw = home_yaw_;
    pitch = home_pitch_;
}

glm::vec3 Camera::eye() const {
    glm::vec3 dir(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
    return target + distance * dir;
}

glm::mat4 Camera::view() const { return glm::lookAt(eye(), target, glm::vec3(0.0f, 1.0f, 0.0f)); }

glm::mat4 Camera::projection(float aspect) const {
    return glm::perspective(fov_y, std::max(aspect, 1e-3f), distance * 1e-3f, distance * 1e3f);
}

}  // namespace nbody
