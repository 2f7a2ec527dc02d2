// The child-process pipe of `render --video` (ffmpeg) and `plot` (gnuplot): no shell, errors reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/cli/process_pipe.hpp"
#include "sim/error.hpp"

namespace nbody {
namespace {

// ffmpeg stands in as `sh`: the argv reaches the program untouched (no shell quoting), and a program
// that exits early is reported with its status instead of killing the test with SIGPIPE.
TEST(ProcessPipe, PassesFileNamesUntouchedWithoutAShell) {
    namespace fs = std::filesystem;
    fs::path out = fs::path(::testing::TempDir()) / "nbody it's \"$(x)\".bin";
    fs::remove(out);
    std::string payload(300000, 'x');
    payload[12345] = 'y';
    {
        ProcessPipe pipe({"sh", "-c", "cat > \"$1\"", "sh", out.string()}, out.string());
        pipe.write(payload.data(), payload.size());
        pipe.finish();
    }
    std::ifstream in(out, std::ios::binary);
    std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(got, payload);
    fs::remove(out);
}

TEST(ProcessPipe, ReportsAnEncoderThatDiesAsAnError) {
    std::vector<char> frame(1 << 20, 0);
    ProcessPipe pipe({"sh", "-c", "exec 0<&-; exit 3"}, "x.mp4");
    try {
        for (int i = 0; i < 64; ++i) pipe.write(frame.data(), frame.size());
        pipe.finish();
        FAIL() << "no error although the program exited with status 3";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("exit status 3"), std::string::npos) << e.what();
    }
}

TEST(ProcessPipe, FailingEncoderAndMissingProgramAreErrors) {
    ProcessPipe fails({"sh", "-c", "cat > /dev/null; exit 1"}, "x.mp4");
    char b[16] = {};
    fails.write(b, sizeof b);
    EXPECT_THROW(fails.finish(), Error);
    EXPECT_THROW(ProcessPipe({"nbody-no-such-program-xyz"}, "x.mp4"), Error);
}

TEST(ProcessPipe, FindsProgramsOnPath) {
    EXPECT_TRUE(on_path("sh"));
    EXPECT_FALSE(on_path("nbody-no-such-program-xyz"));
}

}  // namespace
}  // namespace nbody
