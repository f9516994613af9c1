// Piper's inputs (msr-fiddle/piper, inputs/*.json) as workloads: docs/import.md.
//
// Top level: maxMemoryPerDevice (bytes), maxDevices, mbsInBatch (Piper's README calls it
// maxBatchSize), bandwidth (bytes per second), nodes, edges. A node has an id and TMPCs: per
// tensor-parallel degree ("1", "2", ...) a list of configurations, each with timePerSample
// (forward + backward, seconds: Piper adds it to bytes / bandwidth), parameterSize,
// memoryUsageA, memoryUsageB (bytes; memory a·y + b with y microbatches in flight),
// syncTimeFw and syncTimeBw. An edge has sourceId, destId and communicationCost (bytes).
// Only tensor-parallel degree 1 is read.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dnnplace/import.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

using nlohmann::json;

/// One configuration of degree 1: the fields the mapping uses.
struct Tmpc {
  std::string name;
  double timePerSample = 0, parameterSize = 0, memoryA = 0, memoryB = 0;
};

/// Reads the fields of a Piper input; each failure is one line naming the file and element.
class PiperReader {
 public:
  explicit PiperReader(std::string file, std::string* error) : file_(std::move(file)), error_(error) {}

  /// A finite number >= 0 (> 0 where `positive`) at `object[field]`.
  bool number(const json& object, const std::string& where, const char* field, bool positive,
              double* value) {
    const auto it = object.find(field);
    if (it == object.end()) return fail(where + ": missing field " + field);
    // At most 1e27: what the workload derives from it (sums, ms, bytes over
    // a bandwidth) stays below its cap of 1e30, far above any real figure.
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 ||
        (positive && it->get<double>() == 0) || it->get<double>() > 1e27)
      return fail(where + ": " + field + " must be a finite number " + (positive ? "> 0" : ">= 0") +
                  " and at most 1e27, got " + printable(it->dump(), 40));
    *value = it->get<double>();
    return true;
  }

  /// An integer in [low, high] at `object[field]`.
  bool integer(const json& object, const std::string& where, const char* field, std::int64_t low,
               std::int64_t high, std::int64_t* value) {
    const auto it = object.find(field);
    if (it == object.end()) return fail(where + ": missing field " + field);
    if (!it->is_number_integer() ||
        (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(high)) ||
        it->get<std::int64_t>() < low || it->get<std::int64_t>() > high)
      return fail(where + ": " + field + " must be an integer from " + std::to_string(low) + " to " +
                  std::to_string(high) + ", got " + printable(it->dump(), 40));
    *value = it->get<std::int64_t>();
    return true;
  }

  /// The fastest configuration of degree 1 (Piper's choice when memory does not bind).
  bool tmpc(const json& node, const std::string& where, Tmpc* chosen) {
    const auto tmpcs = node.find("TMPCs");
    if (tmpcs == node.end()) return fail(where + ": missing field TMPCs");
    if (!tmpcs->is_object())
      return fail(where + ": TMPCs must be an object from tensor-parallel degree to a list");
    const auto one = tmpcs->find("1");
    if (one == tmpcs->end() || !one->is_array() || one->empty())
      return fail(where + ": TMPCs has no configuration for tensor-parallel degree 1 (TMPCs[\"1\"]: " +
                  (one == tmpcs->end() ? std::string("missing") : printable(one->dump(), 30)) + ")");
    std::set<std::string> names;
    for (std::size_t i = 0; i < one->size(); ++i) {
      const json& entry = (*one)[i];
      std::string at = where + ": TMPCs[\"1\"][" + std::to_string(i) + "]";
      if (!entry.is_object()) return fail(at + " must be an object");
      Tmpc candidate;
      if (const auto id = entry.find("id"); id != entry.end()) {
        if (!id->is_string() || id->get<std::string>().empty())
          return fail(at + ": id must be a non-empty string");
        candidate.name = id->get<std::string>();
        if (!names.insert(candidate.name).second)
          return fail(at + ": id '" + printable(candidate.name, 40) + "' given twice");
        at += " '" + printable(candidate.name, 40) + "'";
      }
      if (!number(entry, at, "timePerSample", false, &candidate.timePerSample) ||
          !number(entry, at, "parameterSize", false, &candidate.parameterSize) ||
          !number(entry, at, "memoryUsageA", false, &candidate.memoryA) ||
          !number(entry, at, "memoryUsageB", false, &candidate.memoryB))
        return false;
      if (i == 0 || candidate.timePerSample < chosen->timePerSample) *chosen = candidate;
    }
    return true;
  }

  bool fail(const std::string& message) {
    *error_ = file_ + ": " + message;
    return false;
  }

 private:
  std::string file_;
  std::string* error_;
};

