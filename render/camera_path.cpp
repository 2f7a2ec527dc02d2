#include "camera_path.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "sim/error.hpp"
#include "sim/io/json_value.hpp"
#include "sim/platform/atomic_file.hpp"

namespace nbody {
namespace {

constexpr double kDegrees = 180.0 / 3.14159265358979323846;

// Catmull-Rom through p1 (f = 0) and p2 (f = 1), with p0 and p3 shaping the tangents.
double catmull_rom(double p0, double p1, double p2, double p3, double f) {
    const double f2 = f * f, f3 = f2 * f;
    return 0.5 *
           (2 * p1 + (p2 - p0) * f + (2 * p0 - 5 * p1 + 4 * p2 - p3) * f2 + (3 * p1 - p0 - 3 * p2 + p3) * f3);
}

// yaw b moved by whole turns to within half a turn of a: the camera turns the short way.
double unwrap(double a, double b) {
    const double turn = 2 * 3.14159265358979323846;
    return b - turn * std::round((b - a) / turn);
}

}  // namespace

std::size_t CameraPath::add(const Camera& cam, double time) {
    CameraKey k;
    k.time = time;
    k.target = cam.target;
    k.distance = cam.distance;
    k.yaw = cam.yaw;
    k.pitch = cam.pitch;
    auto it = std::lower_bound(keys.begin(), keys.end(), time,
                               [](const CameraKey& a, double t) { return a.time < t; });
    if (it != keys.end() && it->time == time) {
        *it = k;
    } else {
        it = keys.insert(it, k);
    }
    return std::size_t(it - keys.begin());
}

std::size_t CameraPath::retime(std::size_t i, double time) {
    if (i >= keys.size()) return i;
    CameraKey k = keys[i];
    keys.erase(keys.begin() + std::ptrdiff_t(i));
    k.time = time;
    auto it = std::upper_bound(keys.begin(), keys.end(), time,
                               [](double t, const CameraKey& a) { return t < a.time; });
    return std::size_t(keys.insert(it, k) - keys.begin());
}

void CameraPath::remove(std::size_t i) {
    if (i < keys.size()) keys.erase(keys.begin() + std::ptrdiff_t(i));
}

Camera CameraPath::sample(double time, const Camera& base) const {
    Camera c = base;
    if (keys.empty()) return c;
    auto apply = [&c](const CameraKey& k) {
        c.target = k.target;
        c.distance = k.distance;
        c.yaw = k.yaw;
        c.pitch = k.pitch;
    };
    if (keys.size() == 1 || time <= keys.front().time) {
        apply(keys.front());
        return c;
    }
    if (time >= keys.back().time) {
        apply(keys.back());
        return c;
    }
    std::size_t i = 0;
    while (i + 2 < keys.size() && keys[i + 1].time <= time) ++i;
    const CameraKey& k1 = keys[i];
    const CameraKey& k2 = keys[i + 1];
    const CameraKey& k0 = i > 0 ? keys[i - 1] : k1;
    const CameraKey& k3 = i + 2 < keys.size() ? keys[i + 2] : k2;
    const double span = k2.time - k1.time;
    const double f = span > 0 ? (time - k1.time) / span : 1.0;
    auto spline = [&](auto get) { return catmull_rom(get(k0), get(k1), get(k2), get(k3), f); };
    for (int a = 0; a < 3; ++a)
        c.target[a] = float(spline([a](const CameraKey& k) { return double(k.target[a]); }));
    c.distance = float(
        std::exp(spline([](const CameraKey& k) { return std::log(double(std::max(k.distance, 1e-30f))); })));
    // Yaw unwrapped along the chain k0 -> k1 -> k2 -> k3.
    const double y1 = k1.yaw, y0 = unwrap(y1, k0.yaw), y2 = unwrap(y1, k2.yaw), y3 = unwrap(y2, k3.yaw);
    c.yaw = float(catmull_rom(y0, y1, y2, y3, f));
    c.pitch = float(std::clamp(spline([](const CameraKey& k) { return double(k.pitch); }), -1.55, 1.55));
    return c;
}

std::string camera_path_to_json(const CameraPath& path) {
    // %.9g for floats and %.17g for times read back to the same value.
    std::ostringstream out;
    out << "{\n  \"nbody_camera_path\": 1,\n  \"keys\": [";
    char buf[512];
    for (std::size_t i = 0; i < path.keys.size(); ++i) {
        const CameraKey& k = path.keys[i];
        std::snprintf(
            buf, sizeof buf,
            "%s\n    {\"t\": %.17g, \"target\": [%.9g, %.9g, %.9g], \"distance\": %.9g, \"yaw_deg\": %.17g, "
            "\"pitch_deg\": %.17g}",
            i ? "," : "", k.time, double(k.target.x), double(k.target.y), double(k.target.z),
            double(k.distance), double(k.yaw) * kDegrees, double(k.pitch) * kDegrees);
        out << buf;
    }
    out << (path.keys.empty() ? "]\n}\n" : "\n  ]\n}\n");
    return out.str();
}

CameraPath camera_path_from_json(const std::string& text, const std::string& what) {
    const JsonValue root = parse_json(text, what);
    auto fail = [&](const std::string& why) { return Error(what + ": " + why); };
    if (!root.is_object() || !root.find("nbody_camera_path")) {
        throw fail("not a camera path (no \"nbody_camera_path\" field)");
    }
    const JsonValue* keys = root.find("keys");
    if (!keys || !keys->is_array()) throw fail("\"keys\" must be a list");
    CameraPath path;
    for (std::size_t i = 0; i < keys->array.size(); ++i) {
        const JsonValue& k = keys->array[i];
        const std::string where = "key " + std::to_string(i + 1);
        auto number = [&](const char* name) {
            const JsonValue* v = k.find(name);
            if (!v || !v->is_number() || !std::isfinite(v->number))
                throw fail(where + ": \"" + name + "\" must be a finite number");
            return v->number;
        };
        CameraKey key;
        key.time = number("t");
        if (key.time < 0) throw fail(where + ": \"t\" must be >= 0 seconds");
        const JsonValue* target = k.find("target");
        if (!target || !target->is_array() || target->array.size() != 3)
            throw fail(where + ": \"target\" must be [x, y, z]");
        for (int a = 0; a < 3; ++a) {
            const JsonValue& v = target->array[std::size_t(a)];
            if (!v.is_number() || !std::isfinite(v.number))
                throw fail(where + ": \"target\" must be [x, y, z]");
            key.target[a] = float(v.number);
        }
        key.distance = float(number("distance"));
        if (!(key.distance > 0)) throw fail(where + ": \"distance\" must be > 0");
        key.yaw = float(number("yaw_deg") / kDegrees);
        const double pitch = number("pitch_deg");
        if (!(pitch > -89.5 && pitch < 89.5)) throw fail(where + ": \"pitch_deg\" must be in (-89.5, 89.5)");
        key.pitch = float(pitch / kDegrees);
        Camera c;
        c.target = key.target;
        c.distance = key.distance;
        c.yaw = key.yaw;
        c.pitch = key.pitch;
        path.add(c, key.time);
    }
    return path;
}

void save_camera_path(const CameraPath& path, const std::string& file) {
    AtomicFile out(file);
    out.stream() << camera_path_to_json(path);
    out.commit();
}

CameraPath load_camera_path(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw Error("cannot read camera path '" + file + "'");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return camera_path_from_json(text, "camera path '" + file + "'");
}

}  // namespace nbody
