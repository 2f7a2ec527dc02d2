#include "run_metadata.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>

#include "input_file.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"

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
    // InputFile: a FIFO must not block in open(). (A pipe's parameters come from the one pass that read
    // its bodies: read_bodies_csv's preamble and parse_metadata.)
    InputFile in(path);
    std::vector<std::string> lines;
    std::string line;
    while (in.read_line(line, lines.size() + 1)) {
        const std::string text = trim(line);
        if (!text.empty() && text[0] != '#') break;  // the header: parameters come only before it
        lines.push_back(line);
    }
    return parse_metadata(lines, path);
}

std::optional<RunMetadata> parse_metadata(const std::vector<std::string>& lines, const std::string& path) {
    RunMetadata m;
    bool marked = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string text = trim(lines[i]);
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
        if (key.empty()) continue;
        // Which of two values would count is a guess: say so instead of taking the last.
        if (m.get(key)) {
            throw Error(path + ":" + std::to_string(i + 1) + ": " + quote_excerpt(key) +
                        " is given twice in the parameter lines");
        }
        m.set(key, trim(text.substr(eq + 1)));
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
    std::vector<std::pair<const char*, double*>> numbers = {
        {"G", &p.G}, {"softening", &p.softening},     {"dt", &p.dt},          {"damping", &p.damping},
        {"t", &t},   {"restitution", &p.restitution}, {"density", &p.density}};
    for (const SettingInfo* s : all_settings()) numbers.emplace_back(s->name, &(p.*s->field));
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
    if (const std::string* v = wanted("collisions")) {
        const auto c = parse_collision_mode(*v);
        if (!c) throw bad("collisions", *v);
        p.collisions = *c;
        applied.emplace_back("collisions");
    }
    if (const std::string* v = wanted("force")) {
        const auto f = parse_force_algorithm(*v);
        if (!f) throw bad("force", *v);
        p.force = *f;
        applied.emplace_back("force");
    }
    return applied;
}

RunMetadata csv_metadata(const Snapshot& s) {
    RunMetadata m;
    const RunInfo& info = s.info;
    if (!info.preset.empty()) {
        m.set("preset", info.preset);
        m.set("seed", std::to_string(info.seed));
    }
    m.set("N", std::to_string(s.state.size()));
    m.set("G", info.params.G);
    m.set("softening", info.params.softening);
    m.set("dt", info.params.dt);
    m.set("damping", info.params.damping);
    m.set("integrator", to_string(info.params.integrator));
    m.set("force", to_string(info.params.force));
    for (const SettingInfo* setting : settings_used(info.params))
        m.set(setting->name, info.params.*setting->field);
    // Only with collisions on: the files of a run without them stay as they were.
    if (info.params.collisions != CollisionMode::off) {
        m.set("collisions", to_string(info.params.collisions));
        m.set("restitution", info.params.restitution);
        m.set("density", info.params.density);
    }
    m.set("precision", to_string(info.precision));
    m.set("t", s.state.t);
    m.set("step", std::to_string(info.step));
    return m;
}

void read_run_info(const RunMetadata& m, const std::string& path, RunInfo& info, double& t) {
    info.has_params = true;
    info.params = Params{};
    apply_metadata(m, path, {}, info.params, t);
    auto whole = [&](const char* key, auto& out) {
        const std::string* v = m.get(key);
        if (!v) return;
        const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
        if (ec != std::errc() || ptr != v->data() + v->size()) {
            throw Error(path + ": bad value '" + *v + "' for " + key + " in the parameter lines");
        }
    };
    whole("step", info.step);
    if (info.step < 0 || info.step > kMaxStepCounter) {
        throw Error(path + ": step = " + std::to_string(info.step) + " in the parameter lines is " +
                    (info.step < 0 ? "negative" : "beyond any run (damaged file?)"));
    }
    whole("seed", info.seed);
    if (const std::string* v = m.get("preset")) info.preset = *v;
    if (const std::string* v = m.get("precision")) {
        if (const auto p = parse_precision(*v)) info.precision = *p;
    }
    if (const std::string* v = m.get("version")) info.program_version = *v;
}

}  // namespace nbody
