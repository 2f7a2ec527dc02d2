#include "file_identity.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "sim/error.hpp"
#include "sim/util.hpp"

namespace nbody {

std::optional<FileIdentity> file_identity(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileIdentity{static_cast<unsigned long long>(st.st_dev),
                        static_cast<unsigned long long>(st.st_ino)};
}

void check_output_is_no_input(const std::string& flag, const std::string& path,
                              const std::vector<NamedInput>& inputs,
                              const std::vector<std::string>& side_suffixes) {
    if (path.empty()) return;
    std::vector<std::string> written = {path};
    for (const std::string& suffix : side_suffixes) written.push_back(path + suffix);
    for (const NamedInput& in : inputs) {
        const std::optional<FileIdentity> input = file_identity(in.path);
        if (!input) continue;
        for (const std::string& name : written) {
            if (file_identity(name) != input) continue;
            throw Error(flag + " " + quote_excerpt(name, 1024) + " is the same file as " + in.flag + " " +
                        quote_excerpt(in.path, 1024) + ": writing it would destroy the input (give " + flag +
                        " another name)");
        }
    }
}

bool lies_in_directory(const std::string& path, const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    // The directory the file really is in: its links followed first (a link to run1/snap.h5 is in run1).
    const fs::path real = fs::canonical(path, ec);
    if (ec) return false;
    const std::optional<FileIdentity> d = file_identity(dir);
    return d && file_identity(real.parent_path().string()) == d;
}

void check_directory_holds_no_input(const std::string& flag, const std::string& dir,
                                    const std::vector<NamedInput>& inputs) {
    for (const NamedInput& in : inputs) {
        if (in.path.empty() || !lies_in_directory(in.path, dir)) continue;
        throw Error(flag + " " + quote_excerpt(dir, 1024) + " holds " + in.flag + " " +
                    quote_excerpt(in.path, 1024) +
                    ": the run would write over its own input (choose another directory)");
    }
}

}  // namespace nbody
