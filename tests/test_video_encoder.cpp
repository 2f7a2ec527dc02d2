// The H.264 encoder pipe (app/cli/video_encoder), through tests/fake_ffmpeg, which writes
// "frames=K size=WxH" for the raw frames it received: every frame arrives whole and in order, the file
// appears only when the encoder succeeded, a failing encoder leaves nothing behind.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/cli/video_encoder.hpp"
#include "sim/error.hpp"
#include "temp_dir.hpp"

namespace nbody {
namespace {

class VideoEncoderTest : public test::TempDirTest {
  protected:
    void SetUp() override {
        TempDirTest::SetUp();
        const char* path = std::getenv("PATH");
        old_path_ = path ? path : "";
        ::setenv("PATH", (std::string(NBODY_FAKE_FFMPEG_DIR) + ":" + old_path_).c_str(), 1);
        ::unsetenv("FAKE_FFMPEG_FAIL");
    }
    void TearDown() override {
        ::setenv("PATH", old_path_.c_str(), 1);
        ::unsetenv("FAKE_FFMPEG_FAIL");
        TempDirTest::TearDown();
    }
    static std::string read(const std::string& path) {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    // Files in the test's directory (a temporary left behind would show here).
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename());
        return names;
    }
    std::string old_path_;
};

TEST_F(VideoEncoderTest, SixtyFramesArriveWholeAtTheirSize) {
    const std::string out = file("v.mp4");
    VideoEncoder enc(out, 64, 48, 30);
    for (int i = 0; i < 60; ++i)
        ASSERT_TRUE(enc.push(std::vector<std::uint8_t>(64 * 48 * 4, std::uint8_t(i)), i % 2));
    EXPECT_FALSE(std::filesystem::exists(out));  // only the temporary while encoding
    enc.finish();
    EXPECT_EQ(enc.frames_written(), 60);
    EXPECT_EQ(read(out), "frames=60 size=64x48\n");
    EXPECT_EQ(listing(), std::vector<std::string>{"v.mp4"});
}

TEST_F(VideoEncoderTest, FailingEncoderLeavesNoFile) {
    ::setenv("FAKE_FFMPEG_FAIL", "1", 1);
    const std::string out = file("bad.mp4");
    VideoEncoder enc(out, 64, 48, 30);
    for (int i = 0; i < 5; ++i) enc.push(std::vector<std::uint8_t>(64 * 48 * 4), true);
    EXPECT_THROW(enc.finish(), Error);
    EXPECT_TRUE(listing().empty());
}

TEST_F(VideoEncoderTest, AbandonedRecordingLeavesNoFile) {
    {
        VideoEncoder enc(file("gone.mp4"), 64, 48, 30);
        enc.push(std::vector<std::uint8_t>(64 * 48 * 4), false);
    }
    EXPECT_TRUE(listing().empty());
}

TEST_F(VideoEncoderTest, OddSizesAndMissingEncoderAreOneClearError) {
    EXPECT_THROW(VideoEncoder(file("odd.mp4"), 63, 48, 30), Error);
    ::setenv("PATH", dir_.c_str(), 1);
    try {
        require_ffmpeg("--record");
        FAIL() << "no ffmpeg on PATH, yet no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--record needs ffmpeg"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(listing().empty());
}

}  // namespace
}  // namespace nbody
