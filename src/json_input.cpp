#include "json_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace dnnplace::json_input {

std::string formatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string printable(std::string_view text, std::size_t maxLength) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= maxLength) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

double Value::asDouble() const {
  switch (kind) {
    case Kind::Integer: return static_cast<double>(integer);
    case Kind::Unsigned: return static_cast<double>(unsignedInteger);
    case Kind::Float: return floating;
    default: return 0;
  }
}

Value valueOf(const InputJson& json) {
  Value value;
  switch (json.type()) {
    case InputJson::value_t::null: break;
    case InputJson::value_t::boolean:
      value.kind = Value::Kind::Boolean;
      value.boolean = json.get<bool>();
      break;
    case InputJson::value_t::number_integer:
      value.kind = Value::Kind::Integer;
      value.integer = json.get<std::int64_t>();
      break;
    case InputJson::value_t::number_unsigned:
      value.kind = Value::Kind::Unsigned;
      value.unsignedInteger = json.get<std::uint64_t>();
      break;
    case InputJson::value_t::number_float:
      value.kind = Value::Kind::Float;
      value.floating = json.get<double>();
      break;
    case InputJson::value_t::string:
      value.kind = Value::Kind::String;
      value.string = json.get_ref<const std::string&>();
      break;
    case InputJson::value_t::array: value.kind = Value::Kind::Array; break;
    case InputJson::value_t::object: value.kind = Value::Kind::Object; break;
    default: value.kind = Value::Kind::Other; break;
  }
  return value;
}

const Value* FlatValue::find(std::string_view key) const {
  for (auto it = members_.rbegin(); it != members_.rend(); ++it)
    if (it->key == key) return &it->value;
  return nullptr;
}

void FlatValue::clear() {
  value_ = Value();
  members_.clear();
  spans_.clear();
  text_.clear();
}

std::size_t FlatValue::keep(std::string_view text) {
  const std::size_t at = text_.size();
  text_.insert(text_.end(), text.begin(), text.end());
  return at;
}

void FlatValue::setValue(const Value& value) {
  value_ = value;
  if (value.kind == Value::Kind::String) valueAt_ = keep(value.string);
}

void FlatValue::addKey(std::string_view key) {
  members_.push_back({key, Value()});
  spans_.push_back({keep(key), 0});
}

void FlatValue::setMemberValue(const Value& value) {
  members_.back().value = value;
  if (value.kind == Value::Kind::String) spans_.back().second = keep(value.string);
}

void FlatValue::finish() {
  // The views still point where the parser had the text; text_ has its copy.
  const char* base = text_.data();
  if (value_.kind == Value::Kind::String) value_.string = {base + valueAt_, value_.string.size()};
  for (std::size_t m = 0; m < members_.size(); ++m) {
    Member& member = members_[m];
    member.key = {base + spans_[m].first, member.key.size()};
    if (member.value.kind == Value::Kind::String)
      member.value.string = {base + spans_[m].second, member.value.string.size()};
  }
}

