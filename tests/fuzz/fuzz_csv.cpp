// libFuzzer harness for the body CSV reader: any bytes must give bodies or one nbody::Error (one line),
// never a crash, an out-of-bounds read, undefined behaviour or a leak (built with ASan and UBSan by
// run_fuzz.sh). The reader takes a path, so each input is handed over as an in-memory file.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "sim/error.hpp"
#include "sim/io/csv_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const int fd = ::memfd_create("fuzz.csv", MFD_CLOEXEC);
    if (fd < 0) __builtin_trap();
    for (std::size_t done = 0; done < size;) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0) __builtin_trap();
        done += std::size_t(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    try {
        nbody::BodySource source;
        const nbody::HostState s = nbody::read_bodies_csv(path, &source);
        // Whatever was accepted is usable: sizes agree, a line per body, values finite, masses positive.
        if (s.size() == 0 || s.vel.size() != s.size() || source.lines.size() != s.size()) __builtin_trap();
        for (std::size_t i = 0; i < s.size(); ++i) {
            const auto& p = s.pos_mass[i];
            const auto& v = s.vel[i];
            if (!(p.w > 0) || !std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z) ||
                !std::isfinite(p.w) || !std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
                __builtin_trap();
        }
    } catch (const nbody::Error& e) {
        // One line, and short: a huge cell is quoted as an excerpt.
        const std::string what = e.what();
        if (what.find('\n') != std::string::npos || what.size() > 4096 + path.size()) __builtin_trap();
    }
    ::close(fd);
    return 0;
}
