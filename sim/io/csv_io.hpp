#pragma once
// CSV files: bodies (x,y,z,vx,vy,vz,m) in and out, energy log, trajectory. Every writer goes through an
// AtomicFile (atomic_file.hpp), so a failed or interrupted run never leaves a half-written file.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/collide/collision_event.hpp"
#include "sim/diagnostics.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/platform/partial_file.hpp"
#include "sim/state.hpp"
#include "sim/validate.hpp"

namespace nbody {

// Reads a body CSV: header "x,y,z,vx,vy,vz,m" (columns in any order, extra columns ignored), one body a
// line, '#' comments and blank lines allowed. Throws nbody::Error "FILE:LINE: problem" on a missing or
// unreadable file, empty file, missing columns, short rows, non-numeric cells, NaN/Inf, mass <= 0.
// If `source` is given it receives the path and each body's line, so later checks (validate_state) can
// point at the line too.
// If `preamble` is given it receives every line before the header as read (the '#' parameter lines
// among them): a pipe or FIFO can be read only once, so its parameters must come from this one pass.
HostState read_bodies_csv(const std::string& path, BodySource* source = nullptr,
                          std::vector<std::string>* preamble = nullptr);

// Writes a body CSV with the shortest digits that round-trip exactly in precision p
// (a float state printed as float, a double state as double). Atomic: temp file + rename.
void write_bodies_csv(const std::string& path, const HostState& s, Precision p);

// Writes a body CSV into an open AtomicFile without committing it (for commit_all).
void write_bodies_csv(AtomicFile& file, const HostState& s, Precision p);

// Energy log CSV, header "step,t,kinetic,potential,total,rel_drift,px,py,pz". Written as PATH.partial and
// flushed at every row, so it can be followed during a run; commit() renames it to PATH. With collisions
// a column e_lost holds the energy the collisions so far removed (rel_drift then compares total + e_lost
// with the start). With an adaptive integrator (`work`), step counts max steps and two last columns,
// blocks and force_evaluations, hold the work done so far (block steps' blocks and force+jerk
// evaluations of one body against all N); with the neighbour scheme on (`neighbours`, Params::neighbours
// > 0) a last column neighbour_evaluations holds its evaluations of one body against its list so far.
// A simulated time t with the significant digits that resolve `resolution` (callers pass a thousandth of
// the step), at most 17, or the shortest text that reads back exactly when resolution is not positive. t is
// summed step by step, so it carries rounding noise (2.9999999999999583 after 600 steps of 0.005): this
// prints it as 3 while times a step apart stay distinct. Only the text is rounded, never the clock.
std::string format_time(double t, double resolution);

// The t column of a log: format_time at a resolution, falling back to every digit where that would repeat
// the previous row's text for another time (a --t-end run's shortened last step).
class TimeText {
  public:
    explicit TimeText(double resolution = 0) : resolution_(resolution) {}
    std::string operator()(double t);

  private:
    double resolution_;
    bool any_ = false;
    double last_ = 0;
    std::string last_text_;
};

class EnergyLog {
  public:
    // `preamble`: comment lines written before the header (the run's parameters, see run_metadata.hpp).
    // `time_resolution`: t is printed with the digits that resolve it (sim/util.hpp format_time; a
    // thousandth of the step), but never the same as the row before unless it is; 0: every digit.
    explicit EnergyLog(const std::string& path, const std::string& preamble = "", bool energy_lost = false,
                       double time_resolution = 0, bool work = false, bool neighbours = false);
    void write(std::int64_t step, double t, const Diagnostics& d, double rel_drift, double energy_lost = 0,
               std::int64_t blocks = 0, std::uint64_t force_evaluations = 0,
               std::uint64_t neighbour_evaluations = 0);
    void commit() { file_.commit(); }
    PartialFile& file() { return file_; }

  private:
    PartialFile file_;
    bool energy_lost_;
    bool work_;
    bool neighbours_;
    TimeText time_text_;
};

// Collision log CSV, header "step,t,i,j,mi,mj,speed,energy_lost,kind": one row per resolved contact
// (sim/collide/collision_event.hpp; i and j are the indices at that step, kind "merge" or "bounce").
// Written as PATH.partial, flushed after each batch of rows; commit() renames it to PATH.
class CollisionLog {
  public:
    explicit CollisionLog(const std::string& path, const std::string& preamble = "",
                          double time_resolution = 0);
    // `step`: the global step count at the end of the steps that produced `events`.
    void write(std::int64_t step, const std::vector<CollisionEvent>& events);
    void commit() { file_.commit(); }
    PartialFile& file() { return file_; }

  private:
    PartialFile file_;
    TimeText time_text_;
};

// Trajectory CSV for plotting: header "step,t,body,x,y,z"; one row per body per recorded step. Written as
// PATH.partial and flushed after every recorded step; commit() renames it to PATH.
class TrajectoryLog {
  public:
    // `preamble`: comment lines written before the header (the run's parameters, see run_metadata.hpp).
    explicit TrajectoryLog(const std::string& path, const std::string& preamble = "",
                           double time_resolution = 0);
    void write(std::int64_t step, const HostState& s);
    void commit() { file_.commit(); }
    PartialFile& file() { return file_; }

  private:
    PartialFile file_;
    TimeText time_text_;
};

}  // namespace nbody
