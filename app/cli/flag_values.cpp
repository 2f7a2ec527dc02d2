#include "flag_values.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

#include "sim/error.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

// The flag's first name: "--t-end,--finalTime" -> "--t-end".
std::string first_name(const std::string& names) {
    return names.substr(0, names.find(','));
}

std::string range_text(RealRange r) {
    constexpr double kMax = std::numeric_limits<double>::max();
    if (r.hi == kMax) return std::string(r.lo_open ? "> " : ">= ") + format_g(r.lo);
    if (r.lo == -kMax) return "<= " + format_g(r.hi);
    return "in " + std::string(r.lo_open ? "(" : "[") + format_g(r.lo) + ", " + format_g(r.hi) + "]";
}

}  // namespace

std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min,
                           std::int64_t max) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    // Out of range (ec == result_out_of_range) is rejected like any other bad value: never saturated.
    if (ec != std::errc() || ptr != end || v < min || v > max) {
        const std::string range = max == std::numeric_limits<std::int64_t>::max()
                                      ? ">= " + std::to_string(min)
                                      : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
        throw Error(flag + " must be an integer " + range + " (got " + quote_excerpt(text) + ")");
    }
    return v;
}

double parse_real(const std::string& flag, const std::string& text, RealRange range) {
    if (text.empty()) throw Error(flag + " needs a number (got an empty value)");
    std::string_view digits = text;
    if (digits.size() > 1 && digits.front() == '+' && digits[1] != '-' && digits[1] != '+') {
        digits.remove_prefix(1);
    }
    double v = 0;
    const char* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v)) {
        throw Error(flag + " must be a finite number (got " + quote_excerpt(text) + ")");
    }
    const bool low_ok = range.lo_open ? v > range.lo : v >= range.lo;
    if (!low_ok || v > range.hi) {
        throw Error(flag + " must be " + range_text(range) + " (got " + quote_excerpt(text) + ")");
    }
    return v;
}

std::string parse_name(const std::string& flag, const std::string& text) {
    if (text.empty()) throw Error(flag + " needs a value (got an empty one)");
    return text;
}

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (out.back().empty()) {
            throw Error(flag + " has an empty entry in " + quote_excerpt(text) +
                        " (a comma too many or too few values?)");
        }
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

std::int64_t parse_body_count(const std::string& flag, const std::string& text) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec == std::errc::result_out_of_range)
        throw Error(flag + " is too large (got " + quote_excerpt(text) + ")");
    if (ec != std::errc() || ptr != end || v <= 0) {
        throw Error(flag + " must be a positive integer (got " + quote_excerpt(text) + ")");
    }
    return v;
}

std::uint64_t parse_seed(const std::string& flag, const std::string& text) {
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end) {
        throw Error(flag + " must be an integer in [0, 18446744073709551615] (got " + quote_excerpt(text) +
                    ")");
    }
    return v;
}

std::string parse_path(const std::string& flag, const std::string& text) {
    if (text.empty()) throw Error(flag + " needs a file name (got an empty one)");
    return text;
}

int max_threads() {
    return std::max(64, 8 * omp_get_num_procs());
}

void check_thread_count(std::int64_t threads) {
    const int limit = max_threads();
    if (threads < 0 || threads > limit) {
        throw Error("--threads must be an integer in [0, " + std::to_string(limit) +
                    "] (8 per core, at least 64; got " + std::to_string(threads) + ")");
    }
    if (threads > 0) return;
    // OpenMP reads OMP_NUM_THREADS itself; a huge value there crashes libgomp just the same.
    if (std::getenv("OMP_NUM_THREADS") && omp_get_max_threads() > limit) {
        throw Error("OMP_NUM_THREADS asks for " + std::to_string(omp_get_max_threads()) +
                    " threads, more than the " + std::to_string(limit) +
                    " allowed (8 per core, at least 64)");
    }
}

CLI::Option* add_thread_option(CLI::App& app, int& target) {
    return add_integer_option(app, "--threads", target, 0, max_threads(),
                              "OpenMP threads, at most " + std::to_string(max_threads()) +
                                  " (8 per core, at least 64; default: OMP_NUM_THREADS or every core)");
}

