// Camera paths (render/camera_path) and the JSON reader under them (sim/io/json_value): a path goes
// through its keys smoothly, round-trips through its file exactly, and bad files are one clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "render/camera_path.hpp"
#include "sim/error.hpp"
#include "sim/io/json_value.hpp"
#include "temp_dir.hpp"

namespace nbody {
namespace {

Camera view(glm::vec3 target, float distance, float yaw, float pitch) {
    Camera c;
    c.target = target;
    c.distance = distance;
    c.yaw = yaw;
    c.pitch = pitch;
    return c;
}

CameraPath three_keys() {
    CameraPath p;
    p.add(view({0, 0, 0}, 5.0f, 0.1f, 0.2f), 0.0);
    p.add(view({1, 2, 3}, 50.0f, 1.0f, -0.3f), 2.0);
    p.add(view({-1, 0, 0.5f}, 0.5f, 2.5f, 0.7f), 5.0);
    return p;
}

TEST(CameraPath, PassesThroughEveryKeyAndHoldsAtTheEnds) {
    const CameraPath p = three_keys();
    for (const CameraKey& k : p.keys) {
        Camera c = p.sample(k.time, Camera{});
        EXPECT_NEAR(c.target.x, k.target.x, 1e-5);
        EXPECT_NEAR(c.target.z, k.target.z, 1e-5);
        EXPECT_NEAR(c.distance, k.distance, 1e-4 * k.distance);
        EXPECT_NEAR(c.yaw, k.yaw, 1e-5);
        EXPECT_NEAR(c.pitch, k.pitch, 1e-5);
    }
    EXPECT_FLOAT_EQ(p.sample(-1.0, Camera{}).distance, 5.0f);
    EXPECT_FLOAT_EQ(p.sample(99.0, Camera{}).distance, 0.5f);
}

// Smooth: no jumps between nearby times anywhere along the path, and zoom interpolated in log space
// (halfway between 5 and 50 in time is near their geometric mean, not 27.5).
TEST(CameraPath, MovesSmoothlyAndZoomsEvenly) {
    const CameraPath p = three_keys();
    Camera prev = p.sample(0.0, Camera{});
    for (int i = 1; i <= 500; ++i) {
        Camera c = p.sample(5.0 * i / 500, Camera{});
        EXPECT_LT(glm::length(c.target - prev.target), 0.1f) << i;
        EXPECT_LT(std::abs(std::log(c.distance / prev.distance)), 0.1f) << i;
        EXPECT_LT(std::abs(c.yaw - prev.yaw), 0.05f) << i;
        prev = c;
    }
    CameraPath two;
    two.add(view({0, 0, 0}, 5.0f, 0, 0), 0.0);
    two.add(view({0, 0, 0}, 50.0f, 0, 0), 1.0);
    EXPECT_NEAR(two.sample(0.5, Camera{}).distance, std::sqrt(5.0f * 50.0f), 0.5f);
}

// Yaw from 350 to 10 degrees turns 20 degrees through 0, not 340 the long way.
TEST(CameraPath, TurnsTheShortWayRound) {
    const float deg = 3.14159265f / 180.0f;
    CameraPath p;
    p.add(view({0, 0, 0}, 5, 350 * deg, 0), 0.0);
    p.add(view({0, 0, 0}, 5, 10 * deg, 0), 1.0);
    const float mid = p.sample(0.5, Camera{}).yaw;
    EXPECT_NEAR(std::remainder(mid, 2 * 3.14159265f), 0.0f, 1 * deg);
}

TEST(CameraPath, ListEditsKeepTheKeysInTimeOrder) {
    CameraPath p = three_keys();
    EXPECT_EQ(p.retime(0, 3.0), 1u);  // now between the 2 s and 5 s keys
    EXPECT_DOUBLE_EQ(p.keys[0].time, 2.0);
    EXPECT_DOUBLE_EQ(p.keys[1].time, 3.0);
    p.remove(0);
    ASSERT_EQ(p.keys.size(), 2u);
    EXPECT_DOUBLE_EQ(p.duration(), 5.0);
    p.add(view({0, 0, 0}, 9, 0, 0), 5.0);  // same time: replaced
    EXPECT_EQ(p.keys.size(), 2u);
    EXPECT_FLOAT_EQ(p.keys[1].distance, 9.0f);
}

class CameraPathFile : public test::TempDirTest {};

TEST_F(CameraPathFile, RoundTripsExactly) {
    const CameraPath p = three_keys();
    save_camera_path(p, file("path.json"));
    const CameraPath q = load_camera_path(file("path.json"));
    ASSERT_EQ(q.keys.size(), p.keys.size());
    for (std::size_t i = 0; i < p.keys.size(); ++i) {
        EXPECT_EQ(q.keys[i].time, p.keys[i].time);
        EXPECT_EQ(q.keys[i].target, p.keys[i].target);
        EXPECT_EQ(q.keys[i].distance, p.keys[i].distance);
        // Through degrees and back: the float the key held.
        EXPECT_EQ(q.keys[i].yaw, p.keys[i].yaw);
        EXPECT_EQ(q.keys[i].pitch, p.keys[i].pitch);
    }
    EXPECT_EQ(camera_path_to_json(q), camera_path_to_json(p));
}

TEST_F(CameraPathFile, BadFilesAreOneClearError) {
    auto error_of = [&](const std::string& text) {
        std::ofstream(file("bad.json")) << text;
        try {
            load_camera_path(file("bad.json"));
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error_of("{\"nbody_camera_path\": 1, \"keys\": [}").find("line 1, column 35"),
              std::string::npos)
        << error_of("{\"nbody_camera_path\": 1, \"keys\": [}");
    EXPECT_NE(error_of("{\"keys\": []}").find("not a camera path"), std::string::npos);
    EXPECT_NE(
        error_of("{\"nbody_camera_path\": 1, \"keys\": [{\"t\": 0, \"target\": [0, 0], \"distance\": 1, "
                 "\"yaw_deg\": 0, \"pitch_deg\": 0}]}")
            .find("key 1: \"target\" must be [x, y, z]"),
        std::string::npos);
    EXPECT_NE(
        error_of("{\"nbody_camera_path\": 1, \"keys\": [{\"t\": 0, \"target\": [0, 0, 0], \"distance\": -1, "
                 "\"yaw_deg\": 0, \"pitch_deg\": 0}]}")
            .find("\"distance\" must be > 0"),
        std::string::npos);
    EXPECT_NE(error_of("").find("expected a value"), std::string::npos);
    EXPECT_THROW(load_camera_path(file("missing.json")), Error);
}

TEST(JsonValue, ReadsTheGrammarAndRefusesWhatIsNotJson) {
    const JsonValue v = parse_json(R"( {"a": [1, -2.5e3, true, false, null], "s": "x\"\u00e9\n"} )", "t");
    ASSERT_TRUE(v.is_object());
    const JsonValue* a = v.find("a");
    ASSERT_TRUE(a && a->is_array() && a->array.size() == 5);
    EXPECT_EQ(a->array[1].number, -2500.0);
    EXPECT_TRUE(a->array[2].boolean);
    EXPECT_FALSE(a->array[3].boolean);
    EXPECT_EQ(v.find("s")->string, "x\"\xc3\xa9\n");
    for (const char* bad : {"01", "1.", "+1", "[1,]", "{\"a\" 1}", "\"open", "[1] 2", "inf", "0x10"})
        EXPECT_THROW(parse_json(bad, "t"), Error) << bad;
    EXPECT_THROW(parse_json(std::string(1000, '['), "t"), Error);  // depth limit, not a stack overflow
}

}  // namespace
}  // namespace nbody
