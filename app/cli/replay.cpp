#include "replay.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/error.hpp"
#include "sim/io/snapshot.hpp"

namespace nbody {

std::vector<std::string> list_snapshot_series(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("replay '" + dir + "': not a directory (give a snapshot series' directory)");
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.front() == '.') continue;  // hidden: an AtomicFile temporary, among others
        if (format_from_extension(name) && it->is_regular_file(ec)) names.push_back(name);
    }
    if (ec) throw Error("replay '" + dir + "': cannot list it: " + ec.message());
    if (names.empty())
        throw Error("replay '" + dir +
                    "': no snapshot files (.h5, .tipsy, .bin, .csv) in it; write a series with "
                    "`nbody run --snapshot-every K --snapshot-dir DIR`");
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    std::vector<std::string> paths;
    for (const auto& n : names) paths.push_back((fs::path(dir) / n).string());
    return paths;
}

std::optional<std::size_t> ReplayTimeline::tick(double dt) {
    if (!playing || frames_ < 2 || !(speed > 0) || !(dt > 0)) return std::nullopt;
    carry_ += dt * speed;
    if (carry_ < 1) return std::nullopt;
    const auto steps = static_cast<std::size_t>(carry_);
    carry_ -= double(steps);
    std::size_t next = current_ + steps;
    if (next >= frames_) {
        if (loop) {
            next %= frames_;
        } else {
            next = frames_ - 1;
            playing = false;
        }
    }
    if (next == current_) return std::nullopt;
    current_ = next;
    return current_;
}

std::optional<std::size_t> ReplayTimeline::seek(std::size_t i) {
    if (frames_ == 0) return std::nullopt;
    i = std::min(i, frames_ - 1);
    carry_ = 0;
    if (i == current_) return std::nullopt;
    current_ = i;
    return current_;
}

}  // namespace nbody
