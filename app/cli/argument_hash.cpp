#include "argument_hash.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace nbody {
namespace {

// FNV-1a, each piece ended by a NUL, so "a b" and "ab" differ.
class Fnv {
  public:
    void add(std::string_view s) {
        for (char c : s) byte(static_cast<unsigned char>(c));
        byte(0);
    }
    std::uint64_t value() const { return h_; }

  private:
    void byte(unsigned char c) { h_ = (h_ ^ c) * 1099511628211ull; }
    std::uint64_t h_ = 14695981039346656037ull;
};

// A value as it counts: a number by its double's bits ("0.01", "1e-2" and "+0.010" alike), else its text.
std::string canonical(const std::string& value) {
    std::string_view digits = value;
    if (digits.size() > 1 && digits.front() == '+') digits.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return "s:" + value;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return "d:" + std::to_string(bits);
}

void add_app(const CLI::App& app, Fnv& h) {
    h.add("app:" + app.get_name());
    std::vector<std::pair<std::string, std::vector<std::string>>> given;
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->count() == 0) continue;
        std::vector<std::string> values;
        for (const std::string& r : opt->results()) values.push_back(canonical(r));
        given.emplace_back(opt->get_name(), std::move(values));
    }
    std::sort(given.begin(), given.end());
    for (const auto& [name, values] : given) {
        h.add("opt:" + name);
        for (const std::string& v : values) h.add(v);
    }
    for (const CLI::App* sub : app.get_subcommands()) add_app(*sub, h);
}

}  // namespace

std::uint64_t parsed_arguments_hash(const CLI::App& app) {
    Fnv h;
    add_app(app, h);
    return h.value();
}

std::uint64_t failed_parse_hash(const std::string& message) {
    Fnv h;
    h.add("failed:" + message);
    return h.value();
}

}  // namespace nbody
