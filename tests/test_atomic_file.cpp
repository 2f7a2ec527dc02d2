// Atomic outputs (temporary + rename), the checks on where an output may go, cleanup on signals.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "file_checks.hpp"
#include "sim/error.hpp"
#include "sim/platform/atomic_file.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test with a file writer and a listing (file_checks.hpp, shared with
// test_partial_file).
using AtomicFileTest = test::FilesTest;
using test::error_of;
using test::slurp;

TEST_F(AtomicFileTest, AtomicFileLeavesNothingWhenNotCommitted) {
    const std::string target = file("result.csv");
    {
        AtomicFile f(target);
        f.stream() << "half a file";
        EXPECT_EQ(listing().size(), 1u);  // only the temporary exists meanwhile
        EXPECT_FALSE(fs::exists(target));
    }
    EXPECT_TRUE(listing().empty());

    // An existing file is untouched by an uncommitted replacement, and replaced by a committed one.
    write_text("result.csv", "old");
    {
        AtomicFile f(target);
        f.stream() << "new";
    }
    EXPECT_EQ(slurp(target), "old");
    {
        AtomicFile f(target);
        f.stream() << "new";
        f.commit();
    }
    EXPECT_EQ(slurp(target), "new");
    EXPECT_EQ(listing(), std::vector<std::string>{"result.csv"});
}

TEST_F(AtomicFileTest, TwoAtomicFilesForOnePathDoNotShareATemporary) {
    const std::string target = file("same.csv");
    AtomicFile a(target), b(target);
    EXPECT_NE(a.temp_path(), b.temp_path());
    a.stream() << "first";
    b.stream() << "second";
    EXPECT_NO_THROW(a.commit());
    EXPECT_EQ(slurp(target), "first");
    EXPECT_NO_THROW(b.commit());
    EXPECT_EQ(slurp(target), "second");
    EXPECT_EQ(listing(), std::vector<std::string>{"same.csv"});
}

TEST_F(AtomicFileTest, TemporariesAreHiddenBesideTheTarget) {
    const std::string target = file("out.csv");
    AtomicFile f(target);
    EXPECT_EQ(fs::path(f.temp_path()).parent_path(), dir_);  // same file system: the rename is atomic
    EXPECT_EQ(fs::path(f.temp_path()).filename().string().rfind(".out.csv.tmp.", 0), 0u) << f.temp_path();
    EXPECT_TRUE(fs::exists(f.temp_path()));
}

