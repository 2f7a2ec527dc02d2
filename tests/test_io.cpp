// Body CSV reading and writing, energy and trajectory logs.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "sim/io/csv_io.hpp"
#include "sim/rng.hpp"
#include "sim/validate.hpp"
#include "temp_dir.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class IoTest : public test::TempDirTest {
  protected:
    std::string write_text(const std::string& name, const std::string& text) const {
        const std::string path = file(name);
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        return names;
    }

    // The error message of reading `text` as a body CSV ("" if it was accepted).
    std::string read_error(const std::string& text) const {
        const std::string path = write_text("bodies.csv", text);
        try {
            read_bodies_csv(path);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Random values over the whole exponent range of T, both signs, plus the awkward ones.
template <typename T>
std::vector<T> awkward_values(std::size_t count, std::uint64_t seed) {
    Rng rng(seed);
    const int max_exp = precision_of<T>() == Precision::f32 ? 38 : 307;
    std::vector<T> v = {T(0),
                        T(-0.0),
                        T(1),
                        T(0.1),
                        T(1) / T(3),
                        std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::lowest(),
                        std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::epsilon()};
    while (v.size() < count) {
        const double mantissa = rng.uniform(1, 10);
        const int exponent = int(rng.uniform(-max_exp, max_exp));
        const double sign = rng.uniform() < 0.5 ? -1 : 1;
        v.push_back(T(sign * mantissa * std::pow(10.0, exponent)));
    }
    return v;
}

template <typename T>
HostState random_state(std::size_t n, std::uint64_t seed) {
    const std::vector<T> values = awkward_values<T>(6 * n, seed);
    const std::vector<T> masses = awkward_values<T>(2 * n, seed + 1);
    HostState s;
    s.resize(n);
    std::size_t k = 0, mk = 0;
    for (std::size_t i = 0; i < n; ++i) {
        T m = 0;
        while (!(m > 0)) m = std::abs(masses[mk++ % masses.size()]);
        s.pos_mass[i] = {double(values[k]), double(values[k + 1]), double(values[k + 2]), double(m)};
        s.vel[i] = {double(values[k + 3]), double(values[k + 4]), double(values[k + 5]), 0};
        k += 6;
    }
    return s;
}

void expect_bit_identical(const HostState& a, const HostState& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto &p = a.pos_mass[i], &q = b.pos_mass[i];
        const auto &v = a.vel[i], &w = b.vel[i];
        EXPECT_TRUE(same_bits(p.x, q.x) && same_bits(p.y, q.y) && same_bits(p.z, q.z) && same_bits(p.w, q.w))
            << "body " << i << ": " << p.x << " " << q.x;
        EXPECT_TRUE(same_bits(v.x, w.x) && same_bits(v.y, w.y) && same_bits(v.z, w.z)) << "body " << i;
    }
}

TEST_F(IoTest, RoundTripIsBitExactInDouble) {
    const HostState s = random_state<double>(3000, 1);
    const std::string path = file("out.csv");
    write_bodies_csv(path, s, Precision::f64);
    expect_bit_identical(read_bodies_csv(path), s);
}

TEST_F(IoTest, RoundTripIsBitExactInFloatAndPrintsFloatDigits) {
    const HostState s = random_state<float>(3000, 2);
    const std::string path = file("out.csv");
    write_bodies_csv(path, s, Precision::f32);
    // The file holds float digits, so the doubles read back are the nearest doubles to those digits;
    // rounded to float (what a float backend does) they are the original floats, bit for bit.
    const HostState back = read_bodies_csv(path);
    expect_bit_identical(convert_state<double>(convert_state<float>(back)), s);
    // 0.1f is printed as "0.1", not as the double 0.10000000149011612.
    HostState one;
    one.resize(1);
    one.pos_mass[0] = {double(0.1f), 0, 0, 1};
    write_bodies_csv(path, one, Precision::f32);
    EXPECT_EQ(slurp(path), "x,y,z,vx,vy,vz,m\n0.1,0,0,0,0,0,1\n");
}

TEST_F(IoTest, ReadsCommentsBlankLinesSpacesCrlfBomAndColumnOrder) {
    const std::string path = write_text("ok.csv",
                                        "\xEF\xBB\xBF# a comment\r\n"
                                        "\r\n"
                                        "  m , vz,vy,vx,z,y,x, colour  \r\n"
                                        "# units: G = 1\r\n"
                                        " 2 , 6, 5, 4, 3, 2, 1 , red\r\n"
                                        "\r\n"
                                        "+0.5,-1e-3,0,0,0,0,1e2,blue # trailing comment\r\n");
    const HostState s = read_bodies_csv(path);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s.pos_mass[0].x, 1.0);
    EXPECT_EQ(s.pos_mass[0].y, 2.0);
    EXPECT_EQ(s.pos_mass[0].z, 3.0);
    EXPECT_EQ(s.vel[0].x, 4.0);
    EXPECT_EQ(s.vel[0].y, 5.0);
    EXPECT_EQ(s.vel[0].z, 6.0);
    EXPECT_EQ(s.pos_mass[0].w, 2.0);
    EXPECT_EQ(s.pos_mass[1].w, 0.5);
    EXPECT_EQ(s.vel[1].z, -1e-3);
    EXPECT_EQ(s.pos_mass[1].x, 100.0);
    EXPECT_EQ(s.t, 0.0);
}

