#include "json_input.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <cmath>

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

void* Arena::allocate(std::size_t bytes) {
  bytes = (bytes + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
  if (inUse_ == 0 || used_ + bytes > kBlockBytes) {
    // new[] of std::byte: aligned for any fundamental type, like malloc.
    if (inUse_ == blocks_.size()) blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(kBlockBytes));
    ++inUse_;
    used_ = 0;
  }
  void* pointer = blocks_[inUse_ - 1].get() + used_;
  used_ += bytes;
  return pointer;
}

namespace detail {

Arena*& currentArena() {
  thread_local Arena* arena = nullptr;
  return arena;
}

void* allocate(std::size_t bytes) {
  Arena* arena = currentArena();
  if (arena && bytes <= Arena::kLargestRequest) return arena->allocate(bytes);
  return ::operator new(bytes);
}

void deallocate(void* pointer, std::size_t bytes) {
  // Small blocks allocated while an arena was current are freed while it is
  // current again (parse, ~Document): the arena takes them back all at once.
  if (currentArena() && bytes <= Arena::kLargestRequest) return;
  ::operator delete(pointer, bytes);
}

}  // namespace detail

namespace {

/// Makes `arena` current for this thread until the scope ends.
class ArenaScope {
 public:
  explicit ArenaScope(Arena* arena) : saved_(detail::currentArena()) { detail::currentArena() = arena; }
  ~ArenaScope() { detail::currentArena() = saved_; }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  Arena* saved_;
};

/// Builds the tree from RapidJSON's parse events, as nlohmann's own DOM
/// parser would, except for the elements of streamed arrays: each is built
/// on its own, in an arena reused from one element to the next, handed over
/// and dropped. RapidJSON reads JSON 5-10 times faster than nlohmann's lexer
/// (BERT-L-12's 611 KB: about 1 ms against 12); numbers come as text and are
/// typed as nlohmann types them.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
  using Dom = nlohmann::detail::json_sax_dom_parser<InputJson>;

 public:
  using string_t = InputJson::string_t;

  TreeBuilder(InputJson& root, Arena* rootArena, const StreamedArrays& streamed)
      : rootArena_(rootArena), root_(root), streamed_(streamed) {}
  TreeBuilder(const TreeBuilder&) = delete;
  TreeBuilder& operator=(const TreeBuilder&) = delete;
  ~TreeBuilder() { dropElement(); }

  /// A number no double holds ("1e400"), if that stopped the parse.
  const std::string& overflow() const { return overflow_; }
  /// Whether a string that is not UTF-8 stopped the parse.
  bool badString() const { return badString_; }
  /// Whether nesting deeper than kMaxNesting stopped the parse.
  bool tooDeep() const { return tooDeep_; }

