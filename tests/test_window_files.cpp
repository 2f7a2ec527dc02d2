// Where the window saves (app/window/window_files): Ctrl+S writes into a documented snapshots directory and
// names the whole path (issue 23: it wrote into the working directory and said only the file's name).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

// The Open dialog lists folders, then only the files nbody reads; nothing hidden.
TEST(WindowFiles, OpenDialogListsFoldersAndReadableFiles) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("nbody_open_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "run1");
    for (const char* f : {"b.csv", "a.h5", "notes.txt", ".hidden.h5", "x.tipsy"})
        std::ofstream(dir / f) << "x";
    const std::vector<std::string> want = {"../", "run1/", "a.h5", "b.csv", "x.tipsy"};
    EXPECT_EQ(open_dialog_entries(dir.string()), want);
    EXPECT_EQ(open_dialog_entries("/")[0] == "../", false);  // nothing above the root
    fs::remove_all(dir);
}

}  // namespace
}  // namespace nbody
