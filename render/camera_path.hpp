#pragma once
// Camera flights for demos and videos: keyframes of the orbit camera (target, distance, yaw, pitch) at
// times in seconds of video, played back with smooth interpolation, saved as a small JSON file. No GL:
// the window edits and plays a path, `nbody render --camera-path` renders one offline.
#include <string>
#include <vector>

#include "camera.hpp"

namespace nbody {

struct CameraKey {
    double time = 0;  // seconds from the start of the flight
    glm::vec3 target{0.0f};
    float distance = 5.0f;
    float yaw = 0.0f, pitch = 0.0f;  // radians
};

// The keyframes, kept sorted by time.
struct CameraPath {
    std::vector<CameraKey> keys;

    // Adds the view of `cam` at `time` (a key already at that time is replaced). Returns its index.
    std::size_t add(const Camera& cam, double time);
    // Moves key i to `time`, keeping the list sorted; returns its new index.
    std::size_t retime(std::size_t i, double time);
    void remove(std::size_t i);
    double duration() const { return keys.empty() ? 0.0 : keys.back().time; }

    // The view at `time` (clamped to the path): `base` with its target, distance, yaw and pitch replaced.
    // Between keys a Catmull-Rom spline (through every key, continuous velocity) of the target, the
    // logarithm of the distance (zooming reads even at any scale), yaw (unwrapped: the short way round)
    // and pitch. One key: that view; none: base unchanged.
    Camera sample(double time, const Camera& base) const;
};

// The path as JSON: {"nbody_camera_path": 1, "keys": [{"t": 0, "target": [x, y, z], "distance": d,
// "yaw_deg": y, "pitch_deg": p}, ...]}; numbers printed so they read back exactly.
std::string camera_path_to_json(const CameraPath& path);
// Parses that JSON (keys in any order, extra fields ignored). Throws nbody::Error with one line saying
// what is wrong and where (`what` names the source, e.g. the file).
CameraPath camera_path_from_json(const std::string& text, const std::string& what = "camera path");

// Files: written atomically; read with one clear error for a missing or malformed file.
void save_camera_path(const CameraPath& path, const std::string& file);
CameraPath load_camera_path(const std::string& file);

}  // namespace nbody
