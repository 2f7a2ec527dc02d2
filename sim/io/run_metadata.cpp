#include "run_metadata.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>

#include "input_file.hpp"
#include "sim/error.hpp"

namespace nbody {
namespace {

constexpr const char* kMarkerStart = "# nbody ";
constexpr const char* kMarkerEnd = " parameters (read back by --input as defaults)";

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    const std::size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

bool parse_number(const std::string& text, double& out) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

}  // namespace

void RunMetadata::set(const std::string& key, const std::string& value) {
    for (auto& [k, v] : entries) {
        if (k == key) {
            v = value;
            return;
        }
    }
    entries.emplace_back(key, value);
}

void RunMetadata::set(const std::string& key, double value) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    set(key, std::string(buf, r.ptr));
}

const std::string* RunMetadata::get(const std::string& key) const {
    for (const auto& [k, v] : entries) {
        if (k == key) return &v;
    }
    return nullptr;
}

std::string format_metadata(const RunMetadata& m, const std::string& version) {
    std::string out = kMarkerStart + version + kMarkerEnd + "\n";
    for (const auto& [k, v] : m.entries) out += "# " + k + " = " + v + "\n";
    return out;
}

std::optional<RunMetadata> read_metadata(const std::string& path) {
    // InputFile: a FIFO read a second time (the bodies were read first) must not block in open().
    InputFile in(path);
    RunMetadata m;
    bool marked = false;
    std::string line;
    std::size_t line_no = 0;
    while (in.read_line(line, ++line_no)) {
        const std::string text = trim(line);
        if (text.empty()) continue;
        if (text[0] != '#') break;  // the header: parameters come only before it
        if (text.starts_with(kMarkerStart) && text.ends_with(kMarkerEnd)) {
            marked = true;
            const std::size_t a = std::strlen(kMarkerStart), b = text.size() - std::strlen(kMarkerEnd);
            if (b > a) m.set("version", text.substr(a, b - a));
            continue;
        }
        const std::size_t eq = text.find('=');
        if (!marked || eq == std::string::npos) continue;
        const std::string key = trim(text.substr(1, eq - 1));
        if (!key.empty()) m.set(key, trim(text.substr(eq + 1)));
    }
    if (!marked) return std::nullopt;
    return m;
}

std::vector<std::string> apply_metadata(const RunMetadata& m, const std::string& path,
                                        const std::vector<std::string>& keep, Params& p, double& t) {
    std::vector<std::string> applied;
    auto wanted = [&](const char* key) -> const std::string* {
        const std::string* v = m.get(key);
        if (!v || std::find(keep.begin(), keep.end(), key) != keep.end()) return nullptr;
        return v;
    };
    auto bad = [&](const char* key, const std::string& value) {
        return Error(path + ": bad value '" + value + "' for " + key + " in the parameter lines");
    };
    const std::pair<const char*, double*> numbers[] = {{"G", &p.G},   {"softening", &p.softening},
                                                       {"dt", &p.dt}, {"damping", &p.damping},
                                                       {"t", &t},     {"eta", &p.eta}};
    for (const auto& [key, target] : numbers) {
        const std::string* v = wanted(key);
        if (!v) continue;
        double x = 0;
        if (!parse_number(*v, x) || !std::isfinite(x)) throw bad(key, *v);
        *target = x;
        applied.emplace_back(key);
    }
    if (const std::string* v = wanted("integrator")) {
        const auto i = parse_integrator(*v);
        if (!i) throw bad("integrator", *v);
        p.integrator = *i;
        applied.emplace_back("integrator");
    }
    return applied;
}

}  // namespace nbody
