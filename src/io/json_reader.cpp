#include "io/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "util/format.hpp"

namespace dnnplace::json_reader {

double Value::asDouble() const {
  switch (kind) {
    case Kind::Integer: return static_cast<double>(integer);
    case Kind::Unsigned: return static_cast<double>(unsignedInteger);
    case Kind::Float: return floating;
    default: return 0;
  }
}

void Field::set(const Value& value) {
  present_ = true;
  value_ = value;
  if (value.kind == Value::Kind::String) {
    text_.assign(value.string);
    value_.string = text_;
  }
}

std::string describe(const Value& value) {
  switch (value.kind) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Boolean: return value.boolean ? "true" : "false";
    case Value::Kind::String: return "string \"" + printable(value.string) + "\"";
    case Value::Kind::Array: return "an array";
    case Value::Kind::Object: return "an object";
    case Value::Kind::Integer: return std::to_string(value.integer);
    case Value::Kind::Unsigned: return std::to_string(value.unsignedInteger);
    case Value::Kind::Float: return formatShortest(value.floating);
  }
  return "an unsupported value";
}

bool toNumber(const Value& value, bool allowNegative, double* out) {
  if (!value.isNumber()) return false;
  const double x = value.asDouble();
  if (!std::isfinite(x) || (!allowNegative && x < 0)) return false;
  *out = x;
  return true;
}

namespace {

/// An integer too large for 64 bits (written plainly or, as the paper's
/// files sometimes do, as 3.0).
bool pastSixtyFourBits(const Value& value) {
  if (value.kind == Value::Kind::Unsigned)
    return value.unsignedInteger > static_cast<std::uint64_t>(INT64_MAX);
  const double x = value.floating;
  return value.kind == Value::Kind::Float && std::isfinite(x) && std::floor(x) == x &&
         (x < -9.2e18 || x > 9.2e18);
}

}  // namespace

bool toInteger(const Value& value, bool allowNegative, std::int64_t* out) {
  if (pastSixtyFourBits(value)) return false;
  std::int64_t x = 0;
  if (value.kind == Value::Kind::Integer) {
    x = value.integer;
  } else if (value.kind == Value::Kind::Unsigned) {
    x = static_cast<std::int64_t>(value.unsignedInteger);
  } else if (value.kind == Value::Kind::Float && std::isfinite(value.floating) &&
             std::floor(value.floating) == value.floating) {
    x = static_cast<std::int64_t>(value.floating);
  } else {
    return false;
  }
  if (!allowNegative && x < 0) return false;
  *out = x;
  return true;
}

bool toFlag(const Value& value, bool* out) {
  if (value.kind == Value::Kind::Boolean) {
    *out = value.boolean;
    return true;
  }
  if (!value.isNumber() || (value.asDouble() != 0 && value.asDouble() != 1)) return false;
  *out = value.asDouble() == 1;
  return true;
}

namespace detail {

std::string numberFault(const Value& value, bool allowNegative) {
  if (!value.isNumber()) return "must be a number, got " + describe(value);
  return std::string("must be a finite number") + (allowNegative ? "" : " >= 0") + ", got " +
         describe(value);
}

std::string integerFault(const Value& value, bool allowNegative) {
  return std::string(allowNegative ? "must be an integer" : "must be an integer >= 0") +
         (pastSixtyFourBits(value) ? " that fits in 64 bits" : "") + ", got " + describe(value);
}

std::string flagFault(const Value& value) {
  return "must be true, false, 0 or 1, got " + describe(value);
}

bool acceptable(std::string_view text, const std::string& name, std::string* error) {
  // nlohmann reads a NUL byte as a character like any other; we refuse it
  // as such, since no JSON text holds one (and readFile stops at the first).
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    *error = name + ": invalid JSON at byte " + std::to_string(nul) + ": a NUL byte";
    return false;
  }
  if (text.find_first_not_of(" \n\r\t") == std::string_view::npos) {
    *error = name + ": empty file (expected a JSON object)";
    return false;
  }
  return true;
}

namespace {

/// Line and column (from 1) of a byte offset, for messages.
std::string lineAndColumn(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  const std::size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column = lineStart == std::string_view::npos || offset == 0 ? offset + 1
                                                                                : offset - lineStart;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// What nlohmann read last, for a message: its end (where the fault is),
/// safe for a terminal line.
std::string shownToken(const std::string& token) {
  constexpr std::size_t kShown = 40;
  if (token.size() <= kShown) return printable(token, kShown);
  return "..." + printable(std::string_view(token).substr(token.size() - kShown), kShown);
}

}  // namespace

std::string tooDeep(std::string_view text, const std::string& name) {
  // The parser stopped at the bracket that opens level kMaxNesting + 1, but
  // a SAX handler is not told where it is: find it again. The text before
  // it is valid JSON, so brackets count unless they are inside a string.
  int depth = 0;
  std::size_t at = 0;
  bool inString = false;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (inString) {
      if (c == '\\')
        ++at;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return name + ": invalid JSON at byte " + std::to_string(at) + ": nested deeper than " +
         std::to_string(kMaxNesting) + " levels";
}

std::string parseFault(std::string_view text, const std::string& name, std::size_t position,
                       const std::string& lastToken, int faultId, const std::string& faultText) {
  // `position` counts the bytes nlohmann read: a number that overflows a
  // double ends just before it; any other fault is the byte read last.
  constexpr int kNumberOverflow = 406;
  std::size_t at = 0;
  std::string what;
  if (faultId == kNumberOverflow) {
    at = position >= lastToken.size() ? position - lastToken.size() : 0;
    what = "number overflow parsing '" + printable(lastToken) + "'";
  } else {
    at = std::min(position == 0 ? 0 : position - 1, text.size());
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line
    // L, column C: syntax error while parsing … - …; last read: '…'". We keep
    // what follows the position, with what it read last shortened.
    std::string_view description = faultText;
    if (const std::size_t front = description.find("parse error"); front != std::string_view::npos)
      if (const std::size_t colon = description.find(": ", front); colon != std::string_view::npos)
        description.remove_prefix(colon + 2);
    const std::size_t last = description.find("; last read: '");
    what = printable(description.substr(0, last), 200);
    if (last != std::string_view::npos) what += "; last read: '" + shownToken(lastToken) + "'";
  }
  return name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) + ": " +
         what;
}

}  // namespace detail

}  // namespace dnnplace::json_reader
