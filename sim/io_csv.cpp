#include "io_csv.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string_view>
#include <system_error>
#include <vector>

#include "error.hpp"
#include "validate.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 7> kColumns = {"x", "y", "z", "vx", "vy", "vz", "m"};
constexpr const char* kHeader = "x,y,z,vx,vy,vz,m";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_commas(std::string_view line) {
    std::vector<std::string_view> cells;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        if (comma == std::string_view::npos) {
            cells.push_back(trim(line.substr(start)));
            return cells;
        }
        cells.push_back(trim(line.substr(start, comma - start)));
        start = comma + 1;
    }
}

enum class ParseStatus { ok, empty, not_a_number, out_of_range };

// The whole cell must be one number (a leading '+' is accepted, which std::from_chars alone rejects).
ParseStatus parse_double(std::string_view cell, double& out) {
    if (cell.empty()) return ParseStatus::empty;
    std::string_view digits = cell;
    if (digits.size() > 1 && digits.front() == '+' && digits[1] != '-' && digits[1] != '+')
        digits.remove_prefix(1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    if (ec == std::errc::result_out_of_range) return ParseStatus::out_of_range;
    if (ec != std::errc() || end != digits.data() + digits.size()) return ParseStatus::not_a_number;
    return ParseStatus::ok;
}

// Shortest decimal text that reads back to exactly v.
std::string_view format_shortest(char* buf, std::size_t size, double v) {
    const auto r = std::to_chars(buf, buf + size, v);
    return {buf, std::size_t(r.ptr - buf)};
}

// Shortest text for the float f such that reading it as a double and rounding to float gives f back.
// The float's shortest digits almost always do; if double rounding ever bit, fall back to the double's.
std::string_view format_float(char* buf, std::size_t size, float f) {
    const auto r = std::to_chars(buf, buf + size, f);
    double back = 0;
    const auto [end, ec] = std::from_chars(buf, r.ptr, back);
    if (ec == std::errc() && end == r.ptr) {
        const float again = float(back);
        if (std::memcmp(&again, &f, sizeof f) == 0) return {buf, std::size_t(r.ptr - buf)};
    }
    return format_shortest(buf, size, double(f));
}

std::string errno_text(int err) {
    return std::strerror(err);
}

[[noreturn]] void fail_at(const std::string& path, std::size_t line_no, const std::string& problem) {
    throw Error(path + ":" + std::to_string(line_no) + ": " + problem);
}

}  // namespace

// --- reading ----------------------------------------------------------------------------------------

HostState read_bodies_csv(const std::string& path, BodySource* source) {
    std::error_code fs_err;
    if (fs::is_directory(path, fs_err)) throw Error("cannot open '" + path + "': " + errno_text(EISDIR));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path + "': " + errno_text(errno));

    // Where each of x, y, z, vx, vy, vz, m sits in the header.
    std::array<std::size_t, kColumns.size()> column{};
    std::size_t header_cells = 0;
    bool have_header = false;

    HostState s;
    std::vector<std::size_t> lines;
    std::string line;
    std::size_t line_no = 0;
    auto fail = [&](const std::string& problem) { fail_at(path, line_no, problem); };

    while (std::getline(in, line)) {
        ++line_no;
        std::string_view text = line;
        if (line_no == 1 && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
        if (const std::size_t hash = text.find('#'); hash != std::string_view::npos)
            text = text.substr(0, hash);
        text = trim(text);
        if (text.empty()) continue;
        const std::vector<std::string_view> cells = split_commas(text);

        if (!have_header) {
            double dummy = 0;
            if (parse_double(cells.front(), dummy) == ParseStatus::ok)
                fail(std::string("no header line (expected '") + kHeader + "' before the first body)");
            column.fill(std::size_t(-1));
            for (std::size_t c = 0; c < cells.size(); ++c) {
                for (std::size_t k = 0; k < kColumns.size(); ++k) {
                    if (cells[c] != kColumns[k]) continue;
                    if (column[k] != std::size_t(-1))
                        fail("column '" + std::string(kColumns[k]) + "' appears twice");
                    column[k] = c;
                }
            }
            std::string missing;
            for (std::size_t k = 0; k < kColumns.size(); ++k) {
                if (column[k] != std::size_t(-1)) continue;
                if (!missing.empty()) missing += ", ";
                missing += kColumns[k];
            }
            if (!missing.empty())
                fail("missing column(s) " + missing + " in the header (need " + kHeader + ")");
            header_cells = cells.size();
            have_header = true;
            continue;
        }

        if (cells.size() != header_cells)
            fail((cells.size() < header_cells ? "short row: " : "long row: ") + std::to_string(cells.size()) +
                 " values, the header has " + std::to_string(header_cells) + " columns");
        std::array<double, kColumns.size()> v{};
        for (std::size_t k = 0; k < kColumns.size(); ++k) {
            const std::string_view cell = cells[column[k]];
            const std::string col = kColumns[k];
            const ParseStatus status = parse_double(cell, v[k]);
            if (status == ParseStatus::empty) fail("empty value in column " + col);
            if (status == ParseStatus::not_a_number)
                fail("non-numeric value '" + std::string(cell) + "' in column " + col);
            if (status == ParseStatus::out_of_range)
                fail("value '" + std::string(cell) + "' out of range in column " + col);
            if (!is_finite_bits(v[k])) fail("non-finite value '" + std::string(cell) + "' in column " + col);
        }
        if (!(v[6] > 0)) fail("mass must be > 0 (got '" + std::string(cells[column[6]]) + "')");
        s.pos_mass.push_back({v[0], v[1], v[2], v[6]});
        s.vel.push_back({v[3], v[4], v[5], 0});
        lines.push_back(line_no);
    }
    if (in.bad()) throw Error("cannot read '" + path + "': " + errno_text(errno));
    if (!have_header)
        throw Error(path + ": empty file (expected a header '" + kHeader + "' and one body a line)");
    if (s.size() == 0) throw Error(path + ": no bodies after the header");
    if (source) *source = {path, std::move(lines)};
    return s;
}

