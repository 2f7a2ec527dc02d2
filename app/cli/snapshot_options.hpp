#pragma once
// Snapshots during `nbody run`: --snapshot-every K --snapshot-dir DIR writes DIR/snap_<step>.h5 every K
// steps (each file complete or absent), and --restart FILE.h5 continues a run from one of them.
#include <cstdint>
#include <string>

#include "scenario_flags.hpp"
#include "sim/io/snapshot.hpp"

namespace CLI {
class App;
}

namespace nbody {

struct SnapshotOptions {
    std::int64_t every = 0;  // 0: no series
    std::string dir;         // where the series goes
};

// Adds --snapshot-every, --snapshot-dir and --restart (into scenario.restart) to a command.
void add_snapshot_flags(CLI::App& cmd, SnapshotOptions& o, ScenarioOptions& scenario);

// Throws nbody::Error now (before a long run) if `path`'s extension names no format, or HDF5 in a build
// without it.
void check_output_format(const std::string& flag, const std::string& path);

// The snapshot of a run's bodies `s` at global step `step`, with the run's parameters and provenance.
Snapshot make_snapshot(const Scenario& sc, const HostState& s, std::int64_t step);

// "DIR/snap_000100.h5": the series file of a global step.
std::string snapshot_series_path(const std::string& dir, std::int64_t step);

// Writes the series of one run. Steps are global (a restarted run goes on numbering where it stopped).
class SnapshotSeries {
  public:
    // Checks the options (K > 0 needs a directory and vice versa) and creates the directory if missing.
    // Throws nbody::Error with one line on bad options or an unusable directory.
    SnapshotSeries(const SnapshotOptions& o, const Scenario& sc);
    bool active() const { return every_ > 0; }
    // The first global step after `step` that gets a snapshot (a huge number when inactive).
    std::int64_t next_after(std::int64_t step) const;
    bool due(std::int64_t step) const { return active() && step % every_ == 0; }
    // Writes the snapshot of global step `step` atomically. Returns its path.
    std::string write(const Scenario& sc, const HostState& s, std::int64_t step) const;
    std::int64_t written() const { return written_; }

  private:
    std::int64_t every_ = 0;
    std::string dir_;
    mutable std::int64_t written_ = 0;
};

}  // namespace nbody