namespace {

/// What stopped a parse, beyond RapidJSON's own syntax errors.
struct ReadFaults {
  std::string overflow;     ///< a number no double holds ("1e400")
  bool badString = false;   ///< a string that is not UTF-8
  bool tooDeep = false;     ///< nesting deeper than kMaxNesting
};

/// As nlohmann types numbers: without fraction or exponent an integer,
/// signed if negative, unless it overflows 64 bits; otherwise a double,
/// which must be finite (nullopt if not).
std::optional<Value> typedNumber(const char* text, std::size_t length) {
  const char* end = text + length;
  Value value;
  if (std::find_if(text, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == end) {
    if (*text == '-') {
      if (const auto r = std::from_chars(text, end, value.integer); r.ec == std::errc() && r.ptr == end) {
        value.kind = Value::Kind::Integer;
        return value;
      }
    } else if (const auto r = std::from_chars(text, end, value.unsignedInteger); r.ec == std::errc() && r.ptr == end) {
      value.kind = Value::Kind::Unsigned;
      return value;
    }
  }
  double v = 0;
  if (const auto r = std::from_chars(text, end, v); r.ec != std::errc() || r.ptr != end)
    v = std::strtod(std::string(text, length).c_str(), nullptr);  // underflow (1e-400 reads as 0), overflow
  if (!std::isfinite(v)) return std::nullopt;
  value.kind = Value::Kind::Float;
  value.floating = v;
  return value;
}

/// Strings are checked here rather than by RapidJSON (whose check costs
/// more than its parse): well-formed UTF-8, which also refuses the bytes
/// RapidJSON makes of an escaped lone UTF-16 surrogate ("\\udc00"), as
/// nlohmann did.
bool validUtf8(const unsigned char* s, std::size_t n) {
  std::size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {  // eight ASCII bytes at a time
      std::uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (length == 0 || i + length > n) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((s[i + k] & 0xC0) != 0x80) return false;
    const unsigned next = s[i + 1];
    if ((c == 0xE0 && next < 0xA0) || (c == 0xF0 && next < 0x90) ||  // overlong
        (c == 0xED && next >= 0xA0) ||                                // a UTF-16 surrogate
        (c == 0xF4 && next >= 0x90))                                  // past U+10FFFF
      return false;
    i += length;
  }
  return true;
}

/// RapidJSON's parse events, checked (numbers typed, strings UTF-8, nesting
/// bounded) and handed to Derived as value(Value), key(name), open(kind)
/// and close(kind). RapidJSON reads JSON 5-10 times faster than nlohmann's
/// lexer (BERT-L-12's 611 KB: about 1 ms against 12). Strings and keys are
/// valid only during the call.
template <class Derived>
class CheckedReader : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Derived> {
 public:
  const ReadFaults& faults() const { return faults_; }

  bool Null() { return derived().value(Value()); }
  bool Bool(bool v) {
    Value value;
    value.kind = Value::Kind::Boolean;
    value.boolean = v;
    return derived().value(value);
  }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    const std::optional<Value> value = typedNumber(text, length);
    if (!value) {
      faults_.overflow.assign(text, length);
      return false;
    }
    return derived().value(*value);
  }
  bool String(const char* text, rapidjson::SizeType length, bool) {
    if (!wholeCodePoints(text, length)) return false;
    Value value;
    value.kind = Value::Kind::String;
    value.string = {text, length};
    return derived().value(value);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    return wholeCodePoints(text, length) && derived().key(std::string_view(text, length));
  }
  bool StartObject() { return enter() && derived().open(Value::Kind::Object); }
  bool StartArray() { return enter() && derived().open(Value::Kind::Array); }
  bool EndObject(rapidjson::SizeType) {
    --nesting_;
    return derived().close(Value::Kind::Object);
  }
  bool EndArray(rapidjson::SizeType) {
    --nesting_;
    return derived().close(Value::Kind::Array);
  }

 protected:
  /// Arrays and objects open (the top level's own is 1); in open(), it
  /// counts the one that opens.
  int nesting() const { return nesting_; }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  bool wholeCodePoints(const char* text, std::size_t length) {
    if (validUtf8(reinterpret_cast<const unsigned char*>(text), length)) return true;
    faults_.badString = true;
    return false;
  }
  bool enter() {
    // Unbounded nesting would cost memory in proportion; our formats need 4 levels.
    if (++nesting_ <= kMaxNesting) return true;
    faults_.tooDeep = true;
    return false;
  }

  ReadFaults faults_;
  int nesting_ = 0;
};

/// Builds the whole tree as nlohmann's own DOM parser would.
class TreeBuilder : public CheckedReader<TreeBuilder> {
  using Dom = nlohmann::detail::json_sax_dom_parser<InputJson>;

 public:
  explicit TreeBuilder(InputJson& root) : dom_(root) {}

  bool value(const Value& value) {
    switch (value.kind) {
      case Value::Kind::Boolean: return dom_.boolean(value.boolean);
      case Value::Kind::Integer: return dom_.number_integer(value.integer);
      case Value::Kind::Unsigned: return dom_.number_unsigned(value.unsignedInteger);
      case Value::Kind::Float: return dom_.number_float(value.floating, std::string());
      case Value::Kind::String: {
        std::string text(value.string);
        return dom_.string(text);
      }
      default: return dom_.null();
    }
  }
  bool key(std::string_view name) {
    std::string text(name);
    return dom_.key(text);
  }
  bool open(Value::Kind kind) {
    constexpr auto kUnknownSize = static_cast<std::size_t>(-1);
    return kind == Value::Kind::Array ? dom_.start_array(kUnknownSize) : dom_.start_object(kUnknownSize);
  }
  bool close(Value::Kind kind) { return kind == Value::Kind::Array ? dom_.end_array() : dom_.end_object(); }

 private:
  Dom dom_;
};

/// Reads the top level flat, and the elements of streamed arrays flat, one
/// at a time into one reused FlatValue: no tree, and past the first few
/// elements no allocation.
class FlatReader : public CheckedReader<FlatReader> {
 public:
  FlatReader(FlatValue& top, const StreamedArrays& streamed) : top_(top), streamed_(streamed) {}

