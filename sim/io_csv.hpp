#pragma once
// Files: body CSV (x,y,z,vx,vy,vz,m) in and out, energy log, trajectory. Writers never leave a
// half-written file: they write to a temporary name beside the target and rename on success.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "diagnostics.hpp"
#include "state.hpp"
#include "validate.hpp"

namespace nbody {

// Reads a body CSV: header "x,y,z,vx,vy,vz,m" (columns in any order, extra columns ignored), one body a
// line, '#' comments and blank lines allowed. Throws nbody::Error "FILE:LINE: problem" on a missing or
// unreadable file, empty file, missing columns, short rows, non-numeric cells, NaN/Inf, mass <= 0.
// If `source` is given it receives the path and each body's line, so later checks (validate_state) can
// point at the line too.
HostState read_bodies_csv(const std::string& path, BodySource* source = nullptr);

// Writes a body CSV with the shortest digits that round-trip exactly in precision p
// (a float state printed as float, a double state as double). Atomic: temp file + rename.
void write_bodies_csv(const std::string& path, const HostState& s, Precision p);

// A file written under a temporary name and renamed onto `path` by commit(); destroyed uncommitted, the
// temporary is removed and `path` is untouched. The temporary's name is unique (created with O_EXCL), so
// two AtomicFiles never share one, and it is registered for remove_temp_files_on_signal().
class AtomicFile {
public:
    explicit AtomicFile(std::string path);  // throws nbody::Error if the temp file cannot be created
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    std::ofstream& stream() { return out_; }
    void finish();  // flush and close the temporary; throws nbody::Error if anything failed to write
    void commit();  // finish, then rename onto path(); throws nbody::Error on failure
    const std::string& path() const { return path_; }
    const std::string& temp_path() const { return tmp_; }

  private:
    std::string path_, tmp_;
    std::ofstream out_;
    bool finished_ = false;
    bool committed_ = false;
    int signal_slot_ = -1;  // index in the table the signal handler cleans, or -1
};

// Writes a body CSV into an open AtomicFile without committing it (for commit_all).
void write_bodies_csv(AtomicFile& file, const HostState& s, Precision p);

// Finishes every file before renaming any, so a write error leaves none behind; if a rename still
// fails, the targets already renamed are removed again. Throws nbody::Error naming the failing file.
void commit_all(const std::vector<AtomicFile*>& files);

// Installs SIGINT/SIGTERM handlers that delete every live AtomicFile temporary and exit with 128 + the
// signal number (130 for Ctrl-C). Async-signal-safe: the handler only unlink()s from a fixed table.
// Signals that are ignored (e.g. under nohup) stay ignored. Meant for the command-line program.
void remove_temp_files_on_signal();

// Energy log CSV, header "step,t,kinetic,potential,total,rel_drift,px,py,pz".
class EnergyLog {
public:
    explicit EnergyLog(const std::string& path);
    void write(std::int64_t step, double t, const Diagnostics& d, double rel_drift);
    void commit() { file_.commit(); }
    AtomicFile& file() { return file_; }

  private:
    AtomicFile file_;
};

// Trajectory CSV for plotting: header "step,t,body,x,y,z"; one row per body per recorded step.
class TrajectoryLog {
public:
    explicit TrajectoryLog(const std::string& path);
    void write(std::int64_t step, const HostState& s);
    void commit() { file_.commit(); }
    AtomicFile& file() { return file_; }

  private:
    AtomicFile file_;
};

}  // namespace nbody
