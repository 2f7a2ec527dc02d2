#include "process_pipe.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "sim/error.hpp"

extern char** environ;

namespace nbody {

bool on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (!path) return false;
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
        if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    }
    return false;
}

ProcessPipe::ProcessPipe(const std::vector<std::string>& argv, std::string what) : what_(std::move(what)) {
    if (argv.empty()) throw Error("ProcessPipe: no program given");
    program_ = argv[0];
    int fds[2];
    // Close-on-exec on both ends: the child keeps only the read end, dup'ed onto its stdin.
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw Error("cannot create a pipe for " + program_ + ": " + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int rc = ::posix_spawnp(&pid_, program_.c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    if (rc != 0) {
        ::close(fds[1]);
        pid_ = -1;
        throw Error("cannot start " + program_ + " for '" + what_ + "': " + std::strerror(rc));
    }
    fd_ = fds[1];
}

ProcessPipe::~ProcessPipe() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (pid_ > 0) reap();
}

void ProcessPipe::write(const void* data, std::size_t bytes) {
    if (fd_ < 0) throw Error(program_ + " for '" + what_ + "' is already closed");
    // Ignored only around our own writes: a dying encoder must give EPIPE here, not kill nbody.
    struct sigaction ignore {
    }, old{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &old);
    const char* p = static_cast<const char*>(data);
    int err = 0;
    while (bytes > 0) {
        ssize_t n = ::write(fd_, p, bytes);
        if (n < 0) {
            if (errno == EINTR) continue;
            err = errno;
            break;
        }
        p += n;
        bytes -= std::size_t(n);
    }
    ::sigaction(SIGPIPE, &old, nullptr);
    if (err == 0) return;
    ::close(fd_);
    fd_ = -1;
    std::string how = err == EPIPE ? reap() : std::string(std::strerror(err));
    if (how.empty()) how = "it stopped reading";
    throw Error(program_ + " stopped accepting frames for '" + what_ + "': " + how);
}

void ProcessPipe::finish() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (pid_ <= 0) return;
    std::string how = reap();
    if (!how.empty()) throw Error(program_ + " failed to write '" + what_ + "': " + how);
}

std::string ProcessPipe::reap() {
    int status = 0;
    pid_t r;
    do {
        r = ::waitpid(pid_, &status, 0);
    } while (r < 0 && errno == EINTR);
    pid_ = -1;
    if (r < 0) return std::string("waitpid: ") + std::strerror(errno);
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status) == 0 ? std::string()
                                        : "exit status " + std::to_string(WEXITSTATUS(status));
    }
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "ended abnormally";
}

}  // namespace nbody
