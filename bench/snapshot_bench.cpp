// Write and read speed of snapshot files (HDF5, Tipsy, CSV) for N bodies of the plummer preset:
//   nbody_snapshot_bench [--n 1048576] [--dir /tmp] [--repeat 3]
// Prints, per format and precision, the file size and the best of --repeat writes and reads in GB/s of
// file bytes (writes include the atomic rename; reads include the checks on every value). The page cache
// is warm: these are the library's and our code's speeds, not the disk's.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/io/snapshot.hpp"
#include "sim/presets.hpp"

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"nbody_snapshot_bench: snapshot write and read speed"};
    std::size_t n = 1 << 20;
    std::string dir = std::filesystem::temp_directory_path().string();
    int repeat = 3;
    bool with_csv = false;
    app.add_option("--n", n, "bodies")->capture_default_str();
    app.add_option("--dir", dir, "where the files go (removed afterwards)")->capture_default_str();
    app.add_option("--repeat", repeat, "best of this many")->capture_default_str();
    app.add_flag("--csv", with_csv, "also time CSV (slow: text)");
    CLI11_PARSE(app, argc, argv);

    nbody::Snapshot snap;
    snap.state = nbody::make_preset("plummer", n, 1);
    snap.info.has_params = true;
    std::printf("%-28s %10s %12s %12s\n", "format", "MB", "write GB/s", "read GB/s");
    struct Case {
        const char* name;
        std::string ext;
        nbody::Precision precision;
    };
    std::vector<Case> cases = {{"HDF5 float", ".h5", nbody::Precision::f32},
                               {"HDF5 double", ".h5", nbody::Precision::f64},
                               {"Tipsy XDR (float)", ".tipsy", nbody::Precision::f32},
                               {"Tipsy native (float)", ".bin", nbody::Precision::f32}};
    if (with_csv) cases.push_back({"CSV float", ".csv", nbody::Precision::f32});
    for (const Case& c : cases) {
        if (c.ext == ".h5" && !nbody::have_hdf5()) continue;
        nbody::Snapshot s = snap;
        s.info.precision = c.precision;
        if (c.precision == nbody::Precision::f32)
            s.state = nbody::convert_state<double>(nbody::convert_state<float>(s.state));
        const std::string path = (std::filesystem::path(dir) / ("nbody_snapshot_bench" + c.ext)).string();
        double best_w = 1e30, best_r = 1e30;
        for (int k = 0; k < repeat; ++k) {
            double t0 = now_s();
            nbody::write_snapshot(path, s);
            double t1 = now_s();
            const nbody::Snapshot back = nbody::read_snapshot(path);
            double t2 = now_s();
            if (back.state.size() != n) return 1;
            best_w = std::min(best_w, t1 - t0);
            best_r = std::min(best_r, t2 - t1);
        }
        const double bytes = double(std::filesystem::file_size(path));
        std::printf("%-28s %10.1f %12.2f %12.2f\n", c.name, bytes / 1e6, bytes / best_w / 1e9,
                    bytes / best_r / 1e9);
        std::filesystem::remove(path);
    }
    return 0;
}
