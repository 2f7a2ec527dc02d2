#pragma once
// A log that can be followed while it grows (`tail -f energy.csv.partial`): written under the visible
// name PATH.partial, flushed at every record, renamed onto PATH by commit(). Destroyed uncommitted it is
// removed, unless keep() was called (a run that failed part-way keeps what it logged, and says where);
// a signal handled by remove_temp_files_on_signal() removes it too, so Ctrl-C leaves nothing
// half-written under either name.
//
// The name PATH.partial is predictable, so anyone could have planted something there: it is created with
// O_CREAT|O_EXCL|O_NOFOLLOW and locked (flock) for as long as this object lives. An existing one is taken
// over only if it is a plain file that no process holds locked (left by a killed run, or kept after a
// blow-up); a symbolic link, FIFO, device or directory there is refused, never opened, and so is a log
// another run is writing right now.
#include <ext/stdio_filebuf.h>
#include <memory>
#include <ostream>
#include <string>

#include "atomic_file.hpp"

namespace nbody {

class PartialFile {
  public:
    // Throws nbody::Error (one line) if `path` is no place for an output (check_output_path), if another
    // running process writes the same log, if something other than a plain file sits at PATH.partial, or
    // if the .partial file cannot be created.
    explicit PartialFile(std::string path);
    ~PartialFile();
    PartialFile(const PartialFile&) = delete;
    PartialFile& operator=(const PartialFile&) = delete;

    std::ostream& stream() { return out_; }
    void end_record();  // flush, so a reader sees every whole record; throws nbody::Error on a write error
    void finish();      // flush; throws nbody::Error if anything failed to write (the lock stays held)
    void commit();      // finish, then rename onto path() (still holding the lock); throws nbody::Error
    void keep();        // leave the .partial file on disk when destroyed uncommitted

    const std::string& path() const { return path_; }
    const std::string& partial_path() const { return partial_; }

  private:
    void close();  // closes the file, which releases the lock

    std::string path_, target_, partial_;
    std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> buf_;  // owns the descriptor that holds the lock
    std::ostream out_{nullptr};
    SignalCleanup cleanup_;
    bool finished_ = false, committed_ = false, kept_ = false;
};

}  // namespace nbody
