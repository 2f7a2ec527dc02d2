// Snapshots: HDF5 and Tipsy writing and reading, round trips between the formats, bad files, and exact
// restarts (N steps in one go == a snapshot after k steps, read back, then N - k steps), bit for bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#ifdef NBODY_TEST_HDF5_API
#include <hdf5.h>
#endif

#include "backends/registry.hpp"
#include "file_checks.hpp"
#include "hdf5_regressions.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/run_metadata.hpp"
#include "sim/io/snapshot.hpp"
#include "sim/io/snapshot_hdf5.hpp"
#include "sim/io/tipsy_io.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "temp_dir.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

class SnapshotTest : public test::TempDirTest {
  protected:
    std::string write_bytes(const std::string& name, const std::vector<unsigned char>& bytes) const {
        const std::string path = file(name);
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return path;
    }

    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        return names;
    }
};

std::vector<unsigned char> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Bit-for-bit equality of positions, masses, velocities and time; names the first difference.
::testing::AssertionResult identical(const HostState& a, const HostState& b) {
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size();
    if (!same_bits(a.t, b.t)) return ::testing::AssertionFailure() << "t " << a.t << " vs " << b.t;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto &p = a.pos_mass[i], &q = b.pos_mass[i];
        const auto &v = a.vel[i], &w = b.vel[i];
        const bool same = same_bits(p.x, q.x) && same_bits(p.y, q.y) && same_bits(p.z, q.z) &&
                          same_bits(p.w, q.w) && same_bits(v.x, w.x) && same_bits(v.y, w.y) &&
                          same_bits(v.z, w.z);
        if (!same) {
            return ::testing::AssertionFailure() << "body " << i << " differs: x " << p.x << " vs " << q.x
                                                 << ", vx " << v.x << " vs " << w.x;
        }
    }
    return ::testing::AssertionSuccess();
}

// A preset's bodies as a backend of precision p holds them (float values for f32).
HostState bodies(std::size_t n, Precision p, std::uint64_t seed = 7) {
    HostState s = make_preset("plummer", n, seed);
    s.t = 0.375;
    if (p == Precision::f32) s = convert_state<double>(convert_state<float>(s));
    return s;
}

Snapshot snapshot_of(const HostState& s, Precision p) {
    Snapshot snap;
    snap.state = s;
    snap.info.has_params = true;
    snap.info.precision = p;
    snap.info.params.G = 0.5;
    snap.info.params.dt = 0.001953125;
    snap.info.params.softening = 0.05;
    snap.info.params.damping = 0.999;
    snap.info.params.integrator = Integrator::symplectic_euler;
    snap.info.step = 1234;
    snap.info.preset = "plummer";
    snap.info.seed = 18446744073709551615ull;
    return snap;
}

using test::error_of;

#define SKIP_WITHOUT_HDF5() \
    if (!have_hdf5()) GTEST_SKIP() << "built without HDF5"

// --- HDF5 -------------------------------------------------------------------------------------------

TEST_F(SnapshotTest, Hdf5RoundTripIsExactInBothPrecisionsAndKeepsTheRun) {
    SKIP_WITHOUT_HDF5();
    for (const Precision p : {Precision::f32, Precision::f64}) {
        SCOPED_TRACE(to_string(p));
        const Snapshot out = snapshot_of(bodies(500, p), p);
        const std::string path = file(std::string("snap_") + to_string(p) + ".h5");
        EXPECT_TRUE(write_snapshot(path, out).empty());
        const Snapshot in = read_snapshot(path);
        EXPECT_TRUE(identical(in.state, out.state));
        EXPECT_TRUE(in.notes.empty()) << in.notes.front();
        EXPECT_TRUE(in.info.has_params);
        EXPECT_EQ(in.info.precision, p);
        EXPECT_EQ(in.info.params.G, 0.5);
        EXPECT_EQ(in.info.params.dt, 0.001953125);
        EXPECT_EQ(in.info.params.softening, 0.05);
        EXPECT_EQ(in.info.params.damping, 0.999);
        EXPECT_EQ(in.info.params.integrator, Integrator::symplectic_euler);
        EXPECT_EQ(in.info.params.force, ForceAlgorithm::direct);
        EXPECT_EQ(in.info.step, 1234);
        EXPECT_EQ(in.info.preset, "plummer");
        EXPECT_EQ(in.info.seed, 18446744073709551615ull);
        EXPECT_FALSE(in.info.program_version.empty());
        // The same file read through the in-memory path (the fuzzer's) gives the same bodies.
        const std::vector<unsigned char> bytes = slurp(path);
        EXPECT_TRUE(
            identical(read_hdf5_snapshot_image(bytes.data(), bytes.size(), "mem.h5").state, out.state));
    }
    // Float bodies are stored as 4-byte values: the file is about half the double one.
    EXPECT_LT(fs::file_size(file("snap_float.h5")), fs::file_size(file("snap_double.h5")));
}

