#pragma once
// Strict parsing of command-line values, one way for every command and flag: the whole text is the value
// (no empty value meaning "default", no trailing junk, no silent saturation at INT64_MAX, no NaN or
// infinity), and a value outside its range is one clear nbody::Error naming the flag and quoting (a capped
// excerpt of) what was typed.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/choice.hpp"  // parse_choice, which the flags use
#include "sim/params.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace nbody {

// An integer in [min, max]. Throws "FLAG must be an integer >= MIN (got 'TEXT')" (or "in [MIN, MAX]").
std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min,
                           std::int64_t max = std::numeric_limits<std::int64_t>::max());

// A finite real number in [lo, hi] ((lo, hi] if lo_open). Throws "FLAG must be a finite number ..." or
// "FLAG must be in [LO, HI] (got 'TEXT')".
struct RealRange {
    double lo = -std::numeric_limits<double>::max();
    double hi = std::numeric_limits<double>::max();
    bool lo_open = false;  // lo itself excluded, e.g. (0, 1e6] for a zoom factor
};
double parse_real(const std::string& flag, const std::string& text, RealRange range = {});

// A name (preset, backend, format...): anything but empty. Which names are valid is the caller's check.
std::string parse_name(const std::string& flag, const std::string& text);

// Parses a body count: a positive integer. Throws "FLAG must be a positive integer (got 'TEXT')".
std::int64_t parse_body_count(const std::string& flag, const std::string& text);

// Parses a random seed. Throws "FLAG must be an integer in [0, 2^64 - 1] (got 'TEXT')".
std::uint64_t parse_seed(const std::string& flag, const std::string& text);

// Returns a file name typed on the command line; throws "FLAG needs a file name" if empty (an empty name
// would otherwise read as "no file").
std::string parse_path(const std::string& flag, const std::string& text);

// The most OpenMP threads --threads (or OMP_NUM_THREADS) may ask for on this machine: 8 per core, at
// least 64. libgomp crashes or aborts far above it (100000 threads: a segfault).
int max_threads();

// Throws unless 0 <= threads <= max_threads() (0: OpenMP's default), and, for 0, unless OMP_NUM_THREADS
// is within max_threads() too.
void check_thread_count(std::int64_t threads);

// Adds --threads N, in [0, max_threads()], to a command.
CLI::Option* add_thread_option(CLI::App& app, int& target);

// CLI11 glue: each adds an option whose text goes through the parser above (names like "--t-end,--x":
// the first is the one errors name). The default shown in --help is the target's current value.
CLI::Option* add_integer_option(CLI::App& app, const std::string& names, std::int64_t& target,
                                std::int64_t min, std::int64_t max, const std::string& help);
CLI::Option* add_integer_option(CLI::App& app, const std::string& names, int& target, std::int64_t min,
                                std::int64_t max, const std::string& help);
CLI::Option* add_integer_option(CLI::App& app, const std::string& names, std::optional<std::int64_t>& target,
                                std::int64_t min, std::int64_t max, const std::string& help);
CLI::Option* add_real_option(CLI::App& app, const std::string& names, float& target, RealRange range,
                             const std::string& help);
CLI::Option* add_real_option(CLI::App& app, const std::string& names, std::optional<double>& target,
                             RealRange range, const std::string& help);
// The flag --NAME of a registry setting (sim/params.hpp's SettingInfo): a finite number the setting's
// in_range accepts, refused in its own words ("--eta-regular must be 0 (eta's value) or in [1e-06, 1]"),
// with setting_help for --help.
CLI::Option* add_setting_option(CLI::App& app, const SettingInfo& s, std::optional<double>& target);
CLI::Option* add_name_option(CLI::App& app, const std::string& names, std::string& target,
                             const std::string& help);
CLI::Option* add_path_option(CLI::App& app, const std::string& names, std::string& target,
                             const std::string& help);
// The entries of a comma-separated list; an empty entry ("serial,,openmp", "serial,") is an error naming
// the flag. (CLI11's own delimiter drops empty entries silently.)
std::vector<std::string> split_list(const std::string& flag, const std::string& text);
// A comma-separated list of names, none of them empty ("serial,,openmp" is an error).
CLI::Option* add_name_list_option(CLI::App& app, const std::string& names, std::vector<std::string>& target,
                                  const std::string& help);

}  // namespace nbody