  bool value(const Value& value) {
    place(value, nesting());
    return true;
  }
  bool open(Value::Kind kind) {
    const int level = nesting() - 1;  // where the array or object itself sits
    Value value;
    value.kind = kind;
    place(value, level);
    if (level == 1 && topIsObject_ && kind == Value::Kind::Array && pendingField_ != kNone) {
      streaming_ = pendingField_;
      streamed_.start(streaming_);
    }
    return true;
  }
  bool close(Value::Kind) {
    if (streaming_ == kNone) return true;
    if (nesting() == kElementLevel) {
      handOver();  // an element that is an array or object
    } else if (nesting() == 1) {
      streaming_ = kNone;  // the streamed array ends
    }
    return true;
  }
  bool key(std::string_view name) {
    if (nesting() == 1) {  // a member of the top-level object
      top_.addKey(name);
      const auto& fields = streamed_.fields;
      const auto it = std::find(fields.begin(), fields.end(), name);
      pendingField_ = it == fields.end() ? kNone : static_cast<std::size_t>(it - fields.begin());
    } else if (nesting() == kElementLevel + 1 && streaming_ != kNone && elementIsObject_) {
      element_.addKey(name);
    }
    return true;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  /// Where the elements of a streamed array sit: in a member of the top level.
  static constexpr int kElementLevel = 2;

  /// A value (or the kind of an array or object) met at `level` (0: the top level).
  void place(const Value& value, int level) {
    if (level == 0) {
      top_.setValue(value);
      topIsObject_ = value.kind == Value::Kind::Object;
    } else if (level == 1) {
      if (topIsObject_) top_.setMemberValue(value);  // else an element of a top-level array: not read
    } else if (streaming_ != kNone) {
      if (level == kElementLevel) {
        element_.clear();
        element_.setValue(value);
        elementIsObject_ = value.kind == Value::Kind::Object;
        if (value.kind != Value::Kind::Object && value.kind != Value::Kind::Array) handOver();
      } else if (level == kElementLevel + 1 && elementIsObject_) {
        element_.setMemberValue(value);
      }
    }
  }
  void handOver() {
    element_.finish();
    streamed_.element(streaming_, element_);
  }

  FlatValue& top_;
  const StreamedArrays& streamed_;
  bool topIsObject_ = false;
  std::size_t pendingField_ = kNone;  ///< the streamed field, if any, of the last top-level key
  std::size_t streaming_ = kNone;     ///< the streamed field whose array is being read
  FlatValue element_;
  bool elementIsObject_ = false;
};

/// Line and column (from 1) of a byte offset, for messages.
std::string lineAndColumn(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  const std::size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column = lineStart == std::string_view::npos || offset == 0 ? offset + 1 : offset - lineStart;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// Runs `reader` over the text; false with *error set if it is not JSON
/// we read. Only allocation can throw (RapidJSON reports syntax as a
/// result): a std::bad_alloc goes to the caller as such, not as invalid JSON.
template <class Reader>
bool read(std::string_view text, const std::string& name, std::string* error, Reader& reader) {
  // The parser would read a NUL byte as the end: what follows would go unread.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    *error = name + ": invalid JSON at byte " + std::to_string(nul) + ": a NUL byte";
    return false;
  }
  if (text.find_first_not_of(" \n\r\t") == std::string_view::npos) {
    *error = name + ": empty file (expected a JSON object)";
    return false;
  }
  // nlohmann skipped a UTF-8 byte order mark; so do we.
  std::size_t start = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;
  rapidjson::MemoryStream stream(text.data() + start, text.size() - start);
  rapidjson::Reader parser;
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag;
  const rapidjson::ParseResult result = parser.Parse<kFlags>(stream, reader);
  if (!result.IsError()) return true;
  const ReadFaults& faults = reader.faults();
  const std::size_t at = start + result.Offset();
  // Both a stop from our number check and RapidJSON's own point at the number's start.
  std::string number = faults.overflow;
  if (result.Code() == rapidjson::kParseErrorNumberTooBig) {
    const std::size_t end = text.find_first_not_of("+-.0123456789eE", at);
    number = std::string(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  }
  if (faults.tooDeep) {  // the offset is the bracket's: it is taken after its event
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": nested deeper than " +
             std::to_string(kMaxNesting) + " levels";
  } else if (faults.badString) {
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) +
             ": the string just before here is not UTF-8 (or escapes a lone UTF-16 surrogate)";
  } else if (!number.empty()) {
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) +
             ": number overflow parsing '" + printable(number) + "'";
  } else {
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) + ": " +
             rapidjson::GetParseError_En(result.Code());
  }
  return false;
}

}  // namespace

