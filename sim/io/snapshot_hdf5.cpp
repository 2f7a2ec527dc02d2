#include "snapshot_hdf5.hpp"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "input_file.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/error.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/integrate/neighbour_scheme.hpp"
#include "sim/platform/child_process.hpp"
#include "sim/platform/memory.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"
#include "sim/validate.hpp"

#ifndef NBODY_VERSION
#define NBODY_VERSION "unknown"
#endif

namespace nbody {
namespace {

// Bumped when /NBody changes meaning; readers refuse a newer one rather than misread it.
constexpr int kFormatVersion = 1;
constexpr int kPartTypes = 6;  // GADGET's PartType0..5 (gas, dark matter, ..., stars, black holes)
constexpr int kOurPartType = 1;

// One HDF5 identifier, closed by the function that matches how it was opened.
class Hid {
  public:
    Hid() = default;
    Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
    Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
    Hid& operator=(Hid&& o) noexcept {
        std::swap(id_, o.id_);
        std::swap(close_, o.close_);
        return *this;
    }
    Hid(const Hid&) = delete;
    Hid& operator=(const Hid&) = delete;
    ~Hid() { reset(); }
    // Closes now; returns false if closing failed (for a file: the last writes did not reach the disk).
    bool reset() {
        if (id_ < 0) return true;
        const bool ok = close_(std::exchange(id_, H5I_INVALID_HID)) >= 0;
        return ok;
    }
    operator hid_t() const { return id_; }
    bool valid() const { return id_ >= 0; }

  private:
    hid_t id_ = H5I_INVALID_HID;
    herr_t (*close_)(hid_t) = nullptr;
};

// HDF5 prints its error stack to stderr by default; we turn each failure into one line instead.
void quiet_hdf5() {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

// The most specific message on HDF5's error stack ("truncated file: eof = ...", "addr overflow ..."),
// then cleared; empty if the stack is empty.
std::string hdf5_detail() {
    std::string detail;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
            if (n == 0 && e && e->desc) *static_cast<std::string*>(out) = e->desc;
            return 0;
        },
        &detail);
    H5Eclear2(H5E_DEFAULT);
    return detail;
}

struct Context {
    std::string name;  // the file, as named in messages

