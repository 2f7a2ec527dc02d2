#pragma once
// Outputs that appear whole or not at all. A writer writes under a temporary name beside its target and
// renames it onto the target on success; a temporary is removed when its writer is destroyed uncommitted
// and, once remove_temp_files_on_signal() is installed, when the process is killed by a catchable signal.
// Independent of any file format: CSV, PNG, HDF5, Tipsy writers all go through here.
#include <ext/stdio_filebuf.h>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace nbody {

// The file an output named `path` really lands in: `path` itself, or, if `path` is a symbolic link, the
// file at the end of its chain of links (which need not exist yet). Writing there keeps the link in
// place instead of replacing it with a regular file. Throws nbody::Error on a loop of links.
std::string resolve_output_path(const std::string& path);

// Throws nbody::Error (one line, starting with `flag` and the path, or "cannot write 'PATH'" if `flag`
// is empty) unless an output can be written at `path`: a non-empty name whose directory exists and is
// writable, and which, if it exists (after following symbolic links), is a writable regular file — never
// a directory, device, FIFO or socket, which a rename would replace. For checking before a long run;
// AtomicFile checks again when it is created.
void check_output_path(const std::string& path, const std::string& flag = "");

// `name` (one file name, no directory) cut short enough that `extra` more bytes still fit in a file name
// (255 bytes): temporaries and growing logs derive their names from the target's, and must work for every
// name that is legal itself.
std::string fit_name(const std::string& name, std::size_t extra);

// Registers `path` to be unlinked by the handlers of remove_temp_files_on_signal() for as long as this
// object lives. For temporaries that AtomicFile does not create itself (e.g. a growing log renamed at
// the end). The table is fixed in size (async-signal-safety); a path that does not fit is not registered
// (registered() says so) and would be left behind by a signal, never by a normal exit.
class SignalCleanup {
  public:
    SignalCleanup() = default;
    explicit SignalCleanup(const std::string& path);
    ~SignalCleanup() { release(); }
    SignalCleanup(SignalCleanup&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
    SignalCleanup& operator=(SignalCleanup&& other) noexcept;
    SignalCleanup(const SignalCleanup&) = delete;
    SignalCleanup& operator=(const SignalCleanup&) = delete;
    void release();  // from now on a signal leaves the path alone
    bool registered() const { return slot_ >= 0; }

  private:
    int slot_ = -1;  // index in the table the signal handler cleans, or -1
};

// A file written under a temporary name and renamed onto `path` by commit(); destroyed uncommitted, the
// temporary is removed and `path` is untouched. The temporary is hidden (".NAME.tmp.PID.XXXXXXXX") and
// sits beside the file `path` resolves to (resolve_output_path), so the rename never crosses file
// systems; it is created with O_EXCL, so two AtomicFiles never share one, written through the descriptor
// of that create (never re-opened by name), and registered for remove_temp_files_on_signal(). A committed
// file keeps the permission bits of the file it replaces.
class AtomicFile {
  public:
    // How the content is written: through stream(), or by another library that opens temp_path() by
    // name itself (HDF5, ffmpeg...). In by_name mode the temporary exists, empty and closed, its name
    // ends in the target's extension (".x.mp4.tmp.PID.XXXXXXXX.mp4": ffmpeg picks the container from
    // it), and the writer must close it before commit(); finish() then checks nothing the writer has not.
    enum class Mode { stream, by_name };

    // Throws nbody::Error if `path` is no place for an output (check_output_path) or the temporary cannot
    // be created.
    explicit AtomicFile(std::string path, Mode mode = Mode::stream);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    std::ostream& stream() { return out_; }  // no buffer (every write fails) in by_name mode
    void finish();  // flush and close the temporary; throws nbody::Error if anything failed to write
    void commit();  // finish, then rename onto path(); throws nbody::Error on failure
    const std::string& path() const { return path_; }           // as given
    const std::string& target_path() const { return target_; }  // where the rename lands
    const std::string& temp_path() const { return tmp_; }

  private:
    bool close();  // closes the descriptor; false if that failed

    std::string path_, target_, tmp_;
    std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> buf_;  // owns the descriptor of the exclusive create
    std::ostream out_{nullptr};
    SignalCleanup cleanup_;
    bool finished_ = false;
    bool failed_ = false;  // finish() failed: never renamed
    bool committed_ = false;
};

// Finishes every file before renaming any, so a write error leaves none behind; if a rename still
// fails, the targets already renamed are removed again. Throws nbody::Error naming the failing file.
void commit_all(const std::vector<AtomicFile*>& files);

// Installs handlers so that every catchable signal whose default action ends the process removes every
// registered temporary (AtomicFile, SignalCleanup) first: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
// SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPOLL, SIGPWR exit with 128 + the
// signal number (130 for Ctrl-C); the crash signals SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT clean up and
// then fall through to the handler that was there before (a core dump, a sanitizer's report). Signals
// that are ignored (e.g. SIGHUP under nohup) stay ignored. Async-signal-safe: the handler only unlink()s
// from a fixed table. Meant for programs (nbody's commands), not for libraries; safe to call twice.
void remove_temp_files_on_signal();

// While a line is being redrawn in place on the terminal (app/cli/progress: "\r...", no newline), those
// handlers end it with a newline on stderr before they exit, so the shell's prompt and the "^C" the
// terminal echoed do not end up on the last progress line. Async-signal-safe to read; set by Progress.
void set_live_terminal_line(bool open);

// In a forked child: unregisters every temporary without removing it, so that a signal ending the child
// (a crash in a library it was isolated for) leaves the parent's temporaries alone.
void forget_temp_files();

}  // namespace nbody