// Every parameter a run used comes back from every format that holds parameters (HDF5 and nbody's own
// CSV): for every force algorithm and integrator, their settings set away from the defaults.
TEST_F(SnapshotTest, EveryParameterOfTheRunComesBackFromEveryFormatThatHoldsThem) {
    std::vector<std::string> formats = {"csv"};
    if (have_hdf5()) formats.emplace_back("h5");
    for (const auto& force : builtin_force_algorithms()) {
        for (const auto& integrator : builtin_integrators()) {
            Snapshot out = snapshot_of(bodies(10, Precision::f64), Precision::f64);
            Params& p = out.info.params;
            p.G = 2.5, p.dt = 0.003, p.softening = 0.07, p.damping = 0.999;
            p.force = force.id, p.integrator = integrator.id;
            // A value inside each range that no default has: halfway, rounded to a few digits.
            for (const SettingInfo* s : all_settings()) p.*s->field = 0.5 * (s->min + s->max) + 0.001;
            try {
                validate_params(p);
            } catch (const Error&) {
                continue;  // a combination no run can have (hermite needs the direct sum)
            }
            for (const std::string& ext : formats) {
                const std::string path = file(std::string("params.") + ext);
                write_snapshot(path, out);
                const Snapshot in = read_snapshot(path);
                SCOPED_TRACE(std::string(force.name) + " " + integrator.name + " ." + ext);
                ASSERT_TRUE(in.info.has_params);
                const Params& q = in.info.params;
                EXPECT_EQ(q.G, p.G);
                EXPECT_EQ(q.dt, p.dt);
                EXPECT_EQ(q.softening, p.softening);
                EXPECT_EQ(q.damping, p.damping);
                EXPECT_EQ(q.force, p.force);
                EXPECT_EQ(q.integrator, p.integrator);
                for (const SettingInfo* s : settings_used(p)) EXPECT_EQ(q.*s->field, p.*s->field) << s->name;
            }
        }
    }
}

// A setting outside its range in a file is refused with the setting's name, like the flag.
TEST_F(SnapshotTest, ASettingOutsideItsRangeInAFileIsOneError) {
    Snapshot out = snapshot_of(bodies(10, Precision::f64), Precision::f64);
    out.info.params.force = ForceAlgorithm::tree;
    const std::string path = file("bad_theta.csv");
    write_snapshot(path, out);
    std::string text;
    {
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    const std::size_t at = text.find("# theta = ");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, text.find('\n', at) - at, "# theta = 7");
    std::ofstream(path) << text;
    try {
        Params p;
        double t = 0;
        apply_metadata(*read_metadata(path), path, {}, p, t);
        validate_params(p);
        FAIL() << "theta = 7 was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("theta must be in [0.01, 1] (got 7)"), std::string::npos)
            << e.what();
    }
}

