#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "sim/error.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

std::string errno_text(int err) {
    return std::strerror(err);
}

// What an existing non-regular file is, in words for an error message.
const char* kind_of(fs::file_type type) {
    switch (type) {
        case fs::file_type::directory:
            return "a directory";
        case fs::file_type::character:
            return "a character device";
        case fs::file_type::block:
            return "a block device";
        case fs::file_type::fifo:
            return "a FIFO";
        case fs::file_type::socket:
            return "a socket";
        default:
            return "not a regular file";
    }
}

// --- the table the signal handler cleans ---------------------------------------------------------------
// Plain arrays and lock-free atomics only: the handler may run at any instruction, so it reads a slot's
// path only once the slot is marked ready.

constexpr std::size_t kSignalSlots = 64;
constexpr std::size_t kSignalPathMax = 4096;
enum SlotState : int { kFree = 0, kClaimed = 1, kReady = 2 };
struct SignalSlot {
    std::atomic<int> state{kFree};
    char path[kSignalPathMax];
};
SignalSlot g_signal_slots[kSignalSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

// Returns the slot index, or -1 if the table is full or the path too long (then a signal leaves it).
int register_temp(const std::string& tmp) {
    if (tmp.empty() || tmp.size() >= kSignalPathMax) return -1;
    for (std::size_t i = 0; i < kSignalSlots; ++i) {
        int expected = kFree;
        if (!g_signal_slots[i].state.compare_exchange_strong(expected, kClaimed)) continue;
        std::memcpy(g_signal_slots[i].path, tmp.c_str(), tmp.size() + 1);
        g_signal_slots[i].state.store(kReady, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1;
}

void unregister_temp(int slot) {
    if (slot >= 0) g_signal_slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_registered_temps() {
    for (auto& slot : g_signal_slots) {
        if (slot.state.load(std::memory_order_acquire) == kReady) ::unlink(slot.path);
    }
}

// Signals whose default action ends the process and which someone sends (a terminal, kill, a closed
// pipe, a resource limit): clean up and exit 128 + sig, as a shell reports a signal.
constexpr int kExitSignals[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2,
                                SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPOLL, SIGPWR};
// Crashes: clean up, then let whatever handled them before (default: core dump) see them.
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

constexpr int kMaxSignal = 65;
struct sigaction g_previous[kMaxSignal];  // the crash signals' handlers from before ours

std::atomic<int> g_live_terminal_line{0};  // see set_live_terminal_line (lock-free: checked above)

void on_exit_signal(int sig) {
    remove_registered_temps();
    if (g_live_terminal_line.load() != 0) {
        const char newline = '\n';
        [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, &newline, 1);
    }
    ::_exit(128 + sig);
}

void on_crash_signal(int sig, siginfo_t* info, void*) {
    remove_registered_temps();
    ::sigaction(sig, &g_previous[sig], nullptr);
    // A fault raised by the CPU happens again when the instruction is retried, now reaching the previous
    // handler with its real address; a sent one (kill, abort()) is sent again, to be delivered on return.
    if (info == nullptr || info->si_code <= 0) ::raise(sig);
}

// "." + ".tmp." + a pid (at most 7 digits on Linux) + "." + 8 hex digits.
constexpr std::size_t kTempOverhead = 1 + 5 + 7 + 1 + 8;

// Hidden, beside the target (so the rename cannot cross file systems), unique: pid, a counter and a
// random draw, created with O_EXCL so a name already taken (another writer, a stale file) is skipped.
std::string create_unique_temp(const fs::path& dir, const std::string& base, const std::string& suffix,
                               int& fd_out) {
    static std::atomic<unsigned> counter{0};
    static const unsigned salt = [] {
        std::random_device rd;
        return static_cast<unsigned>(rd());
    }();
    for (int attempt = 0; attempt < 100; ++attempt) {
        // (Built by appending: GCC 12 warns falsely (-Wrestrict) about "." + std::string.)
        std::string name = ".";
        name += fit_name(base, kTempOverhead + suffix.size());
        name += ".tmp.";
        name += std::to_string(::getpid());
        name += '.';
        char hex[16];
        std::snprintf(hex, sizeof hex, "%08x", salt ^ (counter.fetch_add(1) * 2654435761u));
        name += hex;
        name += suffix;
        const std::string tmp = (dir / name).string();
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            fd_out = fd;
            return tmp;
        }
        // The temporary's name is ours, not the user's: never shown.
        if (errno != EEXIST) {
            throw Error("cannot create a file in '" + dir.string() + "' (for '" + base +
                        "'): " + errno_text(errno));
        }
    }
    throw Error("cannot create a temporary file for '" + (dir / base).string() +
                "': every name tried exists");
}

fs::path directory_of(const fs::path& p) {
    return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

}  // namespace

std::string fit_name(const std::string& name, std::size_t extra) {
    constexpr std::size_t kNameMax = 255;  // NAME_MAX of Linux's file systems
    if (name.size() + extra <= kNameMax) return name;
    std::size_t keep = extra < kNameMax ? kNameMax - extra : 1;
    // Never cut a UTF-8 sequence in two: step back over continuation bytes (10xxxxxx).
    while (keep > 1 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
    return name.substr(0, keep);
}

// --- output paths ---------------------------------------------------------------------------------------

std::string resolve_output_path(const std::string& path) {
    fs::path p(path);
    for (int depth = 0; depth < 40; ++depth) {  // 40: Linux's own limit on links followed (ELOOP)
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.string();
        const fs::path to = fs::read_symlink(p, ec);
        if (ec) throw Error("cannot read the symbolic link '" + p.string() + "': " + ec.message());
        p = to.is_absolute() ? to : directory_of(p) / to;
    }
    throw Error("cannot write '" + path + "': " + errno_text(ELOOP));
}

void check_output_path(const std::string& path, const std::string& flag) {
    const std::string what = flag.empty() ? "cannot write '" + path + "'" : flag + " '" + path + "'";
    // "--output 'x' is a FIFO", but "cannot write 'x': it is a FIFO" where no flag names the file.
    const std::string subject = flag.empty() ? what + ": it" : what;
    if (path.empty()) {
        throw Error(flag.empty() ? "cannot write a file with an empty name" : flag + " needs a file name");
    }
    const fs::path target(resolve_output_path(path));
    const fs::path dir = directory_of(target);
    std::error_code ec;
    const fs::file_status st = fs::status(target, ec);
    if (st.type() == fs::file_type::directory) throw Error(subject + " is a directory, not a file");
    if (!fs::is_directory(dir, ec)) throw Error(what + ": directory '" + dir.string() + "' does not exist");
    if (fs::exists(st)) {
        if (!fs::is_regular_file(st)) {
            throw Error(subject + " is " + kind_of(st.type()) +
                        ", not a regular file (refusing to replace it)");
        }
        if (::access(target.c_str(), W_OK) != 0) throw Error(subject + " is not writable");
    }
    if (::access(dir.c_str(), W_OK) != 0)
        throw Error(what + ": directory '" + dir.string() + "' is not writable");
}

// --- signal cleanup -------------------------------------------------------------------------------------

SignalCleanup::SignalCleanup(const std::string& path) : slot_(register_temp(path)) {}

SignalCleanup& SignalCleanup::operator=(SignalCleanup&& other) noexcept {
    if (this != &other) {
        release();
        slot_ = other.slot_;
        other.slot_ = -1;
    }
    return *this;
}

void SignalCleanup::release() {
    unregister_temp(slot_);
    slot_ = -1;
}

void set_live_terminal_line(bool open) {
    g_live_terminal_line.store(open ? 1 : 0);
}

void remove_temp_files_on_signal() {
    auto install = [](int sig, struct sigaction& sa, struct sigaction* old_out) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) return;
        // Installed twice: keep the first previous handler, not ourselves.
        if ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction == on_crash_signal
                                        : old.sa_handler == on_exit_signal) {
            return;
        }
        if (old_out) *old_out = old;
        ::sigaction(sig, &sa, nullptr);
    };
    for (const int sig : kExitSignals) {
        struct sigaction sa {};
        sa.sa_handler = on_exit_signal;
        sigfillset(&sa.sa_mask);  // no second signal interrupts the cleanup
        install(sig, sa, nullptr);
    }
    for (const int sig : kCrashSignals) {
        struct sigaction sa {};
        sa.sa_sigaction = on_crash_signal;
        sa.sa_flags = SA_SIGINFO;
        sigfillset(&sa.sa_mask);
        install(sig, sa, &g_previous[sig]);
    }
}

void forget_temp_files() {
    for (auto& slot : g_signal_slots) slot.state.store(kFree, std::memory_order_release);
}

// --- atomic files ---------------------------------------------------------------------------------------

AtomicFile::AtomicFile(std::string path, Mode mode) : path_(std::move(path)) {
    check_output_path(path_);
    target_ = resolve_output_path(path_);
    const fs::path target(target_);
    // By name, another library may choose the format from the extension (ffmpeg does): keep it last.
    const std::string suffix = mode == Mode::by_name ? target.extension().string() : std::string();
    int fd = -1;
    tmp_ = create_unique_temp(directory_of(target), target.filename().string(), suffix, fd);
    cleanup_ = SignalCleanup(tmp_);
    // A replaced file keeps its permissions (a private 0600 output stays private).
    struct stat existing {};
    if (::stat(target_.c_str(), &existing) == 0) ::fchmod(fd, existing.st_mode & 07777);
    if (mode == Mode::by_name) {
        ::close(fd);  // another library or process opens it by its name
        return;
    }
    // Written through the descriptor of the exclusive create, never re-opened by a name that someone
    // could have replaced in between.
    buf_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(fd, std::ios::out | std::ios::binary);
    out_.rdbuf(buf_.get());
}

AtomicFile::~AtomicFile() {
    close();
    if (!committed_) std::remove(tmp_.c_str());
}

bool AtomicFile::close() {
    if (!buf_) return true;
    out_.rdbuf(nullptr);
    const bool closed = buf_->close() != nullptr;  // closes the descriptor (a late write error shows here)
    buf_.reset();
    return closed;
}

void AtomicFile::finish() {
    if (finished_) return;
    if (failed_) throw Error("cannot write '" + path_ + "': an earlier write failed");
    if (buf_) {
        out_.flush();
        const bool written = bool(out_);
        const int write_errno = errno;  // of the write that failed, if one did (EFBIG, ENOSPC)
        const bool closed = close();
        if (!written || !closed) {
            failed_ = true;
            const int err = written ? errno : write_errno;
            throw Error("cannot write '" + path_ + "': " + errno_text(err ? err : EIO));
        }
    }
    finished_ = true;  // only now: a failed file must never be renamed by a later commit()
}

void AtomicFile::commit() {
    if (committed_) return;
    finish();
    if (std::rename(tmp_.c_str(), target_.c_str()) != 0)
        throw Error("cannot write '" + path_ +
                    "': renaming the finished file onto it failed: " + errno_text(errno));
    committed_ = true;
    cleanup_.release();
}

void commit_all(const std::vector<AtomicFile*>& files) {
    for (AtomicFile* f : files) f->finish();
    std::size_t done = 0;
    try {
        for (; done < files.size(); ++done) files[done]->commit();
    } catch (...) {
        for (std::size_t k = 0; k < done; ++k) std::remove(files[k]->target_path().c_str());
        throw;
    }
}

}  // namespace nbody
