#include "io/json_input.hpp"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

// RAPIDJSON_SSE2 (its 16-byte scans of whitespace and strings) is set for
// the whole library by CMakeLists.txt, so that every file sees one RapidJSON.
#include <rapidjson/error/en.h>
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
/// which must be finite (nullopt if not). RapidJSON has checked the syntax.
std::optional<Value> typedNumber(const char* text, std::size_t length) {
  // Workloads are mostly numbers: the common ones are read without
  // from_chars. An integer of at most 18 digits cannot overflow; a decimal
  // of at most 15 digits is m / 10^k with m and 10^k exact doubles (k <= 22),
  // and one IEEE division rounds that correctly, as from_chars would
  // (Clinger's fast path).
  // One division rounds correctly only in double precision, as SSE2 computes it.
  static_assert(FLT_EVAL_METHOD == 0, "the fast path needs double arithmetic without excess precision");
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* end = text + length;
  const bool negative = *text == '-';
  const char* p = text + negative;
  std::uint64_t digits = 0;
  int count = 0;
  const auto readDigits = [&] {
    for (; p != end && static_cast<unsigned>(*p - '0') < 10; ++p, ++count)
      if (count < 19) digits = digits * 10 + static_cast<unsigned>(*p - '0');
  };
  readDigits();
  const bool integral = p == end;  // no fraction, no exponent
  Value value;
  if (integral && count <= 18) {
    if (negative) {
      value.kind = Value::Kind::Integer;
      value.integer = -static_cast<std::int64_t>(digits);
    } else {
      value.kind = Value::Kind::Unsigned;
      value.unsignedInteger = digits;
    }
    return value;
  }
  if (!integral && *p == '.') {
    const char* fraction = ++p;
    readDigits();
    if (p == end && count <= 15 && p - fraction <= 22) {
      const double magnitude = static_cast<double>(digits) / kPowersOfTen[p - fraction];
      value.kind = Value::Kind::Float;
      value.floating = negative ? -magnitude : magnitude;
      return value;
    }
  }
  if (integral) {
    if (negative) {
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
/// nlohmann did. The 7 bytes past the end must be readable (they are, in a
/// text padded for parsing).
bool validUtf8(const unsigned char* s, std::size_t n) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ull;
  std::size_t i = 0;
  while (i < n) {
    // Eight bytes at a time, the last few with the bytes past the end read as NUL.
    std::uint64_t word;
    std::memcpy(&word, s + i, 8);
    const std::size_t left = n - i;
    if (left < 8) word &= ~0ull >> (8 * (8 - left));
    if ((word & kHighBits) == 0) {  // all ASCII
      i += 8;
      continue;
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
/// views into the text parsed in place.
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
    if (!checkString(text, length)) return false;
    Value value;
    value.kind = Value::Kind::String;
    value.string = {text, length};
    return derived().value(value);
  }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    return checkString(text, length) && derived().key(std::string_view(text, length));
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
  bool checkString(const char* text, std::size_t length) {
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
  void handOver() { streamed_.element(streaming_, element_); }

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

/// Runs `reader` over `text`, parsing it in place: its first `size` bytes
/// are the document, followed by kParsePadding NULs. `original` is the
/// document as it was, for messages, if the caller has it (else empty).
/// False with *error set if it is not JSON we read. Only allocation can
/// throw (RapidJSON reports syntax as a result): a std::bad_alloc goes to the
/// caller as such, not as invalid JSON.
template <class Reader>
bool read(std::string& text, std::size_t size, std::string_view original, const std::string& name,
          std::string* error, Reader& reader) {
  const std::string_view document(text.data(), size);
  // The parser would read a NUL byte as the end: what follows would go unread.
  if (const std::size_t nul = document.find('\0'); nul != std::string_view::npos) {
    *error = name + ": invalid JSON at byte " + std::to_string(nul) + ": a NUL byte";
    return false;
  }
  if (document.find_first_not_of(" \n\r\t") == std::string_view::npos) {
    *error = name + ": empty file (expected a JSON object)";
    return false;
  }
  // Parsing in place writes a NUL where each string ends, and decodes
  // escapes over the string's own bytes (an escaped newline becomes a line
  // end). Messages count lines in the text as it was: without a backslash,
  // the NULs alone do not change that count; with one, in a copy.
  std::string pristine;
  if (original.data() == nullptr) {
    if (document.find('\\') != std::string_view::npos) pristine.assign(document);
    original = pristine.empty() ? document : std::string_view(pristine);
  }
  // nlohmann skipped a UTF-8 byte order mark; so do we.
  std::size_t start = 0;
  if (document.substr(0, 3) == "\xEF\xBB\xBF") start = 3;
  // In place, strings need no copy; recursive (not iterative) parsing costs
  // a third less, and its depth is bounded by the reader's nesting check.
  rapidjson::InsituStringStream stream(text.data() + start);
  rapidjson::Reader parser;
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag;
  const rapidjson::ParseResult result = parser.Parse<kFlags>(stream, reader);
  if (!result.IsError()) return true;
  const ReadFaults& faults = reader.faults();
  const std::size_t at = start + result.Offset();
  // Both a stop from our number check and RapidJSON's own point at the number's start.
  std::string number = faults.overflow;
  if (result.Code() == rapidjson::kParseErrorNumberTooBig) {
    const std::size_t end = original.find_first_not_of("+-.0123456789eE", at);
    number = std::string(original.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  }
  const auto where = [&] {
    return name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(original, at) + ": ";
  };
  if (faults.tooDeep) {
    // RapidJSON takes the bracket, then reports it: the offset is one past it.
    *error = name + ": invalid JSON at byte " + std::to_string(at - 1) + ": nested deeper than " +
             std::to_string(kMaxNesting) + " levels";
  } else if (faults.badString) {
    *error = where() + "the string just before here is not UTF-8 (or escapes a lone UTF-16 surrogate)";
  } else if (!number.empty()) {
    *error = where() + "number overflow parsing '" + printable(number) + "'";
  } else {
    *error = where() + rapidjson::GetParseError_En(result.Code());
  }
  return false;
}

/// `text` as read() parses it: followed by its padding. Appending costs no
/// copy if the capacity was reserved.
std::size_t pad(std::string& text) {
  const std::size_t size = text.size();
  text.append(kParsePadding, '\0');
  return size;
}

/// A copy of `text` with room for its padding.
std::string copyToParse(std::string_view text) {
  std::string copy;
  copy.reserve(text.size() + kParsePadding);
  copy.assign(text);
  return copy;
}

}  // namespace

std::optional<InputJson> parseDocument(std::string_view text, const std::string& name, std::string* error) {
  std::string copy = copyToParse(text);
  const std::size_t size = pad(copy);
  InputJson root;
  TreeBuilder builder(root);
  if (!read(copy, size, text, name, error, builder)) return std::nullopt;
  return root;
}

namespace {

/// parseFlat of `text` in place; `original`: as read() takes it.
std::optional<FlatValue> parseFlatInPlace(std::string&& text, std::string_view original, const std::string& name,
                                          std::string* error, const StreamedArrays& streamed) {
  // On the heap, the text stays where the views point however the result moves.
  auto owned = std::make_unique<std::string>(std::move(text));
  const std::size_t size = pad(*owned);
  FlatValue top;
  FlatReader reader(top, streamed);
  if (!read(*owned, size, original, name, error, reader)) return std::nullopt;
  top.own(std::move(owned));
  return top;
}

}  // namespace

std::optional<FlatValue> parseFlat(std::string&& text, const std::string& name, std::string* error,
                                   const StreamedArrays& streamed) {
  return parseFlatInPlace(std::move(text), std::string_view(), name, error, streamed);
}

std::optional<FlatValue> parseFlat(std::string_view text, const std::string& name, std::string* error,
                                   const StreamedArrays& streamed) {
  return parseFlatInPlace(copyToParse(text), text, name, error, streamed);
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

const Value* Fields::lookup(const char* field) const {
  if (flat_) return flat_->find(field);
  const auto it = tree_->find(field);
  if (it == tree_->end()) return nullptr;
  treeValue_ = valueOf(*it);
  return &treeValue_;
}

bool Fields::has(const char* field) const { return lookup(field) != nullptr; }

const Value* Fields::require(const char* field) {
  const Value* value = lookup(field);
  if (!value) fail(field, "is missing");
  return value;
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
  if (value.kind == Value::Kind::Unsigned) return value.unsignedInteger > static_cast<std::uint64_t>(INT64_MAX);
  const double x = value.floating;
  return value.kind == Value::Kind::Float && std::isfinite(x) && std::floor(x) == x && (x < -9.2e18 || x > 9.2e18);
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

bool Fields::number(const char* field, double* out, bool allowNegative) {
  const Value* value = require(field);
  if (!value) return false;
  if (toNumber(*value, allowNegative, out)) return true;
  if (!value->isNumber()) return fail(field, "must be a number, got " + describe(*value));
  return fail(field, std::string("must be a finite number") + (allowNegative ? "" : " >= 0") + ", got " +
                         describe(*value));
}

bool Fields::integer(const char* field, std::int64_t* out, bool allowNegative) {
  const Value* value = require(field);
  if (!value) return false;
  if (toInteger(*value, allowNegative, out)) return true;
  return fail(field, std::string(allowNegative ? "must be an integer" : "must be an integer >= 0") +
                         (pastSixtyFourBits(*value) ? " that fits in 64 bits" : "") + ", got " + describe(*value));
}

bool Fields::boolean(const char* field, bool* out) {
  const Value* value = require(field);
  if (!value) return false;
  if (toFlag(*value, out)) return true;
  return fail(field, "must be true, false, 0 or 1, got " + describe(*value));
}

bool Fields::isArray(const char* field) {
  const Value* value = require(field);
  if (!value) return false;
  if (value->kind == Value::Kind::Array) return true;
  return fail(field, "must be an array, got " + describe(*value));
}

const InputJson* Fields::array(const char* field) {
  if (!tree_ || !isArray(field)) return nullptr;
  return &*tree_->find(field);
}

}  // namespace dnnplace::json_input
