#include "run_settings.hpp"

#include <algorithm>

#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "util.hpp"

namespace nbody {

std::vector<const SettingInfo*> all_settings() {
    std::vector<const SettingInfo*> out;
    auto add = [&out](const std::vector<SettingInfo>& settings) {
        for (const SettingInfo& s : settings) {
            if (!find_setting(s.name) || find_setting(s.name) == &s) out.push_back(&s);
        }
    };
    for (const auto& f : builtin_force_algorithms()) add(f.settings);
    for (const auto& i : builtin_integrators()) add(i.settings);
    return out;
}

bool setting_acts(const Params& p, const SettingInfo& s) {
    return !s.needs || p.*s.needs != 0;
}

std::vector<const SettingInfo*> settings_used(const Params& p) {
    std::vector<const SettingInfo*> out;
    for (const auto* settings :
         {&force_algorithm_info(p.force).settings, &integrator_info(p.integrator).settings}) {
        for (const SettingInfo& s : *settings) {
            if (setting_acts(p, s)) out.push_back(&s);
        }
    }
    return out;
}

// The first entry of that name: two registries may share a setting (the same Params field), which then
// has one flag.
const SettingInfo* find_setting(std::string_view name) {
    for (const auto& f : builtin_force_algorithms()) {
        for (const SettingInfo& s : f.settings) {
            if (name == s.name) return &s;
        }
    }
    for (const auto& i : builtin_integrators()) {
        for (const SettingInfo& s : i.settings) {
            if (name == s.name) return &s;
        }
    }
    return nullptr;
}

std::string describe_settings(const Params& p) {
    std::string out;
    for (const SettingInfo* s : settings_used(p)) {
        if (!out.empty()) out += ", ";
        const double v = p.*s->field;
        out += std::string(s->name) + " " + format_g(v);
        if (v == 0 && s->least_nonzero > 0 && s->zero_means) out += std::string(" (") + s->zero_means + ")";
    }
    return out;
}

std::string setting_key(std::string_view name) {
    std::string key(name);
    std::replace(key.begin(), key.end(), '-', '_');
    return key;
}

std::vector<const SettingInfo*> settings_named(const std::vector<SettingInfo>& settings, const Params& p) {
    std::vector<const SettingInfo*> out;
    for (const SettingInfo& s : settings) {
        // A setting at its default 0 says nothing; one whose needed setting is 0 does nothing.
        if ((p.*s.field == 0 && s.default_value() == 0) || !setting_acts(p, s)) continue;
        out.push_back(&s);
    }
    return out;
}

std::string with_settings(const char* name, const std::vector<SettingInfo>& settings, const Params& p) {
    std::string values;
    for (const SettingInfo* s : settings_named(settings, p))
        values += (values.empty() ? "" : ", ") + std::string(s->name) + " " + format_g(p.*s->field);
    return values.empty() ? name : std::string(name) + " (" + values + ")";
}

const SettingInfo* missing_need(const Params& p, const SettingInfo& s) {
    if (setting_acts(p, s)) return nullptr;
    bool belongs = false;
    for (const SettingInfo& t : integrator_info(p.integrator).settings) belongs = belongs || &t == &s;
    for (const SettingInfo& t : force_algorithm_info(p.force).settings) belongs = belongs || &t == &s;
    if (!belongs) return nullptr;
    for (const SettingInfo* t : all_settings()) {
        if (t->field == s.needs) return t;
    }
    return nullptr;
}

std::string setting_range(const SettingInfo& s) {
    const std::string range =
        "[" + format_g(s.least_nonzero > 0 ? s.least_nonzero : s.min) + ", " + format_g(s.max) + "]";
    if (s.least_nonzero <= 0) return "in " + range;
    return std::string("0") + (s.zero_means ? std::string(" (") + s.zero_means + ")" : std::string()) +
           " or in " + range;
}

std::string setting_help(const SettingInfo& s) {
    return std::string(s.help) + " (" + setting_range(s) + ", default " + format_g(s.default_value()) + ")";
}

}  // namespace nbody
