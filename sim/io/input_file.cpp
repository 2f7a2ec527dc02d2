#include "input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/error.hpp"

namespace nbody {
namespace {

// What a file that is not a regular one is, in words for an error message.
const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

void check_input_path(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error("cannot read '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        throw Error("cannot read '" + path + "': it is " + kind_of(st.st_mode) + ", not a regular file");
    }
}

InputFile::InputFile(const std::string& path) : path_(path) {
    // O_NONBLOCK only for open(): a FIFO with no writer would block here forever otherwise.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int err = errno;
        ::close(fd_);
        throw Error("cannot open '" + path + "': " + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        ::close(fd_);
        if (S_ISDIR(st.st_mode)) throw Error("cannot open '" + path + "': " + std::strerror(EISDIR));
        throw Error("cannot read '" + path + "': it is " + kind_of(st.st_mode) +
                    ", not a regular file or a pipe");
    }
    pipe_ = S_ISFIFO(st.st_mode);
    // Reads block again, so a pipe whose writer is slow is waited for; one with no writer reads EOF.
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

bool InputFile::read_line(std::string& line, std::size_t line_no) {
    constexpr std::size_t kChunk = 64 * 1024;
    std::size_t scanned = start_;  // bytes from start_ already known to hold no '\n'
    while (true) {
        const std::size_t nl = buffer_.find('\n', scanned);
        if (nl != std::string::npos) {
            line.assign(buffer_, start_, nl - start_);
            start_ = nl + 1;
            return true;
        }
        scanned = buffer_.size();
        if (buffer_.size() - start_ > kMaxLine) {
            throw Error(path_ + ":" + std::to_string(line_no) + ": line longer than " +
                        std::to_string(kMaxLine >> 20) + " MiB (is this a body CSV?)");
        }
        if (eof_) {
            if (start_ == buffer_.size()) return false;
            line.assign(buffer_, start_, std::string::npos);  // a last line without '\n'
            start_ = buffer_.size();
            return true;
        }
        // Drop what was consumed before growing the buffer.
        buffer_.erase(0, start_);
        scanned -= start_;
        start_ = 0;
        const std::size_t old = buffer_.size();
        buffer_.resize(old + kChunk);
        ssize_t got = 0;
        do {
            got = ::read(fd_, buffer_.data() + old, kChunk);
        } while (got < 0 && errno == EINTR);
        if (got < 0) {
            const int err = errno;
            buffer_.resize(old);
            throw Error("cannot read '" + path_ + "': " + std::strerror(err));
        }
        buffer_.resize(old + std::size_t(got));
        if (got == 0) eof_ = true;
    }
}

}  // namespace nbody
