#include "child_process.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>

#include "atomic_file.hpp"
#include "error.hpp"

namespace nbody {
namespace {

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

bool read_all(int fd, char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::read(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// The child's side. The answer goes into a memory file rather than a pipe: the child writes it whole and
// exits, the parent reads it after. Through a pipe every 64 KiB waits for the other process to be
// scheduled, which on a loaded machine made a 1M-body snapshot's 64 MB take a second.
// Layout: one tag byte ('+' the result follows, '!' an error message follows), the length of what
// follows, then the bytes. Ends with _exit: no atexit handlers, no stdio flushes, no destructors of the
// parent's objects run twice.
[[noreturn]] void serve(int fd, const std::function<std::string()>& work) {
    forget_temp_files();
    char tag = '+';
    std::string body;
    try {
        body = work();
    } catch (const std::bad_alloc&) {
        tag = '!', body = "not enough memory";
    } catch (const std::exception& e) {
        tag = '!', body = e.what();
    } catch (...) {
        tag = '!', body = "unknown failure";
    }
    const std::uint64_t size = body.size();
    const bool sent = write_all(fd, &tag, 1) &&
                      write_all(fd, reinterpret_cast<const char*>(&size), sizeof size) &&
                      write_all(fd, body.data(), body.size());
    ::_exit(sent ? 0 : 1);
}

// Closes a file descriptor on every way out.
struct Fd {
    int fd;
    ~Fd() { ::close(fd); }
};

}  // namespace

std::string run_in_child(const std::function<std::string()>& work, const std::string& what,
                         const std::string& crashed) {
    const Fd answer{::memfd_create("nbody-child-answer", MFD_CLOEXEC)};
    if (answer.fd < 0) throw Error(what + ": cannot create a memory file: " + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(what + ": cannot start a reading process: " + std::strerror(errno));
    if (pid == 0) serve(answer.fd, work);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw Error(what + ": lost the reading process: " + std::strerror(errno));
    }
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        throw Error(what + ": " + crashed + " (signal " + std::to_string(sig) + ", " + ::strsignal(sig) +
                    ")");
    }
    // A short answer (the child exited half-way) leaves `complete` false.
    char tag = 0;
    std::uint64_t size = 0;
    std::string got;
    bool complete = ::lseek(answer.fd, 0, SEEK_SET) == 0 && read_all(answer.fd, &tag, 1) &&
                    read_all(answer.fd, reinterpret_cast<char*>(&size), sizeof size);
    if (complete) {
        got.resize(static_cast<std::size_t>(size));
        complete = read_all(answer.fd, got.data(), got.size());
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 0 || !complete) {
        throw Error(what + ": " + crashed + " (the reading process exited with status " +
                    std::to_string(code) + " without an answer)");
    }
    if (tag == '!') throw Error(got);
    return got;
}

}  // namespace nbody
