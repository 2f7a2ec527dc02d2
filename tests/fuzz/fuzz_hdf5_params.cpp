// libFuzzer harness for the HDF5 parameter reader (/NBody's attributes, and /Header's counts and time):
// a well-formed snapshot of two bodies whose attributes are chosen by the fuzzer (name, HDF5 type, shape,
// value), so that every run reaches the attribute reader instead of dying in libhdf5's superblock checks
// as random bytes do (fuzz_hdf5.cpp covers those). Each file must give a snapshot a run can use or one
// nbody::Error (one line).
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "sim/io/snapshot_hdf5.hpp"
#include "sim/validate.hpp"

namespace {

constexpr const char* kNames[] = {
    "FormatVersion",  "ProgramVersion", "G",   "Softening", "TimeStep",  "Damping", "Integrator",
    "ForceAlgorithm", "Theta",          "Eta", "Step",      "Precision", "Preset",  "Seed"};
constexpr const char* kHeaderNames[] = {"Time",          "NumPart_ThisFile",
                                        "NumPart_Total", "NumPart_Total_HighWord",
                                        "MassTable",     "NumFilesPerSnapshot"};

void put_attribute(hid_t loc, const std::string& name, FuzzedDataProvider& in) {
    if (H5Aexists(loc, name.c_str()) != 0) return;
    const int kind = in.ConsumeIntegralInRange(0, 8);
    if (kind >= 7) {  // a string: fixed-length (NUL- or space-padded) or variable-length
        const std::string text = in.ConsumeRandomLengthString(64);
        const hid_t type = H5Tcopy(H5T_C_S1);
        const hid_t space = H5Screate(H5S_SCALAR);
        if (kind == 7) {
            H5Tset_size(type, text.size() + 1);
            H5Tset_strpad(type, in.ConsumeBool() ? H5T_STR_NULLTERM : H5T_STR_SPACEPAD);
            const hid_t attr = H5Acreate2(loc, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(attr, type, text.c_str());
            H5Aclose(attr);
        } else {
            H5Tset_size(type, H5T_VARIABLE);
            H5Tset_cset(type, H5T_CSET_UTF8);  // as h5py writes a str
            const hid_t attr = H5Acreate2(loc, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
            const char* p = text.c_str();
            H5Awrite(attr, type, &p);
            H5Aclose(attr);
        }
        H5Sclose(space);
        H5Tclose(type);
        return;
    }
    // Numbers: a scalar or a short list of one of several types, the values as raw bytes.
    static const hid_t file_types[] = {H5T_IEEE_F64LE, H5T_IEEE_F32LE, H5T_STD_I64LE, H5T_STD_U64LE,
                                       H5T_STD_I32LE,  H5T_STD_U8LE,   H5T_STD_I64BE};
    static const hid_t mem_types[] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT, H5T_NATIVE_INT64,
                                      H5T_NATIVE_UINT64, H5T_NATIVE_INT32, H5T_NATIVE_UINT8,
                                      H5T_NATIVE_INT64};
    const hsize_t count = in.ConsumeIntegralInRange<hsize_t>(0, 7);  // 0: a scalar
    const hid_t space = count == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
    std::vector<std::uint8_t> bytes = in.ConsumeBytes<std::uint8_t>(8 * std::max<hsize_t>(count, 1));
    bytes.resize(8 * std::max<hsize_t>(count, 1));
    const hid_t attr = H5Acreate2(loc, name.c_str(), file_types[kind], space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, mem_types[kind], bytes.data());
    H5Aclose(attr);
    H5Sclose(space);
}

template <typename T>
void put_dataset(hid_t group, const char* name, hid_t file_type, hid_t mem_type, const std::vector<T>& v,
                 hsize_t rows, hsize_t cols) {
    const std::array<hsize_t, 2> dims = {rows, cols};
    const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims.data(), nullptr);
    const hid_t set = H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(set);
    H5Sclose(space);
}

std::string make_file(FuzzedDataProvider& in) {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 16, 0);
    const hid_t file = H5Fcreate("params.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    const hid_t header = H5Gcreate2(file, "/Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t bodies = H5Gcreate2(file, "/PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t nbody = H5Gcreate2(file, "/NBody", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const std::vector<double> x = {1, 0, 0, -1, 0, 0}, v = {0, 0.5, 0, 0, -0.5, 0}, m = {1, 1};
    const bool dbl = in.ConsumeBool();
    put_dataset(bodies, "Coordinates", dbl ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, x, 2, 3);
    put_dataset(bodies, "Velocities", dbl ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, v, 2, 3);
    put_dataset(bodies, "Masses", dbl ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, m, 2, 1);
    for (int k = 0; k < 24 && in.remaining_bytes() > 0; ++k) {
        const int pick = in.ConsumeIntegralInRange(0, 21);
        if (pick < 14) {
            put_attribute(nbody, kNames[pick], in);
        } else if (pick < 20) {
            put_attribute(header, kHeaderNames[pick - 14], in);
        } else {
            put_attribute(pick == 20 ? nbody : header, in.ConsumeRandomLengthString(16), in);
        }
    }
    // The attributes the reader needs, where the fuzzer gave none: mostly valid files, then one change.
    if (H5Aexists(header, "Time") == 0) {
        const double t = 0;
        const hid_t s = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(header, "Time", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &t);
        H5Aclose(a);
        H5Sclose(s);
    }
    for (const char* name : {"G", "Softening", "TimeStep"}) {
        if (H5Aexists(nbody, name) != 0) continue;
        const double value = name[0] == 'G' ? 1.0 : 0.01;
        const hid_t s = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(nbody, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
        H5Aclose(a);
        H5Sclose(s);
    }
    if (H5Aexists(nbody, "Integrator") == 0) {
        const hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, 9);
        const hid_t s = H5Screate(H5S_SCALAR);
        const hid_t a = H5Acreate2(nbody, "Integrator", type, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, type, "leapfrog");
        H5Aclose(a);
        H5Sclose(s);
        H5Tclose(type);
    }
    H5Gclose(nbody);
    H5Gclose(bodies);
    H5Gclose(header);
    H5Fflush(file, H5F_SCOPE_GLOBAL);
    const ssize_t size = H5Fget_file_image(file, nullptr, 0);
    std::string image(size > 0 ? std::size_t(size) : 0, '\0');
    if (size > 0) H5Fget_file_image(file, image.data(), image.size());
    H5Fclose(file);
    H5Pclose(fapl);
    return image;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool quiet = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }();
    (void)quiet;
    FuzzedDataProvider in(data, size);
    const std::string image = make_file(in);
    if (image.empty()) return 0;
    try {
        const nbody::Snapshot s = nbody::read_hdf5_snapshot_image(image.data(), image.size(), "fuzz.h5");
        // Accepted: parameters a run can use, a step counter it can add to, the two bodies.
        if (s.state.size() != 2 || s.info.step < 0 || s.info.step > nbody::kMaxStepCounter) __builtin_trap();
        if (s.info.has_params) nbody::validate_params(s.info.params);  // throws: a bug, as an uncaught error
    } catch (const nbody::Error& e) {
        const std::string what = e.what();
        if (what.find('\n') != std::string::npos || what.empty()) __builtin_trap();
    }
    return 0;
}
