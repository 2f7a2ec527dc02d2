#pragma once
// Small helpers every module needs once: the median of a sample, a number in %g, a monotonic clock in
// seconds, a list joined into one line, a value quoted for an error message. Kept here so there is exactly
// one definition of each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
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

// v in printf's %g with `digits` significant digits: "0.6", "1e-05".
inline std::string format_g(double v, int digits = 6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
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

// `text` in single quotes for a one-line error message: at most `max` bytes of it (cut at a character
// boundary, marked "..." and followed by the full length), control characters as \xNN. What a user typed or a
// file held may be megabytes long or carry terminal escapes; neither reaches the terminal whole.
inline std::string quote_excerpt(std::string_view text, std::size_t max = 64) {
    std::size_t keep = std::min(text.size(), max);
    // Never end inside a UTF-8 sequence: step back over continuation bytes (10xxxxxx).
    while (keep < text.size() && keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    std::string out = "'";
    for (std::size_t i = 0; i < keep; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(c));
            out += hex;
        } else {
            out += char(c);
        }
    }
    if (keep == text.size()) return out + '\'';
    return out + "...' (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace nbody
