// libFuzzer harness for the CSV parameter lines ("# nbody ... parameters", then "# key = value"): any bytes
// must give a RunInfo whose parameters a run can use, or one nbody::Error (one line). The body rows after
// the header are the body reader's (fuzz_csv.cpp); this one starts where they were never looked at.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/error.hpp"
#include "sim/io/run_metadata.hpp"
#include "sim/io/snapshot_types.hpp"

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
        if (const std::optional<nbody::RunMetadata> m = nbody::read_metadata(path)) {
            nbody::RunInfo info;
            double t = 0;
            nbody::read_run_info(*m, path, info, t);
            // What was accepted is in range: the step counter a run adds to, a finite start time.
            if (info.step < 0 || info.step > nbody::kMaxStepCounter || t != t) __builtin_trap();
        }
    } catch (const nbody::Error& e) {
        const std::string what = e.what();
        if (what.find('\n') != std::string::npos || what.size() > 4096 + path.size()) __builtin_trap();
    }
    ::close(fd);
    return 0;
}
