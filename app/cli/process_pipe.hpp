#pragma once
// Feeds bytes to a child process through its stdin: raw frames to ffmpeg (`render --video`), a script
// to gnuplot (`plot`). The process is started from an argv array, never through a shell, so any file
// name is passed as it is.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace nbody {

// True if `program` is an executable file in one of PATH's directories.
bool on_path(const std::string& program);

class ProcessPipe {
  public:
    // Starts argv[0] (looked up on PATH) with its stdin reading from this pipe. `what` names the output
    // in error lines. Throws nbody::Error if the program cannot be started.
    ProcessPipe(const std::vector<std::string>& argv, std::string what);
    // Closes the pipe and waits for the process if finish() was not called (errors ignored).
    ~ProcessPipe();
    ProcessPipe(const ProcessPipe&) = delete;
    ProcessPipe& operator=(const ProcessPipe&) = delete;

    // Writes all bytes. Throws nbody::Error with the process's exit status if it stopped reading
    // (EPIPE; SIGPIPE is ignored during the write, so nbody is not killed).
    void write(const void* data, std::size_t bytes);
    // Closes the pipe, waits, and throws nbody::Error unless the process exited with status 0.
    void finish();

  private:
    std::string reap();  // waits for the process; "" if it exited 0, else what happened

    std::string program_, what_;
    pid_t pid_ = -1;
    int fd_ = -1;
};

}  // namespace nbody