/// The largest device count the workload reader accepts.
constexpr std::int64_t kMaxCount = kMaxDevicesPerKind;

}  // namespace

std::optional<Workload> importPiper(const PiperImportOptions& options, ImportError* error) {
  const std::string file = inputName(options.inputPath);
  std::string message;
  const auto text = readFile(options.inputPath, &message);
  if (!text) {
    error->message = message;
    return std::nullopt;
  }
  json root;
  try {
    root = json::parse(*text);
  } catch (const json::parse_error& e) {
    error->message = file + ": not JSON: byte " + std::to_string(e.byte) + ": " +
                     printable(e.what(), 120);
    return std::nullopt;
  }
  PiperReader reader(file, &error->message);
  if (!root.is_object()) {
    reader.fail("expected an object with maxMemoryPerDevice, maxDevices, bandwidth, nodes, edges");
    return std::nullopt;
  }
  double fileMemory = 0, fileBandwidth = 0;
  std::int64_t fileDevices = 0, batch = 0;
  if (!reader.number(root, "top level", "maxMemoryPerDevice", false, &fileMemory) ||
      !reader.integer(root, "top level", "maxDevices", 0, kMaxCount, &fileDevices) ||
      !reader.number(root, "top level", "bandwidth", true, &fileBandwidth))
    return std::nullopt;
  // Piper's files call the batch mbsInBatch (its README: maxBatchSize); either is read.
  const char* batchField =
      root.contains("mbsInBatch") || !root.contains("maxBatchSize") ? "mbsInBatch" : "maxBatchSize";
  if (!reader.integer(root, "top level", batchField, 1, std::int64_t{1} << 40, &batch))
    return std::nullopt;

  const double memory = options.memory.value_or(fileMemory);
  const double bandwidth = options.bandwidth.value_or(fileBandwidth);
  const std::int64_t accelerators = options.accelerators.value_or(fileDevices);
  const double samplesPerSync = options.samplesPerSync.value_or(static_cast<double>(batch));
  if (!(memory >= 0 && std::isfinite(memory)) || !(bandwidth > 0 && std::isfinite(bandwidth)) ||
      accelerators < 0 || accelerators > kMaxCount || options.cpus < 0 || options.cpus > kMaxCount ||
      !(options.inFlight >= 0 && std::isfinite(options.inFlight)) ||
      !(samplesPerSync > 0 && std::isfinite(samplesPerSync))) {
    reader.fail(
        "import piper needs a finite memory >= 0, a positive finite bandwidth, device "
        "counts from 0 to " +
        std::to_string(kMaxCount) + ", in-flight >= 0 and samples-per-sync > 0 (got memory " +
        formatShortest(memory) + ", bandwidth " + formatShortest(bandwidth) + ", " +
        std::to_string(accelerators) + " accelerators, " + std::to_string(options.cpus) +
        " CPU cores, in-flight " + formatShortest(options.inFlight) + ", samples-per-sync " +
        formatShortest(samplesPerSync) + ")");
    return std::nullopt;
  }

  const auto nodesIt = root.find("nodes");
  if (nodesIt == root.end() || !nodesIt->is_array() || nodesIt->empty()) {
    reader.fail("nodes must be a non-empty array");
    return std::nullopt;
  }
  const auto edgesIt = root.find("edges");
  if (edgesIt == root.end() || !edgesIt->is_array()) {
    reader.fail("edges must be an array");
    return std::nullopt;
  }

  // Piper's bandwidth is bytes per second and its times seconds; ours are milliseconds.
  const bool charged = options.chargeActivations;
  std::vector<Node> nodes;
  std::map<std::int64_t, std::size_t> indexOfId;
  for (std::size_t i = 0; i < nodesIt->size(); ++i) {
    const json& entry = (*nodesIt)[i];
    std::string where = "nodes[" + std::to_string(i) + "]";
    if (!entry.is_object()) {
      reader.fail(where + " must be an object");
      return std::nullopt;
    }
    std::int64_t id = 0;
    if (!reader.integer(entry, where, "id", -(std::int64_t{1} << 53), std::int64_t{1} << 53, &id))
      return std::nullopt;
    where = "node " + std::to_string(id);
    if (const auto [it, fresh] = indexOfId.emplace(id, i); !fresh) {
      reader.fail("duplicate " + where + " (nodes[" + std::to_string(it->second) + "] and nodes[" +
                  std::to_string(i) + "])");
      return std::nullopt;
    }
    Tmpc tmpc;
    if (!reader.tmpc(entry, where, &tmpc)) return std::nullopt;
    Node node;
    node.id = id;
    if (const auto name = entry.find("name"); name != entry.end() && name->is_string())
      node.name = name->get<std::string>();
    node.supportedOnFpga = true;
    node.fpgaLatency = 1000.0 * tmpc.timePerSample;
    // Piper profiles no CPU: a core is taken to be as fast as the profiled accelerator.
    node.cpuLatency = node.fpgaLatency;
    // Every replica holds the block's weights and state (b) and the activations of
    // `inFlight` microbatches (a each).
    node.size = tmpc.memoryB + options.inFlight * tmpc.memoryA;
    node.parameterSize = tmpc.parameterSize;
    if (!std::isfinite(node.size) || !std::isfinite(node.fpgaLatency)) {
      reader.fail(where +
                  ": memoryUsageB + in-flight x memoryUsageA or 1000 x timePerSample overflows");
      return std::nullopt;
    }
    if (node.size > memory && options.cpus == 0) {
      error->infeasible = true;
      reader.fail(where + (node.name.empty() ? "" : " " + printable(node.name, 40)) + " needs " +
                  formatShortest(node.size) + " bytes (memoryUsageB + " +
                  formatShortest(options.inFlight) + " x memoryUsageA of TMPC '" +
                  printable(tmpc.name, 30) + "'), more than the memory " + formatShortest(memory) +
                  ", and --cpus is 0");
      return std::nullopt;
    }
    nodes.push_back(std::move(node));
  }

  // One cost per source (docs/model.md §1): the largest of its edges' bytes, sent forward
  // as the activation and back as its gradient (Piper's factor 2).
  std::vector<double> largest(nodes.size(), 0);
  std::vector<std::pair<std::size_t, std::size_t>> ends;
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (std::size_t e = 0; e < edgesIt->size(); ++e) {
    const json& entry = (*edgesIt)[e];
    const std::string where = "edges[" + std::to_string(e) + "]";
    if (!entry.is_object()) {
      reader.fail(where + " must be an object");
      return std::nullopt;
    }
    std::int64_t source = 0, dest = 0;
    double bytes = 0;
    constexpr std::int64_t kIdLimit = std::int64_t{1} << 53;
    if (!reader.integer(entry, where, "sourceId", -kIdLimit, kIdLimit, &source) ||
        !reader.integer(entry, where, "destId", -kIdLimit, kIdLimit, &dest) ||
        !reader.number(entry, where, "communicationCost", false, &bytes))
      return std::nullopt;
    const auto from = indexOfId.find(source), to = indexOfId.find(dest);
    if (from == indexOfId.end() || to == indexOfId.end()) {
      reader.fail(where + ": " + (from == indexOfId.end() ? "sourceId " : "destId ") +
                  std::to_string(from == indexOfId.end() ? source : dest) + " is no node");
      return std::nullopt;
    }
    if (!seen.insert({from->second, to->second}).second) {
      reader.fail(where + ": edge " + std::to_string(source) + " -> " + std::to_string(dest) +
                  " given twice");
      return std::nullopt;
    }
    largest[from->second] = std::max(largest[from->second], bytes);
    ends.emplace_back(from->second, to->second);
  }
  std::vector<RawEdge> edges;
  for (const auto& [from, to] : ends)
    edges.push_back(
        {nodes[from].id, nodes[to].id, charged ? 2 * 1000.0 * largest[from] / bandwidth : 0.0});

  Machine machine;
  machine.maxSizePerFpga = memory;
  machine.maxFpgas = static_cast<int>(accelerators);
  machine.maxCpus = options.cpus;
  machine.syncBandwidth = bandwidth / 1000.0;
  machine.samplesPerSync = samplesPerSync;
  auto workload = buildWorkload(file, machine, std::move(nodes), edges, &message);
  if (!workload) {
    error->message = message;
    return std::nullopt;
  }
  return workload;
}

}  // namespace dnnplace
