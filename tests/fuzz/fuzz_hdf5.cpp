// libFuzzer harness for the HDF5 snapshot reader, through an in-memory file image: any bytes must give
// bodies or one nbody::Error from our code. (libhdf5 itself is Debian's uninstrumented build: a crash
// inside it shows up as a SEGV in its frames, which run_fuzz.sh reports.)
#include <cstddef>
#include <cstdint>

#include "sim/error.hpp"
#include "sim/io/snapshot_hdf5.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const nbody::Snapshot s = nbody::read_hdf5_snapshot_image(data, size, "fuzz.h5");
        if (s.state.pos_mass.size() != s.state.vel.size() || s.state.size() == 0) __builtin_trap();
        for (const auto& p : s.state.pos_mass) {
            if (!(p.w > 0) || p.x != p.x || p.y != p.y || p.z != p.z) __builtin_trap();
        }
    } catch (const nbody::Error&) {
    }
    return 0;
}