    [[noreturn]] void fail(const std::string& problem) const {
        const std::string detail = hdf5_detail();
        throw Error(name + ": " + problem + (detail.empty() ? "" : " (HDF5: " + detail + ")"));
    }
    hid_t check(hid_t id, const std::string& what) const {
        if (id < 0) fail(what);
        return id;
    }
    void ok(herr_t status, const char* what) const {
        if (status < 0) fail(what);
    }
    bool exists(hid_t loc, const char* path) const {
        const htri_t r = H5Lexists(loc, path, H5P_DEFAULT);
        if (r < 0) fail(std::string("cannot look up '") + path + "'");
        return r > 0;
    }
};

std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

// --- writing ----------------------------------------------------------------------------------------

void write_attr(const Context& c, hid_t loc, const char* name, hid_t mem_type, hid_t file_type,
                const void* data, hsize_t count) {
    Hid space = count == 0 ? Hid(H5Screate(H5S_SCALAR), H5Sclose)
                           : Hid(H5Screate_simple(1, &count, nullptr), H5Sclose);
    c.check(space, std::string("cannot create the dataspace of attribute ") + name);
    Hid attr(c.check(H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                     std::string("cannot create attribute ") + name),
             H5Aclose);
    c.ok(H5Awrite(attr, mem_type, data), "cannot write an attribute");
}

void attr_double(const Context& c, hid_t loc, const char* name, double v) {
    write_attr(c, loc, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &v, 0);
}
void attr_int32(const Context& c, hid_t loc, const char* name, std::int32_t v) {
    write_attr(c, loc, name, H5T_NATIVE_INT32, H5T_STD_I32LE, &v, 0);
}
void attr_int64(const Context& c, hid_t loc, const char* name, std::int64_t v) {
    write_attr(c, loc, name, H5T_NATIVE_INT64, H5T_STD_I64LE, &v, 0);
}
void attr_uint64(const Context& c, hid_t loc, const char* name, std::uint64_t v) {
    write_attr(c, loc, name, H5T_NATIVE_UINT64, H5T_STD_U64LE, &v, 0);
}
// Fixed-length, NUL-terminated: what h5py, h5dump and every HDF5 version read without fuss.
void attr_string(const Context& c, hid_t loc, const char* name, const std::string& v) {
    Hid type(c.check(H5Tcopy(H5T_C_S1), "cannot create a string type"), H5Tclose);
    c.ok(H5Tset_size(type, v.size() + 1), "cannot size a string type");
    c.ok(H5Tset_strpad(type, H5T_STR_NULLTERM), "cannot set a string's padding");
    write_attr(c, loc, name, type, type, v.c_str(), 0);
}

template <typename T>
void write_dataset(const Context& c, hid_t group, const char* name, hid_t mem_type, hid_t file_type,
                   const std::vector<T>& data, std::size_t rows, std::size_t cols) {
    std::array<hsize_t, 2> dims = {rows, cols};
    Hid space(c.check(H5Screate_simple(cols == 1 ? 1 : 2, dims.data(), nullptr),
                      std::string("cannot create the dataspace of ") + name),
              H5Sclose);
    Hid set(c.check(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    std::string("cannot create dataset ") + name),
            H5Dclose);
    if (rows > 0)
        c.ok(H5Dwrite(set, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "cannot write the bodies");
}

// The bodies in the run's precision T: coordinates and velocities as N x 3, masses N, IDs 0..N-1.
template <typename T>
void write_bodies(const Context& c, hid_t group, const HostState& s) {
    const hid_t mem = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    const hid_t file = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    const std::size_t n = s.size();
    std::vector<T> xyz(3 * n), m(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = s.pos_mass[i];
        xyz[3 * i] = T(p.x), xyz[3 * i + 1] = T(p.y), xyz[3 * i + 2] = T(p.z);
        m[i] = T(p.w);
    }
    write_dataset(c, group, "Coordinates", mem, file, xyz, n, 3);
    write_dataset(c, group, "Masses", mem, file, m, n, 1);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& v = s.vel[i];
        xyz[3 * i] = T(v.x), xyz[3 * i + 1] = T(v.y), xyz[3 * i + 2] = T(v.z);
    }
    write_dataset(c, group, "Velocities", mem, file, xyz, n, 3);
    // Radii beside the masses, in the same layout; only where some body has one (points write none).
    if (std::any_of(s.vel.begin(), s.vel.end(), [](const Vec4<double>& v) { return v.w != 0; })) {
        for (std::size_t i = 0; i < n; ++i) m[i] = T(s.vel[i].w);
        write_dataset(c, group, "Radii", mem, file, m, n, 1);
    }
    std::vector<std::uint64_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = i;
    write_dataset(c, group, "ParticleIDs", H5T_NATIVE_UINT64, H5T_STD_U64LE, ids, n, 1);
}

void write_header(const Context& c, hid_t file, const Snapshot& s) {
    Hid h(
        c.check(H5Gcreate2(file, "/Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create /Header"),
        H5Gclose);
    // NumPart_Total holds the whole count in 64 bits, so NumPart_Total_HighWord stays 0: readers that
    // add HighWord << 32 (the GADGET-2 convention) get the same total.
    std::array<std::uint64_t, kPartTypes> count{};
    count[kOurPartType] = s.state.size();
    const std::array<std::uint32_t, kPartTypes> high{};
    const std::array<double, kPartTypes> mass_table{};  // 0: each body's mass is in Masses
    write_attr(c, h, "NumPart_ThisFile", H5T_NATIVE_UINT64, H5T_STD_U64LE, count.data(), kPartTypes);
    write_attr(c, h, "NumPart_Total", H5T_NATIVE_UINT64, H5T_STD_U64LE, count.data(), kPartTypes);
    write_attr(c, h, "NumPart_Total_HighWord", H5T_NATIVE_UINT32, H5T_STD_U32LE, high.data(), kPartTypes);
    write_attr(c, h, "MassTable", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, mass_table.data(), kPartTypes);
    attr_double(c, h, "Time", s.state.t);
    attr_double(c, h, "Redshift", 0.0);
    attr_double(c, h, "BoxSize", 0.0);  // not periodic
    attr_int32(c, h, "NumFilesPerSnapshot", 1);
    attr_double(c, h, "Omega0", 0.0);
    attr_double(c, h, "OmegaLambda", 0.0);
    attr_double(c, h, "HubbleParam", 1.0);
    for (const char* flag : {"Flag_Sfr", "Flag_Cooling", "Flag_StellarAge", "Flag_Metals", "Flag_Feedback"})
        attr_int32(c, h, flag, 0);
    attr_int32(c, h, "Flag_DoublePrecision", s.info.precision == Precision::f64 ? 1 : 0);
}

void write_parameters(const Context& c, hid_t file, const Snapshot& s) {
    Hid g(c.check(H5Gcreate2(file, "/NBody", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create /NBody"),
          H5Gclose);
    const RunInfo& info = s.info;
    const Params& p = info.params;
    attr_int32(c, g, "FormatVersion", kFormatVersion);
    attr_string(c, g, "ProgramVersion", info.program_version.empty() ? NBODY_VERSION : info.program_version);
    attr_double(c, g, "G", p.G);
    attr_double(c, g, "Softening", p.softening);
    attr_double(c, g, "TimeStep", p.dt);
    attr_double(c, g, "Damping", p.damping);
    attr_string(c, g, "Integrator", to_string(p.integrator));
    attr_string(c, g, "ForceAlgorithm", to_string(p.force));
    // Every setting, also those of algorithms the run did not use: a restart that switches to one starts
    // from the value the run had.
    for (const SettingInfo* setting : all_settings())
        attr_double(c, g, setting->file_name, p.*setting->field);
    attr_string(c, g, "Collisions", to_string(p.collisions));
    attr_double(c, g, "Restitution", p.restitution);
    attr_double(c, g, "Density", p.density);
    attr_int64(c, g, "Step", info.step);
    attr_string(c, g, "Precision", to_string(info.precision));
    attr_string(c, g, "Preset", info.preset);
    attr_uint64(c, g, "Seed", info.seed);
}

// An adaptive integrator's state (block_state.hpp) under /NBody/BlockSteps: the vectors N x 3 in the
// snapshot's precision (a float run's are float values), the levels and lists as integers, the radii as
// double, and the max step the state was made with (the rest of its model is /NBody's).
template <typename T>
std::vector<T> xyz_of(const std::vector<Vec4<double>>& v) {
    std::vector<T> out(3 * v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[3 * i] = T(v[i].x), out[3 * i + 1] = T(v[i].y), out[3 * i + 2] = T(v[i].z);
    return out;
}

template <typename T>
void write_block_state(const Context& c, hid_t file, const BlockState& b) {
    Hid g(c.check(H5Gcreate2(file, "/NBody/BlockSteps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  "cannot create /NBody/BlockSteps"),
          H5Gclose);
    const hid_t mem = sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    const hid_t ftype = sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    const std::size_t n = b.size();
    attr_double(c, g, "MaxStep", b.model.dt);
    write_dataset(c, g, "Level", H5T_NATIVE_INT32, H5T_STD_I32LE, b.level, n, 1);
    write_dataset(c, g, "Acceleration", mem, ftype, xyz_of<T>(b.acc), n, 3);
    write_dataset(c, g, "Jerk", mem, ftype, xyz_of<T>(b.jerk), n, 3);
    if (!b.has_neighbours()) return;
    for (const auto& [name, v] : neighbour_vectors(b))
        write_dataset(c, g, name, mem, ftype, xyz_of<T>(*v), n, 3);
    write_dataset(c, g, "RegularLevel", H5T_NATIVE_INT32, H5T_STD_I32LE, b.regular_level, n, 1);
    write_dataset(c, g, "Radius", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, b.radius, n, 1);
    write_dataset(c, g, "Listed", H5T_NATIVE_UINT32, H5T_STD_U32LE, b.listed, n, 1);
    const std::size_t cap = n > 0 ? b.lists.size() / n : 0;
    write_dataset(c, g, "Lists", H5T_NATIVE_UINT32, H5T_STD_U32LE, b.lists, n, cap);
}

// --- reading ----------------------------------------------------------------------------------------

// The attribute `name` of loc as numbers (a scalar is one), converted by HDF5; nullopt if absent.
template <typename T>
std::optional<std::vector<T>> read_numbers(const Context& c, hid_t loc, const std::string& where,
                                           const char* name, hid_t mem_type) {
    const htri_t has = H5Aexists(loc, name);
    if (has < 0) c.fail("cannot look up attribute " + where + "/" + name);
    if (has == 0) return std::nullopt;
    Hid attr(c.check(H5Aopen(loc, name, H5P_DEFAULT), "cannot open attribute " + where + "/" + name),
             H5Aclose);
    Hid type(c.check(H5Aget_type(attr), "cannot read the type of " + where + "/" + name), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) c.fail(where + "/" + name + " is not a number");
    Hid space(c.check(H5Aget_space(attr), "cannot read the shape of " + where + "/" + name), H5Sclose);
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    if (count < 0 || count > 1024) c.fail(where + "/" + name + " has an unexpected shape");
    std::vector<T> out(static_cast<std::size_t>(count));
    if (count > 0 && H5Aread(attr, mem_type, out.data()) < 0) c.fail("cannot read " + where + "/" + name);
    return out;
}

template <typename T>
std::optional<T> read_scalar(const Context& c, hid_t loc, const std::string& where, const char* name,
                             hid_t mem_type) {
    auto v = read_numbers<T>(c, loc, where, name, mem_type);
    if (!v) return std::nullopt;
    if (v->size() != 1)
        c.fail(where + "/" + name + " should hold one number, not " + std::to_string(v->size()));
    return v->front();
}

// A whole-number attribute in [lo, hi]. HDF5 would convert 10.5 to 10 and -1 to an unsigned 0 without a
// word, so the value is read as double too: a fraction or a value out of range is an error naming it.
std::optional<std::int64_t> read_whole(const Context& c, hid_t loc, const std::string& where,
                                       const char* name, std::int64_t lo, std::int64_t hi) {
    const auto real = read_scalar<double>(c, loc, where, name, H5T_NATIVE_DOUBLE);
    if (!real) return std::nullopt;
    const std::string what = where + "/" + name;
    if (!is_finite_bits(*real) || std::trunc(*real) != *real)
        c.fail(what + " = " + num(*real) + " is not a whole number");
    if (*real < double(lo) || *real > double(hi)) {
        c.fail(what + " = " + num(*real) + " is out of range (" + std::to_string(lo) + " to " +
               std::to_string(hi) + ")");
    }
    const auto exact = read_scalar<std::int64_t>(c, loc, where, name, H5T_NATIVE_INT64);
    if (!exact || *exact < lo || *exact > hi) c.fail(what + " is out of range");
    return *exact;
}

std::optional<std::string> read_string(const Context& c, hid_t loc, const std::string& where,
                                       const char* name) {
    const htri_t has = H5Aexists(loc, name);
    if (has < 0) c.fail("cannot look up attribute " + where + "/" + name);
    if (has == 0) return std::nullopt;
    const std::string what = where + "/" + name;
    Hid attr(c.check(H5Aopen(loc, name, H5P_DEFAULT), "cannot open attribute " + what), H5Aclose);
    Hid type(c.check(H5Aget_type(attr), "cannot read the type of " + what), H5Tclose);
    if (H5Tget_class(type) != H5T_STRING) c.fail(what + " is not a string");
    Hid space(c.check(H5Aget_space(attr), "cannot read the shape of " + what), H5Sclose);
    if (H5Sget_simple_extent_npoints(space) != 1) c.fail(what + " should hold one string");
    const htri_t vlen = H5Tis_variable_str(type);
    if (vlen < 0) c.fail("cannot read the type of " + what);
    if (vlen > 0) {  // written by h5py and others as variable-length
        Hid mem(c.check(H5Tcopy(H5T_C_S1), "cannot create a string type"), H5Tclose);
        c.ok(H5Tset_size(mem, H5T_VARIABLE), "cannot size a string type");
        // h5py writes a str as UTF-8, and libhdf5 converts between ASCII and UTF-8 in neither direction:
        // read it in the file's own character set (the bytes are the same for our names).
        const H5T_cset_t cset = H5Tget_cset(type);
        if (cset < 0 || H5Tset_cset(mem, cset) < 0) c.fail("cannot read the character set of " + what);
        char* text = nullptr;
        if (H5Aread(attr, mem, &text) < 0) c.fail("cannot read " + what);
        std::string out = text ? text : "";
        H5free_memory(text);
        return out;
    }
    const std::size_t size = H5Tget_size(type);
    if (size == 0 || size > 4096) c.fail(what + " has an unexpected size");
    Hid mem(c.check(H5Tcopy(type), "cannot copy a string type"), H5Tclose);
    std::string out(size, '\0');
    if (H5Aread(attr, mem, out.data()) < 0) c.fail("cannot read " + what);
    out.resize(std::strlen(out.c_str()));                      // NUL-terminated or NUL-padded
    while (!out.empty() && out.back() == ' ') out.pop_back();  // space-padded (Fortran writers)
    return out;
}

// A dataset of `rows` x `cols` floating-point (or integer) values, read as double. `rows` is set from the
// first dataset of a group (rows == npos) and checked for the others.
std::vector<double> read_matrix(const Context& c, hid_t group, const std::string& where, const char* name,
                                std::size_t cols, std::size_t& rows, hsize_t file_size) {
    const std::string what = where + "/" + name;
    Hid set(c.check(H5Dopen2(group, name, H5P_DEFAULT), "cannot open dataset " + what), H5Dclose);
    Hid type(c.check(H5Dget_type(set), "cannot read the type of " + what), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) c.fail(what + " does not hold numbers");
    Hid space(c.check(H5Dget_space(set), "cannot read the shape of " + what), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space);
    std::array<hsize_t, 2> dims{};
    if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0)
        c.fail(what + " should be a " + (cols == 1 ? "list" : "N x 3 table") + ", not rank " +
               std::to_string(rank));
    const hsize_t got_cols = rank == 1 ? 1 : dims[1];
    if (got_cols != cols || (cols > 1 && rank != 2) || (cols == 1 && rank != 1)) {
        c.fail(what + " has shape " + std::to_string(dims[0]) +
               (rank == 2 ? " x " + std::to_string(dims[1]) : "") + ", expected N" +
               (cols == 1 ? "" : " x " + std::to_string(cols)));
    }
    if (rows == std::size_t(-1)) {
        rows = static_cast<std::size_t>(dims[0]);
    } else if (dims[0] != rows) {
        c.fail(what + " has " + std::to_string(dims[0]) + " rows but the group's Coordinates have " +
               std::to_string(rows));
    }
    // A corrupt header can claim any size: without a compression filter the values must fit in the file,
    // and whatever the claim, in memory.
    const hsize_t elements = dims[0] * cols;
    if (dims[0] > (hsize_t(1) << 40)) c.fail(what + " claims " + std::to_string(dims[0]) + " rows");
    Hid dcpl(c.check(H5Dget_create_plist(set), "cannot read the layout of " + what), H5Pclose);
    const int filters = H5Pget_nfilters(dcpl);
    const std::size_t elem = H5Tget_size(type);
    if (elem == 0 || elem > 16) c.fail(what + " holds " + std::to_string(elem) + "-byte numbers");
    if (filters <= 0 && elements * elem > file_size) {
        c.fail(what + " needs " + std::to_string(elements * elem) + " bytes but the file has only " +
               std::to_string(file_size) + " (truncated?)");
    }
    // Compressed: deflate, the strongest filter HDF5 ships, packs at most ~1032:1.
    if (filters > 0 && elements * elem > 1100 * file_size) {
        c.fail(what + " claims " + std::to_string(elements * elem) + " bytes of values, more than a " +
               std::to_string(file_size) + "-byte file can hold even compressed (corrupt?)");
    }
    check_host_memory(static_cast<std::size_t>(dims[0]), Precision::f64);
    std::vector<double> out(static_cast<std::size_t>(elements));
    if (elements == 0) return out;
    // Float datasets are read as float and widened here: HDF5's own float -> double conversion is several
    // times slower than the read itself.
    if (cls == H5T_FLOAT && elem == 4) {
        std::vector<float> f(out.size());
        if (H5Dread(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, f.data()) < 0)
            c.fail("cannot read " + what + " (corrupt or truncated file?)");
        std::copy(f.begin(), f.end(), out.begin());
        return out;
    }
    if (H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
        c.fail("cannot read " + what + " (corrupt or truncated file?)");
    return out;
}

// Bytes per value of the Coordinates of a group: 4 for a float run, 8 for a double one.
std::size_t coordinate_bytes(const Context& c, hid_t group, const std::string& where) {
    Hid set(
        c.check(H5Dopen2(group, "Coordinates", H5P_DEFAULT), "cannot open dataset " + where + "/Coordinates"),
        H5Dclose);
    Hid type(c.check(H5Dget_type(set), "cannot read the type of " + where + "/Coordinates"), H5Tclose);
    return H5Tget_size(type);
}

void read_parameters(const Context& c, hid_t file, Snapshot& s) {
    const std::string where = "/NBody";
    Hid g(c.check(H5Gopen2(file, "/NBody", H5P_DEFAULT), "cannot open /NBody"), H5Gclose);
    RunInfo& info = s.info;
    auto need_double = [&](const char* name) {
        const auto v = read_scalar<double>(c, g, where, name, H5T_NATIVE_DOUBLE);
        if (!v) c.fail(where + " has no attribute " + name + " (not written by nbody, or damaged)");
        return *v;
    };
    auto need_string = [&](const char* name) {
        const auto v = read_string(c, g, where, name);
        if (!v) c.fail(where + " has no attribute " + name + " (not written by nbody, or damaged)");
        return *v;
    };
    if (const auto version = read_whole(c, g, where, "FormatVersion", INT32_MIN, INT32_MAX)) {
        if (*version > kFormatVersion || *version < 1) {
            c.fail("/NBody FormatVersion " + std::to_string(*version) + " is not one this nbody reads (" +
                   std::to_string(kFormatVersion) + "): written by a newer nbody?");
        }
    }
    Params p;
    p.G = need_double("G");
    p.softening = need_double("Softening");
    p.dt = need_double("TimeStep");
    p.damping = read_scalar<double>(c, g, where, "Damping", H5T_NATIVE_DOUBLE).value_or(1.0);
    const std::string integrator = need_string("Integrator");
    const auto i = parse_integrator(integrator);
    if (!i) c.fail("/NBody/Integrator " + quote_excerpt(integrator) + " is not an integrator of this nbody");
    p.integrator = *i;
    if (const auto algorithm = read_string(c, g, where, "ForceAlgorithm")) {
        const auto a = parse_force_algorithm(*algorithm);
        if (!a)
            c.fail("/NBody/ForceAlgorithm " + quote_excerpt(*algorithm) +
                   " is not a force algorithm of this nbody");
        p.force = *a;
    }
    for (const SettingInfo* setting : all_settings()) {
        if (const auto v = read_scalar<double>(c, g, where, setting->file_name, H5T_NATIVE_DOUBLE))
            p.*setting->field = *v;  // checked with the rest by validate_params
    }
    if (const auto mode = read_string(c, g, where, "Collisions")) {
        const auto m = parse_collision_mode(*mode);
        if (!m) c.fail("/NBody/Collisions '" + *mode + "' is not one of off, merge, bounce");
        p.collisions = *m;
    }
    if (const auto v = read_scalar<double>(c, g, where, "Restitution", H5T_NATIVE_DOUBLE)) p.restitution = *v;
    if (const auto v = read_scalar<double>(c, g, where, "Density", H5T_NATIVE_DOUBLE)) p.density = *v;
    try {
        validate_params(p);
    } catch (const Error& e) {
        c.fail(std::string("/NBody: ") + e.what());
    }
    info.params = p;
    info.has_params = true;
    // Bounded: a counter near 2^63 (one flipped bit) made every chunk of the run 0 steps long.
    info.step = read_whole(c, g, where, "Step", 0, kMaxStepCounter).value_or(0);
    info.preset = read_string(c, g, where, "Preset").value_or("");
    info.seed = read_scalar<std::uint64_t>(c, g, where, "Seed", H5T_NATIVE_UINT64).value_or(0);
    info.program_version = read_string(c, g, where, "ProgramVersion").value_or("");
    if (const auto precision = read_string(c, g, where, "Precision")) {
        const auto pr = parse_precision(*precision);
        if (!pr) c.fail("/NBody/Precision " + quote_excerpt(*precision) + " is neither float nor double");
        if (*pr != info.precision) {
            c.fail("/NBody/Precision says " + quote_excerpt(*precision) + " but the bodies are stored as " +
                   to_string(info.precision) + " (damaged file?)");
        }
    }
}

// Whole numbers in [lo, hi] read as double (read_matrix): a fraction or a value out of range names itself.
template <typename I>
std::vector<I> whole_values(const Context& c, const std::string& what, const std::vector<double>& v,
                            double lo, double hi) {
    std::vector<I> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!is_finite_bits(v[i]) || std::trunc(v[i]) != v[i] || v[i] < lo || v[i] > hi) {
            c.fail(what + "[" + std::to_string(i) + "] = " + num(v[i]) + " is not a whole number from " +
                   num(lo) + " to " + num(hi));
        }
        out[i] = static_cast<I>(v[i]);
    }
    return out;
}

// A table of body indices (the neighbour lists: N x 2K, up to 8 GiB of them): read straight into 32-bit
// integers where the file stores them so (as nbody writes them), through doubles and whole_values otherwise
// (HDF5 would clamp a -1 or a fraction into a valid index without a word).
std::vector<std::uint32_t> read_indices(const Context& c, hid_t group, const std::string& where,
                                        const char* name, std::size_t cols, std::size_t rows,
                                        hsize_t file_size) {
    const std::string what = where + "/" + name;
    if (!c.exists(group, name)) c.fail(where + " has no " + name);
    bool exact = false;
    {
        Hid set(c.check(H5Dopen2(group, name, H5P_DEFAULT), "cannot open dataset " + what), H5Dclose);
        Hid type(c.check(H5Dget_type(set), "cannot read the type of " + what), H5Tclose);
        exact =
            H5Tget_class(type) == H5T_INTEGER && H5Tget_size(type) == 4 && H5Tget_sign(type) == H5T_SGN_NONE;
        if (exact) {
            Hid space(c.check(H5Dget_space(set), "cannot read the shape of " + what), H5Sclose);
            std::array<hsize_t, 2> dims{};
            if (H5Sget_simple_extent_ndims(space) != 2 ||
                H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0 || dims[0] != rows ||
                dims[1] != cols) {
                exact = false;  // read_matrix below names the shape that is wrong
            } else if (rows * cols * 4 > file_size) {
                Hid dcpl(c.check(H5Dget_create_plist(set), "cannot read the layout of " + what), H5Pclose);
                if (H5Pget_nfilters(dcpl) <= 0) exact = false;  // read_matrix says the file is too short
            }
            if (exact) {
                std::vector<std::uint32_t> out(rows * cols);
                if (!out.empty() &&
                    H5Dread(set, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
                    c.fail("cannot read " + what + " (corrupt or truncated file?)");
                return out;
            }
        }
    }
    std::size_t n = rows;
    return whole_values<std::uint32_t>(c, what, read_matrix(c, group, where, name, cols, n, file_size), 0,
                                       4294967295.0);
}

std::vector<Vec4<double>> vectors_of(const std::vector<double>& xyz) {
    std::vector<Vec4<double>> out(xyz.size() / 3);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], 0.0};
    return out;
}

// /NBody/BlockSteps, for the bodies and parameters already read; every value checked
// (block_state_problem), so that a damaged state is an error naming it, not a run that goes wrong.
BlockState read_block_state(const Context& c, hid_t file, const Snapshot& s, hsize_t file_size) {
    const std::string where = "/NBody/BlockSteps";
    if (!s.info.has_params) c.fail(where + " without the /NBody parameters it belongs to");
    Hid g(c.check(H5Gopen2(file, "/NBody/BlockSteps", H5P_DEFAULT), "cannot open " + where), H5Gclose);
    BlockState b;
    b.model = s.info.params;
    b.precision = s.info.precision;
    const auto dt = read_scalar<double>(c, g, where, "MaxStep", H5T_NATIVE_DOUBLE);
    if (!dt) c.fail(where + " has no MaxStep attribute");
    if (!(is_finite_bits(*dt) && *dt > 0))
        c.fail(where + "/MaxStep = " + num(*dt) + " is not a time step > 0");
    b.model.dt = *dt;
    // A max step the run itself could not take (its finest level underflows the precision, or float
    // cannot hold it) is a damaged file.
    try {
        validate_params(b.model, b.precision);
    } catch (const Error& e) {
        c.fail(where + "/MaxStep: " + e.what());
    }
    const std::size_t n = s.state.size();
    const auto table = [&](const char* name, std::size_t cols) {
        if (!c.exists(g, name)) c.fail(where + " has no " + name);
        std::size_t rows = n;
        return read_matrix(c, g, where, name, cols, rows, file_size);
    };
    const double max_level = 40;  // kMaxBlockLevel; block_state_problem says it in words
    b.level = whole_values<int>(c, where + "/Level", table("Level", 1), 0, max_level);
    b.acc = vectors_of(table("Acceleration", 3));
    b.jerk = vectors_of(table("Jerk", 3));
    if (b.model.neighbours > 0) {
        if (!c.exists(g, "Lists")) {
            c.fail(where + " has no neighbour lists, but /NBody/Neighbours = " + num(b.model.neighbours));
        }
        for (auto [name, v] : neighbour_vectors(b)) *v = vectors_of(table(name, 3));
        b.regular_level =
            whole_values<int>(c, where + "/RegularLevel", table("RegularLevel", 1), 0, max_level);
        b.radius = table("Radius", 1);
        b.listed = whole_values<std::uint32_t>(c, where + "/Listed", table("Listed", 1), 0, 4294967295.0);
        const double k = b.model.neighbours;
        if (!(k == std::trunc(k) && k <= 1e6))
            c.fail("/NBody/Neighbours = " + num(k) + " is not a whole number");
        b.lists = read_indices(c, g, where, "Lists", std::size_t(neighbour_capacity(int(k))), n, file_size);
    } else if (c.exists(g, "Lists")) {
        c.fail(where + " has neighbour lists, but /NBody/Neighbours is 0");
    }
    if (const std::string problem = block_state_problem(b, n); !problem.empty())
        c.fail(where + ": " + problem);
    return b;
}

Snapshot read_file(const Context& c, hid_t file) {
    hsize_t file_size = 0;
    c.ok(H5Fget_filesize(file, &file_size), "cannot read the file size");
    Snapshot s;

    if (!c.exists(file, "Header")) c.fail("no /Header group: not a GADGET/SWIFT-layout snapshot");
    Hid header(c.check(H5Gopen2(file, "Header", H5P_DEFAULT), "cannot open /Header"), H5Gclose);
    const std::string hw = "/Header";
    if (const auto files = read_whole(c, header, hw, "NumFilesPerSnapshot", INT32_MIN, INT32_MAX)) {
        if (*files != 1) {
            c.fail("one file of a snapshot split over " + std::to_string(*files) +
                   " files (NumFilesPerSnapshot): only single-file snapshots are read");
        }
    }
    const auto time = read_scalar<double>(c, header, hw, "Time", H5T_NATIVE_DOUBLE);
    if (!time) c.fail("/Header has no Time attribute");
    if (!is_finite_bits(*time)) c.fail("/Header/Time = " + num(*time) + " is not finite");
    s.state.t = *time;
    const auto mass_table = read_numbers<double>(c, header, hw, "MassTable", H5T_NATIVE_DOUBLE);
    // Signed: a -1 read as unsigned would be said as "0 particles".
    const auto this_file = read_numbers<std::int64_t>(c, header, hw, "NumPart_ThisFile", H5T_NATIVE_INT64);
    const auto total = read_numbers<std::int64_t>(c, header, hw, "NumPart_Total", H5T_NATIVE_INT64);
    const auto high_word =
        read_numbers<std::uint64_t>(c, header, hw, "NumPart_Total_HighWord", H5T_NATIVE_UINT64);
    for (const auto* counts : {&this_file, &total}) {
        if (!*counts) continue;
        for (std::size_t type = 0; type < (*counts)->size(); ++type) {
            if ((**counts)[type] < 0) {
                c.fail("/Header/" + std::string(counts == &this_file ? "NumPart_ThisFile" : "NumPart_Total") +
                       "[" + std::to_string(type) + "] = " + std::to_string((**counts)[type]) +
                       " is negative");
            }
        }
    }

    std::size_t value_bytes = 0;
    std::vector<std::string> other_types;
    for (int type = 0; type < kPartTypes; ++type) {
        const std::string group_name = "PartType" + std::to_string(type);
        if (!c.exists(file, group_name.c_str())) {
            if (this_file && this_file->size() > std::size_t(type) && (*this_file)[type] > 0)
                c.fail("/Header/NumPart_ThisFile says " + std::to_string((*this_file)[type]) +
                       " particles of type " + std::to_string(type) + " but there is no /" + group_name);
            continue;
        }
        const std::string where = "/" + group_name;
        Hid g(c.check(H5Gopen2(file, group_name.c_str(), H5P_DEFAULT), "cannot open " + where), H5Gclose);
        if (!c.exists(g, "Coordinates")) c.fail(where + " has no Coordinates");
        if (!c.exists(g, "Velocities")) c.fail(where + " has no Velocities");
        value_bytes = std::max(value_bytes, coordinate_bytes(c, g, where));
        std::size_t rows = std::size_t(-1);
        const std::vector<double> x = read_matrix(c, g, where, "Coordinates", 3, rows, file_size);
        const std::vector<double> v = read_matrix(c, g, where, "Velocities", 3, rows, file_size);
        if (this_file && this_file->size() > std::size_t(type) && std::uint64_t((*this_file)[type]) != rows) {
            c.fail("/Header/NumPart_ThisFile says " + std::to_string((*this_file)[type]) +
                   " particles of type " + std::to_string(type) + " but " + where + "/Coordinates has " +
                   std::to_string(rows));
        }
        // A single file holds the whole snapshot: its total must be these rows (GADGET-2 files split a
        // large total into a 32-bit word and HighWord; ours store it whole with HighWord 0).
        if (total && total->size() > std::size_t(type)) {
            const std::uint64_t low = std::uint64_t((*total)[type]);
            const std::uint64_t high =
                high_word && high_word->size() > std::size_t(type) ? (*high_word)[type] : 0;
            if (low != rows && low + (high << 32) != rows) {
                c.fail("/Header/NumPart_Total says " + std::to_string(low + (high << 32)) +
                       " particles of type " + std::to_string(type) + " but " + where + "/Coordinates has " +
                       std::to_string(rows) + " (a single-file snapshot holds them all)");
            }
        }
        std::vector<double> m;
        if (c.exists(g, "Masses")) {
            m = read_matrix(c, g, where, "Masses", 1, rows, file_size);
        } else {
            const double table =
                mass_table && mass_table->size() > std::size_t(type) ? (*mass_table)[type] : 0.0;
            if (!(table > 0) && rows > 0)
                c.fail(where + " has no Masses and /Header/MassTable[" + std::to_string(type) +
                       "] is not > 0");
            m.assign(rows, table);
        }
        std::vector<double> radii(rows, 0.0);
        if (c.exists(g, "Radii")) radii = read_matrix(c, g, where, "Radii", 1, rows, file_size);
        const std::size_t first = s.state.size();
        s.state.resize(first + rows);
        for (std::size_t i = 0; i < rows; ++i) {
            const std::size_t b = first + i;
            const double values[7] = {x[3 * i],     x[3 * i + 1], x[3 * i + 2], v[3 * i],
                                      v[3 * i + 1], v[3 * i + 2], m[i]};
            for (int k = 0; k < 7; ++k) {
                if (is_finite_bits(values[k])) continue;
                const char* set = k < 3 ? "Coordinates" : (k < 6 ? "Velocities" : "Masses");
                c.fail(where + "/" + set + "[" + std::to_string(i) + "] is not finite (" + num(values[k]) +
                       ")");
            }
            if (!(m[i] > 0))
                c.fail(where + "/Masses[" + std::to_string(i) + "] = " + num(m[i]) + ": masses must be > 0");
            s.state.pos_mass[b] = {values[0], values[1], values[2], values[6]};
            if (!(is_finite_bits(radii[i]) && radii[i] >= 0))
                c.fail(where + "/Radii[" + std::to_string(i) + "] = " + num(radii[i]) +
                       ": radii must be finite and >= 0");
            s.state.vel[b] = {values[3], values[4], values[5], radii[i]};
        }
        if (type != kOurPartType && rows > 0)
            other_types.push_back(std::to_string(rows) + " of " + group_name);
    }
    if (s.state.size() == 0) c.fail("no bodies (no non-empty /PartType0../PartType5 group)");
    s.info.precision = value_bytes <= 4 ? Precision::f32 : Precision::f64;
    if (!other_types.empty()) {
        std::string list;
        for (const auto& t : other_types) list += (list.empty() ? "" : ", ") + t;
        s.notes.push_back(c.name + ": read " + list + " as gravitating bodies too");
    }

    if (c.exists(file, "NBody")) {
        read_parameters(c, file, s);
        if (c.exists(file, "NBody/BlockSteps")) s.block = read_block_state(c, file, s, file_size);
    } else {
        s.notes.push_back(c.name +
                          ": no /NBody group (written by another code): G, dt, softening and the "
                          "integrator are defaults");
    }
    return s;
}

Snapshot read_path(const std::string& path) {
    quiet_hdf5();
    const Context c{path};
    const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
    if (is_hdf5 == 0) c.fail("not an HDF5 file");
    if (is_hdf5 < 0) c.fail("cannot open");
    Hid file(c.check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT),
                     "cannot open as HDF5 (corrupt or truncated?)"),
             H5Fclose);
    return read_file(c, file);
}

// --- the reading child's answer ----------------------------------------------------------------------
// A Snapshot as bytes, from the reading child to its parent: the same program on the same machine on
// both ends, so plain memory images (no byte order, no versions).

static_assert(std::is_trivially_copyable_v<Params> && std::is_trivially_copyable_v<Vec4<double>>);

template <typename T>
void put(std::string& out, const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_string(std::string& out, const std::string& s) {
    put(out, s.size());
    out += s;
}
template <typename T>
void put_vector(std::string& out, const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(out, v.size());
    if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string encode(const Snapshot& s) {
    const std::size_t n = s.state.size();
    std::string out;
    out.reserve(n * 2 * sizeof(Vec4<double>) + 1024);
    put(out, s.state.t);
    put(out, n);
    out.append(reinterpret_cast<const char*>(s.state.pos_mass.data()), n * sizeof(Vec4<double>));
    out.append(reinterpret_cast<const char*>(s.state.vel.data()), n * sizeof(Vec4<double>));
    const RunInfo& i = s.info;
    put(out, i.has_params), put(out, i.params);
    put(out, i.step), put(out, i.precision), put(out, i.seed);
    put_string(out, i.preset), put_string(out, i.program_version);
    put(out, s.notes.size());
    for (const auto& note : s.notes) put_string(out, note);
    put(out, s.block.has_value());
    if (s.block) {
        const BlockState& b = *s.block;
        put(out, b.model), put(out, b.precision);
        put_vector(out, b.level), put_vector(out, b.acc), put_vector(out, b.jerk);
        for (const auto& [name, v] : neighbour_vectors(b)) put_vector(out, *v);
        put_vector(out, b.regular_level), put_vector(out, b.radius);
        put_vector(out, b.listed), put_vector(out, b.lists);
    }
    return out;
}

struct Decoder {
    const std::string& in;
    const std::string& name;
    std::size_t at = 0;

    void take(void* to, std::size_t size) {
        if (size > in.size() - at) throw Error(name + ": a short answer from the reading process");
        if (size == 0) return;  // an empty vector's data() may be null, which memcpy must not get
        std::memcpy(to, in.data() + at, size);
        at += size;
    }
    template <typename T>
    T get() {
        T v;
        take(&v, sizeof v);
        return v;
    }
    std::string get_string() {
        std::string s(get<std::size_t>(), '\0');
        take(s.data(), s.size());
        return s;
    }
    template <typename T>
    void get_vector(std::vector<T>& v) {
        const std::size_t count = get<std::size_t>();
        if (count > (in.size() - at) / sizeof(T))
            throw Error(name + ": a short answer from the reading process");
        v.resize(count);
        take(v.data(), count * sizeof(T));
    }
};

Snapshot decode(const std::string& bytes, const std::string& name) {
    Decoder d{bytes, name};
    Snapshot s;
    s.state.t = d.get<double>();
    s.state.resize(d.get<std::size_t>());
    d.take(s.state.pos_mass.data(), s.state.size() * sizeof(Vec4<double>));
    d.take(s.state.vel.data(), s.state.size() * sizeof(Vec4<double>));
    RunInfo& i = s.info;
    i.has_params = d.get<bool>();
    i.params = d.get<Params>();
    i.step = d.get<std::int64_t>();
    i.precision = d.get<Precision>();
    i.seed = d.get<std::uint64_t>();
    i.preset = d.get_string();
    i.program_version = d.get_string();
    s.notes.resize(d.get<std::size_t>());
    for (auto& note : s.notes) note = d.get_string();
    if (d.get<bool>()) {
        BlockState& b = s.block.emplace();
        b.model = d.get<Params>();
        b.precision = d.get<Precision>();
        d.get_vector(b.level), d.get_vector(b.acc), d.get_vector(b.jerk);
        for (auto [name, v] : neighbour_vectors(b)) d.get_vector(*v);
        d.get_vector(b.regular_level), d.get_vector(b.radius);
        d.get_vector(b.listed), d.get_vector(b.lists);
    }
    return s;
}

// Every call into libhdf5 holds it. Debian's libhdf5 has its own lock, but the reading child must not be
// forked while another thread is inside the library: the child would inherit that lock taken, and its
// half-changed state, and wait forever.
std::mutex g_hdf5;

}  // namespace

Snapshot read_hdf5_snapshot(const std::string& path) {
    // A FIFO would block libhdf5's open() and a device has no end: regular files only. A missing file is
    // said in one short line, not in libhdf5's ("unable to open file: name = ..., errno = 2, ...").
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open: " + std::strerror(errno));
    check_input_path(path);
    // libhdf5 is not robust against corrupt files (see docs/SNAPSHOTS.md, "Bad files"): a file from
    // anywhere is read in a child process, and a crash there becomes one error line here.
    const std::lock_guard lock(g_hdf5);
    // The child may map 2 GiB + 64 x the file beyond the parent: the values a few times over (as stored,
    // widened, as bodies, encoded) and libhdf5's caches. A crafted file on which libhdf5 allocates without
    // end (the fuzzer found one) then fails an allocation instead of taking the machine's memory.
    const std::uint64_t allowance = (std::uint64_t(2) << 30) + 64 * std::uint64_t(st.st_size);
    const std::string bytes = run_in_child([&] { return encode(read_path(path)); }, path,
                                           "the HDF5 library crashed reading this file (corrupt or crafted "
                                           "file?); nothing was read",
                                           allowance);
    return decode(bytes, path);
}

Snapshot read_hdf5_snapshot_image(const void* data, std::size_t size, const std::string& name) {
    const std::lock_guard lock(g_hdf5);
    quiet_hdf5();
    const Context c{name};
    Hid fapl(c.check(H5Pcreate(H5P_FILE_ACCESS), "cannot create a file access list"), H5Pclose);
    c.ok(H5Pset_fapl_core(fapl, 1 << 16, 0), "cannot select the in-memory driver");
    // H5Pset_file_image copies the buffer, so the const_cast never lets HDF5 write into the caller's bytes.
    c.ok(H5Pset_file_image(fapl, const_cast<void*>(data), size), "cannot hand over the file image");
    Hid file(
        c.check(H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl), "cannot open as HDF5 (corrupt or truncated?)"),
        H5Fclose);
    return read_file(c, file);
}

std::string hdf5_snapshot_image(const Snapshot& s, const std::string& name) {
    const std::lock_guard lock(g_hdf5);
    quiet_hdf5();
    const Context c{name};
    // Built in memory (the core driver, no backing store) and written out by the caller: libhdf5 never
    // touches the disk, so a full disk is the caller's plain write error naming the user's file, and no
    // file handle is left open by a close that failed to flush (which crashed libhdf5 at exit).
    Hid fapl(c.check(H5Pcreate(H5P_FILE_ACCESS), "cannot create a file access list"), H5Pclose);
    const std::size_t bytes_per_body = 2 * 3 * 8 + 8 + 8;
    const std::size_t increment =
        std::clamp<std::size_t>(s.state.size() * bytes_per_body / 4, 1 << 16, 1 << 26);
    c.ok(H5Pset_fapl_core(fapl, increment, 0), "cannot select the in-memory driver");
    Hid file(c.check(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "cannot create"), H5Fclose);
    write_header(c, file, s);
    {
        Hid g(c.check(H5Gcreate2(file, "/PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      "cannot create /PartType1"),
              H5Gclose);
        if (s.info.precision == Precision::f32) {
            write_bodies<float>(c, g, s.state);
        } else {
            write_bodies<double>(c, g, s.state);
        }
    }
    write_parameters(c, file, s);
    if (s.block && s.block->precision == s.info.precision) {
        if (s.info.precision == Precision::f32) {
            write_block_state<float>(c, file, *s.block);
        } else {
            write_block_state<double>(c, file, *s.block);
        }
    }
    c.ok(H5Fflush(file, H5F_SCOPE_GLOBAL), "cannot finish the file");
    const ssize_t size = H5Fget_file_image(file, nullptr, 0);
    if (size < 0) c.fail("cannot finish the file");
    std::string image(static_cast<std::size_t>(size), '\0');
    if (H5Fget_file_image(file, image.data(), image.size()) != size) c.fail("cannot finish the file");
    if (!file.reset()) c.fail("cannot finish the file");
    return image;
}

void write_hdf5_snapshot(const std::string& path, const Snapshot& s) {
    const std::string image = hdf5_snapshot_image(s, path);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    out.close();
    if (!out) throw Error(path + ": cannot write: " + std::strerror(errno ? errno : EIO));
}

bool have_hdf5() {
    return true;
}

}  // namespace nbody
