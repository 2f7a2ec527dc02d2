#include "tipsy_io.hpp"

#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include "input_file.hpp"
#include "sim/error.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

constexpr std::size_t kHeaderBytes = 32;  // 28 bytes of fields, then 4 of padding (XDR and C struct alike)
constexpr std::size_t kGasValues = 12;    // mass, pos[3], vel[3], rho, temp, hsmooth, metals, phi
constexpr std::size_t kDarkValues = 9;    // mass, pos[3], vel[3], eps, phi
constexpr std::size_t kStarValues = 11;   // mass, pos[3], vel[3], metals, tform, eps, phi

std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

const char* order_name(TipsyByteOrder o) {
    return o == TipsyByteOrder::big_endian ? "big-endian" : "native-endian";
}

// Reads 4 or 8 bytes at p as an unsigned integer in the given byte order.
// (std::byteswap is C++23.)
std::uint32_t byteswap(std::uint32_t v) {
    return __builtin_bswap32(v);
}
std::uint64_t byteswap(std::uint64_t v) {
    return __builtin_bswap64(v);
}

bool needs_swap(TipsyByteOrder order) {
    return order == TipsyByteOrder::big_endian && std::endian::native == std::endian::little;
}

template <typename U>
U load(const unsigned char* p, TipsyByteOrder order) {
    U v;
    std::memcpy(&v, p, sizeof v);
    return needs_swap(order) ? byteswap(v) : v;
}

template <typename U>
void store(unsigned char* p, U v, TipsyByteOrder order) {
    if (needs_swap(order)) v = byteswap(v);
    std::memcpy(p, &v, sizeof v);
}

float load_float(const unsigned char* p, TipsyByteOrder order) {
    return std::bit_cast<float>(load<std::uint32_t>(p, order));
}

struct Header {
    double time = 0;
    std::int32_t nbodies = 0, ndim = 0, nsph = 0, ndark = 0, nstar = 0;

    std::uint64_t expected_bytes() const {
        return kHeaderBytes + 4 * (kGasValues * std::uint64_t(nsph) + kDarkValues * std::uint64_t(ndark) +
                                   kStarValues * std::uint64_t(nstar));
    }
};

Header parse_header(const unsigned char* p, TipsyByteOrder order) {
    Header h;
    h.time = std::bit_cast<double>(load<std::uint64_t>(p, order));
    auto i32 = [&](std::size_t offset) {
        return std::bit_cast<std::int32_t>(load<std::uint32_t>(p + offset, order));
    };
    h.nbodies = i32(8), h.ndim = i32(12), h.nsph = i32(16), h.ndark = i32(20), h.nstar = i32(24);
    return h;
}

// Empty if the header is consistent in this byte order and with a file of `size` bytes; else why not.
std::string header_problem(const Header& h, std::size_t size, TipsyByteOrder order) {
    const std::string o = std::string("read ") + order_name(order) + ", ";
    if (h.ndim != 3) return o + "ndim = " + std::to_string(h.ndim) + " (expected 3)";
    if (h.nsph < 0 || h.ndark < 0 || h.nstar < 0)
        return o + "a negative particle count (nsph " + std::to_string(h.nsph) + ", ndark " +
               std::to_string(h.ndark) + ", nstar " + std::to_string(h.nstar) + ")";
    const std::int64_t sum = std::int64_t(h.nsph) + h.ndark + h.nstar;
    if (sum != h.nbodies)
        return o + "nbodies = " + std::to_string(h.nbodies) +
               " but nsph + ndark + nstar = " + std::to_string(sum);
    if (h.expected_bytes() != size) {
        return o + "the header's " + std::to_string(h.nsph) + " gas + " + std::to_string(h.ndark) +
               " dark + " + std::to_string(h.nstar) + " star particles need " +
               std::to_string(h.expected_bytes()) + " bytes but the file has " + std::to_string(size) +
               (size < h.expected_bytes() ? " (truncated?)" : " (extra bytes at the end)");
    }
    return "";
}

}  // namespace

