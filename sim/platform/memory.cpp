#include "memory.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "sim/error.hpp"

namespace nbody {
namespace {

// Reads one unsigned number from a file such as a cgroup limit; false for "max" or a missing file.
bool read_u64(const char* path, std::size_t& out) {
    std::ifstream in(path);
    std::string word;
    if (!(in >> word)) return false;
    try {
        std::size_t used = 0;
        const unsigned long long v = std::stoull(word, &used);
        if (used != word.size()) return false;
        out = static_cast<std::size_t>(v);
        return true;
    } catch (const std::exception&) {
        return false;  // "max": no limit
    }
}

// This process's mapped memory of one kind (VmSize: all of it, VmData: heap and anonymous maps), in
// bytes, from /proc/self/status (0 if unknown).
std::size_t mapped_bytes(const char* field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::string key = field;
    while (std::getline(status, line)) {
        unsigned long long kib = 0;
        if (line.rfind(key, 0) == 0 && std::sscanf(line.c_str() + key.size(), " %llu kB", &kib) == 1)
            return static_cast<std::size_t>(kib) * 1024;
    }
    return 0;
}

}  // namespace

std::size_t host_bytes_needed(std::size_t n, Precision p) {
    const double scalar = p == Precision::f32 ? 4.0 : 8.0;
    // The backend holds positions, velocities, accelerations and one scratch array as 4-vectors of its
    // precision; the caller holds up to two double HostStates (the initial one and one read back).
    const double per_body = 4 * 4 * scalar + 2 * 2 * 4 * 8.0;
    const double bytes = per_body * static_cast<double>(n);
    // Saturate instead of wrapping: a huge N must read as "too much", never as a small number.
    if (bytes >= static_cast<double>(std::numeric_limits<std::size_t>::max())) {
        return std::numeric_limits<std::size_t>::max();
    }
    return static_cast<std::size_t>(bytes);
}

std::size_t available_host_memory() {
    std::size_t available = 0;
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        unsigned long long kib = 0;
        if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) {
            available = static_cast<std::size_t>(kib) * 1024;
            break;
        }
    }
    // In a container /proc/meminfo shows the host; the cgroup (v2) limit is what we may actually use.
    std::size_t limit = 0, current = 0;
    if (read_u64("/sys/fs/cgroup/memory.max", limit) && read_u64("/sys/fs/cgroup/memory.current", current)) {
        const std::size_t cgroup_free = limit > current ? limit - current : 0;
        if (available == 0 || cgroup_free < available) available = cgroup_free;
    }
    // A process limit (ulimit -v, a batch system's RLIMIT_AS or RLIMIT_DATA) caps it further: what is
    // left under it, after what the process has mapped already.
    for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
        rlimit lim{};
        if (::getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) continue;
        const std::size_t used = mapped_bytes(resource == RLIMIT_AS ? "VmSize:" : "VmData:");
        const std::size_t left = lim.rlim_cur > used ? static_cast<std::size_t>(lim.rlim_cur) - used : 0;
        if (available == 0 || left < available) available = left;
    }
    return available;
}

void check_host_memory(std::size_t n, Precision p) {
    const std::size_t need = host_bytes_needed(n, p);
    const std::size_t have = available_host_memory();
    if (have != 0 && need > have) {
        throw Error("N = " + std::to_string(n) + " needs " + format_bytes(static_cast<double>(need)) +
                    " of host memory but only " + format_bytes(static_cast<double>(have)) + " is available");
    }
}

std::string format_bytes(double bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        ++u;
    }
    char buf[32];
    // One decimal below 10 ("1.5 GiB"), none above ("12 MiB"): enough to compare sizes at a glance.
    std::snprintf(buf, sizeof buf, bytes < 10.0 && u > 0 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

}  // namespace nbody
