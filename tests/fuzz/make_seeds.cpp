// Writes a few valid files for the fuzzers to start from (small, so mutations reach every field).
//   make_seeds TIPSY_DIR HDF5_DIR
#include <fstream>
#include <string>

#include "sim/io/snapshot_hdf5.hpp"
#include "sim/io/tipsy_io.hpp"

namespace {

nbody::Snapshot tiny(std::size_t n, nbody::Precision p) {
    nbody::Snapshot s;
    s.state.resize(n);
    s.state.t = 0.5;
    for (std::size_t i = 0; i < n; ++i) {
        s.state.pos_mass[i] = {double(i), -0.5 * double(i), 0.25, 1.0 + double(i)};
        s.state.vel[i] = {0.1, 0.2 * double(i), -0.3, 0};
    }
    s.info.has_params = true;
    s.info.precision = p;
    s.info.params.softening = 0.01;
    s.info.step = 3;
    s.info.preset = "plummer";
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    const std::string tipsy = argv[1], hdf5 = argv[2];
    for (const auto order : {nbody::TipsyByteOrder::big_endian, nbody::TipsyByteOrder::native}) {
        const bool big = order == nbody::TipsyByteOrder::big_endian;
        std::ofstream out(tipsy + (big ? "/seed_xdr.tipsy" : "/seed_native.bin"), std::ios::binary);
        nbody::write_tipsy(out, tiny(3, nbody::Precision::f32), order, "seed");
    }
    nbody::write_hdf5_snapshot(hdf5 + "/seed_float.h5", tiny(4, nbody::Precision::f32));
    nbody::write_hdf5_snapshot(hdf5 + "/seed_double.h5", tiny(2, nbody::Precision::f64));
    return 0;
}