// --- writing ----------------------------------------------------------------------------------------

// The temporaries a signal handler must delete. Plain arrays and lock-free atomics only: the handler may
// run at any instruction, so it reads a slot's path only once the slot is marked ready.
namespace {

constexpr std::size_t kSignalSlots = 32;
constexpr std::size_t kSignalPathMax = 4096;
enum SlotState : int { kFree = 0, kClaimed = 1, kReady = 2 };
struct SignalSlot {
    std::atomic<int> state{kFree};
    char path[kSignalPathMax];
};
SignalSlot g_signal_slots[kSignalSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

// Returns the slot index, or -1 if the table is full or the path too long (then a signal leaves it).
int register_temp(const std::string& tmp) {
    if (tmp.size() >= kSignalPathMax) return -1;
    for (std::size_t i = 0; i < kSignalSlots; ++i) {
        int expected = kFree;
        if (!g_signal_slots[i].state.compare_exchange_strong(expected, kClaimed)) continue;
        std::memcpy(g_signal_slots[i].path, tmp.c_str(), tmp.size() + 1);
        g_signal_slots[i].state.store(kReady, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1;
}

void unregister_temp(int slot) {
    if (slot >= 0) g_signal_slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_temps_and_exit(int sig) {
    for (auto& slot : g_signal_slots) {
        if (slot.state.load(std::memory_order_acquire) == kReady) ::unlink(slot.path);
    }
    ::_exit(128 + sig);
}

// Hidden, beside the target (so the rename cannot cross file systems), unique: pid, a counter and a
// random draw, created with O_EXCL so a name already taken (another writer, a stale file) is skipped.
std::string create_unique_temp(const fs::path& dir, const std::string& base) {
    static std::atomic<unsigned> counter{0};
    static const unsigned salt = [] {
        std::random_device rd;
        return static_cast<unsigned>(rd());
    }();
    for (int attempt = 0; attempt < 100; ++attempt) {
        // (Built by appending: GCC 12 warns falsely (-Wrestrict) about "." + std::string.)
        std::string name = ".";
        name += base;
        name += ".tmp.";
        name += std::to_string(::getpid());
        name += '.';
        char hex[16];
        std::snprintf(hex, sizeof hex, "%08x", salt ^ (counter.fetch_add(1) * 2654435761u));
        name += hex;
        const std::string tmp = (dir / name).string();
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return tmp;
        }
        if (errno != EEXIST) throw Error("cannot create '" + tmp + "': " + errno_text(errno));
    }
    throw Error("cannot create a temporary file for '" + (dir / base).string() +
                "': every name tried exists");
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw Error("cannot write a file with an empty name");
    const fs::path target(path_);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("cannot write '" + path_ + "': directory '" + dir.string() + "' does not exist");
    if (fs::is_directory(target, ec)) throw Error("cannot write '" + path_ + "': " + errno_text(EISDIR));
    tmp_ = create_unique_temp(dir, target.filename().string());
    signal_slot_ = register_temp(tmp_);
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) {
        const int err = errno;
        std::remove(tmp_.c_str());
        unregister_temp(signal_slot_);
        throw Error("cannot create '" + tmp_ + "': " + errno_text(err));
    }
}

AtomicFile::~AtomicFile() {
    if (!committed_) {
        if (out_.is_open()) out_.close();
        std::remove(tmp_.c_str());
    }
    unregister_temp(signal_slot_);
}

void AtomicFile::finish() {
    if (finished_) return;
    out_.flush();
    const bool written = bool(out_);
    out_.close();
    if (!written || out_.fail())
        throw Error("cannot write '" + path_ + "': " + errno_text(errno ? errno : EIO));
    finished_ = true;  // only now: a failed file must never be renamed by a later commit()
}

void AtomicFile::commit() {
    if (committed_) return;
    finish();
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
        throw Error("cannot rename '" + tmp_ + "' to '" + path_ + "': " + errno_text(errno));
    committed_ = true;
    unregister_temp(signal_slot_);
    signal_slot_ = -1;
}

void commit_all(const std::vector<AtomicFile*>& files) {
    for (AtomicFile* f : files) f->finish();
    std::size_t done = 0;
    try {
        for (; done < files.size(); ++done) files[done]->commit();
    } catch (...) {
        for (std::size_t k = 0; k < done; ++k) std::remove(files[k]->path().c_str());
        throw;
    }
}

void remove_temp_files_on_signal() {
    for (const int sig : {SIGINT, SIGTERM}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = remove_temps_and_exit;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

void write_bodies_csv(AtomicFile& file, const HostState& s, Precision p) {
    std::ofstream& out = file.stream();
    out << kHeader << '\n';
    std::string row;
    char buf[64];
    auto put = [&](double v) {
        row += p == Precision::f32 ? format_float(buf, sizeof buf, float(v))
                                   : format_shortest(buf, sizeof buf, v);
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto& pm = s.pos_mass[i];
        const auto& v = s.vel[i];
        row.clear();
        for (const double value : {pm.x, pm.y, pm.z, v.x, v.y, v.z}) {
            put(value);
            row += ',';
        }
        put(pm.w);
        row += '\n';
        out << row;
    }
}

void write_bodies_csv(const std::string& path, const HostState& s, Precision p) {
    AtomicFile file(path);
    write_bodies_csv(file, s, p);
    file.commit();
}

// --- logs -------------------------------------------------------------------------------------------

EnergyLog::EnergyLog(const std::string& path) : file_(path) {
    file_.stream() << "step,t,kinetic,potential,total,rel_drift,px,py,pz\n";
}

void EnergyLog::write(std::int64_t step, double t, const Diagnostics& d, double rel_drift) {
    char buf[64];
    std::string row = std::to_string(step);
    auto put = [&](double v) {
        row += ',';
        row += format_shortest(buf, sizeof buf, v);
    };
    put(t);
    put(d.kinetic);
    // Without a potential the energy columns are left empty rather than filled with a wrong number.
    if (d.has_potential) {
        put(d.potential);
        put(d.total());
        put(rel_drift);
    } else {
        row += ",,,";
    }
    put(d.momentum.x);
    put(d.momentum.y);
    put(d.momentum.z);
    row += '\n';
    file_.stream() << row;
}

TrajectoryLog::TrajectoryLog(const std::string& path) : file_(path) {
    file_.stream() << "step,t,body,x,y,z\n";
}

void TrajectoryLog::write(std::int64_t step, const HostState& s) {
    char buf[64];
    std::string prefix = std::to_string(step) + ",";
    prefix += format_shortest(buf, sizeof buf, s.t);
    prefix += ',';
    std::string row;
    for (std::size_t i = 0; i < s.size(); ++i) {
        row = prefix;
        row += std::to_string(i);
        for (const double v : {s.pos_mass[i].x, s.pos_mass[i].y, s.pos_mass[i].z}) {
            row += ',';
            row += format_shortest(buf, sizeof buf, v);
        }
        row += '\n';
        file_.stream() << row;
    }
}

}  // namespace nbody
