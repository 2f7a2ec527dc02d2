#pragma once
// The settings of force algorithms and integrators (SettingInfo, sim/params.hpp) across both registries:
// the generic code that flags, the panel, validation, files and bench use instead of naming a setting.
#include <string>
#include <string_view>
#include <vector>

#include "params.hpp"

namespace nbody {

// Every setting of every force algorithm and integrator, each name once, in registry order.
std::vector<const SettingInfo*> all_settings();

// The settings p's force algorithm and integrator take: what a run used, so what its files record and
// what the panel shows.
std::vector<const SettingInfo*> settings_used(const Params& p);

// The setting called name (any algorithm's or integrator's), or nullptr.
const SettingInfo* find_setting(std::string_view name);

// "theta 0.6": settings_used(p) with their values, for summaries and labels; empty when there are none.
std::string describe_settings(const Params& p);

// A setting's name with '_' for '-' (eta-regular: eta_regular), as a CSV column or JSON key spells it.
std::string setting_key(std::string_view name);

// Of a registry row's `settings`, those that say what p runs: the ones that act in p, and one that is off
// at its default of 0 (--neighbours) only when on. What `nbody run`'s summary, bench's columns and the
// energy plot's title name.
std::vector<const SettingInfo*> settings_named(const std::vector<SettingInfo>& settings, const Params& p);
// "tree (theta 0.6)", "hermite (eta 0.02, neighbours 8)": the row's name with settings_named's values.
std::string with_settings(const char* name, const std::vector<SettingInfo>& settings, const Params& p);

// The --help text of s: its help line, range and default.
std::string setting_help(const SettingInfo& s);
// Whether s acts in p: it needs no other setting (SettingInfo::needs), or that one is nonzero in p.
bool setting_acts(const Params& p, const SettingInfo& s);
// Where s is a setting of p's force algorithm or integrator that acts only with another nonzero
// (SettingInfo::needs) and that one is 0 in p: that other setting (eta-regular: neighbours); else null.
const SettingInfo* missing_need(const Params& p, const SettingInfo& s);
// Its valid values in words: "in [0.01, 1]", or "0 (eta's value) or in [1e-06, 1]" (least_nonzero).
std::string setting_range(const SettingInfo& s);

}  // namespace nbody
