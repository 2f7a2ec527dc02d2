#pragma once
// Tipsy binary files, the format of the CUDA sample's galaxy_20K.bin, Bonsai and pynbody. A 32-byte
// header (double time; int32 nbodies, ndim, nsph, ndark, nstar, pad) followed by gas (12 floats each),
// dark-matter (9 values) and star (11 values) particles, in that order. The standard ("XDR") files are
// big-endian; the CUDA sample and Bonsai write the same structs in the machine's byte order. The reader
// tells them apart by the header (ndim must read as 3 and the counts must match the file size).
#include <cstddef>
#include <ostream>
#include <string>

#include "snapshot_types.hpp"

namespace nbody {

enum class TipsyByteOrder { big_endian, native };

// Reads a Tipsy file of either byte order. Gas and star particles become bodies too (their mass,
// position and velocity), with a note. Throws nbody::Error "PATH: problem" for a short file, a header
// whose counts disagree with the file size, NaN/Inf values or masses <= 0.
Snapshot read_tipsy(const std::string& path);

// The same from bytes in memory (tests and the fuzzer); `name` appears in messages.
Snapshot parse_tipsy(const unsigned char* data, std::size_t size, const std::string& name);

// Writes every body as a dark-matter particle: mass, position, velocity as float, eps = the softening,
// phi = 0 (big-endian) or the body's index as an int (native: where Bonsai and the CUDA sample keep
// particle IDs). Throws nbody::Error if N does not fit the header's int32 or a value overflows float.
void write_tipsy(std::ostream& out, const Snapshot& s, TipsyByteOrder order, const std::string& name);

}  // namespace nbody
