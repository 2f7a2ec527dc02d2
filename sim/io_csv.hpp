#pragma once
// Files: body CSV (x,y,z,vx,vy,vz,m) in and out, energy log, trajectory. Writers never leave a
// half-written file: they write to a temporary name beside the target and rename on success.
#include <cstdint>
#include <fstream>
#include <string>

#include "diagnostics.hpp"
#include "state.hpp"

namespace nbody {

// Reads a body CSV: header "x,y,z,vx,vy,vz,m" (columns in any order, extra columns ignored), one body a
// line, '#' comments and blank lines allowed. Throws nbody::Error "FILE:LINE: problem" on a missing or
// unreadable file, empty file, missing columns, short rows, non-numeric cells, NaN/Inf, mass <= 0.
HostState read_bodies_csv(const std::string& path);

// Writes a body CSV with the shortest digits that round-trip exactly in precision p
// (a float state printed as float, a double state as double). Atomic: temp file + rename.
void write_bodies_csv(const std::string& path, const HostState& s, Precision p);

// A file written under a temporary name and renamed onto `path` by commit(); destroyed uncommitted, the
// temporary is removed and `path` is untouched.
class AtomicFile {
public:
    explicit AtomicFile(std::string path);  // throws nbody::Error if the temp file cannot be created
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    std::ofstream& stream() { return out_; }
    void commit();  // flush, close, rename; throws nbody::Error on failure
    const std::string& path() const { return path_; }

private:
    std::string path_, tmp_;
    std::ofstream out_;
    bool committed_ = false;
};

// Energy log CSV, header "step,t,kinetic,potential,total,rel_drift,px,py,pz".
class EnergyLog {
public:
    explicit EnergyLog(const std::string& path);
    void write(std::int64_t step, double t, const Diagnostics& d, double rel_drift);
    void commit() { file_.commit(); }

private:
    AtomicFile file_;
};

// Trajectory CSV for plotting: header "step,t,body,x,y,z"; one row per body per recorded step.
class TrajectoryLog {
public:
    explicit TrajectoryLog(const std::string& path);
    void write(std::int64_t step, const HostState& s);
    void commit() { file_.commit(); }

private:
    AtomicFile file_;
};

}  // namespace nbody