std::optional<InputJson> parseDocument(std::string_view text, const std::string& name, std::string* error) {
  InputJson root;
  TreeBuilder builder(root);
  if (!read(text, name, error, builder)) return std::nullopt;
  return root;
}

std::optional<FlatValue> parseFlat(std::string_view text, const std::string& name, std::string* error,
                                   const StreamedArrays& streamed) {
  FlatValue top;
  FlatReader reader(top, streamed);
  if (!read(text, name, error, reader)) return std::nullopt;
  top.finish();
  return top;
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
    case Value::Kind::Float: return formatNumber(value.floating);
    default: return "an unsupported value";
  }
}

bool Fields::fail(const char* field, const std::string& what) {
  const std::string name = element();
  *error_ = file_ + ": " + (name.empty() ? "" : name + ": ") + field + " " + what;
  return false;
}

bool Fields::isObject() {
  const Value self = flat_ ? flat_->value() : valueOf(*tree_);
  if (self.kind == Value::Kind::Object) return true;
  const std::string name = element();
  *error_ = file_ + ": " + (name.empty() ? "top level" : name) + " must be a JSON object, got " + describe(self);
  return false;
}

std::optional<Value> Fields::lookup(const char* field) const {
  if (flat_) {
    const Value* value = flat_->find(field);
    return value ? std::optional<Value>(*value) : std::nullopt;
  }
  const auto it = tree_->find(field);
  return it == tree_->end() ? std::nullopt : std::optional<Value>(valueOf(*it));
}

bool Fields::has(const char* field) const { return lookup(field).has_value(); }

std::optional<Value> Fields::require(const char* field) {
  std::optional<Value> value = lookup(field);
  if (!value) fail(field, "is missing");
  return value;
}

bool Fields::number(const char* field, double* out, bool allowNegative) {
  const std::optional<Value> value = require(field);
  if (!value) return false;
  if (!value->isNumber()) return fail(field, "must be a number, got " + describe(*value));
  const double x = value->asDouble();
  if (!std::isfinite(x) || (!allowNegative && x < 0))
    return fail(field, std::string("must be a finite number") + (allowNegative ? "" : " >= 0") + ", got " +
                           describe(*value));
  *out = x;
  return true;
}

bool Fields::integer(const char* field, std::int64_t* out, bool allowNegative) {
  const std::optional<Value> value = require(field);
  if (!value) return false;
  const char* expected = allowNegative ? "must be an integer" : "must be an integer >= 0";
  if (value->kind == Value::Kind::Integer) {
    *out = value->integer;
  } else if (value->kind == Value::Kind::Unsigned) {
    if (value->unsignedInteger > static_cast<std::uint64_t>(INT64_MAX))
      return fail(field, std::string(expected) + " that fits in 64 bits, got " + describe(*value));
    *out = static_cast<std::int64_t>(value->unsignedInteger);
  } else if (value->kind == Value::Kind::Float) {
    // The paper's files sometimes write integers as 3.0.
    const double x = value->floating;
    if (!std::isfinite(x) || std::floor(x) != x) return fail(field, std::string(expected) + ", got " + describe(*value));
    if (x < -9.2e18 || x > 9.2e18)
      return fail(field, std::string(expected) + " that fits in 64 bits, got " + describe(*value));
    *out = static_cast<std::int64_t>(x);
  } else {
    return fail(field, std::string(expected) + ", got " + describe(*value));
  }
  if (!allowNegative && *out < 0) return fail(field, std::string(expected) + ", got " + describe(*value));
  return true;
}

bool Fields::boolean(const char* field, bool* out) {
  const std::optional<Value> value = require(field);
  if (!value) return false;
  if (value->kind == Value::Kind::Boolean) {
    *out = value->boolean;
    return true;
  }
  if (value->isNumber()) {
    const double x = value->asDouble();
    if (x == 0 || x == 1) {
      *out = x == 1;
      return true;
    }
  }
  return fail(field, "must be true, false, 0 or 1, got " + describe(*value));
}

bool Fields::isArray(const char* field) {
  const std::optional<Value> value = require(field);
  if (!value) return false;
  if (value->kind == Value::Kind::Array) return true;
  return fail(field, "must be an array, got " + describe(*value));
}

const InputJson* Fields::array(const char* field) {
  if (!tree_ || !isArray(field)) return nullptr;
  return &*tree_->find(field);
}

}  // namespace dnnplace::json_input