TEST_F(SnapshotTest, Hdf5FromAnotherCodeGetsDefaultParametersAndANote) {
    SKIP_WITHOUT_HDF5();
    if (std::system("command -v h5copy >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "h5copy (Debian: hdf5-tools) is not installed";
    // Write ours, then copy everything but /NBody into a new file with h5copy-like C calls is more code
    // than the point needs: a file with our layout and no /NBody is what another code's looks like.
    const Snapshot out = snapshot_of(bodies(20, Precision::f64), Precision::f64);
    const std::string path = file("gadget.h5");
    write_hdf5_snapshot(path, out);
    const std::string stripped = file("stripped.h5");
    ASSERT_EQ(std::system(("h5copy -i " + path + " -o " + stripped +
                           " -s /Header -d /Header >/dev/null 2>&1 && "
                           "h5copy -i " +
                           path + " -o " + stripped + " -s /PartType1 -d /PartType1 >/dev/null 2>&1")
                              .c_str()),
              0)
        << "h5copy failed";
    const Snapshot in = read_snapshot(stripped);
    EXPECT_TRUE(identical(in.state, out.state));
    EXPECT_FALSE(in.info.has_params);
    ASSERT_EQ(in.notes.size(), 1u);
    EXPECT_NE(in.notes[0].find("no /NBody group"), std::string::npos) << in.notes[0];
    EXPECT_NE(in.notes[0].find("defaults"), std::string::npos) << in.notes[0];
}

TEST_F(SnapshotTest, Hdf5BadFilesGetOneClearError) {
    SKIP_WITHOUT_HDF5();
    const Snapshot good = snapshot_of(bodies(200, Precision::f64), Precision::f64);
    const std::string path = file("good.h5");
    write_snapshot(path, good);
    const std::vector<unsigned char> bytes = slurp(path);

    // Truncated at several points: never a crash, always "FILE: ..." naming the file.
    for (const std::size_t keep :
         {std::size_t(0), std::size_t(7), std::size_t(100), bytes.size() / 2, bytes.size() - 1}) {
        SCOPED_TRACE(keep);
        const std::string cut = write_bytes("cut.h5", {bytes.begin(), bytes.begin() + std::ptrdiff_t(keep)});
        const std::string e = error_of([&] { read_snapshot(cut); });
        EXPECT_EQ(e.rfind(cut + ": ", 0), 0u) << e;
    }
    const std::string text = write_bytes("text.h5", {'h', 'e', 'l', 'l', 'o'});
    EXPECT_EQ(error_of([&] { read_snapshot(text); }), text + ": not an HDF5 file");
    const std::string missing = file("missing.h5");
    EXPECT_EQ(error_of([&] { read_snapshot(missing); }),
              missing + ": cannot open: No such file or directory");

    // NaN, Inf and negative masses name the dataset and the index.
    auto bad_value = [&](auto edit) {
        Snapshot s = good;
        edit(s.state);
        const std::string p = file("bad.h5");
        write_hdf5_snapshot(p, s);
        return error_of([&] { read_snapshot(p); });
    };
    EXPECT_EQ(bad_value([](HostState& s) { s.pos_mass[3].y = std::nan(""); }),
              file("bad.h5") + ": /PartType1/Coordinates[3] is not finite (nan)");
    EXPECT_EQ(bad_value([](HostState& s) { s.vel[5].z = -INFINITY; }),
              file("bad.h5") + ": /PartType1/Velocities[5] is not finite (-inf)");
    EXPECT_EQ(bad_value([](HostState& s) { s.pos_mass[7].w = -1; }),
              file("bad.h5") + ": /PartType1/Masses[7] = -1: masses must be > 0");

    // Bad parameters in /NBody name the group.
    Snapshot bad_dt = good;
    bad_dt.info.params.dt = -1;
    write_hdf5_snapshot(file("dt.h5"), bad_dt);
    const std::string e = error_of([&] { read_snapshot(file("dt.h5")); });
    EXPECT_EQ(e.rfind(file("dt.h5") + ": /NBody: ", 0), 0u) << e;
}

// An independent reader (h5dump from hdf5-tools) sees the GADGET/SWIFT layout: dataset names, shapes,
// types and the header attributes.
TEST_F(SnapshotTest, H5dumpSeesTheGadgetLayout) {
    SKIP_WITHOUT_HDF5();
    if (std::system("h5dump --version >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "h5dump (hdf5-tools) not installed";
    const std::string path = file("layout.h5");
    write_snapshot(path, snapshot_of(bodies(123, Precision::f32), Precision::f32));
    const std::string dump = file("dump.txt");
    ASSERT_EQ(std::system(("h5dump -H -A " + path + " > " + dump).c_str()), 0);
    const std::vector<unsigned char> raw = slurp(dump);
    const std::string text(raw.begin(), raw.end());
    for (const std::string& want :
         {std::string("GROUP \"Header\""), std::string("ATTRIBUTE \"NumPart_ThisFile\""),
          std::string("ATTRIBUTE \"NumPart_Total\""), std::string("ATTRIBUTE \"MassTable\""),
          std::string("ATTRIBUTE \"Time\""), std::string("ATTRIBUTE \"NumFilesPerSnapshot\""),
          std::string("GROUP \"PartType1\""), std::string("GROUP \"NBody\""),
          std::string("DATASET \"Coordinates\" {\n         DATATYPE  H5T_IEEE_F32LE\n"
                      "         DATASPACE  SIMPLE { ( 123, 3 ) / ( 123, 3 ) }"),
          std::string("DATASET \"Velocities\" {\n         DATATYPE  H5T_IEEE_F32LE\n"
                      "         DATASPACE  SIMPLE { ( 123, 3 ) / ( 123, 3 ) }"),
          std::string("DATASET \"Masses\" {\n         DATATYPE  H5T_IEEE_F32LE\n"
                      "         DATASPACE  SIMPLE { ( 123 ) / ( 123 ) }"),
          std::string("DATASET \"ParticleIDs\" {\n         DATATYPE  H5T_STD_U64LE\n"
                      "         DATASPACE  SIMPLE { ( 123 ) / ( 123 ) }"),
          std::string("ATTRIBUTE \"Integrator\""), std::string("\"symplectic-euler\""),
          std::string("ATTRIBUTE \"TimeStep\""), std::string("ATTRIBUTE \"Step\"")}) {
        EXPECT_NE(text.find(want), std::string::npos) << "missing: " << want << "\n" << text;
    }
    // NumPart_ThisFile = (0, 123, 0, 0, 0, 0): the bodies are dark-matter particles, type 1.
    ASSERT_EQ(std::system(("h5dump -a /Header/NumPart_ThisFile " + path + " > " + dump).c_str()), 0);
    const std::vector<unsigned char> raw2 = slurp(dump);
    EXPECT_NE(std::string(raw2.begin(), raw2.end()).find("(0): 0, 123, 0, 0, 0, 0"), std::string::npos);
}

// --- Tipsy ------------------------------------------------------------------------------------------

TEST_F(SnapshotTest, TipsyRoundTripIsExactInFloatInBothByteOrders) {
    const HostState s = bodies(300, Precision::f32);
    for (const std::string name : {"a.tipsy", "a.std", "a.bin"}) {
        SCOPED_TRACE(name);
        Snapshot out = snapshot_of(s, Precision::f32);
        EXPECT_TRUE(write_snapshot(file(name), out).empty());
        EXPECT_EQ(fs::file_size(file(name)), 32u + 36u * 300u);
        const Snapshot in = read_snapshot(file(name));
        EXPECT_TRUE(identical(in.state, s));
        EXPECT_TRUE(in.notes.empty());
        EXPECT_FALSE(in.info.has_params);
    }
    // The XDR file is big-endian: ndim = 3 is bytes 00 00 00 03 at offset 12; the native one on x86 the
    // reverse.
    const auto xdr = slurp(file("a.tipsy"));
    EXPECT_EQ(xdr[12], 0);
    EXPECT_EQ(xdr[15], 3);
    const auto native = slurp(file("a.bin"));
    if (std::endian::native == std::endian::little) {
        EXPECT_EQ(native[12], 3);
    }
    // A double run's bodies are rounded, and the writer says so.
    const auto notes =
        write_snapshot(file("d.tipsy"), snapshot_of(bodies(5, Precision::f64), Precision::f64));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("rounded"), std::string::npos);
}

// Issue 21: an adaptive run's restart needs HDF5; CSV and Tipsy say so in one line each, HDF5 says nothing.
TEST_F(SnapshotTest, CsvAndTipsySayWhatAnAdaptiveRunLosesInThem) {
    Snapshot snap = snapshot_of(bodies(5, Precision::f32), Precision::f32);
    snap.info.params.integrator = Integrator::hermite;
    const auto csv = write_snapshot(file("h.csv"), snap);
    ASSERT_EQ(csv.size(), 1u);
    EXPECT_EQ(csv[0].find('\n'), std::string::npos) << csv[0];
    EXPECT_NE(csv[0].find("h.csv: a CSV is no restart point of the hermite run"), std::string::npos)
        << csv[0];
    EXPECT_NE(csv[0].find("write .h5 to --restart it exactly"), std::string::npos) << csv[0];
    for (const std::string name : {"h.tipsy", "h.bin"}) {
        const auto tipsy = write_snapshot(file(name), snap);
        ASSERT_EQ(tipsy.size(), 1u) << name;
        EXPECT_EQ(tipsy[0].find('\n'), std::string::npos) << tipsy[0];
        EXPECT_NE(
            tipsy[0].find(name + ": Tipsy holds the bodies and the time only, not the hermite run's "
                                 "parameters and state (the integrator, eta, max step, step count, each "
                                 "body's level and jerk; --input reads back no softening either)"),
            std::string::npos)
            << tipsy[0];
    }
    if (have_hdf5()) {
        EXPECT_TRUE(write_snapshot(file("h.h5"), snap).empty());
    }
    // A fixed-step run's CSV and Tipsy (in float) need no word.
    snap.info.params.integrator = Integrator::leapfrog;
    EXPECT_TRUE(write_snapshot(file("l.csv"), snap).empty());
    EXPECT_TRUE(write_snapshot(file("l.tipsy"), snap).empty());
}

// The structs of the CUDA sample's tipsy.h (and Bonsai's), written with fwrite as they do.
struct SampleDump {
    double time;
    int nbodies, ndim, nsph, ndark, nstar;
};
struct SampleDark {
    float mass, pos[3], vel[3], eps;
    int phi;
};
struct SampleStar {
    float mass, pos[3], vel[3], metals, tform, eps;
    int phi;
};
static_assert(sizeof(SampleDump) == 32 && sizeof(SampleDark) == 36 && sizeof(SampleStar) == 44);

TEST_F(SnapshotTest, ReadsTheCudaSampleTipsyLayoutWithStarsAsBodies) {
    const std::string path = file("galaxy.bin");
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        SampleDump h{2.5, 5, 3, 0, 3, 2};
        std::fwrite(&h, sizeof h, 1, f);
        for (int i = 0; i < 3; ++i) {
            SampleDark d{1.0f + i, {0.5f * i, -1.0f, 2.0f}, {0.1f, 0.2f * i, -0.3f}, 0.01f, 100 + i};
            std::fwrite(&d, sizeof d, 1, f);
        }
        for (int i = 0; i < 2; ++i) {
            SampleStar st{0.25f, {10.0f + i, 0, 0}, {0, 1.0f, 0}, 0.02f, 1.0f, 0.01f, 200 + i};
            std::fwrite(&st, sizeof st, 1, f);
        }
        std::fclose(f);
    }
    const Snapshot s = read_snapshot(path);
    ASSERT_EQ(s.state.size(), 5u);
    EXPECT_EQ(s.state.t, 2.5);
    EXPECT_EQ(s.state.pos_mass[1].x, double(0.5f));
    EXPECT_EQ(s.state.pos_mass[2].w, 3.0);
    EXPECT_EQ(s.state.vel[2].y, double(0.4f));
    EXPECT_EQ(s.state.pos_mass[4].x, 11.0);
    EXPECT_EQ(s.state.pos_mass[4].w, 0.25);
    EXPECT_EQ(s.state.vel[4].y, 1.0);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_NE(s.notes[0].find("0 gas and 2 star particles as gravitating bodies"), std::string::npos)
        << s.notes[0];
}

// A standard big-endian file built byte by byte (one gas particle, one dark), whatever the host order.
TEST_F(SnapshotTest, ReadsABigEndianTipsyFileWithGas) {
    std::vector<unsigned char> b;
    auto u32 = [&](std::uint32_t v) {
        for (int k = 3; k >= 0; --k) b.push_back((v >> (8 * k)) & 0xff);
    };
    auto f32 = [&](float v) { u32(std::bit_cast<std::uint32_t>(v)); };
    const std::uint64_t t = std::bit_cast<std::uint64_t>(1.25);
    u32(std::uint32_t(t >> 32)), u32(std::uint32_t(t));
    for (std::uint32_t v : {2u, 3u, 1u, 1u, 0u, 0u}) u32(v);  // nbodies ndim nsph ndark nstar pad
    for (float v : {2.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 0.f, 0.f, 0.f, 0.f, 0.f}) f32(v);  // gas
    for (float v : {0.5f, -1.0f, -2.0f, -3.0f, 0.f, 0.f, 0.f, 0.f, 0.f}) f32(v);                 // dark
    const Snapshot s = read_snapshot(write_bytes("gas.tipsy", b));
    ASSERT_EQ(s.state.size(), 2u);
    EXPECT_EQ(s.state.t, 1.25);
    EXPECT_EQ(s.state.pos_mass[0].w, 2.0);
    EXPECT_EQ(s.state.pos_mass[0].z, 3.0);
    EXPECT_EQ(s.state.vel[0].z, 6.0);
    EXPECT_EQ(s.state.pos_mass[1].x, -1.0);
    EXPECT_EQ(s.state.pos_mass[1].w, 0.5);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_NE(s.notes[0].find("1 gas and 0 star"), std::string::npos);
}

TEST_F(SnapshotTest, TipsyBadFilesGetOneClearError) {
    const std::string good = file("good.tipsy");
    write_snapshot(good, snapshot_of(bodies(10, Precision::f32), Precision::f32));
    const std::vector<unsigned char> bytes = slurp(good);
    ASSERT_EQ(bytes.size(), 32u + 360u);
    auto err = [&](const std::vector<unsigned char>& b) {
        const std::string p = write_bytes("bad.tipsy", b);
        return error_of([&] { read_snapshot(p); });
    };
    const std::string p = file("bad.tipsy");
    EXPECT_EQ(err({1, 2, 3}), p + ": too short for a Tipsy file (3 bytes; the header alone is 32)");
    EXPECT_EQ(
        err({bytes.begin(), bytes.end() - 1}),
        p + ": not a valid Tipsy file: read big-endian, the header's 0 gas + 10 dark + 0 star particles "
            "need 392 bytes but the file has 391 (truncated?)");
    std::vector<unsigned char> longer = bytes;
    longer.push_back(0);
    EXPECT_NE(err(longer).find("(extra bytes at the end)"), std::string::npos);
    std::vector<unsigned char> counts = bytes;
    counts[11] = 11;  // nbodies = 11, but ndark = 10
    EXPECT_EQ(err(counts),
              p + ": not a valid Tipsy file: read big-endian, nbodies = 11 but nsph + ndark + nstar = 10");
    std::vector<unsigned char> ndim = bytes;
    ndim[15] = 2;
    EXPECT_EQ(
        err(ndim),
        p + ": not a valid Tipsy file: ndim reads as 2 big-endian and 33554432 native-endian (expected 3)");
    std::vector<unsigned char> negative = bytes;
    negative[32 + 36 * 4] |= 0x80;  // body 4's mass (the first float of its record, big-endian sign bit)
    EXPECT_EQ(err(negative).rfind(p + ": dark particle 4 (body 4): mass = -", 0), 0u) << err(negative);
    std::vector<unsigned char> nan = bytes;
    const unsigned char quiet_nan[4] = {0x7f, 0xc0, 0, 0};                // big-endian
    for (int k = 0; k < 4; ++k) nan[32 + 36 * 2 + 8 + k] = quiet_nan[k];  // body 2's y
    EXPECT_EQ(err(nan), p + ": dark particle 2 (body 2): y is not finite (nan)");
    EXPECT_EQ(err(std::vector<unsigned char>(32, 0)),
              p + ": not a valid Tipsy file: ndim reads as 0 big-endian and 0 native-endian (expected 3)");
    // A header with no particles at all is well formed but holds nothing to simulate.
    std::vector<unsigned char> empty(bytes.begin(), bytes.begin() + 32);
    empty[11] = 0, empty[23] = 0;
    EXPECT_EQ(err(empty), p + ": no particles (the header's counts are all 0)");
}

// --- between formats --------------------------------------------------------------------------------

TEST_F(SnapshotTest, CsvHdf5TipsyRoundTripsAreExactInFloat) {
    const HostState s = bodies(250, Precision::f32);
    std::vector<std::string> chain = {"a.csv", "b.tipsy", "c.bin", "d.csv"};
    if (have_hdf5()) chain = {"a.csv", "b.h5", "c.tipsy", "d.bin", "e.hdf5", "f.csv"};
    Snapshot cur = snapshot_of(s, Precision::f32);
    for (const std::string& name : chain) {
        SCOPED_TRACE(name);
        write_snapshot(file(name), cur);
        Snapshot next = read_snapshot(file(name));
        // CSV and Tipsy carry no time, parameters or precision: keep ours; the bodies must be exact.
        next.state.t = s.t;
        next.state = convert_state<double>(convert_state<float>(next.state));
        EXPECT_TRUE(identical(next.state, s));
        cur.state = next.state;
    }
}

TEST_F(SnapshotTest, FormatIsChosenByExtension) {
    EXPECT_EQ(format_from_extension("a/b.CSV"), FileFormat::csv);
    EXPECT_EQ(format_from_extension("x.h5"), FileFormat::hdf5);
    EXPECT_EQ(format_from_extension("x.HDF5"), FileFormat::hdf5);
    EXPECT_EQ(format_from_extension("x.tipsy"), FileFormat::tipsy_xdr);
    EXPECT_EQ(format_from_extension("x.std"), FileFormat::tipsy_xdr);
    EXPECT_EQ(format_from_extension("galaxy_20K.bin"), FileFormat::tipsy_native);
    EXPECT_EQ(format_from_extension("x.txt"), std::nullopt);
    EXPECT_EQ(format_from_extension("dir.h5/file"), std::nullopt);
    EXPECT_EQ(
        error_of([] { require_format("--output", "x.txt"); }).rfind("--output 'x.txt': unknown file type", 0),
        0u);
    // Nothing is left behind by a write that fails.
    const std::string e = error_of([&] { write_snapshot(file("x.txt"), Snapshot{}); });
    EXPECT_NE(e.find("unknown file type"), std::string::npos);
    EXPECT_TRUE(listing().empty());
}

TEST_F(SnapshotTest, WithoutHdf5TheErrorSaysSo) {
    if (have_hdf5()) GTEST_SKIP() << "built with HDF5";
    const std::string e = error_of(
        [&] { write_snapshot(file("x.h5"), snapshot_of(bodies(3, Precision::f32), Precision::f32)); });
    EXPECT_NE(e.find("built without HDF5"), std::string::npos) << e;
    EXPECT_TRUE(listing().empty());
}

// --- exact restart ----------------------------------------------------------------------------------

// 2k steps in one go, against k steps, a snapshot written and read back into a new backend, k more.
// The new backend recomputes the leapfrog's cached acceleration from the restored positions; the force
// sum is deterministic for a given N and backend, so the continuation is bit-identical.
// Inputs the fuzzers found (tests/fuzz/regressions_hdf5/): files on which Debian's libhdf5 1.10.8 itself
// crashes. Read in a child process, each gives one "FILE: ..." error; read in this process, the first
// would end the test binary with a segmentation fault.
TEST_F(SnapshotTest, Hdf5FilesThatCrashLibhdf5GiveOneError) {
    SKIP_WITHOUT_HDF5();
    // Embedded at build time (hdf5_regressions.hpp): the test runs where its binary is copied.
    int files = 0;
    for (const test::Fixture& fixture : test::kHdf5Regressions) {
        SCOPED_TRACE(std::string(fixture.name));
        const std::string copy = file("regression.h5");  // the reader goes by extension
        std::ofstream(copy, std::ios::binary | std::ios::trunc)
            .write(fixture.bytes.data(), std::streamsize(fixture.bytes.size()));
        const std::string e = error_of([&] { read_snapshot(copy); });
        EXPECT_EQ(e.rfind(copy + ": ", 0), 0u) << e;
        ++files;
    }
    EXPECT_GT(files, 0);
}

#ifdef NBODY_TEST_HDF5_API
// --- files edited by other writers (h5py) ---------------------------------------------------------------

// Replaces attribute `name` of the object at `where` with `count` values (0: a scalar) of `type`.
void set_attribute(const std::string& path, const char* where, const char* name, hid_t type,
                   const void* values, hsize_t count = 0) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t obj = H5Oopen(file, where, H5P_DEFAULT);
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    const hid_t space = count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
    const hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, values);
    H5Aclose(attr);
    H5Sclose(space);
    H5Oclose(obj);
    H5Fclose(file);
}

