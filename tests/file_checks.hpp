#pragma once
// What the tests of files (atomic outputs, growing logs, the command line's outputs) check them with: a
// file's bytes, the message an nbody::Error carries, and a fixture that writes and lists files in the
// test's own directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "temp_dir.hpp"

namespace nbody::test {

// The whole content of a file, bytes as they are ("" if it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The message of the nbody::Error that f throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// A fresh directory per test (TempDirTest) with a file writer and a sorted listing.
class FilesTest : public TempDirTest {
  protected:
    // Writes `text` to `name` in the test's directory; returns its path.
    std::string write_text(const std::string& name, const std::string& text) const {
        const std::string path = file(name);
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    // The names in `d` (the test's directory if empty), sorted.
    std::vector<std::string> listing(const std::string& d = "") const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(d.empty() ? dir_.string() : d))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
};

}  // namespace nbody::test
