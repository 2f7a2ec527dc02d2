// The parameter comment lines of nbody's CSVs: written, read back, applied under the flags.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/error.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/io/run_metadata.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

std::string temp_file(const std::string& name, const std::string& text) {
    const fs::path p = fs::temp_directory_path() / ("nbody_meta_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(p) << text;
    return p.string();
}

TEST(RunMetadata, RoundTripsExactly) {
    RunMetadata m;
    m.set("G", 1.0);
    m.set("softening", 0.1 + 0.2);  // not a short decimal: must still read back to the same double
    m.set("dt", 1e-3);
    m.set("integrator", "symplectic-euler");
    m.set("t", 12.5);
    const std::string path =
        temp_file("rt.csv", format_metadata(m, "9.9") + "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n");
    const auto back = read_metadata(path);
    ASSERT_TRUE(back.has_value());
    Params p;
    double t = 0;
    const auto applied = apply_metadata(*back, path, {}, p, t);
    EXPECT_EQ(p.softening, 0.1 + 0.2);
    EXPECT_EQ(p.dt, 1e-3);
    EXPECT_EQ(p.integrator, Integrator::symplectic_euler);
    EXPECT_EQ(t, 12.5);
    EXPECT_EQ(applied.size(), 5u);
    // The body reader skips the lines as comments.
    EXPECT_EQ(read_bodies_csv(path).size(), 1u);
    fs::remove(path);
}

TEST(RunMetadata, FlagsKeepTheirValues) {
    RunMetadata m;
    m.set("dt", 0.5);
    m.set("softening", 0.25);
    Params p;
    p.dt = 0.125;
    double t = 0;
    const auto applied = apply_metadata(m, "f.csv", {"dt"}, p, t);
    EXPECT_EQ(p.dt, 0.125);
    EXPECT_EQ(p.softening, 0.25);
    ASSERT_EQ(applied.size(), 1u);
    EXPECT_EQ(applied[0], "softening");
}

TEST(RunMetadata, FilesFromElsewhereHaveNone) {
    const std::string path =
        temp_file("plain.csv", "# my own notes\n# dt = 5\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n");
    EXPECT_FALSE(read_metadata(path).has_value());
    fs::remove(path);
}

TEST(RunMetadata, BadValuesAreOneClearError) {
    for (const char* bad : {"abc", "nan", "inf", ""}) {
        RunMetadata m;
        m.set("softening", bad);
        Params p;
        double t = 0;
        try {
            apply_metadata(m, "f.csv", {}, p, t);
            ADD_FAILURE() << "accepted softening = '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("f.csv: bad value"), std::string::npos) << e.what();
        }
    }
    RunMetadata m;
    m.set("integrator", "rk4");
    Params p;
    double t = 0;
    EXPECT_THROW(apply_metadata(m, "f.csv", {}, p, t), Error);
}

}  // namespace
}  // namespace nbody
