// Reading and writing the workload format (docs/formats.md). Reading keeps
// the fields of the top level and converts each node and edge as the
// parser meets it, without a tree; the graph rules are buildWorkload's.

#include <array>
#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>

#include "dnnplace/workload.hpp"
#include "io/json_reader.hpp"
#include "model/labels.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

using detail::nodeLabel;
using json_reader::Field;
using json_reader::Value;

enum TopField : int {
  kMaxSize,
  kMaxFpgas,
  kMaxCpus,
  kNodes,
  kEdges,
  kSyncBandwidth,
  kSamplesPerSync,
  kTopFields
};
enum NodeField : int {
  kId,
  kSupported,
  kCpuLatency,
  kFpgaLatency,
  kBackward,
  kColor,
  kSize,
  kName,
  kLayerId,
  kParameterSize,
  kNodeFields
};
enum EdgeField : int { kSource, kDest, kCost, kEdgeFields };

constexpr std::array<std::string_view, kTopFields> kTopNames = {"maxSizePerFPGA", "maxFPGAs",
                                                                "maxCPUs",        "nodes",
                                                                "edges",          "syncBandwidth",
                                                                "samplesPerSync"};
constexpr std::array<std::string_view, kNodeFields> kNodeNames = {
    "id",   "supportedOnFpga", "cpuLatency",   "fpgaLatency", "isBackwardNode", "colorClass", "size",
    "name", "layerId",         "parameterSize"};
constexpr std::array<std::string_view, kEdgeFields> kEdgeNames = {"sourceId", "destId", "cost"};

constexpr int kNone = -1;

/// The index of `name` among `names`, or kNone.
template <std::size_t N>
int indexOf(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<int>(i);
  return kNone;
}

/// One node from its fields; false with *error set if it is not a node.
bool readNode(const Value& item, const std::array<Field, kNodeFields>& f, std::size_t i,
              const std::string& file, std::string* error, Node* node) {
  // The id comes first so later messages can name it.
  std::optional<std::int64_t> id;
  if (f[kId].present()) {
    std::int64_t value = 0;
    if (!json_reader::readInteger(
            f[kId], "id", true, &value, [&] { return file + ": " + nodeLabel(i, id); }, error))
      return false;
    id = value;
  }
  const auto where = [&] { return file + ": " + nodeLabel(i, id); };
  if (!json_reader::requireObject(item, where, error)) return false;
  std::int64_t checked = 0;
  if (!json_reader::readInteger(f[kId], "id", true, &checked, where, error) ||
      !json_reader::readFlag(f[kSupported], "supportedOnFpga", &node->supportedOnFpga, where, error) ||
      !json_reader::readNumber(f[kCpuLatency], "cpuLatency", false, &node->cpuLatency, where, error) ||
      !json_reader::readNumber(f[kFpgaLatency], "fpgaLatency", false, &node->fpgaLatency, where,
                               error) ||
      !json_reader::readFlag(f[kBackward], "isBackwardNode", &node->isBackward, where, error))
    return false;
  node->id = checked;
  if (f[kColor].present()) {
    std::int64_t cls = 0;
    if (!json_reader::readInteger(f[kColor], "colorClass", true, &cls, where, error)) return false;
    node->colorClass = cls;
  }
  if (f[kSize].present() &&
      !json_reader::readNumber(f[kSize], "size", false, &node->size, where, error))
    return false;
  if (f[kName].present() && f[kName].value().kind == Value::Kind::String)
    node->name = f[kName].value().string;
  if (f[kLayerId].present()) {
    std::int64_t layer = 0;
    if (!json_reader::readInteger(f[kLayerId], "layerId", true, &layer, where, error)) return false;
    node->layerId = layer;
  }
  if (f[kParameterSize].present() && !json_reader::readNumber(f[kParameterSize], "parameterSize", false,
                                                              &node->parameterSize, where, error))
    return false;
  return true;
}

/// One edge from its fields; false with *error set if it is not an edge.
bool readEdge(const Value& item, const std::array<Field, kEdgeFields>& f, std::size_t i,
              const std::string& file, std::string* error, RawEdge* edge) {
  const auto where = [&] { return file + ": edge #" + std::to_string(i); };
  return json_reader::requireObject(item, where, error) &&
         json_reader::readInteger(f[kSource], "sourceId", true, &edge->sourceId, where, error) &&
         json_reader::readInteger(f[kDest], "destId", true, &edge->destId, where, error) &&
         json_reader::readNumber(f[kCost], "cost", true, &edge->cost, where, error);
}

