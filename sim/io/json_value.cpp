#include "json_value.hpp"

#include <cstdlib>

#include "sim/error.hpp"

namespace nbody {

const JsonValue* JsonValue::find(const std::string& name) const {
    if (kind != Kind::object) return nullptr;
    auto it = object.find(name);
    return it == object.end() ? nullptr : &it->second;
}

namespace {

// Deep enough for any settings file, shallow enough that hostile input cannot exhaust the stack.
constexpr int kMaxDepth = 64;

class Parser {
  public:
    Parser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

    JsonValue document() {
        JsonValue v = value(0);
        skip_space();
        if (i_ != s_.size()) fail("unexpected text after the value");
        return v;
    }

  private:
    [[noreturn]] void fail(const std::string& why) const {
        int line = 1, column = 1;
        for (std::size_t k = 0; k < i_ && k < s_.size(); ++k) {
            if (s_[k] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        throw Error(what_ + ": line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
                    why);
    }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool take(char c) {
        skip_space();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!take(c)) fail(std::string("expected '") + c + "'");
    }
    bool word(const char* w) {
        std::size_t n = 0;
        while (w[n]) ++n;
        if (s_.compare(i_, n, w) != 0) return false;
        i_ += n;
        return true;
    }

    JsonValue value(int depth) {
        if (depth > kMaxDepth) fail("nested too deeply");
        skip_space();
        if (i_ >= s_.size()) fail("expected a value, found the end");
        JsonValue v;
        const char c = s_[i_];
        if (c == '{') {
            ++i_;
            v.kind = JsonValue::Kind::object;
            if (take('}')) return v;
            do {
                skip_space();
                if (i_ >= s_.size() || s_[i_] != '"') fail("expected a name in quotes");
                std::string name = string();
                expect(':');
                v.object[name] = value(depth + 1);
            } while (take(','));
            expect('}');
        } else if (c == '[') {
            ++i_;
            v.kind = JsonValue::Kind::array;
            if (take(']')) return v;
            do {
                v.array.push_back(value(depth + 1));
            } while (take(','));
            expect(']');
        } else if (c == '"') {
            v.kind = JsonValue::Kind::string;
            v.string = string();
        } else if (word("true")) {
            v.kind = JsonValue::Kind::boolean;
            v.boolean = true;
        } else if (word("false")) {
            v.kind = JsonValue::Kind::boolean;
        } else if (word("null")) {
            v.kind = JsonValue::Kind::null;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = JsonValue::Kind::number;
            v.number = number();
        } else {
            fail(std::string("unexpected '") + c + "'");
        }
        return v;
    }

    double number() {
        // The JSON grammar, checked before strtod (which would also take "0x1p3", "inf", " 1").
        const std::size_t start = i_;
        auto digits = [&] {
            const std::size_t from = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
            return i_ > from;
        };
        if (s_[i_] == '-') ++i_;
        if (i_ < s_.size() && s_[i_] == '0') {
            ++i_;
        } else if (!digits()) {
            fail("malformed number");
        }
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            if (!digits()) fail("malformed number");
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
            if (!digits()) fail("malformed number");
        }
        return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    }

    std::string string() {
        ++i_;  // the opening quote
        std::string out;
        while (i_ < s_.size() && s_[i_] != '"') {
            const char c = s_[i_++];
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= s_.size()) break;
            const char e = s_[i_++];
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    out += e;
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    if (i_ + 4 > s_.size()) fail("short \\u escape");
                    unsigned code = 0;
                    for (int k = 0; k < 4; ++k) {
                        const char h = s_[i_++];
                        code = code * 16 + unsigned(h >= '0' && h <= '9'   ? h - '0'
                                                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                                           : (fail("bad \\u escape"), 0));
                    }
                    // UTF-8 of the code unit (names in nbody's files are ASCII; surrogates pass through).
                    if (code < 0x80) {
                        out += char(code);
                    } else if (code < 0x800) {
                        out += char(0xC0 | (code >> 6));
                        out += char(0x80 | (code & 0x3F));
                    } else {
                        out += char(0xE0 | (code >> 12));
                        out += char(0x80 | ((code >> 6) & 0x3F));
                        out += char(0x80 | (code & 0x3F));
                    }
                    break;
                }
                default:
                    fail(std::string("bad escape '\\") + e + "'");
            }
        }
        if (i_ >= s_.size()) fail("unterminated string");
        ++i_;  // the closing quote
        return out;
    }

    const std::string& s_;
    const std::string& what_;
    std::size_t i_ = 0;
};

}  // namespace

JsonValue parse_json(const std::string& text, const std::string& what) {
    return Parser(text, what).document();
}

}  // namespace nbody
