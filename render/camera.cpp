#include "camera.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <vector>

#include "sim/util.hpp"

namespace nbody {
namespace {
constexpr float kRadiansPerPixel = 0.005f;
constexpr float kMaxPitch = 1.55f;
// The coordinate `axis` (0..2) below which half the bodies' mass lies (|m|; the plain median when the
// masses sum to 0).
float weighted_median(const Vec4<float>* pos_mass, std::size_t n, int axis) {
    std::vector<std::pair<float, float>> v(n);  // coordinate, mass
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Vec4<float>& p = pos_mass[i];
        v[i] = {axis == 0 ? p.x : axis == 1 ? p.y : p.z, std::abs(p.w)};
        total += v[i].second;
    }
    if (!(total > 0)) {
        std::vector<float> xs(n);
        for (std::size_t i = 0; i < n; ++i) xs[i] = v[i].first;
        return median(xs);
    }
    std::sort(v.begin(), v.end());
    double below = 0;
    for (std::size_t i = 0; i < n; ++i) {
        below += v[i].second;
        if (below >= 0.5 * total) {
            // Exactly half below (an even count of equal masses): the middle of the two, as median() does.
            if (below == 0.5 * total && i + 1 < n) return 0.5f * (v[i].first + v[i + 1].first);
            return v[i].first;
        }
    }
    return v.back().first;
}

}  // namespace

void Camera::orbit(float dx_px, float dy_px) {
    yaw -= dx_px * kRadiansPerPixel;
    pitch = std::clamp(pitch + dy_px * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void Camera::pan(float dx_px, float dy_px, int viewport_h) {
    // World units per pixel at the target's depth, so the point under the cursor follows it.
    float units = units_per_pixel(viewport_h);
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
    // Mass-weighted median per axis and a 95th-percentile radius: a few escapers must not shrink the view
    // to a dot, and a star with its planets is framed around the star, not halfway to the outer planet.
    glm::vec3 c(weighted_median(pos_mass, n, 0), weighted_median(pos_mass, n, 1),
                weighted_median(pos_mass, n, 2));
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

glm::mat4 Camera::view() const {
    return glm::lookAt(eye(), target, glm::vec3(0.0f, 1.0f, 0.0f));
}

glm::mat4 Camera::projection(float aspect) const {
    glm::mat4 p = glm::perspective(fov_y, std::max(aspect, 1e-3f), distance * 1e-3f, distance * 1e3f);
    // NDC spans 2 across the viewport: a shift of f of the width is 2f in NDC, applied after the divide.
    glm::mat4 shift(1.0f);
    shift[3][0] = 2.0f * shift_x;
    return shift * p;
}

glm::vec3 Camera::project(const glm::vec3& world, int w, int h) const {
    glm::vec4 clip = projection(float(w) / float(std::max(h, 1))) * view() * glm::vec4(world, 1.0f);
    if (clip.w <= 0.0f) return glm::vec3(-1e9f, -1e9f, -1.0f);
    glm::vec3 ndc = glm::vec3(clip) / clip.w;
    return glm::vec3((ndc.x * 0.5f + 0.5f) * float(w), (0.5f - ndc.y * 0.5f) * float(h), ndc.z * 0.5f + 0.5f);
}

glm::vec3 Camera::unproject_on_focus_plane(float x, float y, int w, int h) const {
    glm::mat4 inv = glm::inverse(projection(float(w) / float(std::max(h, 1))) * view());
    float nx = 2.0f * x / float(std::max(w, 1)) - 1.0f, ny = 1.0f - 2.0f * y / float(std::max(h, 1));
    glm::vec4 a = inv * glm::vec4(nx, ny, -1.0f, 1.0f), b = inv * glm::vec4(nx, ny, 1.0f, 1.0f);
    glm::vec3 p0 = glm::vec3(a) / a.w, p1 = glm::vec3(b) / b.w;
    glm::vec3 dir = p1 - p0, normal = glm::normalize(eye() - target);
    float denom = glm::dot(dir, normal);
    if (std::abs(denom) < 1e-12f) return target;
    return p0 + dir * (glm::dot(target - p0, normal) / denom);
}

float Camera::units_per_pixel(int h) const {
    return 2.0f * distance * std::tan(fov_y * 0.5f) / float(std::max(h, 1));
}

}  // namespace nbody