namespace {

// The one integer flag: parsed by parse_integer (one error line naming the flag), handed to `set`.
CLI::Option* integer_flag(CLI::App& app, const std::string& names, std::int64_t min, std::int64_t max,
                          const std::string& help, std::function<void(std::int64_t)> set) {
    const std::string flag = first_name(names);
    return app
        .add_option_function<std::string>(
            names, [flag, set, min, max](const std::string& s) { set(parse_integer(flag, s, min, max)); },
            help)
        ->type_name("K");
}

}  // namespace

CLI::Option* add_integer_option(CLI::App& app, const std::string& names, std::int64_t& target,
                                std::int64_t min, std::int64_t max, const std::string& help) {
    return integer_flag(app, names, min, max, help, [&target](std::int64_t v) { target = v; })
        ->default_str(std::to_string(target));
}

CLI::Option* add_integer_option(CLI::App& app, const std::string& names, int& target, std::int64_t min,
                                std::int64_t max, const std::string& help) {
    min = std::max<std::int64_t>(min, std::numeric_limits<int>::min());
    max = std::min<std::int64_t>(max, std::numeric_limits<int>::max());
    return integer_flag(app, names, min, max, help,
                        [&target](std::int64_t v) { target = static_cast<int>(v); })
        ->default_str(std::to_string(target));
}

CLI::Option* add_integer_option(CLI::App& app, const std::string& names, std::optional<std::int64_t>& target,
                                std::int64_t min, std::int64_t max, const std::string& help) {
    return integer_flag(app, names, min, max, help, [&target](std::int64_t v) { target = v; });
}

CLI::Option* add_real_option(CLI::App& app, const std::string& names, float& target, RealRange range,
                             const std::string& help) {
    const std::string flag = first_name(names);
    // A float target cannot hold more than FLT_MAX: the range says so rather than the cast overflowing.
    range.hi = std::min(range.hi, double(std::numeric_limits<float>::max()));
    range.lo = std::max(range.lo, -double(std::numeric_limits<float>::max()));
    return app
        .add_option_function<std::string>(
            names,
            [flag, &target, range](const std::string& s) { target = float(parse_real(flag, s, range)); },
            help)
        ->type_name("X")
        ->default_str(format_g(target));
}

CLI::Option* add_real_option(CLI::App& app, const std::string& names, std::optional<double>& target,
                             RealRange range, const std::string& help) {
    const std::string flag = first_name(names);
    return app
        .add_option_function<std::string>(
            names, [flag, &target, range](const std::string& s) { target = parse_real(flag, s, range); },
            help)
        ->type_name("X");
}

CLI::Option* add_setting_option(CLI::App& app, const SettingInfo& s, std::optional<double>& target) {
    const std::string flag = std::string("--") + s.name;
    return app
        .add_option_function<std::string>(
            flag,
            [flag, &target, &s](const std::string& text) {
                const double v = parse_real(flag, text);
                if (!s.in_range(v))
                    throw Error(flag + " must be " + setting_range(s) + " (got " + quote_excerpt(text) + ")");
                target = v;
            },
            setting_help(s))
        ->type_name("X");
}

CLI::Option* add_name_option(CLI::App& app, const std::string& names, std::string& target,
                             const std::string& help) {
    const std::string flag = first_name(names);
    CLI::Option* opt = app.add_option_function<std::string>(
        names, [flag, &target](const std::string& s) { target = parse_name(flag, s); }, help);
    if (!target.empty()) opt->default_str(target);
    return opt->type_name("NAME");
}

CLI::Option* add_path_option(CLI::App& app, const std::string& names, std::string& target,
                             const std::string& help) {
    const std::string flag = first_name(names);
    CLI::Option* opt = app.add_option_function<std::string>(
        names, [flag, &target](const std::string& s) { target = parse_path(flag, s); }, help);
    if (!target.empty()) opt->default_str(target);
    return opt->type_name("FILE");
}

CLI::Option* add_name_list_option(CLI::App& app, const std::string& names, std::vector<std::string>& target,
                                  const std::string& help) {
    const std::string flag = first_name(names);
    return app
        .add_option_function<std::vector<std::string>>(
            names,
            [flag, &target](const std::vector<std::string>& v) {
                target.clear();
                for (const auto& text : v) {
                    for (const auto& s : split_list(flag, text)) target.push_back(parse_name(flag, s));
                }
            },
            help)
        ->type_name("NAME,...");
}

}  // namespace nbody