TEST_F(AtomicFileTest, CommitAllRenamesNoneIfOneFailsToWrite) {
    const std::string good = file("good.csv"), bad = file("bad.csv");
    AtomicFile g(good), b(bad);
    g.stream() << "complete";
    b.stream() << "broken";
    b.stream().setstate(std::ios::badbit);  // as a full disk would leave it
    try {
        commit_all({&g, &b});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bad.csv"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(good));  // finished, but never renamed
    EXPECT_FALSE(fs::exists(bad));
    EXPECT_THROW(b.commit(), Error);  // a failed file cannot be committed later either
    EXPECT_FALSE(fs::exists(bad));
}

TEST_F(AtomicFileTest, CommitAllUndoesEarlierRenamesIfALaterOneFails) {
    const std::string first = file("first.csv"), second = file("second.csv");
    AtomicFile a(first), b(second);
    a.stream() << "a";
    b.stream() << "b";
    fs::create_directories(dir_ / "second.csv" / "occupied");  // rename onto a non-empty directory fails
    EXPECT_THROW(commit_all({&a, &b}), Error);
    EXPECT_FALSE(fs::exists(first));
    fs::remove_all(dir_ / "second.csv");
}

TEST_F(AtomicFileTest, SignalRemovesTemporariesAndExits) {
    const std::string target = file("out.csv");
    for (const int sig : {SIGINT, SIGTERM}) {
        // In a forked child: one file committed (it stays), one half-written when the signal arrives.
        auto interrupted_run = [&] {
            remove_temp_files_on_signal();
            AtomicFile kept(file("a.csv"));
            kept.stream() << "complete";
            kept.commit();
            AtomicFile other(target);
            other.stream() << "partial";
            std::raise(sig);
        };
        EXPECT_EXIT(interrupted_run(), ::testing::ExitedWithCode(128 + sig), "");
        EXPECT_EQ(listing(), std::vector<std::string>{"a.csv"});
        fs::remove(file("a.csv"));
    }
}

TEST_F(AtomicFileTest, SignalEndsTheLiveTerminalLine) {
    // A progress line redrawn in place has no newline; Ctrl-C ends it so the prompt starts a line.
    for (const bool live : {true, false}) {
        auto interrupted_run = [&] {
            remove_temp_files_on_signal();
            set_live_terminal_line(live);
            std::fputs("\rrun: step 5/10", stderr);
            std::fflush(stderr);
            std::raise(SIGINT);
        };
        EXPECT_EXIT(interrupted_run(), ::testing::ExitedWithCode(130), live ? "step 5/10\n$" : "step 5/10$");
    }
}

TEST_F(AtomicFileTest, RefusesToReplaceWhatIsNotARegularFile) {
    // A rename would put a regular file where a FIFO, socket or device node was (issue 10, 1.).
    const std::string fifo = file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string sock = file("sock");
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(sock.size(), sizeof addr.sun_path);
    std::copy(sock.begin(), sock.end(), addr.sun_path);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);

    EXPECT_EQ(error_of([&] { AtomicFile f(fifo); }),
              "cannot write '" + fifo + "': it is a FIFO, not a regular file (refusing to replace it)");
    EXPECT_NE(error_of([&] { AtomicFile f(sock); }).find("is a socket"), std::string::npos);
    EXPECT_NE(error_of([&] { AtomicFile f(dir_.string()); }).find("is a directory"), std::string::npos);
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_TRUE(fs::is_socket(sock));
    EXPECT_EQ(listing(), (std::vector<std::string>{"fifo", "sock"}));  // no temporary left either
    // Device nodes: only checked, never written, so the test cannot harm /dev/null if the check failed.
    EXPECT_EQ(error_of([] { check_output_path("/dev/null", "--output"); }),
              "--output '/dev/null' is a character device, not a regular file (refusing to replace it)");
}

TEST_F(AtomicFileTest, FollowsSymbolicLinksAndKeepsThem) {
    const std::string real = write_text("real.csv", "old");
    const std::string link = file("link.csv");
    fs::create_symlink("real.csv", link);  // relative: resolved against the link's directory
    {
        AtomicFile f(link);
        EXPECT_EQ(f.target_path(), real);
        EXPECT_EQ(fs::path(f.temp_path()).parent_path(), dir_);
        f.stream() << "new";
        f.commit();
    }
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(slurp(real), "new");

    // A dangling link creates its target; a chain of links is followed to the end.
    fs::create_directories(dir_ / "sub");
    fs::create_symlink(dir_ / "sub" / "made.csv", file("dangling.csv"));
    fs::create_symlink("dangling.csv", file("chain.csv"));
    {
        AtomicFile f(file("chain.csv"));
        f.stream() << "made";
        f.commit();
    }
    EXPECT_EQ(slurp((dir_ / "sub" / "made.csv").string()), "made");
    EXPECT_TRUE(fs::is_symlink(file("chain.csv")));

    // A link to something that is not a regular file is refused like the thing itself; so is a loop.
    ASSERT_EQ(::mkfifo(file("fifo").c_str(), 0600), 0);
    fs::create_symlink("fifo", file("to-fifo"));
    EXPECT_NE(error_of([&] { AtomicFile f(file("to-fifo")); }).find("is a FIFO"), std::string::npos);
    fs::create_symlink("loop-b", file("loop-a"));
    fs::create_symlink("loop-a", file("loop-b"));
    EXPECT_NE(error_of([&] { AtomicFile f(file("loop-a")); }).find("symbolic links"), std::string::npos);
}

