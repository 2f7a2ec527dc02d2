#include "csv_io.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "input_file.hpp"
#include "sim/error.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

namespace nbody {
namespace {

constexpr std::array<const char*, 7> kColumns = {"x", "y", "z", "vx", "vy", "vz", "m"};
constexpr const char* kHeader = "x,y,z,vx,vy,vz,m";
// The optional radius column (sim/state.hpp): written when some body has a radius, read when present.
constexpr const char* kRadiusColumn = "r";

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

[[noreturn]] void fail_at(const std::string& path, std::size_t line_no, const std::string& problem) {
    throw Error(path + ":" + std::to_string(line_no) + ": " + problem);
}

}  // namespace

// --- reading ----------------------------------------------------------------------------------------

HostState read_bodies_csv(const std::string& path, BodySource* source, std::vector<std::string>* preamble) {
    InputFile in(path);

    // Where each of x, y, z, vx, vy, vz, m sits in the header.
    std::array<std::size_t, kColumns.size()> column{};
    std::size_t header_cells = 0;
    std::size_t radius_column = std::size_t(-1);  // none: every body is a point (radius 0)
    bool have_header = false;

    HostState s;
    std::vector<std::size_t> lines;
    std::string line;
    std::size_t line_no = 0;
    auto fail = [&](const std::string& problem) { fail_at(path, line_no, problem); };

    while (in.read_line(line, line_no + 1)) {
        ++line_no;
        if (preamble && !have_header) preamble->push_back(line);
        std::string_view text = line;
        // UTF-16 (Excel's "Unicode text", PowerShell's default): a byte order mark, or NUL bytes beside
        // ASCII. Said at once rather than as the strange cells it would otherwise split into.
        if (text.find('\0') != std::string_view::npos ||
            (line_no == 1 && (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")))) {
            fail("looks UTF-16 (a byte order mark or NUL bytes): save it as UTF-8");
        }
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
                if (cells[c] == kRadiusColumn) {
                    if (radius_column != std::size_t(-1)) fail("column 'r' appears twice");
                    radius_column = c;
                }
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
            if (!missing.empty()) {
                // A header of names between tabs and no comma: a spreadsheet's "tab-separated" export.
                const bool tabs =
                    text.find('\t') != std::string_view::npos && text.find(',') == std::string_view::npos;
                fail("missing column(s) " + missing + " in the header (need " + kHeader + ")" +
                     (tabs ? "; it looks tab-separated: nbody reads comma-separated values" : ""));
            }
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
                fail("non-numeric value " + quote_excerpt(cell) + " in column " + col);
            if (status == ParseStatus::out_of_range)
                fail("value " + quote_excerpt(cell) + " out of range in column " + col);
            if (!is_finite_bits(v[k])) fail("non-finite value " + quote_excerpt(cell) + " in column " + col);
        }
        if (!(v[6] > 0)) fail("mass must be > 0 (got " + quote_excerpt(cells[column[6]]) + ")");
        double r = 0;
        if (radius_column != std::size_t(-1)) {
            const std::string_view cell = cells[radius_column];
            const ParseStatus status = parse_double(cell, r);
            if (status != ParseStatus::ok || !is_finite_bits(r) || r < 0)
                fail("radius must be a finite number >= 0 in column r (got " + quote_excerpt(cell) + ")");
        }
        s.pos_mass.push_back({v[0], v[1], v[2], v[6]});
        s.vel.push_back({v[3], v[4], v[5], r});
        lines.push_back(line_no);
    }
    if (!have_header) {
        throw Error(path + ": empty file (expected a header '" + kHeader + "' and one body a line)" +
                    (in.is_pipe() && line_no == 0 ? "; a pipe or FIFO with no writer reads as empty" : ""));
    }
    if (s.size() == 0) throw Error(path + ": no bodies after the header");
    if (source) *source = {path, std::move(lines)};
    return s;
}

// --- writing ----------------------------------------------------------------------------------------

void write_bodies_csv(AtomicFile& file, const HostState& s, Precision p) {
    std::ostream& out = file.stream();
    // Points only (every radius 0): the file is as it was before bodies had radii.
    const bool radii =
        std::any_of(s.vel.begin(), s.vel.end(), [](const Vec4<double>& v) { return v.w != 0; });
    out << kHeader << (radii ? std::string(",") + kRadiusColumn : std::string()) << '\n';
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
        if (radii) {
            row += ',';
            put(v.w);
        }
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

std::string format_time(double t, double resolution) {
    if (t == 0) return "0";
    if (!(resolution > 0) || !std::isfinite(resolution) || !std::isfinite(t)) {
        char buf[64];
        return std::string(format_shortest(buf, sizeof buf, t));
    }
    const int digits = int(std::floor(std::log10(std::abs(t)))) - int(std::floor(std::log10(resolution))) + 1;
    return format_g(t, std::clamp(digits, 1, 17));
}

std::string TimeText::operator()(double t) {
    std::string text = format_time(t, resolution_);
    if (any_ && text == last_text_ && t != last_) text = format_time(t, 0);
    any_ = true;
    last_ = t;
    last_text_ = text;
    return text;
}

EnergyLog::EnergyLog(const std::string& path, const std::string& preamble, bool energy_lost,
                     double time_resolution, bool work, bool neighbours)
    : file_(path),
      energy_lost_(energy_lost),
      work_(work),
      neighbours_(work && neighbours),
      time_text_(time_resolution) {
    file_.stream() << preamble << "step,t,kinetic,potential,total,rel_drift,px,py,pz"
                   << (energy_lost ? ",e_lost" : "") << (work ? ",blocks,force_evaluations" : "")
                   << (neighbours_ ? ",neighbour_evaluations" : "") << "\n";
    file_.end_record();
}

void EnergyLog::write(std::int64_t step, double t, const Diagnostics& d, double rel_drift, double energy_lost,
                      std::int64_t blocks, std::uint64_t force_evaluations,
                      std::uint64_t neighbour_evaluations) {
    char buf[64];
    std::string row = std::to_string(step);
    auto put = [&](double v) {
        row += ',';
        row += format_shortest(buf, sizeof buf, v);
    };
    row += ',';
    row += time_text_(t);
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
    if (energy_lost_) put(energy_lost);
    if (work_) row += ',' + std::to_string(blocks) + ',' + std::to_string(force_evaluations);
    if (neighbours_) row += ',' + std::to_string(neighbour_evaluations);
    row += '\n';
    file_.stream() << row;
    file_.end_record();
}

CollisionLog::CollisionLog(const std::string& path, const std::string& preamble, double time_resolution)
    : file_(path), time_text_(time_resolution) {
    file_.stream() << preamble << "step,t,i,j,mi,mj,speed,energy_lost,kind\n";
    file_.end_record();
}

void CollisionLog::write(std::int64_t step, const std::vector<CollisionEvent>& events) {
    if (events.empty()) return;
    char buf[64];
    std::string rows;
    for (const CollisionEvent& e : events) {
        rows += std::to_string(step);
        rows += ',';
        rows += time_text_(e.t);
        rows += ',' + std::to_string(e.i) + ',' + std::to_string(e.j);
        for (const double v : {e.mi, e.mj, e.speed, e.energy_lost}) {
            rows += ',';
            rows += format_shortest(buf, sizeof buf, v);
        }
        rows += e.merged ? ",merge\n" : ",bounce\n";
    }
    file_.stream() << rows;
    file_.end_record();
}

TrajectoryLog::TrajectoryLog(const std::string& path, const std::string& preamble, double time_resolution)
    : file_(path), time_text_(time_resolution) {
    file_.stream() << preamble << "step,t,body,x,y,z\n";
    file_.end_record();
}

void TrajectoryLog::write(std::int64_t step, const HostState& s) {
    char buf[64];
    std::string prefix = std::to_string(step) + ",";
    prefix += time_text_(s.t);
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
    file_.end_record();
}

}  // namespace nbody
