#pragma once
// A small JSON reader for the few settings files nbody reads (camera paths): the whole grammar of
// RFC 8259 into a tree, with one clear error line (what, line, column) for anything malformed. Not for
// large data: everything is held in memory as parsed.
#include <map>
#include <string>
#include <vector>

namespace nbody {

struct JsonValue {
    enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<JsonValue> array;
    std::map<std::string, JsonValue> object;  // a repeated name keeps its last value

    bool is_number() const { return kind == Kind::number; }
    bool is_array() const { return kind == Kind::array; }
    bool is_object() const { return kind == Kind::object; }
    // The member `name` of an object, or nullptr (also for a value that is not an object).
    const JsonValue* find(const std::string& name) const;
};

// Parses one JSON value (surrounding whitespace allowed). Throws nbody::Error: "WHAT: line L, column C:
// expected ...".
JsonValue parse_json(const std::string& text, const std::string& what);

}  // namespace nbody