TEST_F(AtomicFileTest, KeepsThePermissionsOfTheFileItReplaces) {
    const std::string target = write_text("private.csv", "old");
    fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
    AtomicFile f(target);
    f.stream() << "new";
    f.commit();
    EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(AtomicFileTest, ByNameModeLeavesTheWritingToAnotherLibrary) {
    const std::string target = file("snapshot.h5");
    AtomicFile f(target, AtomicFile::Mode::by_name);
    f.stream() << "nothing goes through the stream";
    EXPECT_FALSE(f.stream());
    EXPECT_TRUE(fs::is_regular_file(f.temp_path()));
    EXPECT_EQ(fs::path(f.temp_path()).extension(), ".h5");  // for libraries that go by the extension
    std::ofstream(f.temp_path(), std::ios::binary) << "written by name";
    f.commit();
    EXPECT_EQ(slurp(target), "written by name");
    EXPECT_EQ(listing(), std::vector<std::string>{"snapshot.h5"});
}

// In a forked child: one file committed (it stays), one half-written, one path registered by hand,
// when signal `sig` arrives.
void die_with_temporaries(const fs::path& dir, int sig) {
    remove_temp_files_on_signal();
    remove_temp_files_on_signal();  // twice is harmless
    AtomicFile kept((dir / "a.csv").string());
    kept.stream() << "complete";
    kept.commit();
    AtomicFile other((dir / "out.csv").string());
    other.stream() << "partial";
    const std::string log = (dir / "run.log.partial").string();
    std::ofstream(log) << "growing";
    SignalCleanup registered(log);
    std::raise(sig);
    std::_Exit(0);  // not reached unless the signal is ignored
}

TEST_F(AtomicFileTest, EveryTerminatingSignalRemovesTemporariesAndExits) {
    // Issue 10, 7.: SIGHUP, SIGQUIT, SIGUSR1 and SIGPIPE used to leave temporaries behind.
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGXCPU,
                          SIGXFSZ, SIGVTALRM, SIGPROF}) {
        EXPECT_EXIT(die_with_temporaries(dir_, sig), ::testing::ExitedWithCode(128 + sig), "")
            << strsignal(sig);
        EXPECT_EQ(listing(), std::vector<std::string>{"a.csv"}) << strsignal(sig);
        fs::remove(file("a.csv"));
    }
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif

TEST_F(AtomicFileTest, CrashSignalsRemoveTemporariesAndStillCrash) {
    for (const int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE}) {
        // The crash reaches the handler that was there before ours: the default (killed by the signal) or,
        // under scripts/sanitize.sh, AddressSanitizer's report, which ends the process with status 1.
        auto crashed = [sig](int status) {
            return (WIFSIGNALED(status) && WTERMSIG(status) == sig) ||
                   (kUnderAsan && WIFEXITED(status) && WEXITSTATUS(status) == 1);
        };
        EXPECT_EXIT(die_with_temporaries(dir_, sig), crashed, "") << strsignal(sig);
        EXPECT_EQ(listing(), std::vector<std::string>{"a.csv"}) << strsignal(sig);
        fs::remove(file("a.csv"));
    }
}

TEST_F(AtomicFileTest, IgnoredSignalsStayIgnored) {
    auto under_nohup = [&] {
        std::signal(SIGHUP, SIG_IGN);
        die_with_temporaries(dir_, SIGHUP);
    };
    EXPECT_EXIT(under_nohup(), ::testing::ExitedWithCode(0), "");
}

TEST(SignalCleanup, ReleasesItsSlotAndMoves) {
    SignalCleanup a("/tmp/nbody-test-some-path");
    EXPECT_TRUE(a.registered());
    SignalCleanup b(std::move(a));
    EXPECT_FALSE(a.registered());
    EXPECT_TRUE(b.registered());
    b.release();
    EXPECT_FALSE(b.registered());
    EXPECT_FALSE(SignalCleanup("").registered());
}

}  // namespace
}  // namespace nbody
