#pragma once
// HDF5 snapshots in the layout GADGET-4, SWIFT and AREPO write, so h5py, yt and pynbody open them as they
// are: /Header (attributes Time, NumPart_ThisFile, NumPart_Total, MassTable, NumFilesPerSnapshot, ...),
// /PartType1/{Coordinates, Velocities, Masses, ParticleIDs}, and our own /NBody group holding what an
// exact restart needs (G, softening, dt, damping, integrator, force algorithm and its settings (theta), step,
// precision, preset, seed, program version). Built only where libhdf5 is found; snapshot_hdf5_none.cpp
// otherwise.
#include <cstddef>
#include <string>

#include "snapshot_types.hpp"

namespace nbody {

// Reads our snapshots and single-file GADGET/SWIFT/AREPO ones (every PartType0..5 group becomes bodies,
// with a note for types other than 1; a file without /NBody gets default parameters and a note).
// Throws nbody::Error "PATH: problem" for anything unreadable, inconsistent or invalid.
Snapshot read_hdf5_snapshot(const std::string& path);

// The same from a file image in memory (the fuzzer's entry point); `name` appears in messages.
Snapshot read_hdf5_snapshot_image(const void* data, std::size_t size, const std::string& name);

// The bytes of an HDF5 file holding s, built in memory (`name` appears in messages). Datasets are stored in
// s.info.precision. Throws nbody::Error on failure.
std::string hdf5_snapshot_image(const Snapshot& s, const std::string& name);

// Writes s to path, replacing it (callers make the write atomic: see write_snapshot). Datasets are stored
// in s.info.precision. Throws nbody::Error on failure.
void write_hdf5_snapshot(const std::string& path, const Snapshot& s);

}  // namespace nbody
