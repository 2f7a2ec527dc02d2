#include "snapshot.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>

#include "csv_io.hpp"
#include "run_metadata.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/util.hpp"
#include "snapshot_hdf5.hpp"
#include "tipsy_io.hpp"

namespace nbody {

const char* to_string(FileFormat f) {
    switch (f) {
        case FileFormat::csv:
            return "CSV";
        case FileFormat::hdf5:
            return "HDF5";
        case FileFormat::tipsy_xdr:
            return "Tipsy (XDR big-endian)";
        case FileFormat::tipsy_native:
            return "Tipsy (native-endian)";
    }
    return "?";
}

std::optional<FileFormat> format_from_extension(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    const std::size_t dot = path.find_last_of('.');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return std::nullopt;
    std::string ext(path.substr(dot + 1));
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (ext == "csv") return FileFormat::csv;
    if (ext == "h5" || ext == "hdf5") return FileFormat::hdf5;
    if (ext == "tipsy" || ext == "std") return FileFormat::tipsy_xdr;
    if (ext == "bin") return FileFormat::tipsy_native;
    return std::nullopt;
}

FileFormat require_format(const std::string& flag, const std::string& path) {
    if (const auto f = format_from_extension(path)) return *f;
    throw Error(flag + " '" + path +
                "': unknown file type (use .csv, .h5/.hdf5, .tipsy/.std for big-endian Tipsy, .bin for "
                "native-endian Tipsy)");
}

FileFormat input_format(const std::string& flag, const std::string& path) {
    if (const auto f = format_from_extension(path)) return *f;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) return FileFormat::csv;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        char head[8] = {};
        std::ifstream in(path, std::ios::binary);
        in.read(head, sizeof head);
        const std::size_t got = static_cast<std::size_t>(in.gcount());
        if (got == sizeof head && std::memcmp(head, "\x89HDF\r\n\x1a\n", 8) == 0) return FileFormat::hdf5;
        bool text = got > 0;
        for (std::size_t i = 0; i < got; ++i) {
            const auto c = static_cast<unsigned char>(head[i]);
            text = text && (c >= 0x20 || c == '\n' || c == '\r' || c == '\t');
        }
        if (text) return FileFormat::csv;
    }
    throw Error(flag + " " + quote_excerpt(path, 1024) +
                ": unknown file type (no .csv, .h5/.hdf5, .tipsy/.std or .bin extension, and neither HDF5 "
                "nor text inside: give the file its extension)");
}

Snapshot read_snapshot(const std::string& path, BodySource* source) {
    switch (input_format("input", path)) {
        case FileFormat::csv: {
            Snapshot s;
            std::vector<std::string> preamble;
            s.state = read_bodies_csv(path, source, &preamble);
            if (const std::optional<RunMetadata> m = parse_metadata(preamble, path)) {
                read_run_info(*m, path, s.info, s.state.t);
                // A file that says how many bodies it holds and holds another number lost some, or grew.
                const std::string* n = m->get("N");
                if (n && *n != std::to_string(s.state.size())) {
                    throw Error(path + ": the parameter lines say N = " + quote_excerpt(*n) +
                                " but the file holds " + std::to_string(s.state.size()) +
                                " bodies (truncated or edited?)");
                }
            }
            return s;
        }
        case FileFormat::hdf5:
            return read_hdf5_snapshot(path);
        case FileFormat::tipsy_xdr:
        case FileFormat::tipsy_native:
            return read_tipsy(path);  // either byte order, told by the header
    }
    throw Error(path + ": unknown file type");
}

std::vector<std::string> write_snapshot(AtomicFile& file, const Snapshot& s) {
    std::vector<std::string> notes;
    // An adaptive run continues exactly only from an HDF5 snapshot (--restart: step count, precision,
    // its parameters; docs/SNAPSHOTS.md): the other formats say in one line what they lack (issue 21).
    const bool adaptive = s.info.has_params && integrator_info(s.info.params.integrator).adaptive;
    const std::string integrator = adaptive ? to_string(s.info.params.integrator) : "";
    switch (require_format("output", file.path())) {
        case FileFormat::csv:
            if (s.info.has_params) {
                const std::string& v = s.info.program_version;
                file.stream() << format_metadata(csv_metadata(s), v.empty() ? "unknown" : v);
            }
            write_bodies_csv(file, s.state, s.info.precision);
            if (adaptive)
                notes.push_back(file.path() + ": a CSV is no restart point of the " + integrator +
                                " run (--input reads its bodies and parameters as a new run's, not its step "
                                "count, precision or each body's level and jerk): write .h5 to --restart it "
                                "exactly");
            break;
        case FileFormat::hdf5: {
            // Built in memory, written like any other stream: a write error names the user's file.
            const std::string image = hdf5_snapshot_image(s, file.path());
            file.stream().write(image.data(), static_cast<std::streamsize>(image.size()));
            break;
        }
        case FileFormat::tipsy_xdr:
        case FileFormat::tipsy_native: {
            const bool xdr = require_format("output", file.path()) == FileFormat::tipsy_xdr;
            write_tipsy(file.stream(), s, xdr ? TipsyByteOrder::big_endian : TipsyByteOrder::native,
                        file.path());
            if (s.info.precision == Precision::f64)
                notes.push_back(file.path() +
                                ": Tipsy stores float: the double-precision bodies were rounded");
            // Tipsy's dark and star particles have one length, eps, the softening (written there); a
            // radius has no field, and reading the file back gives points.
            if (std::any_of(s.state.vel.begin(), s.state.vel.end(),
                            [](const Vec4<double>& v) { return v.w != 0; }))
                notes.push_back(
                    file.path() +
                    ": Tipsy has no field for radii (eps holds the softening): the radii were not "
                    "written; use .h5 or .csv to keep them");
            if (adaptive)
                notes.push_back(
                    file.path() + ": Tipsy holds the bodies and the time only, not the " + integrator +
                    " run's parameters and state (the integrator, eta, max step, step count, each "
                    "body's level and jerk; --input reads back no softening either): write .h5 to "
                    "--restart it exactly");
            break;
        }
    }
    return notes;
}

std::vector<std::string> write_snapshot(const std::string& path, const Snapshot& s) {
    AtomicFile file(path);
    auto notes = write_snapshot(file, s);
    file.commit();
    return notes;
}

}  // namespace nbody
