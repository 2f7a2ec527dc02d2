// State and parameter checks made before a run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "file_checks.hpp"
#include "sim/error.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using test::error_of;

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

TEST(ValidateState, BodiesFromAFileAreNamedByLine) {
    HostState s = grid(4);
    s.pos_mass[3] = s.pos_mass[1];
    BodySource source{"in.csv", {2, 5, 6, 9}};
    std::string msg = error_of([&] { validate_state(s, no_softening(), Precision::f64, &source); });
    EXPECT_EQ(msg.rfind("in.csv:9: bodies 1 and 3 (0-based, lines 5 and 9) are at the same point", 0), 0u)
        << msg;

    s = grid(4);
    s.pos_mass[2].w = 1e-60;
    msg = error_of([&] { validate_state(s, Params{}, Precision::f32, &source); });
    EXPECT_EQ(msg.rfind("in.csv:6: body 2 (0-based): mass 1e-60 rounds to 0 in float precision", 0), 0u)
        << msg;
    s.pos_mass[2].w = 1;
    s.vel[0].z = kNaN;
    msg = error_of([&] { validate_state(s, Params{}, Precision::f64, &source); });
    EXPECT_EQ(msg.rfind("in.csv:2: body 0 (0-based): vz is not finite", 0), 0u) << msg;

    // A source that does not describe this state (wrong length) is not trusted: bodies named by index.
    BodySource other{"in.csv", {2, 5}};
    msg = error_of([&] { validate_state(s, Params{}, Precision::f64, &other); });
    EXPECT_EQ(msg.rfind("body 0 (0-based): vz is not finite", 0), 0u) << msg;
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

// Every setting of every force algorithm and integrator: its ends are accepted, just past them, NaN and
// infinity are refused with its name and range, and its default lies inside. A setting whose 0 stands
// apart (eta-regular: eta's value) also takes 0 and its least nonzero value, and refuses what lies between.
TEST(ValidateParams, EverySettingOfTheRegistriesHasOneRange) {
    ASSERT_FALSE(all_settings().empty());
    for (const SettingInfo* s : all_settings()) {
        SCOPED_TRACE(s->name);
        EXPECT_TRUE(s->in_range(s->default_value()));
        const bool zero_apart = s->least_nonzero > 0;
        for (double ok : {s->min, s->max, s->default_value(), zero_apart ? s->least_nonzero : s->max}) {
            Params p;
            p.*s->field = ok;
            EXPECT_NO_THROW(validate_params(p));
        }
        for (double bad : {std::nextafter(s->min, -kInf), std::nextafter(s->max, kInf), kNaN, kInf, -kInf,
                           zero_apart ? s->least_nonzero / 2 : kNaN}) {
            Params p;
            p.*s->field = bad;
            const std::string msg = error_of([&] { validate_params(p); });
            // "theta must be in [0.01, 1]", "eta-regular must be 0 (eta's value) or in [1e-06, 1]"
            const std::string expect = std::string(s->name) + " must be " + setting_range(*s) + " (got ";
            EXPECT_EQ(msg.rfind(expect, 0), 0u) << bad << ": " << msg;
        }
    }
}

TEST(ValidateParams, FloatRunsRejectValuesOutsideFloatRange) {
    struct Case {
        double Params::*field;
        double value;
        const char* expect;   // the start of the message in a float run
        bool double_rejects;  // out of double range as well
    };
    const Case cases[] = {
        {&Params::dt, 1e-320, "dt = 1e-320 is too small for float precision", false},
        {&Params::dt, 1e-45, "dt = 1e-45 is too small for float precision", false},  // a subnormal float
        {&Params::dt, 1e39, "dt = 1e+39 is too large for float precision", false},
        {&Params::G, 1e39, "G = 1e+39 is too large for float precision", false},
        {&Params::G, 1e-39, "G = 1e-39 is too small for float precision", false},
        {&Params::softening, 1e-30, "softening = 1e-30 is too small for float precision", false},
        {&Params::softening, 1e20, "softening = 1e+20 is too large for float precision", false},
        // Out of double range too: the same message in both precisions, without suggesting double.
        {&Params::softening, 1e-170, "softening = 1e-170 is too small: its square is out of double range",
         true},
        {&Params::softening, 1e160, "softening = 1e+160 is too large: its square is out of double range",
         true},
    };
    for (const Case& c : cases) {
        Params p;
        p.*c.field = c.value;
        const std::string msg = error_of([&] { validate_params(p, Precision::f32); });
        EXPECT_EQ(msg.rfind(c.expect, 0), 0u) << msg;
        EXPECT_EQ(contains(msg, "--precision double"), !c.double_rejects) << msg;
        const std::string in_double = error_of([&] { validate_params(p, Precision::f64); });
        EXPECT_EQ(in_double, c.double_rejects ? msg : "") << c.expect;
    }
    // The edges of the normal float range are accepted.
    Params p;
    p.dt = double(std::numeric_limits<float>::min());
    p.G = double(std::numeric_limits<float>::max());
    p.softening = 1e-18;  // square 1e-36, a normal float
    EXPECT_EQ(error_of([&] { validate_params(p, Precision::f32); }), "");
    for (const auto& info : presets())
        EXPECT_NO_THROW(validate_params(info.params, Precision::f32)) << info.name;
}

TEST(ValidateParams, TimeIntervals) {
    EXPECT_EQ(error_of([] { validate_time_interval("T", 1e-300, Precision::f64); }), "");
    EXPECT_EQ(error_of([] { validate_time_interval("T", 1e-300, Precision::f32); }),
              "T = 1e-300 is too small for float precision (use --precision double)");
    EXPECT_TRUE(contains(error_of([] { validate_time_interval("T", 1e39, Precision::f32); }), "too large"));
    EXPECT_TRUE(contains(error_of([] { validate_time_interval("T", 0.0, Precision::f64); }), "T must be"));
    EXPECT_TRUE(contains(error_of([] { validate_time_interval("T", kNaN, Precision::f64); }), "T must be"));
    EXPECT_EQ(error_of([] { validate_time_interval("T", 0.5, Precision::f32); }), "");
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
