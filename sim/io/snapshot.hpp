#pragma once
// A snapshot: the bodies plus what an exact restart needs (parameters, step count, precision, where the
// bodies came from), and the one entry point that reads or writes any of the three file formats.
//   .csv          bodies only (x,y,z,vx,vy,vz,m)
//   .h5 / .hdf5   the GADGET/SWIFT layout (/Header, /PartType1/...) plus our /NBody parameter group
//   .tipsy/.std   Tipsy, standard big-endian XDR; .bin: the native-endian variant (CUDA sample, Bonsai)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run_metadata.hpp"
#include "sim/params.hpp"
#include "sim/state.hpp"
#include "sim/validate.hpp"

namespace nbody {

class AtomicFile;

// What a run was, beside its bodies. Only HDF5 snapshots carry it; other files leave the defaults and
// has_params false.
struct RunInfo {
    bool has_params = false;  // false: params are Params{} (the file did not carry ours)
    Params params;
    std::optional<double> theta;           // a tree's opening angle, when the run's Params had one
    std::int64_t step = 0;                 // steps taken since the run began
    Precision precision = Precision::f32;  // precision of the stored bodies (float or double datasets)
    std::string preset;                    // empty: the bodies came from a file
    std::uint64_t seed = 0;
    std::string program_version;  // of the writer; empty: written by another program
};

struct Snapshot {
    HostState state;  // state.t is the simulated time
    RunInfo info;
    // One line each, for the user: things the reader did that they should know (gas read as bodies,
    // parameters missing). Not errors: the bodies are usable.
    std::vector<std::string> notes;
};

enum class FileFormat { csv, hdf5, tipsy_xdr, tipsy_native };

// "CSV", "HDF5", "Tipsy (XDR big-endian)", "Tipsy (native-endian)".
const char* to_string(FileFormat f);

// The format an extension names, case-insensitively; nullopt for any other extension.
std::optional<FileFormat> format_from_extension(std::string_view path);

// As above; throws nbody::Error "FLAG 'PATH': unknown file type '.x' (use ...)" otherwise.
FileFormat require_format(const std::string& flag, const std::string& path);

// True when this build can read and write HDF5 (configured with libhdf5-dev).
bool have_hdf5();

// The '#' parameter lines a CSV written from `s` starts with (see run_metadata.hpp): preset, seed, N, G,
// softening, dt, damping, integrator, precision, t, step. read_snapshot reads them back into RunInfo.
RunMetadata csv_metadata(const Snapshot& s);

// Reads any supported file, choosing the reader by extension (Tipsy byte order from the header).
// Throws nbody::Error "PATH: problem" on unreadable, truncated, corrupt or invalid files (NaN/Inf,
// mass <= 0). `source` (CSV only) receives each body's line, for validate_state's messages.
Snapshot read_snapshot(const std::string& path, BodySource* source = nullptr);

// Writes s to path in the format its extension names, atomically (a temporary renamed on success).
// The bodies are stored in s.info.precision (Tipsy: always float), so a float run's file holds exactly
// what the run held. Returns notes for the user (a double run rounded to Tipsy's float). Throws
// nbody::Error on failure, leaving no file behind.
std::vector<std::string> write_snapshot(const std::string& path, const Snapshot& s);

// Writes into an open AtomicFile's temporary without committing it (for commit_all), in the format of
// file.path()'s extension.
std::vector<std::string> write_snapshot(AtomicFile& file, const Snapshot& s);

// The theta member of Params, if this build's Params has one (a Barnes-Hut opening angle).
template <typename P>
std::optional<double> params_theta(const P& p) {
    if constexpr (requires { p.theta; }) {
        return static_cast<double>(p.theta);
    } else {
        return std::nullopt;
    }
}

// Sets Params::theta where it exists; returns false where this build's Params has none.
template <typename P>
bool set_params_theta(P& p, double theta) {
    if constexpr (requires { p.theta; }) {
        p.theta = static_cast<decltype(p.theta)>(theta);
        return true;
    } else {
        (void)p, (void)theta;
        return false;
    }
}

}  // namespace nbody