TEST_F(IoTest, MissingFileAndDirectory) {
    const std::string missing = file("nope.csv");
    try {
        read_bodies_csv(missing);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot open '" + missing + "': No such file or directory");
    }
    try {
        read_bodies_csv(dir_.string());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
    }
}

// Each bad file is rejected with its line number and the problem named.
// The CSV fuzzer's seeds and whatever it has found (tests/fuzz/seeds_csv, tests/fuzz/regressions_csv):
// each file gives bodies or one nbody::Error line, and never more bodies than lines. Under
// scripts/sanitize.sh this replays them with ASan and UBSan.
TEST_F(IoTest, FuzzCorpusGivesBodiesOrOneError) {
    int files = 0;
    for (const char* sub : {"seeds_csv", "regressions_csv"}) {
        const std::filesystem::path dir = std::filesystem::path(NBODY_FUZZ_DIR) / sub;
        if (!std::filesystem::exists(dir)) continue;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            SCOPED_TRACE(entry.path().string());
            ++files;
            try {
                BodySource source;
                const HostState s = read_bodies_csv(entry.path().string(), &source);
                EXPECT_EQ(source.lines.size(), s.size());
                EXPECT_GT(s.size(), 0u);
            } catch (const Error& e) {
                const std::string what = e.what();
                EXPECT_EQ(what.find('\n'), std::string::npos) << what;
                EXPECT_LE(what.size(), 1024u) << what;
            }
        }
    }
    EXPECT_GE(files, 6);
}