// A variable-length UTF-8 string, as h5py writes `attrs['Preset'] = 'plummer'`.
void set_utf8_attribute(const std::string& path, const char* where, const char* name, const char* text) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    set_attribute(path, where, name, type, &text);
    H5Tclose(type);
}

TEST_F(SnapshotTest, Hdf5FilesEditedByOtherWritersAreReadOrRefusedClearly) {
    SKIP_WITHOUT_HDF5();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    Snapshot s;
    s.state = make_preset("plummer", 64, 1);
    s.info.has_params = true;
    s.info.step = 10;
    s.info.preset = "plummer";
    const std::string original = file("orig.h5");
    write_snapshot(original, s);
    auto edited = [&](const std::function<void(const std::string&)>& edit) {
        const std::string path = file("edited.h5");
        std::filesystem::copy_file(original, path, std::filesystem::copy_options::overwrite_existing);
        edit(path);
        return path;
    };

    // Variable-length UTF-8 strings used to be "no appropriate function for conversion path" (item 13).
    const std::string utf8 = edited([](const std::string& p) {
        set_utf8_attribute(p, "/NBody", "Preset", "disk");
        set_utf8_attribute(p, "/NBody", "Integrator", "yoshida4");
    });
    const Snapshot back = read_snapshot(utf8);
    EXPECT_EQ(back.info.preset, "disk");
    EXPECT_EQ(back.info.params.integrator, Integrator::yoshida4);

    // Numbers HDF5 would convert without a word (item 10): 10.5 read as 10, -1 said as "0 particles".
    const double fraction = 10.5;
    EXPECT_NE(error_of([&] {
                  read_snapshot(edited([&](const std::string& p) {
                      set_attribute(p, "/NBody", "Step", H5T_NATIVE_DOUBLE, &fraction);
                  }));
              }).find("/NBody/Step = 10.5 is not a whole number"),
              std::string::npos);
    const std::int64_t minus_one[6] = {0, -1, 0, 0, 0, 0};
    EXPECT_NE(error_of([&] {
                  read_snapshot(edited([&](const std::string& p) {
                      set_attribute(p, "/Header", "NumPart_ThisFile", H5T_NATIVE_INT64, minus_one, 6);
                  }));
              }).find("/Header/NumPart_ThisFile[1] = -1 is negative"),
              std::string::npos);
    const std::uint64_t huge[6] = {0, std::uint64_t(1) << 40, 0, 0, 0, 0};
    EXPECT_NE(error_of([&] {
                  read_snapshot(edited([&](const std::string& p) {
                      set_attribute(p, "/Header", "NumPart_Total", H5T_NATIVE_UINT64, huge, 6);
                  }));
              })
                  .find("/Header/NumPart_Total says 1099511627776 particles of type 1 but "
                        "/PartType1/Coordinates has 64"),
              std::string::npos);

    // Masses stored N x 1 instead of a list of N.
    const std::string column = edited([&](const std::string& p) {
        const hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        H5Ldelete(f, "/PartType1/Masses", H5P_DEFAULT);
        const hsize_t dims[2] = {64, 1};
        const hid_t space = H5Screate_simple(2, dims, nullptr);
        const hid_t set =
            H5Dcreate2(f, "/PartType1/Masses", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const std::vector<double> m(64, 1.0 / 64);
        H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.data());
        H5Dclose(set);
        H5Sclose(space);
        H5Fclose(f);
    });
    EXPECT_NE(error_of([&] { read_snapshot(column); }).find("/PartType1/Masses has shape 64 x 1, expected N"),
              std::string::npos)
        << error_of([&] { read_snapshot(column); });
}
#endif

