// The HDF5 entry points of a build configured without libhdf5: each says so in one line.
#include "sim/error.hpp"
#include "snapshot_hdf5.hpp"

namespace nbody {
namespace {

[[noreturn]] void no_hdf5(const std::string& path) {
    throw Error(path +
                ": this nbody was built without HDF5 support (install libhdf5-dev and reconfigure), "
                "so .h5/.hdf5 files cannot be read or written; use .csv or .tipsy");
}

}  // namespace

Snapshot read_hdf5_snapshot(const std::string& path) {
    no_hdf5(path);
}

Snapshot read_hdf5_snapshot_image(const void*, std::size_t, const std::string& name) {
    no_hdf5(name);
}

std::string hdf5_snapshot_image(const Snapshot&, const std::string& name) {
    no_hdf5(name);
}

void write_hdf5_snapshot(const std::string& path, const Snapshot&) {
    no_hdf5(path);
}

bool have_hdf5() {
    return false;
}

}  // namespace nbody
