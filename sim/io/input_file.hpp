#pragma once
// Input files opened defensively: a FIFO without a writer must not block forever, a device such as
// /dev/zero or /dev/urandom must not be read until memory runs out, and no line may grow without bound.
#include <cstddef>
#include <string>

namespace nbody {

// Throws nbody::Error ("cannot read 'PATH': why", one line) unless `path` is an existing regular file
// (symbolic links followed). For readers that open files by name themselves (HDF5).
void check_input_path(const std::string& path);

// A file read line by line. Accepts regular files and pipes/FIFOs (`--input <(gen)`, `/dev/stdin` from a
// pipe); refuses directories, devices and sockets. A FIFO is opened without blocking, so one that has no
// writer reads as empty instead of hanging in open().
class InputFile {
  public:
    static constexpr std::size_t kMaxLine = std::size_t(1) << 20;  // 1 MiB: no sane CSV line is longer

    explicit InputFile(const std::string& path);  // throws nbody::Error if it cannot or must not be read
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    // Reads the next line, without its '\n', into `line`; false at the end of the file. Throws
    // nbody::Error on a read error or a line longer than kMaxLine (with `line_no` in the message).
    bool read_line(std::string& line, std::size_t line_no);
    bool is_pipe() const { return pipe_; }

  private:
    std::string path_;
    int fd_ = -1;
    bool pipe_ = false;
    bool eof_ = false;
    std::string buffer_;
    std::size_t start_ = 0;  // first unread byte of buffer_
};

}  // namespace nbody
