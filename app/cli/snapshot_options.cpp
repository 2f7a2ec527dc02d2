#include "snapshot_options.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include "sim/error.hpp"
#include "sim/integrate/block_steps.hpp"
#include "sim/platform/file_identity.hpp"
#include "sim/util.hpp"

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody {

void add_snapshot_flags(CLI::App& cmd, SnapshotOptions& o, ScenarioOptions& scenario) {
    cmd.add_option_function<std::string>(
           "--snapshot-every",
           [&o](const std::string& s) {
               std::int64_t v = 0;
               const char* end = s.data() + s.size();
               const auto [ptr, ec] = std::from_chars(s.data(), end, v);
               if (ec != std::errc() || ptr != end || v < 1)
                   throw Error("--snapshot-every must be an integer >= 1 (got '" + s + "')");
               o.every = v;
           },
           "write an HDF5 snapshot every K steps into --snapshot-dir (snap_<step>.h5, each complete or "
           "absent)")
        ->type_name("K");
    cmd.add_option_function<std::string>(
           "--snapshot-dir",
           [&o](const std::string& s) {
               if (s.empty()) throw Error("--snapshot-dir needs a directory name (got an empty one)");
               o.dir = s;
           },
           "directory for --snapshot-every (created if missing; one that holds snap_*.h5 files is refused "
           "unless --overwrite, or --restart continues its own series there)")
        ->type_name("DIR");
    cmd.add_flag("--overwrite", o.overwrite,
                 "let --snapshot-dir replace the snapshot files of an earlier series there (the run's "
                 "input is never replaced)");
    cmd.add_option_function<std::string>(
           "--restart",
           [&scenario](const std::string& s) {
               if (s.empty()) throw Error("--restart needs a file name (got an empty one)");
               scenario.restart = s;
           },
           "continue the run saved in this HDF5 snapshot exactly (its bodies, parameters, precision and step "
           "count; --steps more steps)")
        ->type_name("FILE.h5");
}

void check_output_format(const std::string& flag, const std::string& path) {
    if (require_format(flag, path) == FileFormat::hdf5 && !have_hdf5()) {
        throw Error(flag + " '" + path +
                    "': this nbody was built without HDF5 support (install libhdf5-dev and "
                    "reconfigure); use .csv or .tipsy");
    }
}

bool snapshot_keeps(const Scenario& sc, const BlockState& b, std::size_t n) {
    return b.precision == sc.precision && b.size() == n && same_block_model_but_dt(b.model, sc.params);
}

Snapshot make_snapshot(const Scenario& sc, const HostState& s, std::int64_t step,
                       std::optional<BlockState> block) {
    Snapshot snap;
    if (block && snapshot_keeps(sc, *block, s.size())) snap.block = std::move(block);
    snap.state = s;
    snap.info.has_params = true;
    snap.info.params = sc.params;
    snap.info.step = step;
    snap.info.precision = sc.precision;
    snap.info.preset = sc.preset;
    snap.info.seed = sc.seed;
    snap.info.program_version = NBODY_VERSION;
    return snap;
}

std::string snapshot_series_path(const std::string& dir, std::int64_t step) {
    char name[64];
    std::snprintf(name, sizeof name, "snap_%06lld.h5", static_cast<long long>(step));
    return (std::filesystem::path(dir) / name).string();
}

namespace {

// The step of a series file's name ("snap_000100.h5" -> 100), or -1 for any other name.
std::int64_t series_step(const std::string& name) {
    constexpr std::size_t kPrefix = 5, kSuffix = 3;  // "snap_", ".h5"
    if (name.size() <= kPrefix + kSuffix || name.rfind("snap_", 0) != 0 ||
        name.compare(name.size() - kSuffix, kSuffix, ".h5") != 0) {
        return -1;
    }
    std::int64_t step = 0;
    const char* first = name.data() + kPrefix;
    const char* last = name.data() + name.size() - kSuffix;
    const auto [ptr, ec] = std::from_chars(first, last, step);
    return ec == std::errc() && ptr == last && step >= 0 ? step : -1;
}

// The steps of the series files already in `dir`, sorted.
std::vector<std::int64_t> existing_series_steps(const std::string& dir) {
    namespace fs = std::filesystem;
    std::vector<std::int64_t> steps;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::int64_t step = series_step(it->path().filename().string());
        if (step >= 0) steps.push_back(step);
    }
    if (ec) throw Error("--snapshot-dir " + quote_excerpt(dir, 1024) + ": cannot list it: " + ec.message());
    std::sort(steps.begin(), steps.end());
    return steps;
}

}  // namespace

