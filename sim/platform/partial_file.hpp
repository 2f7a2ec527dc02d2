#pragma once
// A log that can be followed while it grows (`tail -f energy.csv.partial`): written under the visible
// name PATH.partial, flushed at every record, renamed onto PATH by commit(). Destroyed uncommitted it is
// removed, unless keep() was called (a run that failed part-way keeps what it logged, and says where);
// a signal handled by remove_temp_files_on_signal() removes it too, so Ctrl-C leaves nothing
// half-written under either name.
#include <fstream>
#include <string>

#include "atomic_file.hpp"

namespace nbody {

class PartialFile {
  public:
    // Throws nbody::Error (one line) if `path` is no place for an output (check_output_path) or the
    // .partial file cannot be created. An existing PATH.partial (left by a crash) is overwritten.
    explicit PartialFile(std::string path);
    ~PartialFile();
    PartialFile(const PartialFile&) = delete;
    PartialFile& operator=(const PartialFile&) = delete;

    std::ofstream& stream() { return out_; }
    void end_record();  // flush, so a reader sees every whole record; throws nbody::Error on a write error
    void finish();      // flush and close; throws nbody::Error if anything failed to write
    void commit();      // finish, then rename onto path(); throws nbody::Error on failure
    void keep();        // leave the .partial file on disk when destroyed uncommitted

    const std::string& path() const { return path_; }
    const std::string& partial_path() const { return partial_; }

  private:
    std::string path_, target_, partial_;
    std::ofstream out_;
    SignalCleanup cleanup_;
    bool finished_ = false, committed_ = false, kept_ = false;
};

}  // namespace nbody
