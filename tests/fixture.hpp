#pragma once
// A test input embedded in the test binary at build time (tests/embed_fixtures.cmake), so the binary
// needs no source tree beside it.
#include <string_view>

namespace nbody::test {

struct Fixture {
    std::string_view name;   // the file's name in the source tree
    std::string_view bytes;  // its content
};

}  // namespace nbody::test