SnapshotSeries::SnapshotSeries(const SnapshotOptions& o, const Scenario& sc, const ScenarioOptions& from)
    : every_(o.every), dir_(o.dir) {
    if (every_ > 0 && dir_.empty())
        throw Error("--snapshot-every needs --snapshot-dir DIR (where to write them)");
    if (every_ == 0 && !dir_.empty())
        throw Error("--snapshot-dir needs --snapshot-every K (how often to write)");
    if (o.overwrite && !active()) throw Error("--overwrite applies to a --snapshot-dir series: give one");
    if (!active()) return;
    if (!have_hdf5()) {
        throw Error(
            "--snapshot-every writes HDF5 snapshots, but this nbody was built without HDF5 support (install "
            "libhdf5-dev and reconfigure)");
    }
    namespace fs = std::filesystem;
    const std::string shown = quote_excerpt(dir_, 1024);
    std::error_code ec;
    if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
        throw Error("--snapshot-dir " + shown + " exists and is not a directory");
    fs::create_directories(dir_, ec);
    if (ec) throw Error("--snapshot-dir " + shown + ": cannot create it: " + ec.message());

    // Locked before looking inside: a second run started at the same moment waits for nothing and sees
    // the lock, instead of both finding the directory empty.
    lock_.fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_.fd < 0) throw Error("--snapshot-dir " + shown + ": cannot open it: " + std::strerror(errno));
    if (::flock(lock_.fd, LOCK_EX | LOCK_NB) != 0) {
        throw Error("--snapshot-dir " + shown +
                    ": another nbody run is writing a snapshot series there right now (choose another "
                    "directory)");
    }

    // An --input in the directory would be written over by the step-0 snapshot of its own step, or a
    // later one; a --restart never writes its own step, so it may continue the series it came from.
    check_directory_holds_no_input("--snapshot-dir", dir_, {{"--input", from.input}});
    if (!from.input.empty()) inputs_.push_back(from.input);
    if (!from.restart.empty()) inputs_.push_back(from.restart);
    const bool continuing = !from.restart.empty() && lies_in_directory(from.restart, dir_);
    if (o.overwrite) return;
    const std::vector<std::int64_t> steps = existing_series_steps(dir_);
    if (steps.empty()) return;
    if (continuing && steps.back() <= sc.step) return;  // its own series, up to the step it restarts from
    const std::string files = snapshot_series_path("", steps.front()) +
                              (steps.size() > 1 ? " to " + snapshot_series_path("", steps.back()) : "") +
                              ", " + std::to_string(steps.size()) + " file" + (steps.size() > 1 ? "s" : "");
    if (continuing) {
        throw Error("--snapshot-dir " + shown + " already holds snapshots beyond step " +
                    std::to_string(sc.step) + " of --restart's series (" + files +
                    "): continuing from an earlier one would replace them; give --overwrite to do so, or "
                    "another directory");
    }
    throw Error("--snapshot-dir " + shown + " already holds a snapshot series (" + files +
                "): this run's would mix with it; choose another directory, remove them, or give --overwrite "
                "to replace them");
}

SnapshotSeries::Descriptor::~Descriptor() {
    if (fd >= 0) ::close(fd);
}

std::int64_t SnapshotSeries::next_after(std::int64_t step) const {
    constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();
    if (!active()) return never;
    // Checked: --snapshot-every may be up to 2^63 - 1 itself.
    std::int64_t next = 0;
    if (__builtin_mul_overflow(step / every_ + 1, every_, &next)) return never;
    return next;
}

std::string SnapshotSeries::write(const Scenario& sc, const HostState& s, std::int64_t step,
                                  std::optional<BlockState> block) const {
    const std::string path = snapshot_series_path(dir_, step);
    // The last guard: a --restart file named like a step it does not hold (renamed, copied) is still never
    // replaced.
    for (const std::string& input : inputs_) {
        if (file_identity(input) && file_identity(input) == file_identity(path)) {
            throw Error("the snapshot of step " + std::to_string(step) + " would replace the run's input " +
                        quote_excerpt(input, 1024) + " (choose another --snapshot-dir)");
        }
    }
    write_snapshot(path, make_snapshot(sc, s, step, std::move(block)));
    ++written_;
    return path;
}

}  // namespace nbody
