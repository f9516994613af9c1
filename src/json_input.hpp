#pragma once
// Strict, crash-proof reading of JSON input files: a nesting guard before
// nlohmann parses anything, and typed field access whose failures produce the
// one-line "FILE: ELEMENT: FIELD …" messages users see.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dnnplace::json_input {

using Json = nlohmann::json;

/// Deeper nesting than this is rejected before parsing: our formats need 4
/// levels, and unbounded nesting would cost memory proportional to its depth.
inline constexpr int kMaxNesting = 64;

/// Parses a document; on failure sets *error to "NAME: …" and returns nullopt.
std::optional<Json> parseDocument(std::string_view text, const std::string& name,
                                  std::string* error);

/// Shortest text that reads back as the same double.
std::string formatNumber(double value);

/// Makes arbitrary bytes safe to show on one terminal line (escapes control
/// and non-ASCII bytes, shortens long text).
std::string printable(std::string_view text, std::size_t maxLength = 60);

/// Typed access to the fields of one JSON object; errors name file, element
/// (e.g. "node #3 (id 7)", empty for the top level) and field.
class Fields {
 public:
  Fields(const Json& object, const std::string& file, std::string element, std::string* error)
      : object_(object), file_(file), element_(std::move(element)), error_(error) {}

  bool isObject();
  bool has(const char* field) const;
  bool number(const char* field, double* out, bool allowNegative = false);
  bool integer(const char* field, std::int64_t* out, bool allowNegative = false);
  /// true/false, or the numbers 0/1 as the paper's files write them.
  bool boolean(const char* field, bool* out);
  /// The field as an array, or nullptr with the error set.
  const Json* array(const char* field);

 private:
  const Json* require(const char* field);
  bool fail(const char* field, const std::string& what);

  const Json& object_;
  const std::string& file_;
  std::string element_;
  std::string* error_;
};

/// A short description of a JSON value for messages: `string "abc"`, `array`, `-1`.
std::string describe(const Json& value);

}  // namespace dnnplace::json_input
