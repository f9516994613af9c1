#pragma once
// Strict, crash-proof reading of JSON input with nlohmann's SAX parser:
// nesting bounded, NUL bytes refused, each fault one line naming the byte,
// line and column. Input formats read the events through a schema (a
// workload, a plan) that keeps only the fields it knows, so no tree is built.
//
// A schema is a class with
//   void value(const Value& value, int level);    a scalar at `level`
//   void open(Value::Kind kind, int level);       an array or object begins at `level`
//   void close(int level);                        the array or object at `level` ends
//   void key(std::string_view name, int level);   the next member sits at `level`
// where the document itself is level 0, its members or elements level 1, and so on.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dnnplace::json_reader {

/// One JSON value as field checks read it: a scalar, or only the kind of an
/// array or object. Numbers are typed as nlohmann types them: without
/// fraction or exponent an integer (Integer if negative, else Unsigned),
/// unless it overflows 64 bits; any other a finite double.
struct Value {
  enum class Kind : std::uint8_t { Null, Boolean, Integer, Unsigned, Float, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsignedInteger = 0;
  double floating = 0;
  std::string_view string;  ///< valid only during the event that hands it over

  bool isNumber() const {
    return kind == Kind::Integer || kind == Kind::Unsigned || kind == Kind::Float;
  }
  /// A number as a double, converted as nlohmann's get<double>() does.
  double asDouble() const;
};

/// A field of an element as a schema keeps it: present or not, its value,
/// and its own copy of a string value.
class Field {
 public:
  Field() = default;
  // The value's string points into text_: a copy would point into the original.
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;

  bool present() const { return present_; }
  const Value& value() const { return value_; }
  void clear() { present_ = false; }
  void set(const Value& value);

 private:
  bool present_ = false;
  Value value_;
  std::string text_;
};

/// A short description of a JSON value for messages: `string "abc"`, `an array`, `-1`.
std::string describe(const Value& value);

/// The conversions the checks below apply, without messages: false (and
/// *out untouched) if `value` is not one. A finite number (>= 0 unless
/// allowNegative); an integer that fits in 64 bits, also written 3.0;
/// true, false, 0 or 1.
bool toNumber(const Value& value, bool allowNegative, double* out);
bool toInteger(const Value& value, bool allowNegative, std::int64_t* out);
bool toFlag(const Value& value, bool* out);

/// Checked reads of one field; on failure *error is "WHERE: FIELD …", WHERE
/// being `where()` (the file, or the file and the element). `where` is
/// called only for a message: a workload has millions of elements, and
/// their names would cost more than reading them.
template <class Where>
bool readNumber(const Field& field, const char* name, bool allowNegative, double* out,
                const Where& where, std::string* error);
template <class Where>
bool readInteger(const Field& field, const char* name, bool allowNegative, std::int64_t* out,
                 const Where& where, std::string* error);
template <class Where>
bool readFlag(const Field& field, const char* name, bool* out, const Where& where, std::string* error);
template <class Where>
bool requireArray(const Field& field, const char* name, const Where& where, std::string* error);
/// "WHERE must be a JSON object, got …" unless `value` is one.
template <class Where>
bool requireObject(const Value& value, const Where& where, std::string* error);

/// Deeper nesting than this is refused as it is met: our formats need 4
/// levels, and unbounded nesting would cost memory proportional to its depth.
inline constexpr int kMaxNesting = 64;

/// Parses `text`, handing its events to `schema`; on a fault sets *error to
/// "NAME: invalid JSON at byte …" (or "NAME: empty file …") and returns
/// false. Allocation failures reach the caller as std::bad_alloc.
template <class Schema>
bool readJson(std::string_view text, const std::string& name, Schema& schema, std::string* error);

// ---------------------------------------------------------------------------
// Implementation.

namespace detail {

/// "must be … , got …" for each check, and the shared front of readJson.
std::string numberFault(const Value& value, bool allowNegative);
std::string integerFault(const Value& value, bool allowNegative);
std::string flagFault(const Value& value);
/// Refuses what the parser would misread (a NUL byte, no text at all).
bool acceptable(std::string_view text, const std::string& name, std::string* error);
/// The message of a parse that stopped: by nesting, or by nlohmann's error.
std::string tooDeep(std::string_view text, const std::string& name);
/// `position`, `lastToken`, `faultId` and `faultText`: as nlohmann reported the fault.
std::string parseFault(std::string_view text, const std::string& name, std::size_t position,
                       const std::string& lastToken, int faultId, const std::string& faultText);

inline bool fail(const std::string& where, const char* name, const std::string& what,
                 std::string* error) {
  *error = where + ": " + name + " " + what;
  return false;
}

/// nlohmann's SAX events, with the nesting counted and bounded, as a schema reads them.
template <class Schema>
class Sax {
 public:
  using Json = nlohmann::json;
  explicit Sax(Schema& schema) : schema_(schema) {}

