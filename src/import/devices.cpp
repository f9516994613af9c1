// Device specs: the shipped catalog and user files (docs/cost-model.md).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string_view>

#include "dnnplace/import.hpp"
#include "import/devices_data.hpp"
#include "io/json_reader.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

using json_reader::Field;
using json_reader::Value;

/// The members of one device object as read; values that are arrays or
/// objects keep only their kind.
struct DeviceFields {
  std::map<std::string, Field, std::less<>> fields;
  std::string duplicate;  ///< the first member given twice, if any
};

/// Collects the device objects of a document: the document itself (a spec
/// file, entryLevel 0) or the elements of its "devices" array (the catalog,
/// entryLevel 2). Everything else is ignored, as the workload reader ignores
/// fields it does not know.
class DeviceSchema {
 public:
  explicit DeviceSchema(int entryLevel) : entryLevel_(entryLevel) {}

  void value(const Value& value, int level) {
    if (level == 0) documentKind_ = value.kind;
    if (level == entryLevel_ + 1 && inEntries()) set(value);
  }
  void open(Value::Kind kind, int level) {
    if (level == 0) documentKind_ = kind;
    if (!inEntries()) return;
    if (level == entryLevel_) {
      entries_.emplace_back();
      entryKinds_.push_back(kind);
    } else if (level == entryLevel_ + 1) {
      Value nested;
      nested.kind = kind;
      set(nested);
    }
  }
  void close(int) {}
  void key(std::string_view name, int level) {
    if (level == 1) topKey_.assign(name);
    if (level == entryLevel_ + 1) key_.assign(name);
  }

  Value::Kind documentKind() const { return documentKind_; }
  std::vector<DeviceFields>& entries() { return entries_; }
  const std::vector<Value::Kind>& entryKinds() const { return entryKinds_; }

 private:
  bool inEntries() const { return entryLevel_ == 0 || topKey_ == "devices"; }
  void set(const Value& value) {
    if (entries_.empty()) return;  // a scalar document: documentKind says so
    DeviceFields& entry = entries_.back();
    auto [it, fresh] = entry.fields.try_emplace(key_);
    if (!fresh && entry.duplicate.empty()) entry.duplicate = key_;
    it->second.set(value);
  }

  int entryLevel_;
  Value::Kind documentKind_ = Value::Kind::Null;
  std::string topKey_;
  std::string key_;
  std::vector<DeviceFields> entries_;
  std::vector<Value::Kind> entryKinds_;
};

std::string fieldFault(const std::string& where, std::string_view field, const std::string& what) {
  return where + ": field '" + std::string(field) + "' " + what;
}

/// A figure of the spec: a finite number, positive or (opOverhead) >= 0.
/// Rates (FLOP/s, bytes/s) below this would make an operator's time
/// overflow the workload's figures; no device is that slow.
constexpr double kSlowestRate = 1;
/// Every figure: far above any device, and below the workload's cap of 1e30
/// once scaled (ms, sums over operators).
constexpr double kLargestFigure = 1e27;

bool readFigure(const DeviceFields& entry, const char* name, bool zeroAllowed, double* out,
                const std::string& where, std::string* error, double atLeast = 0) {
  const auto it = entry.fields.find(name);
  if (it == entry.fields.end()) {
    *error = fieldFault(where, name, "is missing");
    return false;
  }
  const Value& value = it->second.value();
  const std::string got = ", got " + json_reader::describe(value);
  if (!value.isNumber()) {
    *error = fieldFault(where, name, "must be a number" + got);
    return false;
  }
  const double x = value.asDouble();
  // nlohmann refuses literals that overflow a double, so this guards the
  // other routes a value could take.
  if (!std::isfinite(x)) {
    *error = fieldFault(where, name, "must be finite" + got);
    return false;
  }
  if (zeroAllowed ? x < 0 : x <= 0) {
    *error = fieldFault(where, name, (zeroAllowed ? "must be >= 0" : "must be positive") + got);
    return false;
  }
  if (x < atLeast) {
    *error =
        fieldFault(where, name, "must be at least " + formatShortest(atLeast) + " per second" + got);
    return false;
  }
  if (x > kLargestFigure) {
    *error = fieldFault(where, name, "must be at most 1e27" + got);
    return false;
  }
  *out = x;
  return true;
}

/// An optional string member; false (with the message) if present and not a string.
bool readText(const DeviceFields& entry, const char* name, std::string* out, const std::string& where,
              std::string* error) {
  const auto it = entry.fields.find(name);
  if (it == entry.fields.end()) return true;
  const Value& value = it->second.value();
  if (value.kind != Value::Kind::String) {
    *error = fieldFault(where, name, "must be a string, got " + json_reader::describe(value));
    return false;
  }
  out->assign(value.string);
  return true;
}