  bool Null() { return scalar([](Dom& d) { return d.null(); }); }
  bool Bool(bool v) { return scalar([v](Dom& d) { return d.boolean(v); }); }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    // As nlohmann: without fraction or exponent an integer, signed if
    // negative, unless it overflows 64 bits; otherwise a finite double.
    const char* end = text + length;
    if (std::find_if(text, end, [](char c) { return c == '.' || c == 'e' || c == 'E'; }) == end) {
      if (*text == '-') {
        std::int64_t v = 0;
        if (const auto r = std::from_chars(text, end, v); r.ec == std::errc() && r.ptr == end)
          return scalar([v](Dom& d) { return d.number_integer(v); });
      } else {
        std::uint64_t v = 0;
        if (const auto r = std::from_chars(text, end, v); r.ec == std::errc() && r.ptr == end)
          return scalar([v](Dom& d) { return d.number_unsigned(v); });
      }
    }
    double v = 0;
    if (const auto r = std::from_chars(text, end, v); r.ec != std::errc() || r.ptr != end)
      v = std::strtod(std::string(text, length).c_str(), nullptr);  // underflow (1e-400 reads as 0), overflow
    if (!std::isfinite(v)) {
      overflow_.assign(text, length);
      return false;
    }
    return scalar([v](Dom& d) { return d.number_float(v, string_t()); });
  }
  bool String(const char* text, rapidjson::SizeType length, bool) {
    if (!wholeCodePoints(text, length)) return false;
    string_t value(text, length);
    return scalar([&](Dom& d) { return d.string(value); });
  }
  bool StartObject() { return open(false, [](Dom& d) { return d.start_object(static_cast<std::size_t>(-1)); }); }
  bool StartArray() { return open(true, [](Dom& d) { return d.start_array(static_cast<std::size_t>(-1)); }); }
  bool EndObject(rapidjson::SizeType) { return close([](Dom& d) { return d.end_object(); }); }
  bool EndArray(rapidjson::SizeType) { return close([](Dom& d) { return d.end_array(); }); }
  bool Key(const char* text, rapidjson::SizeType length, bool) {
    if (!wholeCodePoints(text, length)) return false;
    string_t name(text, length);
    return key(name);
  }

 private:
  /// Strings are checked here rather than by RapidJSON (whose check costs
  /// more than its parse): well-formed UTF-8, which also refuses the bytes
  /// RapidJSON makes of an escaped lone UTF-16 surrogate ("\\udc00"), as
  /// nlohmann did.
  bool wholeCodePoints(const char* text, std::size_t length) {
    if (validUtf8(reinterpret_cast<const unsigned char*>(text), length)) return true;
    badString_ = true;
    return false;
  }
  static bool validUtf8(const unsigned char* s, std::size_t n) {
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
  bool key(string_t& name) {
    if (mode_ == Mode::Element) return inElement([&](Dom& d) { return d.key(name); });
    if (nesting_ == 1) {  // a field of the top-level object
      const auto& fields = streamed_.fields;
      const auto it = std::find(fields.begin(), fields.end(), std::string_view(name));
      pendingField_ = it == fields.end() ? kNone : static_cast<std::size_t>(it - fields.begin());
    }
    return inRoot([&](Dom& d) { return d.key(name); });
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  /// The nesting of a streamed array: a field of the top-level object.
  static constexpr int kStreamedLevel = 2;
  /// Root: building the tree. Between: inside a streamed array, between its
  /// elements. Element: inside one of its elements, an array or object.
  enum class Mode { Root, Between, Element };

  template <class Event>
  bool inRoot(Event&& event) {
    ArenaScope scope(rootArena_);
    return event(rootDom_);
  }
  template <class Event>
  bool inElement(Event&& event) {
    ArenaScope scope(&elementArena_);
    return event(*elementDom_);
  }
  void beginElement() { elementDom_.emplace(element_); }
  void handOverElement() {
    streamed_.element(field_, element_);
    dropElement();
  }
  void dropElement() {
    {
      ArenaScope scope(&elementArena_);  // its blocks come back with the reset, below
      elementDom_.reset();
      element_ = InputJson();
    }
    elementArena_.reset();
  }

  template <class Event>
  bool scalar(Event&& event) {
    switch (mode_) {
      case Mode::Root:
        pendingField_ = kNone;
        return inRoot(event);
      case Mode::Between:
        beginElement();
        inElement(event);
        handOverElement();
        return true;
      case Mode::Element:
        return inElement(event);
    }
    return false;
  }

  template <class Event>
  bool open(bool array, Event&& event) {
    // Unbounded nesting would cost memory in proportion; our formats need 4 levels.
    if (++nesting_ > kMaxNesting) {
      tooDeep_ = true;
      return false;
    }
    switch (mode_) {
      case Mode::Root:
        if (array && nesting_ == kStreamedLevel && pendingField_ != kNone) {
          // The tree keeps an empty array in its place.
          field_ = pendingField_;
          pendingField_ = kNone;
          inRoot([](Dom& d) { return d.start_array(0) && d.end_array(); });
          streamed_.start(field_);
          mode_ = Mode::Between;
          return true;
        }
        pendingField_ = kNone;
        return inRoot(event);
      case Mode::Between:
        beginElement();
        mode_ = Mode::Element;
        return inElement(event);
      case Mode::Element:
        return inElement(event);
    }
    return false;
  }

  template <class Event>
  bool close(Event&& event) {
    --nesting_;
    switch (mode_) {
      case Mode::Root:
        return inRoot(event);
      case Mode::Between:  // the streamed array ends
        mode_ = Mode::Root;
        return true;
      case Mode::Element:
        inElement(event);
        if (nesting_ == kStreamedLevel) {  // back in the streamed array: the element is whole
          handOverElement();
          mode_ = Mode::Between;
        }
        return true;
    }
    return false;
  }

  Arena* rootArena_;
  InputJson& root_;
  Dom rootDom_{root_};
  const StreamedArrays& streamed_;
  Mode mode_ = Mode::Root;
  std::size_t pendingField_ = kNone;  ///< a streamed field whose value comes next
  std::size_t field_ = kNone;         ///< the streamed field being read
  Arena elementArena_;
  InputJson element_;
  std::optional<Dom> elementDom_;
  std::string overflow_;
  bool badString_ = false;
  bool tooDeep_ = false;
  int nesting_ = 0;  ///< arrays and objects open, streamed or not (the top level is 1)
};

/// Line and column (from 1) of a byte offset, for messages.
std::string lineAndColumn(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  const std::size_t lineStart = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column = lineStart == std::string_view::npos || offset == 0 ? offset + 1 : offset - lineStart;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

Document::~Document() {
  ArenaScope scope(arena_.get());
  root_ = InputJson();
}

std::optional<Document> parseDocument(std::string_view text, const std::string& name,
                                      std::string* error, const StreamedArrays* streamed) {
  // The parser would read a NUL byte as the end: what follows would go unread.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    *error = name + ": invalid JSON at byte " + std::to_string(nul) + ": a NUL byte";
    return std::nullopt;
  }
  if (text.find_first_not_of(" \n\r\t") == std::string_view::npos) {
    *error = name + ": empty file (expected a JSON object)";
    return std::nullopt;
  }
  // nlohmann skipped a UTF-8 byte order mark; so do we.
  std::size_t start = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") start = 3;
  // Only allocation can throw here (RapidJSON reports syntax as a result):
  // a std::bad_alloc goes to the caller as such, not as invalid JSON.
  auto arena = std::make_unique<Arena>();
  ArenaScope scope(arena.get());
  static const StreamedArrays kNone;
  InputJson root;
  TreeBuilder builder(root, arena.get(), streamed ? *streamed : kNone);
  rapidjson::MemoryStream stream(text.data() + start, text.size() - start);
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, builder);
  if (!result.IsError()) return Document(std::move(arena), std::move(root));
  const std::size_t at = start + result.Offset();
  // Both a stop from our number check and RapidJSON's own point at the number's start.
  std::string number = builder.overflow();
  if (result.Code() == rapidjson::kParseErrorNumberTooBig) {
    const std::size_t end = text.find_first_not_of("+-.0123456789eE", at);
    number = std::string(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  }
  if (builder.tooDeep()) {  // the offset is the bracket's: it is taken after its event
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": nested deeper than " +
             std::to_string(kMaxNesting) + " levels";
  } else if (builder.badString()) {
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) +
             ": the string just before here is not UTF-8 (or escapes a lone UTF-16 surrogate)";
  } else if (!number.empty()) {
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) +
             ": number overflow parsing '" + printable(number) + "'";
  } else {
    *error = name + ": invalid JSON at byte " + std::to_string(at) + ": " + lineAndColumn(text, at) + ": " +
             rapidjson::GetParseError_En(result.Code());
  }
  return std::nullopt;
}

