#pragma once
// Strict, crash-proof reading of JSON input files with RapidJSON's reader
// (nesting bounded, strings checked, numbers typed as nlohmann types them),
// and typed field access whose failures produce the one-line
// "FILE: ELEMENT: FIELD …" messages users see.
//
// Two ways to read: a whole nlohmann tree (plans), or flat (workloads): the
// top-level object's members, and one element at a time of chosen
// top-level arrays, with nested arrays and objects known only by kind.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnplace::json_input {

/// For the JSON we write.
using Json = nlohmann::json;
/// For the JSON we read whole.
using InputJson = nlohmann::json;

/// One JSON value as field checks read it: a scalar, or only the kind of an
/// array or object.
struct Value {
  enum class Kind : std::uint8_t { Null, Boolean, Integer, Unsigned, Float, String, Array, Object, Other };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::int64_t integer = 0;           ///< Integer: a number without fraction or exponent, negative
  std::uint64_t unsignedInteger = 0;  ///< Unsigned: one that is not negative
  double floating = 0;                ///< Float: any other number (always finite)
  std::string_view string;            ///< String: valid as long as what it was read from

  bool isNumber() const { return kind == Kind::Integer || kind == Kind::Unsigned || kind == Kind::Float; }
  /// A number as a double, converted as nlohmann's get<double>() does.
  double asDouble() const;
};

/// The Value of a tree node (its string, if any, stays in the tree).
Value valueOf(const InputJson& json);

/// A JSON value read flat: a scalar, or an array known only by kind, or an
/// object whose members' values are read flat in their turn (nested arrays
/// and objects known only by kind). Repeated keys are all kept; the last
/// one counts, as it does in a tree.
///
/// Keys and strings are views into the parsed text (RapidJSON decodes
/// them where they lie): a top level returned by parseFlat owns that text;
/// an element handed over during the parse is valid only during the call.
class FlatValue {
 public:
  struct Member {
    std::string_view key;
    Value value;
  };

  FlatValue() = default;
  // A move keeps the owned text where it is, and so the views valid.
  FlatValue(FlatValue&&) = default;
  FlatValue& operator=(FlatValue&&) = default;
  FlatValue(const FlatValue&) = delete;
  FlatValue& operator=(const FlatValue&) = delete;

  const Value& value() const { return value_; }
  const std::vector<Member>& members() const { return members_; }
  /// The value of the last member named `key`, or null.
  const Value* find(std::string_view key) const;

  // Building, as the parse meets the value.
  void clear();
  void setValue(const Value& value) { value_ = value; }
  /// A member begins; its value comes next.
  void addKey(std::string_view key) { members_.push_back({key, Value()}); }
  void setMemberValue(const Value& value) { members_.back().value = value; }
  /// Keeps the text the views point into.
  void own(std::unique_ptr<std::string> text) { text_ = std::move(text); }

 private:
  Value value_;
  std::vector<Member> members_;
  std::unique_ptr<std::string> text_;
};

/// Top-level arrays whose elements a flat parse hands over one at a time.
/// A workload's nodes and edges are nearly all of its text: kept whole, as
/// nlohmann trees, BERT-L-12's took 2 MB of fresh pages (its solve took
/// 1,303 page faults, 796 streamed; each costs about 12 us on these VMs).
struct StreamedArrays {
  /// Members of the top-level object whose array values are streamed.
  std::vector<std::string_view> fields;
  /// fields[f]'s array begins. Called again if the key repeats: as in a
  /// tree, the last occurrence is the one that counts.
  std::function<void(std::size_t f)> start;
  /// The next element of fields[f]'s array (valid only during the call).
  std::function<void(std::size_t f, const FlatValue& element)> element;
};

/// Deeper nesting than this is rejected as it is met: our formats need 4
/// levels, and unbounded nesting would cost memory proportional to its depth.
inline constexpr int kMaxNesting = 64;

/// Parses a whole document; on failure sets *error to "NAME: …" and returns
/// nullopt.
std::optional<InputJson> parseDocument(std::string_view text, const std::string& name, std::string* error);

/// The bytes an in-place parse appends to its text (NULs: the end, and room
/// for RapidJSON's aligned 16-byte scans past it).
inline constexpr std::size_t kParsePadding = 16;

/// Parses a document flat: returns its top level, and hands each element of
/// the streamed arrays to `streamed.element` as it is met. The same text is
/// refused with the same message as by parseDocument (a syntax error
/// anywhere fails the whole parse, after some elements may have been handed
/// over).
std::optional<FlatValue> parseFlat(std::string_view text, const std::string& name, std::string* error,
                                   const StreamedArrays& streamed);
/// The same, parsing `text` where it lies (no copy; the result owns it).
/// Reserving kParsePadding bytes of capacity past its size spares a copy.
std::optional<FlatValue> parseFlat(std::string&& text, const std::string& name, std::string* error,
                                   const StreamedArrays& streamed);

/// Shortest text that reads back as the same double.
std::string formatNumber(double value);

/// Makes arbitrary bytes safe to show on one terminal line (escapes control
/// and non-ASCII bytes, shortens long text).
std::string printable(std::string_view text, std::size_t maxLength = 60);

/// A short description of a JSON value for messages: `string "abc"`, `an array`, `-1`.
std::string describe(const Value& value);

/// The conversions Fields applies, without messages: false (and *out
/// untouched) if `value` is not one. A finite number (>= 0 unless
/// allowNegative); an integer that fits in 64 bits, also written 3.0;
/// true, false, 0 or 1.
bool toNumber(const Value& value, bool allowNegative, double* out);
bool toInteger(const Value& value, bool allowNegative, std::int64_t* out);
bool toFlag(const Value& value, bool* out);

/// Typed access to the fields of one JSON object, a tree or flat; errors name
/// file, element (e.g. "node #3 (id 7)", empty for the top level) and field.
class Fields {
 public:
  Fields(const InputJson& object, const std::string& file, std::string element, std::string* error)
      : tree_(&object), file_(file), element_(std::move(element)), error_(error) {}
  Fields(const FlatValue& object, const std::string& file, std::string element, std::string* error)
      : flat_(&object), file_(file), element_(std::move(element)), error_(error) {}
  /// With the element's name made only for a message: a workload has
  /// millions of elements, and their names would cost more than reading them.
  Fields(const FlatValue& object, const std::string& file, std::function<std::string()> element,
         std::string* error)
      : flat_(&object), file_(file), makeElement_(std::move(element)), error_(error) {}

  bool isObject();
  bool has(const char* field) const;
  bool number(const char* field, double* out, bool allowNegative = false);
  bool integer(const char* field, std::int64_t* out, bool allowNegative = false);
  /// true/false, or the numbers 0/1 as the paper's files write them.
  bool boolean(const char* field, bool* out);
  /// Whether the field is an array; if not, false with the error set.
  bool isArray(const char* field);
  /// The field of a tree as an array, or nullptr with the error set.
  const InputJson* array(const char* field);

 private:
  /// The field's value (valid until the next lookup), or null.
  const Value* lookup(const char* field) const;
  const Value* require(const char* field);
  bool fail(const char* field, const std::string& what);
  std::string element() const { return makeElement_ ? makeElement_() : element_; }

  const InputJson* tree_ = nullptr;
  const FlatValue* flat_ = nullptr;
  const std::string& file_;
  std::string element_;
  std::function<std::string()> makeElement_;
  std::string* error_;
  mutable Value treeValue_;  ///< what lookup() last found in a tree
};

}  // namespace dnnplace::json_input
