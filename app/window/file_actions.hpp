#pragma once
// The window's file actions, apart from the window: bodies read from a file (Ctrl+O, a dropped file, a
// replay frame), captured bodies written as a snapshot (Ctrl+S), and the replay of a snapshot series. The
// window queues the loads and captures on its session and shows what these return; the dialog and the
// replay bar are in window_files.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/replay.hpp"
#include "app/cli/scenario_flags.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"

namespace nbody {

struct SessionResult;

// Bodies read from a file, to load in place of the current ones.
struct OpenedFile {
    HostState state;
    std::optional<Params> params;     // a snapshot's own parameters, to run with from now on
    std::int64_t step = 0;            // the step it records (0 for a file without one)
    std::vector<std::string> notes;   // what the reader did that the user should know
    std::optional<BlockState> block;  // an adaptive run's state beside the bodies (HDF5), with params
};

// A snapshot written from captured bodies.
struct SavedSnapshot {
    std::int64_t step = 0;           // the step it records
    std::vector<std::string> notes;  // what the writer did that the user should know
};

// Replay mode's scene: the series' first snapshot, for a serial double session that stays paused (a
// replay never simulates). Throws nbody::Error (one line) on a bad file.
Scenario replay_scenario(const std::vector<std::string>& paths);

// The files of one window session. Owns what they carry from frame to frame: in replay mode, the series
// played back and which of its snapshots is shown.
class FileActions {
  public:
    // Enters replay mode: `paths` are shown in turn instead of simulating; `t` is the first one's time.
    void start_replay(std::vector<std::string> paths, double t);
    // The replay's timeline; null outside replay mode.
    ReplayTimeline* replay() { return replay_.get(); }
    bool replaying() const { return replay_ != nullptr; }
    // Replay mode: how many snapshots, and snapshot k's file.
    std::size_t replay_size() const { return paths_.size(); }
    const std::string& replay_path(std::size_t k) const { return paths_[k]; }
    // The simulated time of the snapshot opened last.
    double shown_time() const { return shown_time_; }
    // Replay mode: the snapshot loaded last (the timeline may be ahead of it while a load is in flight).
    std::size_t shown_frame() const { return shown_frame_; }
    void set_shown_frame(std::size_t k) { shown_frame_ = k; }

    // Reads `path`, checked against the parameters it will run with (a snapshot's own, else `current`) in
    // `precision`. Outside replay mode a snapshot's parameters come with it; its step always does. Throws
    // nbody::Error (one line).
    OpenedFile open(const std::string& path, const Params& current, Precision precision);
    // Writes captured bodies to `path` as a snapshot of `preset` and `seed` at the session's step index (it
    // starts at a loaded snapshot's step). Throws nbody::Error (one line), leaving no file.
    SavedSnapshot save(const std::string& path, const SessionResult& captured, const std::string& preset,
                       std::uint64_t seed) const;

  private:
    std::unique_ptr<ReplayTimeline> replay_;
    std::vector<std::string> paths_;
    double shown_time_ = 0;
    std::size_t shown_frame_ = 0;
};

}  // namespace nbody