Snapshot parse_tipsy(const unsigned char* data, std::size_t size, const std::string& name) {
    auto fail = [&](const std::string& problem) -> void { throw Error(name + ": " + problem); };
    if (size < kHeaderBytes) {
        fail("too short for a Tipsy file (" + std::to_string(size) + " bytes; the header alone is " +
             std::to_string(kHeaderBytes) + ")");
    }
    // The header settles the byte order: ndim reads as 3 in exactly one of them, and the counts must then
    // account for every byte of the file.
    TipsyByteOrder order = TipsyByteOrder::big_endian;
    Header h;
    std::string problem;
    bool found = false;
    const Header big = parse_header(data, TipsyByteOrder::big_endian);
    const Header native = parse_header(data, TipsyByteOrder::native);
    for (const auto& [o, candidate] :
         {std::pair{TipsyByteOrder::big_endian, big}, std::pair{TipsyByteOrder::native, native}}) {
        if (candidate.ndim != 3) continue;
        problem = header_problem(candidate, size, o);
        if (problem.empty()) {
            order = o, h = candidate, found = true;
            break;
        }
    }
    if (!found && problem.empty()) {
        problem = "ndim reads as " + std::to_string(big.ndim) + " big-endian and " +
                  std::to_string(native.ndim) + " native-endian (expected 3)";
    }
    if (!found) fail("not a valid Tipsy file: " + problem);
    if (!is_finite_bits(h.time)) fail("the header's time is not finite (" + num(h.time) + ")");

    Snapshot s;
    s.state.t = h.time;
    s.state.resize(static_cast<std::size_t>(h.nbodies));
    s.info.precision = Precision::f32;
    const unsigned char* p = data + kHeaderBytes;
    std::size_t body = 0;
    struct Kind {
        const char* name;
        std::int32_t count;
        std::size_t values;
    };
    for (const Kind& k : {Kind{"gas", h.nsph, kGasValues}, Kind{"dark", h.ndark, kDarkValues},
                          Kind{"star", h.nstar, kStarValues}}) {
        for (std::int32_t i = 0; i < k.count; ++i, ++body, p += 4 * k.values) {
            float v[7];
            bool finite = true;
            for (int c = 0; c < 7; ++c) {
                v[c] = load_float(p + 4 * c, order);
                finite = finite && is_finite_bits(v[c]);
            }
            if (!finite || !(v[0] > 0)) {  // the message is built only for the body at fault
                static const char* fields[7] = {"mass", "x", "y", "z", "vx", "vy", "vz"};
                const std::string who = std::string(k.name) + " particle " + std::to_string(i) + " (body " +
                                        std::to_string(body) + ")";
                for (int c = 0; c < 7; ++c) {
                    if (!is_finite_bits(v[c]))
                        fail(who + ": " + fields[c] + " is not finite (" + num(v[c]) + ")");
                }
                fail(who + ": mass = " + num(v[0]) + " (masses must be > 0)");
            }
            s.state.pos_mass[body] = {v[1], v[2], v[3], v[0]};
            s.state.vel[body] = {v[4], v[5], v[6], 0};
        }
    }
    if (h.nbodies == 0) fail("no particles (the header's counts are all 0)");
    if (h.nsph > 0 || h.nstar > 0) {
        s.notes.push_back(name + ": read " + std::to_string(h.nsph) + " gas and " + std::to_string(h.nstar) +
                          " star particles as gravitating bodies (their other fields are dropped)");
    }
    return s;
}

Snapshot read_tipsy(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error("cannot open '" + path + "': is a directory");
    // A FIFO would block open() and a device such as /dev/zero has no end: regular files only.
    if (std::filesystem::exists(path, ec)) check_input_path(path);
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    const std::streamoff size = in.tellg();
    if (size < 0) throw Error("cannot read '" + path + "': cannot tell its size");
    std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size))
        throw Error("cannot read '" + path + "': " + std::strerror(errno ? errno : EIO));
    return parse_tipsy(bytes.data(), bytes.size(), path);
}

void write_tipsy(std::ostream& out, const Snapshot& s, TipsyByteOrder order, const std::string& name) {
    const std::size_t n = s.state.size();
    if (n > std::size_t(std::numeric_limits<std::int32_t>::max())) {
        throw Error(name + ": " + std::to_string(n) + " bodies do not fit a Tipsy header (at most 2^31 - 1)");
    }
    unsigned char header[kHeaderBytes] = {};
    store(header, std::bit_cast<std::uint64_t>(s.state.t), order);
    const std::int32_t counts[5] = {std::int32_t(n), 3, 0, std::int32_t(n),
                                    0};  // nbodies ndim nsph ndark nstar
    for (int k = 0; k < 5; ++k) store(header + 8 + 4 * k, std::bit_cast<std::uint32_t>(counts[k]), order);
    out.write(reinterpret_cast<const char*>(header), sizeof header);

    const float eps = static_cast<float>(s.info.params.softening);
    std::vector<unsigned char> buf;
    constexpr std::size_t kChunk = 4096;  // bodies per write
    for (std::size_t first = 0; first < n; first += kChunk) {
        const std::size_t count = std::min(kChunk, n - first);
        buf.resize(count * 4 * kDarkValues);
        for (std::size_t j = 0; j < count; ++j) {
            const std::size_t i = first + j;
            const auto& pm = s.state.pos_mass[i];
            const auto& v = s.state.vel[i];
            const double values[7] = {pm.w, pm.x, pm.y, pm.z, v.x, v.y, v.z};
            unsigned char* p = buf.data() + j * 4 * kDarkValues;
            for (int c = 0; c < 7; ++c) {
                const float f = static_cast<float>(values[c]);
                if (!is_finite_bits(f)) {
                    throw Error(name + ": body " + std::to_string(i) + " has a value (" + num(values[c]) +
                                ") too large for a Tipsy file's float");
                }
                store(p + 4 * c, std::bit_cast<std::uint32_t>(f), order);
            }
            store(p + 28, std::bit_cast<std::uint32_t>(eps), order);
            const std::uint32_t phi =
                order == TipsyByteOrder::native ? std::uint32_t(i) : std::bit_cast<std::uint32_t>(0.0f);
            store(p + 32, phi, order);
        }
        out.write(reinterpret_cast<const char*>(buf.data()), std::streamsize(buf.size()));
    }
}

}  // namespace nbody