TEST_F(IoTest, BadInputNamesLineAndProblem) {
    const std::string p = file("bodies.csv");
    const std::string header = "x,y,z,vx,vy,vz,m\n";
    struct Case {
        std::string text, expected;
    };
    const std::vector<Case> cases = {
        {"", p + ": empty file"},
        {"# only a comment\n\n", p + ": empty file"},
        {header, p + ": no bodies after the header"},
        {header + "# nothing\n", p + ": no bodies after the header"},
        {"1,2,3,4,5,6,7\n", p + ":1: no header line"},
        {"x,y,z,vx,vz\n1,2,3,4,5\n", p + ":1: missing column(s) vy, m"},
        {"x,y,z,vx,vy,vz,m,x\n", p + ":1: column 'x' appears twice"},
        {header + "0,0,0,0,0,0,1\n1,2,3,4,5,6\n", p + ":3: short row: 6 values, the header has 7 columns"},
        {header + "1,2,3,4,5,6,7,8\n", p + ":2: long row: 8 values"},
        {header + "\n# c\n1,2,3,abc,5,6,7\n", p + ":4: non-numeric value 'abc' in column vx"},
        {header + "1,2,3,4,5,6,7kg\n", p + ":2: non-numeric value '7kg' in column m"},
        {header + "1,2,3,4,,6,7\n", p + ":2: empty value in column vy"},
        {header + "1,2,nan,4,5,6,7\n", p + ":2: non-finite value 'nan' in column z"},
        {header + "1,2,3,4,5,-inf,7\n", p + ":2: non-finite value '-inf' in column vz"},
        {header + "1e999,2,3,4,5,6,7\n", p + ":2: value '1e999' out of range in column x"},
        {header + "1,2,3,4,5,6,0\n", p + ":2: mass must be > 0 (got '0')"},
        {header + "1,2,3,4,5,6,-1.5\n", p + ":2: mass must be > 0 (got '-1.5')"},
        {header + "1,2,3,4,5,6,--1\n", p + ":2: non-numeric value '--1' in column m"},
    };
    for (const Case& c : cases) {
        const std::string msg = read_error(c.text);
        EXPECT_EQ(msg.rfind(c.expected, 0), 0u) << "input:\n" << c.text << "message: " << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

// A spreadsheet's tab-separated or UTF-16 export gets a hint in its one line (issue 26, item 13), not only
// the strange cells it splits into.
TEST_F(IoTest, TabSeparatedAndUtf16FilesGetAHint) {
    const std::string p = file("bodies.csv");
    const std::string tabs = "x\ty\tz\tvx\tvy\tvz\tm\n0\t0\t0\t0\t0\t0\t1\n";
    std::string msg = read_error(tabs);
    EXPECT_EQ(msg.rfind(p + ":1: missing column(s) x, y, z, vx, vy, vz, m in the header", 0), 0u) << msg;
    EXPECT_NE(msg.find("; it looks tab-separated: nbody reads comma-separated values"), std::string::npos)
        << msg;
    // A comma header with a stray tab is no tab-separated file.
    msg = read_error("x,y,z,vx,vy,vz\tm\n");
    EXPECT_EQ(msg.find("tab-separated"), std::string::npos) << msg;

    const std::string utf8 = "# N = 1\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n";
    std::string le = "\xFF\xFE", be = "\xFE\xFF", bare;
    for (char c : utf8) {
        le += c, le += '\0';
        be += '\0', be += c;
        bare += c, bare += '\0';
    }
    for (const std::string& text : {le, be, bare}) {
        msg = read_error(text);
        EXPECT_EQ(msg, p + ":1: looks UTF-16 (a byte order mark or NUL bytes): save it as UTF-8");
    }
    // The same bodies as UTF-8 read.
    std::ofstream(p, std::ios::binary) << utf8;
    EXPECT_EQ(read_bodies_csv(p).size(), 1u);
}

TEST_F(IoTest, ErrorsQuoteOnlyAnExcerptOfAHugeCell) {
    // Issue 10, 8.: a 10 MB cell used to be echoed whole into one 10 MB error line.
    const std::string header = "x,y,z,vx,vy,vz,m\n";
    const std::string digits(100000, '7');
    for (const std::string& cell : {digits, digits + "kg", "nan" + digits}) {
        const std::string msg = read_error(header + "1,2,3,4,5,6," + cell + "\n");
        EXPECT_LT(msg.size(), 300u) << msg.substr(0, 300);
        EXPECT_NE(msg.find("..." + std::string("' (") + std::to_string(cell.size()) + " bytes)"),
                  std::string::npos)
            << msg.substr(0, 300);
    }
    // Control characters in a cell are shown escaped, not sent to the terminal.
    const std::string msg = read_error(header + "1,2,3,4,5,6,\x1b[31mred\n");
    EXPECT_NE(msg.find("'\\x1B[31mred'"), std::string::npos) << msg;
    // A line longer than 1 MiB (a binary file, a runaway generator) stops the reader at once.
    const std::string long_line = read_error(header + std::string(10 << 20, '1') + "\n");
    EXPECT_NE(long_line.find(":2: line longer than 1 MiB"), std::string::npos) << long_line.substr(0, 300);
    EXPECT_LT(long_line.size(), 300u);
}

// Reads `path` in a forked child that SIGALRM kills after 10 s: a reader that blocks or reads forever
// fails the test instead of hanging it. The child exits 0 if the read failed with an Error containing
// `expect`.
void expect_read_fails_quickly(const std::string& path, const std::string& expect) {
    auto child = [&] {
        ::alarm(10);
        try {
            read_bodies_csv(path);
        } catch (const Error& e) {
            if (std::string(e.what()).find(expect) != std::string::npos) std::_Exit(0);
            std::fprintf(stderr, "wrong message: %s\n", e.what());
            std::_Exit(2);
        }
        std::_Exit(3);
    };
    EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "") << path;
}

TEST_F(IoTest, NonRegularInputsNeitherHangNorReadForever) {
    // Issue 10, 8.: a FIFO with no writer used to block forever in open().
    const std::string fifo = file("fifo.csv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_read_fails_quickly(fifo, "empty file");
    // Devices are refused before reading: /dev/zero would be read until memory ran out.
    expect_read_fails_quickly("/dev/zero", "it is a character device, not a regular file or a pipe");
    expect_read_fails_quickly("/dev/null", "it is a character device");
}

TEST_F(IoTest, ReadsFromAPipe) {
    // `--input <(generator)` hands nbody /dev/fd/N, a pipe: that stays possible.
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string text = "x,y,z,vx,vy,vz,m\n1,2,3,4,5,6,7\n8,9,10,11,12,13,14";  // no final newline
    ASSERT_EQ(::write(fds[1], text.data(), text.size()), ssize_t(text.size()));
    ::close(fds[1]);
    const HostState s = read_bodies_csv("/proc/self/fd/" + std::to_string(fds[0]));
    ::close(fds[0]);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s.pos_mass[1].w, 14.0);
}

TEST_F(IoTest, ReaderReportsEachBodysLine) {
    const std::string path =
        write_text("lines.csv",
                   "# header next\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n\n# gap\n1,0,0,0,0,0,1\n2,0,0,0,0,0,1\n");
    BodySource source;
    const HostState s = read_bodies_csv(path, &source);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(source.file, path);
    EXPECT_EQ(source.lines, (std::vector<std::size_t>{3, 6, 7}));
}

TEST_F(IoTest, WritingIntoMissingDirectoryFailsClearly) {
    const std::string target = file("no/such/dir/out.csv");
    HostState s;
    s.resize(1);
    s.pos_mass[0].w = 1;
    try {
        write_bodies_csv(target, s, Precision::f64);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(listing().empty());
}

std::vector<std::vector<std::string>> read_rows(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ',')) cells.push_back(cell);
        if (!line.empty() && line.back() == ',') cells.emplace_back();
        rows.push_back(cells);
    }
    return rows;
}

