// libFuzzer harness for the Tipsy reader: any bytes must give bodies or one nbody::Error, never a crash,
// an out-of-bounds read or undefined behaviour (built with ASan and UBSan by run_fuzz.sh).
#include <cstddef>
#include <cstdint>

#include "sim/error.hpp"
#include "sim/io/tipsy_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const nbody::Snapshot s = nbody::parse_tipsy(data, size, "fuzz.tipsy");
        // Whatever was accepted is usable: sizes agree and every value is finite, masses positive.
        if (s.state.pos_mass.size() != s.state.vel.size() || s.state.size() == 0) __builtin_trap();
        for (const auto& p : s.state.pos_mass) {
            if (!(p.w > 0) || p.x != p.x || p.y != p.y || p.z != p.z) __builtin_trap();
        }
    } catch (const nbody::Error&) {
    }
    return 0;
}
