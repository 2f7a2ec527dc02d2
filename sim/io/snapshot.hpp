#pragma once
// The one entry point that reads or writes a snapshot (snapshot_types.hpp) in any of the file formats: the
// dispatcher by extension. The formats themselves live in csv_io, snapshot_hdf5 and tipsy_io.
//   .csv          bodies only (x,y,z,vx,vy,vz,m)
//   .h5 / .hdf5   the GADGET/SWIFT layout (/Header, /PartType1/...) plus our /NBody parameter group
//   .tipsy/.std   Tipsy, standard big-endian XDR; .bin: the native-endian variant (CUDA sample, Bonsai)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/validate.hpp"
#include "snapshot_types.hpp"

namespace nbody {

class AtomicFile;

enum class FileFormat { csv, hdf5, tipsy_xdr, tipsy_native };

// "CSV", "HDF5", "Tipsy (XDR big-endian)", "Tipsy (native-endian)".
const char* to_string(FileFormat f);

// The format an extension names, case-insensitively; nullopt for any other extension.
std::optional<FileFormat> format_from_extension(std::string_view path);

// As above; throws nbody::Error "FLAG 'PATH': unknown file type '.x' (use ...)" otherwise.
FileFormat require_format(const std::string& flag, const std::string& path);

// The format of an input: by its extension, else by what it is. A pipe or FIFO (`--input /dev/stdin`,
// `--input <(generate)`) is a CSV, the one format that streams; a regular file without a known extension
// is HDF5 if it starts with HDF5's signature, a CSV if it starts as text. Throws nbody::Error otherwise.
FileFormat input_format(const std::string& flag, const std::string& path);

// True when this build can read and write HDF5 (configured with libhdf5-dev).
bool have_hdf5();

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

}  // namespace nbody