/// The workload format as the parser meets it (the levels of json_reader.hpp):
/// the top level's fields at level 1; each element of the nodes and edges
/// arrays at level 2, its fields at level 3, converted when it ends. A key
/// given twice counts with its last value, as in a tree: a repeated array
/// starts its elements over.
class WorkloadSchema {
 public:
  explicit WorkloadSchema(const std::string& file) : file_(file) {}

  void value(const Value& value, int level) {
    if (level == 0) {
      top_.set(value);
    } else if (level == 1) {
      if (member_ != kNone) topFields_[member_].set(value);
    } else if (level == 2) {
      if (streaming_ == kNone) return;
      beginElement(value);
      finishElement();  // not an object: readNode or readEdge names it
    } else if (level == 3 && inElementObject() && elementField_ != kNone) {
      setElementField(value);
    }
  }
  void open(Value::Kind kind, int level) {
    Value value;
    value.kind = kind;
    if (level == 0) {
      top_.set(value);
    } else if (level == 1) {
      if (member_ == kNone) return;
      topFields_[member_].set(value);
      if ((member_ == kNodes || member_ == kEdges) && kind == Value::Kind::Array) startArray(member_);
    } else if (level == 2) {
      if (streaming_ != kNone) beginElement(value);
    } else if (level == 3 && inElementObject() && elementField_ != kNone) {
      setElementField(value);
    }
  }
  void close(int level) {
    if (streaming_ == kNone) return;
    if (level == 2)
      finishElement();
    else if (level == 1)
      streaming_ = kNone;  // the streamed array ends
  }
  void key(std::string_view name, int level) {
    if (level == 1) {
      member_ = indexOf(kTopNames, name);
    } else if (level == 3 && inElementObject()) {
      elementField_ = streaming_ == kNodes ? indexOf(kNodeNames, name) : indexOf(kEdgeNames, name);
    }
  }

  /// After the parse: the workload, checked in the order a walk over the
  /// whole document would find its faults.
  std::optional<Workload> workload(std::string* error) {
    const auto where = [this] { return file_; };
    if (!json_reader::requireObject(
            top_.value(), [this] { return file_ + ": top level"; }, error))
      return std::nullopt;
    Machine machine;
    std::int64_t maxFpgas = 0, maxCpus = 0;
    if (!json_reader::readNumber(topFields_[kMaxSize], "maxSizePerFPGA", false, &machine.maxSizePerFpga,
                                 where, error) ||
        !json_reader::readInteger(topFields_[kMaxFpgas], "maxFPGAs", false, &maxFpgas, where, error) ||
        !json_reader::readInteger(topFields_[kMaxCpus], "maxCPUs", false, &maxCpus, where, error))
      return std::nullopt;
    for (auto [field, value] : {std::pair{"maxFPGAs", maxFpgas}, std::pair{"maxCPUs", maxCpus}})
      if (value > kMaxDevicesPerKind) {
        *error = file_ + ": " + field + " must be at most " + std::to_string(kMaxDevicesPerKind) +
                 ", got " + std::to_string(value);
        return std::nullopt;
      }
    machine.maxFpgas = static_cast<int>(maxFpgas);
    machine.maxCpus = static_cast<int>(maxCpus);
    if (topFields_[kSyncBandwidth].present()) {
      double bandwidth = 0;
      if (!json_reader::readNumber(topFields_[kSyncBandwidth], "syncBandwidth", false, &bandwidth,
                                   where, error))
        return std::nullopt;
      // At least the reciprocal of the largest amount (1e30): the all-reduce
      // of weights summed over the graph then stays finite.
      if (!(bandwidth >= 1e-30)) {
        *error = file_ + ": syncBandwidth must be at least 1e-30 (bytes per millisecond), got " +
                 formatShortest(bandwidth);
        return std::nullopt;
      }
      machine.syncBandwidth = bandwidth;
    }
    if (topFields_[kSamplesPerSync].present()) {
      if (!json_reader::readNumber(topFields_[kSamplesPerSync], "samplesPerSync", false,
                                   &machine.samplesPerSync, where, error))
        return std::nullopt;
      if (!(machine.samplesPerSync >= 1)) {
        *error = file_ + ": samplesPerSync must be at least 1, got " +
                 formatShortest(machine.samplesPerSync);
        return std::nullopt;
      }
    }
    if (!json_reader::requireArray(topFields_[kNodes], "nodes", where, error) ||
        !json_reader::requireArray(topFields_[kEdges], "edges", where, error))
      return std::nullopt;
    for (const std::string* firstBad : {&nodeError_, &edgeError_})
      if (!firstBad->empty()) {
        *error = *firstBad;
        return std::nullopt;
      }
    return buildWorkload(file_, machine, std::move(nodes_), edges_, error);
  }