std::string describe(const InputJson& value) {
  switch (value.type()) {
    case InputJson::value_t::null: return "null";
    case InputJson::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case InputJson::value_t::string: return "string \"" + printable(value.get_ref<const std::string&>()) + "\"";
    case InputJson::value_t::array: return "an array";
    case InputJson::value_t::object: return "an object";
    case InputJson::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
    case InputJson::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
    case InputJson::value_t::number_float: return formatNumber(value.get<double>());
    default: return "an unsupported value";
  }
}

bool Fields::fail(const char* field, const std::string& what) {
  *error_ = file_ + ": " + (element_.empty() ? "" : element_ + ": ") + field + " " + what;
  return false;
}

bool Fields::isObject() {
  if (object_.is_object()) return true;
  *error_ = file_ + ": " + (element_.empty() ? "top level" : element_) +
            " must be a JSON object, got " + describe(object_);
  return false;
}

bool Fields::has(const char* field) const { return object_.contains(field); }

const InputJson* Fields::require(const char* field) {
  auto it = object_.find(field);
  if (it == object_.end()) {
    fail(field, "is missing");
    return nullptr;
  }
  return &*it;
}

bool Fields::number(const char* field, double* out, bool allowNegative) {
  const InputJson* value = require(field);
  if (!value) return false;
  if (!value->is_number()) return fail(field, "must be a number, got " + describe(*value));
  const double x = value->get<double>();
  if (!std::isfinite(x) || (!allowNegative && x < 0))
    return fail(field, std::string("must be a finite number") + (allowNegative ? "" : " >= 0") +
                           ", got " + describe(*value));
  *out = x;
  return true;
}

bool Fields::integer(const char* field, std::int64_t* out, bool allowNegative) {
  const InputJson* value = require(field);
  if (!value) return false;
  const char* expected = allowNegative ? "must be an integer" : "must be an integer >= 0";
  if (value->is_number_integer() && !value->is_number_unsigned()) {
    *out = value->get<std::int64_t>();
  } else if (value->is_number_unsigned()) {
    const auto u = value->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX))
      return fail(field, std::string(expected) + " that fits in 64 bits, got " + describe(*value));
    *out = static_cast<std::int64_t>(u);
  } else if (value->is_number_float()) {
    // The paper's files sometimes write integers as 3.0.
    const double x = value->get<double>();
    if (!std::isfinite(x) || std::floor(x) != x)
      return fail(field, std::string(expected) + ", got " + describe(*value));
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
  const InputJson* value = require(field);
  if (!value) return false;
  if (value->is_boolean()) {
    *out = value->get<bool>();
    return true;
  }
  if (value->is_number()) {
    const double x = value->get<double>();
    if (x == 0 || x == 1) {
      *out = x == 1;
      return true;
    }
  }
  return fail(field, "must be true, false, 0 or 1, got " + describe(*value));
}

const InputJson* Fields::array(const char* field) {
  const InputJson* value = require(field);
  if (!value) return nullptr;
  if (!value->is_array()) {
    fail(field, "must be an array, got " + describe(*value));
    return nullptr;
  }
  return value;
}

}  // namespace dnnplace::json_input