const char* kindWord(DeviceKind kind) { return kind == DeviceKind::Cpu ? "cpu" : "accelerator"; }

/// The "kind" member, if present: "accelerator" or "cpu".
bool readKind(const DeviceFields& entry, std::optional<DeviceKind>* out, const std::string& where,
              std::string* error) {
  if (!entry.fields.contains("kind")) return true;
  const Value& value = entry.fields.find("kind")->second.value();
  if (value.kind == Value::Kind::String && value.string == "accelerator") {
    *out = DeviceKind::Accelerator;
  } else if (value.kind == Value::Kind::String && value.string == "cpu") {
    *out = DeviceKind::Cpu;
  } else {
    *error = fieldFault(where, "kind",
                        "must be \"accelerator\" or \"cpu\", got " + json_reader::describe(value));
    return false;
  }
  return true;
}

/// One device object as a spec of `kind`: an accelerator needs all five
/// figures (and may give syncBandwidth), a CPU core peakFlops, memoryBandwidth
/// and opOverhead (its memory and link figures are ignored and stay 0).
bool readSpec(const DeviceFields& entry, DeviceKind kind, const std::string& where, DeviceSpec* spec,
              std::string* error) {
  if (!entry.duplicate.empty()) {
    *error = fieldFault(where, entry.duplicate, "is given twice");
    return false;
  }
  if (!readText(entry, "name", &spec->name, where, error) ||
      !readText(entry, "source", &spec->source, where, error) ||
      !readText(entry, "model", &spec->model, where, error) ||
      !readFigure(entry, "peakFlops", false, &spec->peakFlops, where, error, kSlowestRate) ||
      !readFigure(entry, "memoryBandwidth", false, &spec->memoryBandwidth, where, error, kSlowestRate))
    return false;
  if (kind == DeviceKind::Accelerator &&
      (!readFigure(entry, "memory", false, &spec->memory, where, error) ||
       !readFigure(entry, "linkBandwidth", false, &spec->linkBandwidth, where, error, kSlowestRate) ||
       (entry.fields.contains("syncBandwidth") &&
        !readFigure(entry, "syncBandwidth", false, &spec->syncBandwidth, where, error))))
    return false;
  // A workload's syncBandwidth (bytes per ms) is at least 1e-30.
  if (spec->syncBandwidth > 0 && spec->syncBandwidth < 1e-27) {
    *error = fieldFault(where, "syncBandwidth",
                        "must be at least 1e-27 (bytes per second), got " +
                            formatShortest(spec->syncBandwidth));
    return false;
  }
  // Required although it may be 0: for small operators it decides the
  // latency, so a spec should state it rather than inherit a silent default.
  return readFigure(entry, "opOverhead", true, &spec->opOverhead, where, error);
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

/// The catalog's names of one kind: "v100, a100, ...".
std::string catalogNames(DeviceKind kind) {
  std::string names;
  for (const auto& [entryKind, spec] : deviceCatalog())
    if (entryKind == kind) names += (names.empty() ? "" : ", ") + spec.name;
  return names;
}

/// The built-in catalog, checked as a user's file is (a fault is a broken
/// build: the tests read every entry).
std::vector<std::pair<DeviceKind, DeviceSpec>> readCatalog() {
  const std::string where = "data/devices.json (built in)";
  DeviceSchema schema(2);
  std::string error;
  std::vector<std::pair<DeviceKind, DeviceSpec>> catalog;
  if (json_reader::readJson(detail::kDevicesJson, where, schema, &error)) {
    for (std::size_t i = 0; i < schema.entries().size() && error.empty(); ++i) {
      const std::string entryWhere = where + ": devices[" + std::to_string(i) + "]";
      const DeviceFields& entry = schema.entries()[i];
      std::optional<DeviceKind> kind;
      DeviceSpec spec;
      if (schema.entryKinds()[i] != Value::Kind::Object) {
        error = entryWhere + " must be a JSON object";
      } else if (readKind(entry, &kind, entryWhere, &error) && !kind) {
        error = fieldFault(entryWhere, "kind", "is missing");
      } else if (kind && readSpec(entry, *kind, entryWhere, &spec, &error)) {
        if (spec.name.empty() || spec.source.empty())
          error = entryWhere + ": a catalog device needs a name and a source";
        for (const auto& [otherKind, other] : catalog)
          for (const std::string& taken : {other.name, other.model})
            for (const std::string& mine : {spec.name, spec.model})
              if (!mine.empty() && lowercase(taken) == lowercase(mine))
                error = entryWhere + ": the name '" + mine + "' is taken";
        catalog.emplace_back(*kind, std::move(spec));
      }
    }
  }
  if (error.empty() && catalog.empty()) error = where + ": no devices";
  if (!error.empty()) {
    std::fprintf(stderr, "dnnplace: internal error: %s\n", error.c_str());
    std::abort();
  }
  return catalog;
}

/// "a CPU core" / "an accelerator", for messages.
const char* kindPhrase(DeviceKind kind) {
  return kind == DeviceKind::Cpu ? "a CPU core" : "an accelerator";
}

/// What a document that is not an object is, for its message.
std::string kindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Boolean: return "a boolean";
    case Value::Kind::Integer:
    case Value::Kind::Unsigned:
    case Value::Kind::Float: return "a number";
    case Value::Kind::String: return "a string";
    case Value::Kind::Array: return "an array";
    case Value::Kind::Object: return "an object";
  }
  return "an unsupported value";
}

