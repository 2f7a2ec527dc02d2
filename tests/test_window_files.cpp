// Where the window saves (app/window/window_files): Ctrl+S writes into a documented snapshots directory and
// names the whole path (issue 23: it wrote into the working directory and said only the file's name).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "app/window/window_files.hpp"

namespace nbody {
namespace {

TEST(WindowFiles, SnapshotsGoToTheSnapshotsDirectoryByTheirFullPath) {
    namespace fs = std::filesystem;
    const std::string home = (fs::temp_directory_path() / "nbody_home").string();
    ::setenv("HOME", home.c_str(), 1);
    ::unsetenv("NBODY_SNAPSHOT_DIR");
    EXPECT_EQ(snapshot_directory(), (fs::path(home) / "nbody-snapshots").string());
    std::string name = default_snapshot_name();
    EXPECT_TRUE(fs::path(name).is_absolute()) << name;
    EXPECT_EQ(fs::path(name).parent_path().string(), snapshot_directory());
    EXPECT_EQ(fs::path(name).filename().string().rfind("nbody-", 0), 0u) << name;
    ::setenv("NBODY_SNAPSHOT_DIR", "class/snaps", 1);
    name = default_snapshot_name();
    EXPECT_EQ(fs::path(name).parent_path().string(), (fs::current_path() / "class/snaps").string());
    ::unsetenv("NBODY_SNAPSHOT_DIR");
}

}  // namespace
}  // namespace nbody
