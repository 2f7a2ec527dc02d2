#include "partial_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sim/error.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

std::string shown(const std::string& path) {
    return quote_excerpt(path, 1024);
}

const char* kind_of(mode_t mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

bool same_file(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

[[noreturn]] void throw_busy(const std::string& path, const std::string& partial) {
    throw Error("cannot write " + shown(path) + ": another nbody run is writing it right now (" +
                shown(partial) + " is locked): give this run another file");
}

// Opens `partial` for writing, locked, empty. Never follows a link or opens anything but a plain file.
int open_growing_file(const std::string& partial, const std::string& path) {
    // A few rounds: the name may change between looking at it and opening it (a writer renaming its log
    // onto the target, a stale file being removed); more than that is someone playing games.
    for (int round = 0; round < 8; ++round) {
        int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            // Another process that found our fresh file may have locked it first: then it is theirs.
            if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
                ::close(fd);
                throw_busy(path, partial);
            }
            return fd;
        }
        if (errno != EEXIST) {
            throw Error("cannot create " + shown(partial) + ": " + std::strerror(errno));
        }
        struct stat seen {};
        if (::lstat(partial.c_str(), &seen) != 0) {
            if (errno == ENOENT) continue;
            throw Error("cannot create " + shown(partial) + ": " + std::strerror(errno));
        }
        if (!S_ISREG(seen.st_mode)) {
            throw Error("cannot write " + shown(path) + ": " + shown(partial) + " exists and is " +
                        kind_of(seen.st_mode) +
                        ", not a log an earlier run left (refusing to open it): remove it");
        }
        // A plain file: a log that a killed run left, one kept after a blow-up, or one being written.
        fd = ::open(partial.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT || errno == ELOOP) continue;
            throw Error("cannot open " + shown(partial) + ": " + std::strerror(errno));
        }
        struct stat opened {};
        if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode) || !same_file(seen, opened)) {
            ::close(fd);
            continue;
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd);
            throw_busy(path, partial);
        }
        // Its writer may have renamed it onto its target and only then let go of the lock: the name must
        // still be this file, or it is no longer a leftover.
        struct stat now {};
        if (::lstat(partial.c_str(), &now) != 0 || !same_file(now, opened)) {
            ::close(fd);
            continue;
        }
        if (::ftruncate(fd, 0) != 0 || ::fcntl(fd, F_SETFL, 0) != 0) {
            const int err = errno;
            ::close(fd);
            throw Error("cannot write " + shown(partial) + ": " + std::strerror(err));
        }
        return fd;
    }
    throw Error("cannot create " + shown(partial) + ": the name keeps changing (another process?)");
}

}  // namespace

PartialFile::PartialFile(std::string path) : path_(std::move(path)) {
    check_output_path(path_);
    target_ = resolve_output_path(path_);
    const std::filesystem::path target(target_);
    const std::string suffix = ".partial";
    partial_ =
        (target.parent_path() / (fit_name(target.filename().string(), suffix.size()) + suffix)).string();
    const int fd = open_growing_file(partial_, path_);
    cleanup_ = SignalCleanup(partial_);
    buf_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(fd, std::ios::out | std::ios::binary);
    out_.rdbuf(buf_.get());
}

PartialFile::~PartialFile() {
    if (!committed_ && !kept_) ::unlink(partial_.c_str());  // while still holding the lock
    close();
}

void PartialFile::close() {
    if (!buf_) return;
    out_.rdbuf(nullptr);
    buf_.reset();  // closes the descriptor
}

void PartialFile::end_record() {
    out_.flush();
    if (!out_) throw Error("cannot write " + shown(partial_) + ": " + std::strerror(errno ? errno : EIO));
}

void PartialFile::finish() {
    if (finished_) return;
    out_.flush();
    if (!out_) {
        throw Error("cannot write " + shown(partial_) + ": " + std::strerror(errno ? errno : EIO));
    }
    finished_ = true;
}

void PartialFile::commit() {
    if (committed_) return;
    finish();
    // Renamed while locked: a run waiting for this name sees it gone, never half-taken-over.
    if (std::rename(partial_.c_str(), target_.c_str()) != 0) {
        throw Error("cannot rename " + shown(partial_) + " to " + shown(target_) + ": " +
                    std::strerror(errno));
    }
    committed_ = true;
    cleanup_.release();
    close();
}

void PartialFile::keep() {
    if (buf_) out_.flush();
    kept_ = true;
    cleanup_.release();
}

}  // namespace nbody
