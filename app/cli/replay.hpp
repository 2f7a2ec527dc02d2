#pragma once
// Playing back a snapshot series (`nbody play DIR`, `nbody --replay DIR`, `nbody render --replay DIR`):
// which files, in which order, and which one to show when. No GL, no window: the callers draw.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nbody {

// The snapshot files in dir (.h5/.hdf5, .tipsy/.std, .bin, .csv), in series order: by name, shorter names
// first, so snap_999999.h5 comes before snap_1000000.h5. Throws nbody::Error if dir is not a directory or
// holds no snapshot file.
std::vector<std::string> list_snapshot_series(const std::string& dir);

// Timeline state of a replay: the frame shown, playing or paused, and the speed in snapshots per second.
class ReplayTimeline {
  public:
    explicit ReplayTimeline(std::size_t frames) : frames_(frames) {}
    std::size_t frames() const { return frames_; }
    std::size_t current() const { return current_; }
    bool playing = true;
    double speed = 10.0;  // snapshots per second
    bool loop = true;     // at the end: start again, or pause

    // Advances by dt seconds of wall time; returns the frame to show if it changed.
    std::optional<std::size_t> tick(double dt);
    // Jumps to frame i (clamped); returns it if it changed.
    std::optional<std::size_t> seek(std::size_t i);

  private:
    std::size_t frames_;
    std::size_t current_ = 0;
    double carry_ = 0;  // fraction of a frame accumulated
};

}  // namespace nbody
