// README's worked example run as written (issue 23: it showed `--steps 0 --output` printing nothing, and
// a summary line the program no longer prints). Each `$ COMMAND` of the example's sh blocks runs in a
// fresh directory, in order, and its output (stdout, then stderr) must read as the lines under it: exactly,
// except the numbers of the timing lines (wall time, interactions/s) and of |dE/E|, and the backend's name
// (the default backend is the fastest this machine has); a `...` line stands for any lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace nbody {
namespace {

struct Step {
    std::string command;
    std::vector<std::string> expected;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The `$ ` commands of the sh blocks between "### Worked example" and the next heading.
std::vector<Step> worked_example(const std::string& readme) {
    const std::size_t start = readme.find("### Worked example");
    if (start == std::string::npos) return {};
    std::size_t end = std::min(readme.find("\n## ", start), readme.find("\n### ", start + 1));
    std::istringstream in(readme.substr(start, end == std::string::npos ? std::string::npos : end - start));
    std::vector<Step> steps;
    bool in_sh = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("```", 0) == 0) {
            in_sh = !in_sh && line == "```sh";
        } else if (in_sh && line.rfind("$ ", 0) == 0) {
            steps.push_back({line.substr(2), {}});
        } else if (in_sh && !steps.empty()) {
            steps.back().expected.push_back(line);
        }
    }
    return steps;
}

// What may differ from run to run or machine to machine. The energy drift of a float run is the build's
// too: its sums depend on the vector width and on contraction into FMAs (the sanitizer build, without
// -march=native, prints 6.5e-07 where the release build prints 7.5e-06), so only its form is compared.
std::string normalised(const std::string& line) {
    static const std::regex backend("\\b(serial|openmp|cuda)\\b"), number("[-+]?[0-9][0-9.e+-]*");
    std::string out = std::regex_replace(line, backend, "BACKEND");
    if (out.find("wall time") != std::string::npos || out.find("interactions/s") != std::string::npos ||
        out.find("|dE/E|") != std::string::npos)
        out = std::regex_replace(out, number, "#");
    return out;
}

// Runs `command` in `dir` with `nbody` being the program built here.
std::vector<std::string> run_in(const std::string& dir, const std::string& command) {
    const std::string script = "cd '" + dir + "' && nbody() { '" NBODY_EXE "' \"$@\"; } && { " + command +
                               "; } 2> stderr.txt; cat stderr.txt; rm -f stderr.txt";
    const std::string shell = "sh -c '" + std::regex_replace(script, std::regex("'"), "'\\''") + "'";
    std::vector<std::string> lines;
    FILE* p = ::popen(shell.c_str(), "r");
    if (!p) return lines;
    std::string text;
    std::array<char, 4096> buf{};
    for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), p)) > 0;) text.append(buf.data(), got);
    ::pclose(p);
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Whether `got` reads as `want`, where a "  ..." line of `want` matches any run of lines.
bool reads_as(const std::vector<std::string>& want, std::size_t w, const std::vector<std::string>& got,
              std::size_t g) {
    if (w == want.size()) return g == got.size();
    if (want[w].find_first_not_of(' ') != std::string::npos &&
        want[w].substr(want[w].find_first_not_of(' ')) == "...") {
        for (std::size_t k = g; k <= got.size(); ++k) {
            if (reads_as(want, w + 1, got, k)) return true;
        }
        return false;
    }
    return g < got.size() && normalised(want[w]) == normalised(got[g]) && reads_as(want, w + 1, got, g + 1);
}

class Readme : public test::TempDirTest {};

TEST_F(Readme, WorkedExampleOutputIsWhatTheProgramPrints) {
    const std::vector<Step> steps = worked_example(read_text(NBODY_SOURCE_DIR "/README.md"));
    ASSERT_GE(steps.size(), 5u) << "the worked example's commands were not found in README.md";
    for (const Step& s : steps) {
        const std::vector<std::string> got = run_in(file(""), s.command);
        std::string shown;
        for (const std::string& l : got) shown += l + "\n";
        EXPECT_TRUE(reads_as(s.expected, 0, got, 0)) << "$ " << s.command << "\nprinted:\n" << shown;
    }
}

}  // namespace
}  // namespace nbody
