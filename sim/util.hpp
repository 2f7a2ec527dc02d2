#pragma once
// Small helpers every module needs once: the median of a sample, a monotonic clock in seconds, and a
// list joined into one line. Kept here so there is exactly one definition of each.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace nbody {

// The median of v: the middle value for an odd count, the mean of the two middle values for an even
// count (the standard definition), 0 for an empty sample. Takes a copy because it reorders it.
template <typename T>
T median(std::vector<T> v) {
    if (v.empty()) return T(0);
    const std::size_t m = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(m), v.end());
    const T upper = v[m];
    if (v.size() % 2) return upper;
    const T lower = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(m));
    return lower + (upper - lower) / T(2);
}

// Seconds on a monotonic clock (steady_clock): only differences mean anything.
inline double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// "a, b, c" (or with another separator): names in messages such as "unknown x 'y' (valid: ...)".
inline std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += separator;
        out += items[i];
    }
    return out;
}

}  // namespace nbody
