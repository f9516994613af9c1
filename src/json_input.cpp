#include "json_input.hpp"

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
  if (blocks_.empty() || used_ + bytes > kBlockBytes) {
    // new[] of std::byte: aligned for any fundamental type, like malloc.
    blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(kBlockBytes));
    used_ = 0;
  }
  void* pointer = blocks_.back().get() + used_;
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

}  // namespace

Document::~Document() {
  ArenaScope scope(arena_.get());
  root_ = InputJson();
}

std::optional<Document> parseDocument(std::string_view text, const std::string& name,
                                      std::string* error) {
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
    InputJson root = InputJson::parse(text.begin(), text.end());
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
