#include "child_process.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "atomic_file.hpp"
#include "sim/error.hpp"

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
// Layout: one tag byte ('+' the result follows, '!' an error message follows, 'M' out of memory), the length
// of what follows, then the bytes. Ends with _exit: no atexit handlers, no stdio flushes, no destructors of
// the parent's objects run twice. The address space this process maps now (VmSize), in bytes; 0 if unknown.
std::uint64_t mapped_bytes() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, f)) {
        if (std::sscanf(line, "VmSize: %llu kB", &kib) == 1) break;
    }
    std::fclose(f);
    return std::uint64_t(kib) * 1024;
}

void limit_address_space(std::uint64_t extra) {
    const std::uint64_t now = mapped_bytes();
    struct rlimit r {};
    if (extra == 0 || now == 0 || ::getrlimit(RLIMIT_AS, &r) != 0) return;
    const rlim_t want = static_cast<rlim_t>(now + extra);
    if (r.rlim_cur == RLIM_INFINITY || want < r.rlim_cur)
        r.rlim_cur = r.rlim_max == RLIM_INFINITY ? want : std::min(want, r.rlim_max);
    ::setrlimit(RLIMIT_AS, &r);
}

[[noreturn]] void serve(int fd, const std::function<std::string()>& work, std::uint64_t extra_address_space,
                        pid_t parent) {
    forget_temp_files();
    // A parent killed outright (SIGKILL) takes the child with it: no orphan left reading a crafted file.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // it died before the line above
    limit_address_space(extra_address_space);
    char tag = '+';
    std::string body;
    try {
        body = work();
    } catch (const std::bad_alloc&) {
        tag = 'M';
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
                         const std::string& crashed, std::uint64_t extra_address_space) {
    const Fd answer{::memfd_create("nbody-child-answer", MFD_CLOEXEC)};
    if (answer.fd < 0) throw Error(what + ": cannot create a memory file: " + std::strerror(errno));
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(what + ": cannot start a reading process: " + std::strerror(errno));
    if (pid == 0) serve(answer.fd, work, extra_address_space, parent);
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
    if (tag == 'M') throw Error(what + ": reading it needed more memory than allowed (corrupt file?)");
    return got;
}

}  // namespace nbody