  bool null() { return scalar(Value()); }
  bool boolean(bool b) {
    Value value;
    value.kind = Value::Kind::Boolean;
    value.boolean = b;
    return scalar(value);
  }
  bool number_integer(Json::number_integer_t x) {
    Value value;
    value.kind = Value::Kind::Integer;
    value.integer = x;
    return scalar(value);
  }
  bool number_unsigned(Json::number_unsigned_t x) {
    Value value;
    value.kind = Value::Kind::Unsigned;
    value.unsignedInteger = x;
    return scalar(value);
  }
  bool number_float(Json::number_float_t x, const Json::string_t&) {
    Value value;
    value.kind = Value::Kind::Float;
    value.floating = x;
    return scalar(value);
  }
  bool string(Json::string_t& text) {
    Value value;
    value.kind = Value::Kind::String;
    value.string = text;
    return scalar(value);
  }
  bool binary(Json::binary_t&) { return true; }  // not in JSON text
  bool start_object(std::size_t) { return open(Value::Kind::Object); }
  bool start_array(std::size_t) { return open(Value::Kind::Array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& name) {
    schema_.key(name, depth_);
    return true;
  }
  bool parse_error(std::size_t position, const std::string& lastToken, const Json::exception& fault) {
    position_ = position;
    lastToken_ = lastToken;
    faultId_ = fault.id;
    faultText_ = fault.what();
    return false;
  }

  bool tooDeep() const { return tooDeep_; }
  std::size_t position() const { return position_; }
  const std::string& lastToken() const { return lastToken_; }
  int faultId() const { return faultId_; }
  const std::string& faultText() const { return faultText_; }

 private:
  bool scalar(const Value& value) {
    schema_.value(value, depth_);
    return true;
  }
  bool open(Value::Kind kind) {
    if (depth_ == kMaxNesting) {
      tooDeep_ = true;
      return false;  // the parser stops here, without a parse_error
    }
    schema_.open(kind, depth_++);
    return true;
  }
  bool close() {
    schema_.close(--depth_);
    return true;
  }

  Schema& schema_;
  int depth_ = 0;
  bool tooDeep_ = false;
  std::size_t position_ = 0;
  std::string lastToken_;
  int faultId_ = 0;
  std::string faultText_;
};

}  // namespace detail

template <class Schema>
bool readJson(std::string_view text, const std::string& name, Schema& schema, std::string* error) {
  if (!detail::acceptable(text, name, error)) return false;
  detail::Sax<Schema> sax(schema);
  if (nlohmann::json::sax_parse(text.begin(), text.end(), &sax)) return true;
  *error = sax.tooDeep() ? detail::tooDeep(text, name)
                         : detail::parseFault(text, name, sax.position(), sax.lastToken(),
                                              sax.faultId(), sax.faultText());
  return false;
}

template <class Where>
bool readNumber(const Field& field, const char* name, bool allowNegative, double* out,
                const Where& where, std::string* error) {
  if (!field.present()) return detail::fail(where(), name, "is missing", error);
  if (toNumber(field.value(), allowNegative, out)) return true;
  return detail::fail(where(), name, detail::numberFault(field.value(), allowNegative), error);
}

template <class Where>
bool readInteger(const Field& field, const char* name, bool allowNegative, std::int64_t* out,
                 const Where& where, std::string* error) {
  if (!field.present()) return detail::fail(where(), name, "is missing", error);
  if (toInteger(field.value(), allowNegative, out)) return true;
  return detail::fail(where(), name, detail::integerFault(field.value(), allowNegative), error);
}

template <class Where>
bool readFlag(const Field& field, const char* name, bool* out, const Where& where, std::string* error) {
  if (!field.present()) return detail::fail(where(), name, "is missing", error);
  if (toFlag(field.value(), out)) return true;
  return detail::fail(where(), name, detail::flagFault(field.value()), error);
}

template <class Where>
bool requireObject(const Value& value, const Where& where, std::string* error) {
  if (value.kind == Value::Kind::Object) return true;
  *error = where() + " must be a JSON object, got " + describe(value);
  return false;
}

template <class Where>
bool requireArray(const Field& field, const char* name, const Where& where, std::string* error) {
  if (!field.present()) return detail::fail(where(), name, "is missing", error);
  if (field.value().kind == Value::Kind::Array) return true;
  return detail::fail(where(), name, "must be an array, got " + describe(field.value()), error);
}

}  // namespace dnnplace::json_reader
