// Work run in a forked child: its answer comes back whole, its errors come back as nbody::Error, and its
// death (a crash inside a library) becomes one error here without touching the parent's temporaries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/error.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/platform/child_process.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(ChildProcessTest, ReturnsTheAnswerWhole) {
    // Megabytes, every byte value.
    std::string big(3 << 20, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7919 % 251);
    EXPECT_EQ(run_in_child([&] { return big; }, "f", "crashed"), big);
    EXPECT_EQ(run_in_child([] { return std::string(); }, "f", "crashed"), "");
}

TEST(ChildProcessTest, RunsInAnotherProcess) {
    const std::string parent = std::to_string(::getpid());
    EXPECT_NE(run_in_child([] { return std::to_string(::getpid()); }, "f", "crashed"), parent);
}

TEST(ChildProcessTest, AnErrorComesBackWithItsMessage) {
    EXPECT_EQ(error_of([] { run_in_child([]() -> std::string { throw Error("x.h5: bad"); }, "f", "c"); }),
              "x.h5: bad");
}

TEST(ChildProcessTest, ACrashBecomesOneError) {
    const std::string e = error_of([] {
        run_in_child(
            []() -> std::string {
                std::raise(SIGSEGV);
                return "unreachable";
            },
            "x.h5", "the library crashed");
    });
    // Under a sanitizer its report ends the child with a status (ASan 1, TSan 66) instead of the signal.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    EXPECT_EQ(e.rfind("x.h5: the library crashed (", 0), 0u) << e;
#else
    EXPECT_EQ(e.rfind("x.h5: the library crashed (signal " + std::to_string(SIGSEGV) + ", ", 0), 0u) << e;
#endif
}

TEST(ChildProcessTest, AnExitWithoutAnAnswerBecomesOneError) {
    const std::string e = error_of([] { run_in_child([]() -> std::string { ::_exit(3); }, "x.h5", "gone"); });
    EXPECT_EQ(e, "x.h5: gone (the reading process exited with status 3 without an answer)");
}

// A library that allocates without end fails in the child, within the limit given: the child answers
// "out of memory" (or, under a sanitizer whose allocator aborts instead, dies), never the parent.
TEST(ChildProcessTest, TheMemoryLimitStopsARunawayChild) {
    const std::string e = error_of([] {
        run_in_child(
            [] {
                // 4 GiB, over the 256 MiB allowed; never touched (without the limit it would just succeed),
                // and kept through a volatile pointer so the allocation cannot be optimised away.
                static char* volatile sink = nullptr;
                sink = new char[std::size_t(4) << 30];
                delete[] sink;
                return std::string("allocated");
            },
            "x.h5", "crashed", std::uint64_t(256) << 20);
    });
    EXPECT_TRUE(e == "x.h5: reading it needed more memory than allowed (corrupt file?)" ||
                e.rfind("x.h5: crashed (", 0) == 0)
        << e;
}

// The signal handlers that remove temporaries are inherited by the child; a crash there must not remove
// the parent's file in progress (the window may be saving a snapshot while it opens another).
TEST(ChildProcessTest, ACrashingChildLeavesTheParentsTemporaries) {
    remove_temp_files_on_signal();
    const fs::path dir = fs::temp_directory_path() / ("nbody_test_child_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {
        AtomicFile out((dir / "out.csv").string());
        out.stream() << "x\n";
        EXPECT_NE(error_of([] { run_in_child([]() -> std::string { std::abort(); }, "x.h5", "crashed"); }),
                  "(no error)");
        EXPECT_TRUE(fs::exists(out.temp_path()));
        out.commit();
    }
    EXPECT_TRUE(fs::exists(dir / "out.csv"));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace nbody