 private:
  bool inElementObject() const { return streaming_ != kNone && item_.kind == Value::Kind::Object; }
  void setElementField(const Value& value) {
    (streaming_ == kNodes ? nodeFields_[elementField_] : edgeFields_[elementField_]).set(value);
  }
  void beginElement(const Value& value) {
    item_ = value;
    for (Field& field : nodeFields_) field.clear();
    for (Field& field : edgeFields_) field.clear();
    elementField_ = kNone;
  }
  void startArray(int field) {
    streaming_ = field;
    if (field == kNodes) {
      nodes_.clear();
      numNodes_ = 0;
      nodeError_.clear();
    } else {
      edges_.clear();
      numEdges_ = 0;
      edgeError_.clear();
    }
  }
  /// Only the first bad node and the first bad edge are kept.
  void finishElement() {
    if (streaming_ == kNodes) {
      const std::size_t i = numNodes_++;
      Node node;
      if (nodeError_.empty() && readNode(item_, nodeFields_, i, file_, &nodeError_, &node))
        nodes_.push_back(std::move(node));
    } else {
      const std::size_t i = numEdges_++;
      RawEdge edge;
      if (edgeError_.empty() && readEdge(item_, edgeFields_, i, file_, &edgeError_, &edge))
        edges_.push_back(edge);
    }
  }

  const std::string& file_;
  Field top_;
  std::array<Field, kTopFields> topFields_;
  int member_ = kNone;     ///< the top-level field of the last top-level key
  int streaming_ = kNone;  ///< kNodes or kEdges while its array is read
  Value item_;             ///< the element being read (a string only during its event)
  int elementField_ = kNone;
  std::array<Field, kNodeFields> nodeFields_;
  std::array<Field, kEdgeFields> edgeFields_;
  std::vector<Node> nodes_;
  std::vector<RawEdge> edges_;
  std::size_t numNodes_ = 0, numEdges_ = 0;
  std::string nodeError_, edgeError_;
};

}  // namespace

std::optional<Workload> parseWorkload(std::string_view text, const std::string& name,
                                      std::string* error) {
  WorkloadSchema schema(name);
  if (!json_reader::readJson(text, name, schema, error)) return std::nullopt;
  return schema.workload(error);
}

std::optional<Workload> loadWorkload(const std::string& path, std::string* error,
                                     std::uint64_t maxBytes) {
  const auto text = readFile(path, error, maxBytes);
  if (!text) return std::nullopt;
  return parseWorkload(*text, inputName(path), error);
}

std::string workloadToJson(const Workload& workload) {
  nlohmann::json root = nlohmann::json::object();
  root["maxSizePerFPGA"] = workload.machine.maxSizePerFpga;
  root["maxFPGAs"] = workload.machine.maxFpgas;
  root["maxCPUs"] = workload.machine.maxCpus;
  if (workload.machine.syncBandwidth > 0) root["syncBandwidth"] = workload.machine.syncBandwidth;
  if (workload.machine.samplesPerSync != 1) root["samplesPerSync"] = workload.machine.samplesPerSync;
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& node : workload.graph().nodes) {
    nlohmann::json item = nlohmann::json::object();
    if (!node.name.empty()) item["name"] = node.name;
    item["id"] = node.id;
    item["supportedOnFpga"] = node.supportedOnFpga;
    item["cpuLatency"] = node.cpuLatency;
    item["fpgaLatency"] = node.fpgaLatency;
    item["isBackwardNode"] = node.isBackward;
    if (node.colorClass) item["colorClass"] = *node.colorClass;
    item["size"] = node.size;
    if (node.layerId) item["layerId"] = *node.layerId;
    if (node.parameterSize != 0) item["parameterSize"] = node.parameterSize;
    nodes.push_back(std::move(item));
  }
  nlohmann::json edges = nlohmann::json::array();
  for (const Edge& edge : workload.graph().edges)
    edges.push_back({{"sourceId", workload.graph().nodes[edge.source].id},
                     {"destId", workload.graph().nodes[edge.dest].id},
                     {"cost", workload.graph().outCost[edge.source]}});
  root["nodes"] = std::move(nodes);
  root["edges"] = std::move(edges);
  // Names from a model file need not be UTF-8: invalid bytes are written as U+FFFD.
  return root.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace dnnplace
