// Where the window saves (app/window/window_files): Ctrl+S writes into a documented snapshots directory and
// names the whole path (issue 23: it wrote into the working directory and said only the file's name).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/window/scale_bar.hpp"
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

// The view's scale bar: the longest 1, 2 or 5 times a power of ten that fits, in the scenario's unit.
TEST(ScaleBar, IsARoundLengthThatFits) {
    ScaleBar b = nice_scale_bar(0.01, 150.0f, "AU");  // 1.5 AU fit: 1 AU, 100 px
    EXPECT_DOUBLE_EQ(b.length, 1.0);
    EXPECT_FLOAT_EQ(b.pixels, 100.0f);
    EXPECT_EQ(b.label, "1 AU");
    b = nice_scale_bar(0.004, 150.0f, "");  // 0.6 fit: 0.5
    EXPECT_DOUBLE_EQ(b.length, 0.5);
    EXPECT_EQ(b.label, "0.5");
    b = nice_scale_bar(2.0, 150.0f, "kpc");  // 300 fit: 200
    EXPECT_DOUBLE_EQ(b.length, 200.0);
    EXPECT_EQ(nice_scale_bar(0.0, 150.0f, "").pixels, 0.0f);  // no scale: no bar
}

}  // namespace
}  // namespace nbody
