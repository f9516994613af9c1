#include "json_input.hpp"

#include <algorithm>
#include <charconv>
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

/// Builds the tree from nlohmann's parse events, as its own DOM parser does,
/// except for the elements of streamed arrays: each is built on its own,
/// in an arena reused from one element to the next, handed over and dropped.
class StreamingBuilder {
  using Dom = nlohmann::detail::json_sax_dom_parser<InputJson>;

 public:
  using number_integer_t = InputJson::number_integer_t;
  using number_unsigned_t = InputJson::number_unsigned_t;
  using number_float_t = InputJson::number_float_t;
  using string_t = InputJson::string_t;
  using binary_t = InputJson::binary_t;

  StreamingBuilder(InputJson& root, Arena* rootArena, const StreamedArrays& streamed)
      : rootArena_(rootArena), root_(root), streamed_(streamed) {}
  StreamingBuilder(const StreamingBuilder&) = delete;
  StreamingBuilder& operator=(const StreamingBuilder&) = delete;
  ~StreamingBuilder() { dropElement(); }

  bool null() { return scalar([](Dom& d) { return d.null(); }); }
  bool boolean(bool v) { return scalar([v](Dom& d) { return d.boolean(v); }); }
  bool number_integer(number_integer_t v) { return scalar([v](Dom& d) { return d.number_integer(v); }); }
  bool number_unsigned(number_unsigned_t v) { return scalar([v](Dom& d) { return d.number_unsigned(v); }); }
  bool number_float(number_float_t v, const string_t& text) {
    return scalar([&](Dom& d) { return d.number_float(v, text); });
  }
  bool string(string_t& v) { return scalar([&](Dom& d) { return d.string(v); }); }
  bool binary(binary_t& v) { return scalar([&](Dom& d) { return d.binary(v); }); }
  bool start_object(std::size_t n) { return open(false, [n](Dom& d) { return d.start_object(n); }); }
  bool start_array(std::size_t n) { return open(true, [n](Dom& d) { return d.start_array(n); }); }
  bool end_object() { return close([](Dom& d) { return d.end_object(); }); }
  bool end_array() { return close([](Dom& d) { return d.end_array(); }); }

  bool key(string_t& name) {
    if (mode_ == Mode::Element) return inElement([&](Dom& d) { return d.key(name); });
    if (depth_ == 1) {  // a field of the top-level object
      const auto& fields = streamed_.fields;
      const auto it = std::find(fields.begin(), fields.end(), std::string_view(name));
      pendingField_ = it == fields.end() ? kNone : static_cast<std::size_t>(it - fields.begin());
    }
    return inRoot([&](Dom& d) { return d.key(name); });
  }

  /// Throws nlohmann's exception, as its DOM parser does.
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return rootDom_.parse_error(position, token, e);
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
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
    switch (mode_) {
      case Mode::Root:
        if (array && depth_ == 1 && pendingField_ != kNone) {
          // The tree keeps an empty array in its place.
          field_ = pendingField_;
          pendingField_ = kNone;
          inRoot([](Dom& d) { return d.start_array(0) && d.end_array(); });
          streamed_.start(field_);
          mode_ = Mode::Between;
          return true;
        }
        pendingField_ = kNone;
        ++depth_;
        return inRoot(event);
      case Mode::Between:
        beginElement();
        mode_ = Mode::Element;
        elementDepth_ = 1;
        return inElement(event);
      case Mode::Element:
        ++elementDepth_;
        return inElement(event);
    }
    return false;
  }

  template <class Event>
  bool close(Event&& event) {
    switch (mode_) {
      case Mode::Root:
        --depth_;
        return inRoot(event);
      case Mode::Between:  // the streamed array ends
        mode_ = Mode::Root;
        return true;
      case Mode::Element:
        inElement(event);
        if (--elementDepth_ == 0) {
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
  int depth_ = 0;  ///< arrays and objects open in the tree
  std::size_t pendingField_ = kNone;  ///< a streamed field whose value comes next
  std::size_t field_ = kNone;         ///< the streamed field being read
  int elementDepth_ = 0;
  Arena elementArena_;
  InputJson element_;
  std::optional<Dom> elementDom_;
};

}  // namespace

Document::~Document() {
  ArenaScope scope(arena_.get());
  root_ = InputJson();
}

std::optional<Document> parseDocument(std::string_view text, const std::string& name,
                                      std::string* error, const StreamedArrays* streamed) {
  // Scan nesting outside strings first: nlohmann would build every level.
  int depth = 0;
  bool inString = false, escaped = false, nonBlank = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // nlohmann stops at a NUL byte as at the end: what follows would go unread.
    if (c == '\0') {
      *error = name + ": invalid JSON at byte " + std::to_string(i) + ": a NUL byte";
      return std::nullopt;
    }
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') nonBlank = true;
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) {
        *error = name + ": invalid JSON at byte " + std::to_string(i) + ": nested deeper than " +
                 std::to_string(kMaxNesting) + " levels";
        return std::nullopt;
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  if (!nonBlank) {
    *error = name + ": empty file (expected a JSON object)";
    return std::nullopt;
  }
  try {
    auto arena = std::make_unique<Arena>();
    ArenaScope scope(arena.get());
    if (!streamed) return Document(std::move(arena), InputJson::parse(text.begin(), text.end()));
    InputJson root;
    StreamingBuilder builder(root, arena.get(), *streamed);
    InputJson::sax_parse(text.begin(), text.end(), &builder);
    return Document(std::move(arena), std::move(root));
  } catch (const InputJson::parse_error& e) {
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 5: …"
    std::string what = e.what();
    if (auto colon = what.find("] "); colon != std::string::npos) what = what.substr(colon + 2);
    *error = name + ": invalid JSON at byte " + std::to_string(e.byte) + ": " +
             printable(what, 200);
  } catch (const InputJson::out_of_range& e) {
    // A number beyond double range ("1e400"). nlohmann gives no position but
    // quotes the token: point at its first occurrence.
    std::string what = e.what();
    if (auto colon = what.find("] "); colon != std::string::npos) what = what.substr(colon + 2);
    std::string where;
    const auto open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open + 1)
      if (auto at = text.find(what.substr(open + 1, close - open - 1)); at != std::string_view::npos)
        where = " at byte " + std::to_string(at);
    *error = name + ": invalid JSON" + where + ": " + printable(what, 200);
  } catch (const std::exception& e) {
    *error = name + ": invalid JSON: " + printable(e.what(), 200);
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
