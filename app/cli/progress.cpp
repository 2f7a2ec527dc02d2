#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <ostream>
#include <string>
#include <utility>

#include "sim/io/csv_io.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/util.hpp"

namespace nbody {

std::string block_work_detail(double t, double dt_max, std::int64_t blocks, std::uint64_t body_updates,
                              std::uint64_t neighbour_updates, bool neighbours) {
    return "t = " + format_time(t, std::abs(dt_max) / 1000) + ", " + std::to_string(blocks) + " blocks, " +
           format_g(double(body_updates), 3) +
           (neighbours ? " full force+jerk evaluations, " + format_g(double(neighbour_updates), 3) +
                             " neighbour evaluations"
                       : std::string(" force+jerk evaluations"));
}
std::string max_step_under_way_detail(double t, double dt_max, std::int64_t blocks) {
    return "t = " + format_time(t, std::abs(dt_max) / 1000) + ", a max step under way, " +
           std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") + " into it";
}

namespace {

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// "42 s", "3 min 05 s", "1 h 02 min": an ETA a person reads at a glance.
std::string duration_text(double s) {
    if (!std::isfinite(s) || s < 0) return "?";
    const long long total = std::llround(s);
    char buf[64];
    if (total < 60) {
        std::snprintf(buf, sizeof buf, "%lld s", total);
    } else if (total < 3600) {
        std::snprintf(buf, sizeof buf, "%lld min %02lld s", total / 60, total % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%lld h %02lld min", total / 3600, (total % 3600) / 60);
    }
    return buf;
}

}  // namespace

ProgressSettings progress_settings_from_environment(bool quiet) {
    ProgressSettings s;
    s.enabled = !quiet;
    s.terminal = ::isatty(STDERR_FILENO) == 1;
    if (const char* env = std::getenv("NBODY_PROGRESS_SECONDS")) {
        char* end = nullptr;
        const double v = std::strtod(env, &end);
        if (end != env && *end == '\0' && v >= 0 && std::isfinite(v)) {
            s.plain_interval_s = v;
            s.terminal = false;  // a script that sets the cadence wants plain lines
        } else {
            // Said once per value (bench builds several progress lines), never silently ignored.
            static std::string said_for;
            if (!quiet && said_for != env) {
                std::cerr << "nbody: warning: NBODY_PROGRESS_SECONDS=" << quote_excerpt(env)
                          << " is not a number of seconds >= 0: ignored (plain lines every "
                          << format_g(s.plain_interval_s) << " s)\n";
                said_for = env;
            }
        }
    }
    return s;
}

Progress::Progress(std::string label, std::int64_t total_steps, double interactions_per_step,
                   ProgressSettings s, std::ostream& out)
    : label_(std::move(label)),
      total_(std::max<std::int64_t>(total_steps, 1)),
      interactions_per_step_(interactions_per_step),
      settings_(s),
      out_(out),
      start_s_(now_s()),
      last_print_s_(start_s_) {}

Progress::~Progress() {
    finish();
}

std::string Progress::line(double done, double elapsed_s) const {
    const double pct = 100.0 * done / static_cast<double>(total_);
    std::string text = label_ + ": " + unit_ + " " + std::to_string(std::int64_t(std::floor(done))) + "/" +
                       std::to_string(total_) + " (" + fmt("%.0f", std::floor(pct)) + "%)";
    if (!detail_.empty()) text += ", " + detail_;
    if (elapsed_s > 0 && done > 0) {
        const double steps_per_s = done / elapsed_s;
        text += ", " + fmt("%.3g", steps_per_s) + " " + units_ + "/s, ";
        // 0: the interactions per step vary (an adaptive integrator), none shown.
        if (interactions_per_step_ > 0)
            text += fmt("%.3g", steps_per_s * interactions_per_step_) + " interactions/s, ";
        text += "ETA " + duration_text((static_cast<double>(total_) - done) / steps_per_s);
    }
    return text;
}

void Progress::set_units(std::string one, std::string many) {
    const std::lock_guard<std::mutex> lock(mutex_);
    unit_ = std::move(one);
    units_ = std::move(many);
}

void Progress::set_detail(std::string detail) {
    const std::lock_guard<std::mutex> lock(mutex_);
    detail_ = std::move(detail);
}

void Progress::update(std::int64_t done) {
    const std::lock_guard<std::mutex> lock(mutex_);
    print(static_cast<double>(done));
}

void Progress::update_within(double done, std::string detail) {
    const std::lock_guard<std::mutex> lock(mutex_);
    detail_ = std::move(detail);
    print(done);
}

void Progress::print(double done) {
    if (!settings_.enabled || finished_) return;
    const double now = now_s();
    const double interval = settings_.terminal ? settings_.live_interval_s : settings_.plain_interval_s;
    if (now - last_print_s_ < interval) return;
    last_print_s_ = now;
    const std::string text = line(done, now - start_s_);
    if (settings_.terminal) {
        // Carriage return, the line, then erase what a longer earlier line left to its right.
        out_ << '\r' << text << "\x1b[K" << std::flush;
        live_line_open_ = true;
        set_live_terminal_line(true);
    } else {
        out_ << "nbody " << text << '\n' << std::flush;
    }
}

void Progress::finish() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (live_line_open_) {
        out_ << "\r\x1b[K" << std::flush;  // the summary replaces the live line
        set_live_terminal_line(false);
    }
}

std::int64_t next_chunk(std::int64_t previous_steps, double previous_seconds, std::int64_t remaining,
                        double target_s) {
    if (remaining <= 0) return 0;
    std::int64_t k = 1;
    if (previous_steps > 0 && previous_seconds > 0) {
        const double per_step = previous_seconds / static_cast<double>(previous_steps);
        const double want = std::floor(target_s / per_step);
        // At most 4x growth per call: one fast chunk (caches warm) must not schedule an hour of silence.
        const double cap = 4.0 * static_cast<double>(previous_steps);
        k = static_cast<std::int64_t>(std::clamp(want, 1.0, std::max(cap, 1.0)));
    } else if (previous_steps > 0) {
        k = 4 * previous_steps;  // too fast to measure
    }
    return std::clamp<std::int64_t>(k, 1, remaining);
}

}  // namespace nbody
