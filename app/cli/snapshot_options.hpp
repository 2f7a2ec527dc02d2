#pragma once
// Snapshots during `nbody run`: --snapshot-every K --snapshot-dir DIR writes DIR/snap_<step>.h5 every K
// steps (each file complete or absent), and --restart FILE.h5 continues a run from one of them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario_flags.hpp"
#include "sim/io/snapshot.hpp"

namespace CLI {
class App;
}

namespace nbody {

struct SnapshotOptions {
    std::int64_t every = 0;  // 0: no series
    std::string dir;         // where the series goes
    bool overwrite = false;  // --overwrite: the files of an earlier series in dir may be replaced
};

// Adds --snapshot-every, --snapshot-dir, --overwrite and --restart (into scenario.restart) to a command.
void add_snapshot_flags(CLI::App& cmd, SnapshotOptions& o, ScenarioOptions& scenario);

// Throws nbody::Error now (before a long run) if `path`'s extension names no format, or HDF5 in a build
// without it.
void check_output_format(const std::string& flag, const std::string& path);

// The snapshot of a run's bodies `s` at global step `step`, with the run's parameters and provenance.
// Whether a snapshot of n bodies under sc keeps block state b: where it belongs to sc's parameters (but
// for the max step), precision and bodies.
bool snapshot_keeps(const Scenario& sc, const BlockState& b, std::size_t n);
// `block`: the adaptive integrator's state there (Backend::export_block_state), kept where
// snapshot_keeps; nullopt or another's: the snapshot holds none.
Snapshot make_snapshot(const Scenario& sc, const HostState& s, std::int64_t step,
                       std::optional<BlockState> block = std::nullopt);

// "DIR/snap_000100.h5": the series file of a global step.
std::string snapshot_series_path(const std::string& dir, std::int64_t step);

// Writes the series of one run. Steps are global (a restarted run goes on numbering where it stopped).
// The directory is locked (flock) while this object lives, so two runs never write one series together.
// A directory that already holds snap_*.h5 files is refused (a new series would mix with the old one),
// except with --overwrite, and except for a --restart from a snapshot of that very series when no file of
// it lies beyond the restart's step: that run continues its own series. The run's input is never written
// over, --overwrite or not.
class SnapshotSeries {
  public:
    // Checks the options (K > 0 needs a directory and vice versa), creates the directory if missing and
    // checks it as above. `from` names the run's input files. Throws nbody::Error with one line on bad
    // options, an unusable directory or one that another run is writing.
    SnapshotSeries(const SnapshotOptions& o, const Scenario& sc, const ScenarioOptions& from);
    SnapshotSeries(const SnapshotSeries&) = delete;
    SnapshotSeries& operator=(const SnapshotSeries&) = delete;
    bool active() const { return every_ > 0; }
    // The first global step after `step` that gets a snapshot (a huge number when inactive).
    std::int64_t next_after(std::int64_t step) const;
    bool due(std::int64_t step) const { return active() && step % every_ == 0; }
    // Writes the snapshot of global step `step` atomically. Returns its path.
    std::string write(const Scenario& sc, const HostState& s, std::int64_t step,
                      std::optional<BlockState> block = std::nullopt) const;
    std::int64_t written() const { return written_; }

  private:
    std::int64_t every_ = 0;
    std::string dir_;
    std::vector<std::string> inputs_;  // never written over
    // The directory, flock'ed; a member that closes itself, so a constructor that throws after taking the
    // lock still lets go of it.
    struct Descriptor {
        int fd = -1;
        ~Descriptor();
    } lock_;
    mutable std::int64_t written_ = 0;
};

}  // namespace nbody