TEST_F(IoTest, EnergyLogHasHeaderAndExactValues) {
    const std::string path = file("energy.csv");
    Diagnostics d;
    d.kinetic = 0.1;
    d.potential = -1.0 / 3.0;
    d.has_potential = true;
    d.momentum = {1e-17, -2.5, 3};
    {
        EnergyLog log(path);
        log.write(0, 0.0, d, 0.0);
        Diagnostics no_pot = d;
        no_pot.has_potential = false;
        log.write(10, 0.1, no_pot, 0.0);
        EXPECT_FALSE(fs::exists(path));  // nothing visible before commit
        log.commit();
    }
    const auto rows = read_rows(path);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"step", "t", "kinetic", "potential", "total", "rel_drift",
                                                 "px", "py", "pz"}));
    ASSERT_EQ(rows[1].size(), 9u);
    EXPECT_EQ(rows[1][0], "0");
    EXPECT_EQ(std::stod(rows[1][3]), -1.0 / 3.0);
    EXPECT_EQ(std::stod(rows[1][4]), d.total());
    EXPECT_EQ(std::stod(rows[1][6]), 1e-17);
    ASSERT_EQ(rows[2].size(), 9u);
    EXPECT_EQ(rows[2][0], "10");
    EXPECT_EQ(rows[2][3], "");  // no potential computed at this step
}

TEST_F(IoTest, TrajectoryLogHasOneRowPerBodyPerRecord) {
    const std::string path = file("traj.csv");
    HostState s;
    s.resize(3);
    for (std::size_t i = 0; i < 3; ++i) s.pos_mass[i] = {double(i), 0.5, -1.0 / 7.0, 1};
    {
        TrajectoryLog log(path);
        log.write(0, s);
        s.t = 0.25;
        log.write(5, s);
        log.commit();
    }
    const auto rows = read_rows(path);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"step", "t", "body", "x", "y", "z"}));
    EXPECT_EQ(rows[6], (std::vector<std::string>{"5", "0.25", "2", "2", "0.5", rows[6][5]}));
    EXPECT_EQ(std::stod(rows[6][5]), -1.0 / 7.0);
}

// The example scenarios shipped in assets/ load, are valid at softening 0 and are what they say.
TEST(Assets, ExampleScenariosLoad) {
    const std::string dir = NBODY_ASSETS_DIR;
    Params exact;
    exact.softening = 0;
    const HostState fig8 = read_bodies_csv(dir + "/figure8.csv");
    ASSERT_EQ(fig8.size(), 3u);
    EXPECT_NO_THROW(validate_state(fig8, exact));
    double px = 0, py = 0, kinetic = 0, potential = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        const auto &p = fig8.pos_mass[i], &v = fig8.vel[i];
        px += p.w * v.x;
        py += p.w * v.y;
        kinetic += 0.5 * p.w * (v.x * v.x + v.y * v.y + v.z * v.z);
        for (std::size_t j = i + 1; j < 3; ++j) {
            const auto& q = fig8.pos_mass[j];
            potential -= p.w * q.w / std::hypot(p.x - q.x, p.y - q.y, p.z - q.z);
        }
    }
    EXPECT_NEAR(px, 0.0, 1e-8);
    EXPECT_NEAR(py, 0.0, 1e-8);
    EXPECT_NEAR(kinetic + potential, -1.2871, 1e-4);

    const HostState sun_earth = read_bodies_csv(dir + "/sun_earth.csv");
    ASSERT_EQ(sun_earth.size(), 2u);
    EXPECT_NO_THROW(validate_state(sun_earth, exact));
    EXPECT_EQ(sun_earth.pos_mass[0].w, 1.0);
    EXPECT_NEAR(sun_earth.pos_mass[1].w, 3.0034e-6, 1e-9);
    EXPECT_NEAR(sun_earth.pos_mass[1].x - sun_earth.pos_mass[0].x, 0.98329134, 1e-8);  // perihelion, AU
}

}  // namespace
}  // namespace nbody
