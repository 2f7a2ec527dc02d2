#pragma once
// Feeds raw frames to an encoder process (ffmpeg) through a pipe. The process is started from an argv
// array, never through a shell, so any file name is passed as it is.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace nbody {

class VideoPipe {
  public:
    // Starts argv[0] (looked up on PATH) with its stdin reading from this pipe. `what` names the output
    // in error lines. Throws nbody::Error if the program cannot be started.
    VideoPipe(const std::vector<std::string>& argv, std::string what);
    // Closes the pipe and waits for the process if finish() was not called (errors ignored).
    ~VideoPipe();
    VideoPipe(const VideoPipe&) = delete;
    VideoPipe& operator=(const VideoPipe&) = delete;

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
