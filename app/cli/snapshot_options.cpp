#include "snapshot_options.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <system_error>

#include "sim/error.hpp"

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
           "directory for --snapshot-every (created if missing)")
        ->type_name("DIR");
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

Snapshot make_snapshot(const Scenario& sc, const HostState& s, std::int64_t step) {
    Snapshot snap;
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

SnapshotSeries::SnapshotSeries(const SnapshotOptions& o, const Scenario& sc) : every_(o.every), dir_(o.dir) {
    (void)sc;
    if (every_ > 0 && dir_.empty())
        throw Error("--snapshot-every needs --snapshot-dir DIR (where to write them)");
    if (every_ == 0 && !dir_.empty())
        throw Error("--snapshot-dir needs --snapshot-every K (how often to write)");
    if (!active()) return;
    if (!have_hdf5()) {
        throw Error(
            "--snapshot-every writes HDF5 snapshots, but this nbody was built without HDF5 support (install "
            "libhdf5-dev and reconfigure)");
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
        throw Error("--snapshot-dir '" + dir_ + "' exists and is not a directory");
    fs::create_directories(dir_, ec);
    if (ec) throw Error("--snapshot-dir '" + dir_ + "': cannot create it: " + ec.message());
}

std::int64_t SnapshotSeries::next_after(std::int64_t step) const {
    if (!active()) return std::numeric_limits<std::int64_t>::max();
    return (step / every_ + 1) * every_;
}

std::string SnapshotSeries::write(const Scenario& sc, const HostState& s, std::int64_t step) const {
    const std::string path = snapshot_series_path(dir_, step);
    write_snapshot(path, make_snapshot(sc, s, step));
    ++written_;
    return path;
}

}  // namespace nbody