std::optional<DeviceSpec> loadSpecFile(const std::string& path, DeviceKind kind, std::string* error) {
  const auto text = readFile(path, error);
  if (!text) return std::nullopt;
  const std::string where = inputName(path);
  DeviceSchema schema(0);
  if (!json_reader::readJson(*text, where, schema, error)) return std::nullopt;
  if (schema.documentKind() != Value::Kind::Object) {
    *error = where + " must be a JSON object with the device's figures, got " +
             kindName(schema.documentKind());
    return std::nullopt;
  }
  const DeviceFields& entry = schema.entries().front();
  std::optional<DeviceKind> given;
  if (!readKind(entry, &given, where, error)) return std::nullopt;
  if (given && *given != kind) {
    *error = fieldFault(where, "kind",
                        std::string("is \"") + kindWord(*given) + "\", but " + kindPhrase(kind) +
                            " is needed here");
    return std::nullopt;
  }
  DeviceSpec spec;
  // A file without a name is named after itself ("my-gpu.json": "my-gpu").
  spec.name = path == "-" ? where : std::filesystem::path(path).stem().string();
  if (!readSpec(entry, kind, where, &spec, error)) return std::nullopt;
  return spec;
}

/// "312", "0.147", "1555": figures for the table, four significant digits.
std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string padded(std::string text, std::size_t width, bool right) {
  if (text.size() >= width) return text + " ";
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

}  // namespace

const std::vector<std::pair<DeviceKind, DeviceSpec>>& deviceCatalog() {
  static const std::vector<std::pair<DeviceKind, DeviceSpec>> catalog = readCatalog();
  return catalog;
}

std::string deviceCatalogText() {
  // Lines joined without a final newline, as --help's other tables are.
  std::string text = "  " + padded("name", 16, false) + padded("kind", 12, false) +
                     padded("TFLOP/s", 9, true) + padded("memory GB/s", 13, true) +
                     padded("memory", 8, true) + padded("link GB/s", 11, true) +
                     padded("sync GB/s", 11, true);
  for (const auto& [kind, spec] : deviceCatalog()) {
    const bool cpu = kind == DeviceKind::Cpu;
    text += "\n  " + padded(spec.name, 16, false) +
            padded(cpu ? "cpu core" : "accelerator", 12, false) +
            padded(figure(spec.peakFlops / 1e12), 9, true) +
            padded(figure(spec.memoryBandwidth / 1e9), 13, true) +
            padded(cpu ? "-" : figure(spec.memory / 1e9) + " GB", 8, true) +
            padded(cpu ? "-" : figure(spec.linkBandwidth / 1e9), 11, true) +
            padded(cpu || spec.syncBandwidth == 0 ? "-" : figure(spec.syncBandwidth / 1e9), 11, true);
  }
  return text;
}

std::optional<DeviceSpec> loadDeviceSpec(const std::string& nameOrPath, DeviceKind kind,
                                         std::string* error) {
  // A catalog name wins over a file of that name: "./a100" reads the file.
  const std::string lower = lowercase(nameOrPath);
  for (const auto& [entryKind, spec] : deviceCatalog()) {
    if (lowercase(spec.name) != lower && (spec.model.empty() || lowercase(spec.model) != lower))
      continue;
    if (entryKind == kind) return spec;
    *error = "'" + nameOrPath + "' is " + kindPhrase(entryKind) + " in the catalog, not " +
             kindPhrase(kind) + " (" + (kind == DeviceKind::Cpu ? "CPU cores" : "accelerators") + ": " +
             catalogNames(kind) + ")";
    return std::nullopt;
  }
  std::error_code ignored;
  if (nameOrPath != "-" && !std::filesystem::exists(nameOrPath, ignored)) {
    *error = "'" + printable(nameOrPath) + "' is neither a catalog device (" + catalogNames(kind) +
             ") nor a readable file";
    return std::nullopt;
  }
  return loadSpecFile(nameOrPath, kind, error);
}

}  // namespace dnnplace
