#pragma once
// The parameters of a run, carried with its files: CSVs written by nbody (bodies, energy log,
// trajectory) start with '#' comment lines
//     # nbody 0.1.0 parameters (read back by --input as defaults)
//     # G = 1
//     # softening = 0.02
//     ...
// that `--input` reads back, so an exported preset keeps its softening and dt. Readers that know nothing
// of them (gnuplot, pandas with comment='#', the body CSV reader) skip them as comments.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/params.hpp"
#include "snapshot_types.hpp"

namespace nbody {

struct RunMetadata {
    std::vector<std::pair<std::string, std::string>> entries;  // in writing order

    void set(const std::string& key, const std::string& value);  // replaces an existing key
    void set(const std::string& key, double value);              // shortest text that reads back exactly
    const std::string* get(const std::string& key) const;        // nullptr when absent
    bool empty() const { return entries.empty(); }
};

// The comment lines (each ending in '\n') for `m`, starting with the marker line naming `version`.
std::string format_metadata(const RunMetadata& m, const std::string& version);

// Reads the leading comment lines of a CSV. Returns the entries when the marker line is there (the file
// was written by nbody), std::nullopt otherwise (a file from elsewhere: no parameters). Throws
// nbody::Error "FILE: cannot open ..." when the file cannot be read.
std::optional<RunMetadata> read_metadata(const std::string& path);

// The same from the lines of a file already read (read_bodies_csv's preamble), the first being line 1.
std::optional<RunMetadata> parse_metadata(const std::vector<std::string>& lines, const std::string& path);

// The parameters among `m` that apply to a run: G, softening, dt, damping, integrator, force algorithm,
// every setting of the registries (theta, ...) and the start time t. Each present value replaces the one in
// `p` (or `t`) unless its key is in `keep` (a flag gave it). Returns the keys applied. Throws nbody::Error
// "FILE: bad value 'X' for KEY in the parameter lines" when a value does not parse; the values are validated
// later with the run's.
std::vector<std::string> apply_metadata(const RunMetadata& m, const std::string& path,
                                        const std::vector<std::string>& keep, Params& p, double& t);

// The parameter lines of a CSV written from `s`: preset, seed, N, G, softening, dt, damping, integrator,
// force and the settings they use (theta with the tree), precision, t, step.
RunMetadata csv_metadata(const Snapshot& s);

// The RunInfo (and start time t) of a file written by nbody, from its parameter lines. Throws as
// apply_metadata does.
void read_run_info(const RunMetadata& m, const std::string& path, RunInfo& info, double& t);

}  // namespace nbody