void expect_exact_restart(const std::string& backend, Precision precision, Integrator integrator,
                          const std::string& path) {
    SCOPED_TRACE(backend + " " + to_string(precision) + " " + to_string(integrator));
    Params p;
    p.dt = 0.01;
    p.softening = 0.05;
    p.integrator = integrator;
    const HostState start = make_preset("plummer", 96, 3);
    const std::int64_t k = 100;

    auto whole = create_backend(backend, precision);
    whole->set_state(start);
    ASSERT_TRUE(whole->step(p, 2 * k).finite);

    auto first = create_backend(backend, precision);
    first->set_state(start);
    ASSERT_TRUE(first->step(p, k).finite);
    Snapshot snap;
    snap.state = first->get_state();
    snap.info.has_params = true;
    snap.info.params = p;
    snap.info.precision = precision;
    snap.info.step = k;
    write_snapshot(path, snap);
    first.reset();

    const Snapshot back = read_snapshot(path);
    ASSERT_EQ(back.info.step, k);
    ASSERT_EQ(back.info.precision, precision);
    auto second = create_backend(backend, back.info.precision);
    second->set_state(back.state);
    ASSERT_TRUE(second->step(back.info.params, k).finite);
    EXPECT_TRUE(identical(second->get_state(), whole->get_state()));
}

TEST_F(SnapshotTest, RestartIsBitIdenticalOnCpuBackends) {
    SKIP_WITHOUT_HDF5();
    for (const std::string backend : {"serial", "openmp"}) {
        for (const Precision precision : {Precision::f32, Precision::f64}) {
            for (const Integrator integrator : {Integrator::leapfrog, Integrator::symplectic_euler}) {
                expect_exact_restart(backend, precision, integrator, file("restart.h5"));
            }
        }
    }
}

TEST_F(SnapshotTest, RestartIsBitIdenticalOnCuda) {
    SKIP_WITHOUT_HDF5();
    const BackendInfo* cuda = find_backend("cuda");
    if (!cuda || !cuda->available())
        GTEST_SKIP() << (cuda ? cuda->unavailable_reason() : "built without CUDA");
    for (const Precision precision : {Precision::f32, Precision::f64}) {
        expect_exact_restart("cuda", precision, Integrator::leapfrog, file("restart.h5"));
    }
}

}  // namespace
}  // namespace nbody
