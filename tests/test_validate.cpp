// State and parameter checks made before a run.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "sim/error.hpp"
#include "sim/presets.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The message of the error `f` throws, or "" if it throws nothing.
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

HostState grid(std::size_t n) {
    HostState s;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        s.pos_mass[i] = {double(i % 7), double(i / 7), 0.5 * double(i % 3), 1.0};
    return s;
}

Params no_softening() {
    Params p;
    p.softening = 0;
    return p;
}

TEST(ValidateState, AcceptsDistinctBodies) {
    EXPECT_EQ(error_of([] { validate_state(grid(100), no_softening()); }), "");
    EXPECT_EQ(error_of([] { validate_state(grid(100), no_softening(), Precision::f32); }), "");
    EXPECT_EQ(error_of([] { validate_state(HostState{}, no_softening()); }), "");
    // Bodies a hair apart are distinct in double.
    HostState s = grid(2);
    s.pos_mass[1] = {1e-300, 0, 0, 1};
    s.pos_mass[0] = {0, 0, 0, 1};
    EXPECT_EQ(error_of([&] { validate_state(s, no_softening()); }), "");
}

TEST(ValidateState, CoincidentBodiesRejectedOnlyWithoutSoftening) {
    HostState s = grid(50);
    s.pos_mass[37] = s.pos_mass[12];
    s.pos_mass[37].w = 2.0;  // a different mass at the same point is still a collision
    const std::string msg = error_of([&] { validate_state(s, no_softening()); });
    EXPECT_TRUE(contains(msg, "bodies 12 and 37 (0-based)")) << msg;
    EXPECT_TRUE(contains(msg, "softening")) << msg;

    Params soft;
    soft.softening = 1e-3;
    EXPECT_EQ(error_of([&] { validate_state(s, soft); }), "");
}

TEST(ValidateState, CoincidentOnlyInFloatCaughtForFloatRuns) {
    HostState s = grid(3);
    s.pos_mass[2] = {1.0, 1.0, 1.0, 1};
    s.pos_mass[0] = {1.0 + 1e-12, 1.0, 1.0, 1};
    EXPECT_EQ(error_of([&] { validate_state(s, no_softening(), Precision::f64); }), "");
    const std::string msg = error_of([&] { validate_state(s, no_softening(), Precision::f32); });
    EXPECT_TRUE(contains(msg, "bodies 0 and 2")) << msg;
    EXPECT_TRUE(contains(msg, "float")) << msg;
}

TEST(ValidateState, NonFiniteValuesNamedWithBodyAndComponent) {
    const char* names[] = {"x", "y", "z", "m", "vx", "vy", "vz"};
    for (int k = 0; k < 7; ++k) {
        for (double bad : {kNaN, kInf, -kInf}) {
            HostState s = grid(10);
            double* fields[] = {&s.pos_mass[4].x, &s.pos_mass[4].y, &s.pos_mass[4].z, &s.pos_mass[4].w,
                                &s.vel[4].x,      &s.vel[4].y,      &s.vel[4].z};
            *fields[k] = bad;
            const std::string msg = error_of([&] { validate_state(s, Params{}); });
            EXPECT_TRUE(contains(msg, "body 4 (0-based)")) << msg;
            EXPECT_TRUE(contains(msg, std::string(": ") + names[k] + " is not finite")) << msg;
        }
    }
}

TEST(ValidateState, NonPositiveMassRejected) {
    for (double m : {0.0, -0.0, -1.0}) {
        HostState s = grid(5);
        s.pos_mass[3].w = m;
        const std::string msg = error_of([&] { validate_state(s, Params{}); });
        EXPECT_TRUE(contains(msg, "body 3 (0-based): mass must be > 0")) << msg;
    }
}

TEST(ValidateState, ValuesOutOfFloatRangeRejectedForFloatRuns) {
    HostState s = grid(5);
    s.vel[1].y = 1e300;
    EXPECT_EQ(error_of([&] { validate_state(s, Params{}, Precision::f64); }), "");
    EXPECT_TRUE(
        contains(error_of([&] { validate_state(s, Params{}, Precision::f32); }), "body 1 (0-based): vy"));
    s = grid(5);
    s.pos_mass[2].w = 1e-60;  // rounds to 0 in float
    EXPECT_EQ(error_of([&] { validate_state(s, Params{}, Precision::f64); }), "");
    EXPECT_TRUE(
        contains(error_of([&] { validate_state(s, Params{}, Precision::f32); }), "body 2 (0-based): mass"));
}

TEST(ValidateState, MismatchedArraysRejected) {
    HostState s = grid(5);
    s.vel.pop_back();
    EXPECT_THROW(validate_state(s, Params{}), Error);
}

TEST(ValidateParams, DefaultsAndPresetsAccepted) {
    EXPECT_NO_THROW(validate_params(Params{}));
    Params p;
    p.softening = 0;
    p.damping = 0.5;
    EXPECT_NO_THROW(validate_params(p));
    for (const auto& info : presets()) EXPECT_NO_THROW(validate_params(info.params)) << info.name;
}

TEST(ValidateParams, EachBadValueNamesItsParameter) {
    struct Case {
        double Params::*field;
        double value;
        const char* name;
    };
    const Case cases[] = {
        {&Params::dt, 0.0, "dt"},
        {&Params::dt, -0.1, "dt"},
        {&Params::dt, kNaN, "dt"},
        {&Params::dt, kInf, "dt"},
        {&Params::softening, -1e-3, "softening"},
        {&Params::softening, kNaN, "softening"},
        {&Params::softening, kInf, "softening"},
        {&Params::G, 0.0, "G"},
        {&Params::G, -1.0, "G"},
        {&Params::G, kNaN, "G"},
        {&Params::G, kInf, "G"},
        {&Params::damping, 0.0, "damping"},
        {&Params::damping, 1.5, "damping"},
        {&Params::damping, -0.5, "damping"},
        {&Params::damping, kNaN, "damping"},
    };
    for (const Case& c : cases) {
        Params p;
        p.*c.field = c.value;
        const std::string msg = error_of([&] { validate_params(p); });
        EXPECT_EQ(msg.rfind(std::string(c.name) + " must be", 0), 0u)
            << c.name << " = " << c.value << ": " << msg;
        EXPECT_TRUE(contains(msg, "(got ")) << msg;
    }
}

TEST(IsFiniteBits, MatchesTheDefinition) {
    EXPECT_TRUE(is_finite_bits(0.0));
    EXPECT_TRUE(is_finite_bits(std::numeric_limits<double>::max()));
    EXPECT_TRUE(is_finite_bits(std::numeric_limits<float>::denorm_min()));
    EXPECT_FALSE(is_finite_bits(kNaN));
    EXPECT_FALSE(is_finite_bits(-kInf));
    EXPECT_FALSE(is_finite_bits(std::numeric_limits<float>::infinity()));
    EXPECT_FALSE(is_finite_bits(std::numeric_limits<float>::quiet_NaN()));
}

}  // namespace
}  // namespace nbody
