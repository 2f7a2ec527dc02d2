#pragma once
// `nbody ARGS` run in-process with std::cout and std::cerr captured, and the checks the command-line tests
// make of it: the helpers of test_cli, test_cli_messages, test_data_safety and test_snapshot_cli.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "file_checks.hpp"  // slurp, beside run_cli in every test of the command line

namespace nbody::test {

struct CliResult {
    int code = 0;
    std::string out, err;
};

// Runs `nbody args...` through nbody_main, std::cout and std::cerr captured (and restored, also when it
// throws).
inline CliResult run_cli(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"nbody"};
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
    std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
    CliResult r;
    try {
        r.code = nbody_main(static_cast<int>(argv.size()), argv.data());
    } catch (...) {
        std::cout.rdbuf(old_out);
        std::cerr.rdbuf(old_err);
        throw;
    }
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

// Status 1 and exactly one line "nbody: error: ..." on stderr that contains `what`.
inline ::testing::AssertionResult refused(const CliResult& r, const std::string& what) {
    if (r.code != 1) return ::testing::AssertionFailure() << "status " << r.code << ", stderr: " << r.err;
    if (std::count(r.err.begin(), r.err.end(), '\n') != 1 || r.err.rfind("nbody: error: ", 0) != 0)
        return ::testing::AssertionFailure() << "not one error line: " << r.err;
    if (r.err.find(what) == std::string::npos)
        return ::testing::AssertionFailure() << "no '" << what << "' in: " << r.err;
    return ::testing::AssertionSuccess();
}

}  // namespace nbody::test
