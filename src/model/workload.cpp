#include "dnnplace/workload.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/json_input.hpp"
#include "io/one_pass_elements.hpp"

namespace dnnplace {

using json_input::Json;

std::optional<NodeIndex> Workload::indexOf(std::int64_t id) const {
  auto it = indexOfId_.find(id);
  if (it == indexOfId_.end()) return std::nullopt;
  return it->second;
}

std::string inputName(const std::string& path) { return path == "-" ? "standard input" : path; }

std::optional<std::string> readFile(const std::string& path, std::string* error) {
  // "-" is standard input, as it is standard output for --out.
  const bool standardInput = path == "-";
  // A directory opens as a file that reads nothing; say what it is instead
  // of reporting an empty file.
  std::error_code ignored;
  if (!standardInput && std::filesystem::is_directory(path, ignored)) {
    *error = path + ": cannot read: it is a directory";
    return std::nullopt;
  }
  const int fd = standardInput ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return std::nullopt;
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } closer{fd};
  // A regular file is read into one buffer of its size (plus the byte that
  // lets the last read see the end). Grown by doubling, as a stream does it,
  // a fresh buffer's pages are touched about twice: 217 page faults instead
  // of 94 for a 385 KB workload, each a VM exit on these machines.
  struct stat status {};
  std::string text;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0) {
    // Room for the JSON parser's padding too: it parses the text where it lies.
    text.reserve(static_cast<std::size_t>(status.st_size) + 1 + json_input::kParsePadding);
    text.resize(static_cast<std::size_t>(status.st_size) + 1);
  }
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) text.resize(std::max<std::size_t>(4096, 2 * text.size()));  // pipes, growing files
    const ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = inputName(path) + ": cannot read: " + std::strerror(errno);
      return std::nullopt;
    }
    if (got == 0) break;
    // No JSON text holds a NUL byte: the parser will stop at the first one
    // and say where it is, so reading stops there too (/dev/zero would
    // otherwise be read until memory runs out).
    const bool nul = std::memchr(text.data() + used, 0, static_cast<std::size_t>(got)) != nullptr;
    used += static_cast<std::size_t>(got);
    if (nul) break;
  }
  text.resize(used);
  return text;
}

namespace {

std::string nodeLabel(std::size_t index, std::optional<std::int64_t> id) {
  std::string label = "node #" + std::to_string(index);
  if (id) label += " (id " + std::to_string(*id) + ")";
  return label;
}

std::string edgeLabel(std::size_t index, const RawEdge& edge) {
  return "edge #" + std::to_string(index) + " (" + std::to_string(edge.sourceId) + " -> " +
         std::to_string(edge.destId) + ")";
}

// `where()` names the element; it is built only for a message (a label for
// each of millions of nodes would cost more than reading them).
template <class Where>
bool checkAmount(double value, const Where& where, const char* field, std::string* error) {
  if (std::isfinite(value) && value >= 0) return true;
  *error = where() + ": " + field + " must be a finite number >= 0, got " + json_input::formatNumber(value);
  return false;
}

// Latencies, costs and sizes are summed over millions of nodes; past this
// bound sums could overflow to infinity and every objective would be wrong.
constexpr double kMaxAmount = 1e30;

template <class Where>
bool checkSummable(double value, const Where& where, const char* field, std::string* error) {
  if (!checkAmount(value, where, field, error)) return false;
  if (value <= kMaxAmount) return true;
  *error = where() + ": " + field + " must be at most 1e30, got " + json_input::formatNumber(value);
  return false;
}

// Kahn's algorithm over the deduplicated edges; lower indices first, so the
// order is deterministic and follows the input where the graph allows.
std::vector<NodeIndex> topologicalOrder(int n, const std::vector<std::int32_t>& succStart,
                                        const std::vector<std::int32_t>& succ,
                                        std::vector<int>* inDegree) {
  std::vector<NodeIndex> order;
  order.reserve(n);
  std::vector<NodeIndex> ready;
  for (NodeIndex v = n - 1; v >= 0; --v)
    if ((*inDegree)[v] == 0) ready.push_back(v);
  while (!ready.empty()) {
    NodeIndex v = ready.back();
    ready.pop_back();
    order.push_back(v);
    for (auto i = succStart[v]; i < succStart[v + 1]; ++i)
      if (--(*inDegree)[succ[i]] == 0) ready.push_back(succ[i]);
  }
  return order;
}

// Called only when a cycle exists. Every node Kahn's algorithm could not
// order still waits for an unordered predecessor, so walking such
// predecessors must revisit a node: the walk from there is a cycle (backwards).
std::string describeCycle(const std::vector<Node>& nodes, const std::vector<std::int32_t>& predStart,
                          const std::vector<std::int32_t>& pred,
                          const std::vector<int>& inDegree) {
  NodeIndex start = 0;
  while (inDegree[start] == 0) ++start;
  std::vector<int> seenAt(nodes.size(), -1);
  std::vector<NodeIndex> path;
  NodeIndex v = start;
  while (seenAt[v] < 0) {
    seenAt[v] = static_cast<int>(path.size());
    path.push_back(v);
    for (auto i = predStart[v]; i < predStart[v + 1]; ++i)
      if (inDegree[pred[i]] > 0) {
        v = pred[i];
        break;
      }
  }
  // path[first..] = c0, c1, …, ck with each c(i+1) a predecessor of c(i):
  // the cycle runs c0 -> ck -> … -> c1 -> c0.
  const std::size_t first = seenAt[v];
  std::vector<NodeIndex> cycle{path[first]};
  for (std::size_t i = path.size() - 1; i > first; --i) cycle.push_back(path[i]);
  std::string text;
  const std::size_t shown = std::min<std::size_t>(cycle.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) text += std::to_string(nodes[cycle[i]].id) + " -> ";
  if (shown < cycle.size()) text += "... -> ";
  return text + std::to_string(nodes[cycle[0]].id);
}

}  // namespace

std::optional<Workload> buildWorkload(std::string name, Machine machine, std::vector<Node> nodes,
                                      const std::vector<RawEdge>& edges, std::string* error) {
  Workload w;
  w.name = std::move(name);
  const std::string& file = w.name;
  if (!checkAmount(machine.maxSizePerFpga, [&] { return file; }, "maxSizePerFPGA", error)) return std::nullopt;
  if (machine.maxFpgas < 0 || machine.maxFpgas > kMaxDevicesPerKind) {
    *error = file + ": maxFPGAs must be an integer in [0, " + std::to_string(kMaxDevicesPerKind) +
             "], got " + std::to_string(machine.maxFpgas);
    return std::nullopt;
  }
  if (machine.maxCpus < 0 || machine.maxCpus > kMaxDevicesPerKind) {
    *error = file + ": maxCPUs must be an integer in [0, " + std::to_string(kMaxDevicesPerKind) +
             "], got " + std::to_string(machine.maxCpus);
    return std::nullopt;
  }
  if (nodes.size() >= static_cast<std::size_t>(std::numeric_limits<NodeIndex>::max())) {
    *error = file + ": too many nodes (" + std::to_string(nodes.size()) + ")";
    return std::nullopt;
  }
  w.machine = machine;
  const int n = static_cast<int>(nodes.size());

  std::unordered_map<std::int64_t, std::int32_t> classIndex;
  w.indexOfId_.reserve(n);
  w.classOf.resize(n);
  for (int v = 0; v < n; ++v) {
    const Node& node = nodes[v];
    const auto where = [&] { return file + ": " + nodeLabel(v, node.id); };
    auto [it, inserted] = w.indexOfId_.emplace(node.id, v);
    if (!inserted) {
      *error = where() + ": id " + std::to_string(node.id) + " is already used by " +
               nodeLabel(it->second, node.id);
      return std::nullopt;
    }
    if (!checkSummable(node.cpuLatency, where, "cpuLatency", error) ||
        !checkSummable(node.fpgaLatency, where, "fpgaLatency", error) ||
        !checkSummable(node.size, where, "size", error))
      return std::nullopt;
    if (node.colorClass) {
      auto [cit, fresh] = classIndex.emplace(*node.colorClass, w.numClasses);
      if (fresh) ++w.numClasses;
      w.classOf[v] = cit->second;
    } else {
      w.classOf[v] = w.numClasses++;
    }
  }

  // Edges: endpoints, self-loops, cost per source, direction; then dedupe.
  w.outCost.assign(n, 0.0);
  std::vector<std::int64_t> costEdge(n, -1);  // first edge that fixed a source's cost
  std::vector<std::pair<NodeIndex, NodeIndex>> pairs;
  pairs.reserve(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const RawEdge& edge = edges[e];
    const auto where = [&] { return file + ": " + edgeLabel(e, edge); };
    auto source = w.indexOf(edge.sourceId);
    if (!source) {
      *error = where() + ": sourceId " + std::to_string(edge.sourceId) + " is not a node id";
      return std::nullopt;
    }
    auto dest = w.indexOf(edge.destId);
    if (!dest) {
      *error = where() + ": destId " + std::to_string(edge.destId) + " is not a node id";
      return std::nullopt;
    }
    if (*source == *dest) {
      *error = where() + ": self-loop (sourceId equals destId)";
      return std::nullopt;
    }
    if (!checkSummable(edge.cost, where, "cost", error)) return std::nullopt;
    if (nodes[*source].isBackward && !nodes[*dest].isBackward) {
      *error = where() + ": edge from backward node " + std::to_string(edge.sourceId) +
               " to forward node " + std::to_string(edge.destId) + " is not allowed";
      return std::nullopt;
    }
    if (costEdge[*source] < 0) {
      costEdge[*source] = static_cast<std::int64_t>(e);
      w.outCost[*source] = edge.cost;
    } else if (!(std::fabs(edge.cost - w.outCost[*source]) <=
                 1e-9 * std::max(std::fabs(edge.cost), std::fabs(w.outCost[*source])))) {
      *error = where() + ": cost " + json_input::formatNumber(edge.cost) + " differs from cost " +
               json_input::formatNumber(w.outCost[*source]) + " of " +
               edgeLabel(costEdge[*source], edges[costEdge[*source]]) +
               "; all edges leaving a node must carry the same cost";
      return std::nullopt;
    }
    pairs.emplace_back(*source, *dest);
  }
  {
    std::vector<std::pair<NodeIndex, NodeIndex>> sorted = pairs;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // Keep first-occurrence order for the edge list.
    std::vector<char> taken(sorted.size(), 0);
    for (const auto& p : pairs) {
      auto idx = std::lower_bound(sorted.begin(), sorted.end(), p) - sorted.begin();
      if (taken[idx]) continue;
      taken[idx] = 1;
      w.edges.push_back({p.first, p.second});
    }
  }

  // CSR adjacency in both directions.
  w.succStart_.assign(n + 1, 0);
  w.predStart_.assign(n + 1, 0);
  for (const Edge& e : w.edges) {
    ++w.succStart_[e.source + 1];
    ++w.predStart_[e.dest + 1];
  }
  for (int v = 0; v < n; ++v) {
    w.succStart_[v + 1] += w.succStart_[v];
    w.predStart_[v + 1] += w.predStart_[v];
  }
  w.succ_.resize(w.edges.size());
  w.pred_.resize(w.edges.size());
  {
    std::vector<std::int32_t> sFill(w.succStart_.begin(), w.succStart_.end() - 1);
    std::vector<std::int32_t> pFill(w.predStart_.begin(), w.predStart_.end() - 1);
    for (const Edge& e : w.edges) {
      w.succ_[sFill[e.source]++] = e.dest;
      w.pred_[pFill[e.dest]++] = e.source;
    }
  }

  std::vector<int> inDegree(n);
  for (int v = 0; v < n; ++v) inDegree[v] = w.predStart_[v + 1] - w.predStart_[v];
  w.topologicalOrder = topologicalOrder(n, w.succStart_, w.succ_, &inDegree);
  if (static_cast<int>(w.topologicalOrder.size()) != n) {
    *error = file + ": the graph has a directed cycle through node ids " +
             describeCycle(nodes, w.predStart_, w.pred_, inDegree);
    return std::nullopt;
  }

  // Class membership lists.
  w.classStart_.assign(w.numClasses + 1, 0);
  for (int v = 0; v < n; ++v) ++w.classStart_[w.classOf[v] + 1];
  for (int c = 0; c < w.numClasses; ++c) w.classStart_[c + 1] += w.classStart_[c];
  w.classNodes_.resize(n);
  {
    std::vector<std::int32_t> fill(w.classStart_.begin(), w.classStart_.end() - 1);
    for (int v = 0; v < n; ++v) w.classNodes_[fill[w.classOf[v]]++] = v;
  }
  w.nodes = std::move(nodes);
  return w;
}

namespace {

using json_input::Value;

// A field, if present, read as Fields reads it (json_input::to*).
bool readInteger(const Value* value, std::int64_t* out) { return value && json_input::toInteger(*value, true, out); }
bool readAmount(const Value* value, bool allowNegative, double* out) {
  return value && json_input::toNumber(*value, allowNegative, out);
}
bool readFlag(const Value* value, bool* out) { return value && json_input::toFlag(*value, out); }

}  // namespace

namespace detail {

bool readNodeInOnePass(const json_input::FlatValue& item, Node* node) {
  if (item.value().kind != Value::Kind::Object) return false;
  const Value *id = nullptr, *supported = nullptr, *cpu = nullptr, *fpga = nullptr, *backward = nullptr,
              *color = nullptr, *size = nullptr, *name = nullptr;
  for (const auto& [key, value] : item.members()) {  // the last of a repeated key counts
    if (key == "id") id = &value;
    else if (key == "supportedOnFpga") supported = &value;
    else if (key == "cpuLatency") cpu = &value;
    else if (key == "fpgaLatency") fpga = &value;
    else if (key == "isBackwardNode") backward = &value;
    else if (key == "colorClass") color = &value;
    else if (key == "size") size = &value;
    else if (key == "name") name = &value;
  }
  Node read;
  std::int64_t colorClass = 0;
  if (!readInteger(id, &read.id) || !readFlag(supported, &read.supportedOnFpga) ||
      !readAmount(cpu, false, &read.cpuLatency) || !readAmount(fpga, false, &read.fpgaLatency) ||
      !readFlag(backward, &read.isBackward) || (color && !readInteger(color, &colorClass)) ||
      (size && !readAmount(size, false, &read.size)))
    return false;
  if (color) read.colorClass = colorClass;
  if (name && name->kind == Value::Kind::String) read.name = name->string;
  *node = std::move(read);
  return true;
}

bool readEdgeInOnePass(const json_input::FlatValue& item, RawEdge* edge) {
  if (item.value().kind != Value::Kind::Object) return false;
  const Value *source = nullptr, *dest = nullptr, *cost = nullptr;
  for (const auto& [key, value] : item.members()) {
    if (key == "sourceId") source = &value;
    else if (key == "destId") dest = &value;
    else if (key == "cost") cost = &value;
  }
  RawEdge read;
  if (!readInteger(source, &read.sourceId) || !readInteger(dest, &read.destId) ||
      !readAmount(cost, true, &read.cost))
    return false;
  *edge = read;
  return true;
}

}  // namespace detail

namespace {

/// One element of the nodes array; false with *error set if it is not a node.
bool readNode(const json_input::FlatValue& item, std::size_t i, const std::string& file, std::string* error,
              Node* node) {
  // The id comes first so later messages can name it.
  std::optional<std::int64_t> id;
  if (item.find("id")) {
    json_input::Fields idField(item, file, [i] { return nodeLabel(i, std::nullopt); }, error);
    std::int64_t value = 0;
    if (!idField.integer("id", &value, /*allowNegative=*/true)) return false;
    id = value;
  }
  json_input::Fields f(item, file, [&i, &id] { return nodeLabel(i, id); }, error);
  if (!f.isObject()) return false;
  std::int64_t ignored = 0;
  if (!f.integer("id", &ignored, true) || !f.boolean("supportedOnFpga", &node->supportedOnFpga) ||
      !f.number("cpuLatency", &node->cpuLatency) || !f.number("fpgaLatency", &node->fpgaLatency) ||
      !f.boolean("isBackwardNode", &node->isBackward))
    return false;
  node->id = *id;
  if (f.has("colorClass")) {
    std::int64_t cls = 0;
    if (!f.integer("colorClass", &cls, true)) return false;
    node->colorClass = cls;
  }
  if (f.has("size") && !f.number("size", &node->size)) return false;
  if (const json_input::Value* label = item.find("name"); label && label->kind == json_input::Value::Kind::String)
    node->name = label->string;
  return true;
}

/// One element of the edges array; false with *error set if it is not an edge.
bool readEdge(const json_input::FlatValue& item, std::size_t i, const std::string& file, std::string* error,
              RawEdge* edge) {
  json_input::Fields f(item, file, [i] { return "edge #" + std::to_string(i); }, error);
  return f.isObject() && f.integer("sourceId", &edge->sourceId, true) &&
         f.integer("destId", &edge->destId, true) && f.number("cost", &edge->cost, /*allowNegative=*/true);
}

/// parseWorkload, of a text the parser may copy (a view) or parse where it lies (a string).
template <class Text>
std::optional<Workload> parseWorkloadText(Text&& text, const std::string& name, std::string* error) {
  // Nodes and edges are read as the parser meets them; only the first bad
  // one of each is kept, and reported after the top-level fields, in the
  // order a check of the whole tree would find them.
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;
  std::size_t numNodes = 0, numEdges = 0;
  std::string nodeError, edgeError;
  json_input::StreamedArrays streamed;
  streamed.fields = {"nodes", "edges"};
  streamed.start = [&](std::size_t field) {
    if (field == 0) {
      nodes.clear();
      numNodes = 0;
      nodeError.clear();
    } else {
      edges.clear();
      numEdges = 0;
      edgeError.clear();
    }
  };
  streamed.element = [&](std::size_t field, const json_input::FlatValue& item) {
    if (field == 0) {
      const std::size_t i = numNodes++;
      Node node;
      if (nodeError.empty() && (detail::readNodeInOnePass(item, &node) || readNode(item, i, name, &nodeError, &node)))
        nodes.push_back(std::move(node));
    } else {
      const std::size_t i = numEdges++;
      RawEdge edge;
      if (edgeError.empty() && (detail::readEdgeInOnePass(item, &edge) || readEdge(item, i, name, &edgeError, &edge)))
        edges.push_back(edge);
    }
  };
  const auto root = json_input::parseFlat(std::forward<Text>(text), name, error, streamed);
  if (!root) return std::nullopt;
  json_input::Fields top(*root, name, "", error);
  if (!top.isObject()) return std::nullopt;

  Machine machine;
  std::int64_t maxFpgas = 0, maxCpus = 0;
  if (!top.number("maxSizePerFPGA", &machine.maxSizePerFpga) ||
      !top.integer("maxFPGAs", &maxFpgas) || !top.integer("maxCPUs", &maxCpus))
    return std::nullopt;
  for (auto [field, value] : {std::pair{"maxFPGAs", maxFpgas}, std::pair{"maxCPUs", maxCpus}})
    if (value > kMaxDevicesPerKind) {
      *error = name + ": " + field + " must be at most " + std::to_string(kMaxDevicesPerKind) +
               ", got " + std::to_string(value);
      return std::nullopt;
    }
  machine.maxFpgas = static_cast<int>(maxFpgas);
  machine.maxCpus = static_cast<int>(maxCpus);

  if (!top.isArray("nodes") || !top.isArray("edges")) return std::nullopt;
  for (const std::string* firstBad : {&nodeError, &edgeError})
    if (!firstBad->empty()) {
      *error = *firstBad;
      return std::nullopt;
    }
  return buildWorkload(name, machine, std::move(nodes), edges, error);
}

}  // namespace

std::optional<Workload> parseWorkload(std::string_view text, const std::string& name, std::string* error) {
  return parseWorkloadText(text, name, error);
}

std::optional<Workload> loadWorkload(const std::string& path, std::string* error) {
  auto text = readFile(path, error);
  if (!text) return std::nullopt;
  return parseWorkloadText(std::move(*text), inputName(path), error);
}

std::string workloadToJson(const Workload& workload) {
  Json root = Json::object();
  root["maxSizePerFPGA"] = workload.machine.maxSizePerFpga;
  root["maxFPGAs"] = workload.machine.maxFpgas;
  root["maxCPUs"] = workload.machine.maxCpus;
  Json nodes = Json::array();
  for (const Node& node : workload.nodes) {
    Json item = Json::object();
    if (!node.name.empty()) item["name"] = node.name;
    item["id"] = node.id;
    item["supportedOnFpga"] = node.supportedOnFpga;
    item["cpuLatency"] = node.cpuLatency;
    item["fpgaLatency"] = node.fpgaLatency;
    item["isBackwardNode"] = node.isBackward;
    if (node.colorClass) item["colorClass"] = *node.colorClass;
    item["size"] = node.size;
    nodes.push_back(std::move(item));
  }
  Json edges = Json::array();
  for (const Edge& edge : workload.edges)
    edges.push_back({{"sourceId", workload.nodes[edge.source].id},
                     {"destId", workload.nodes[edge.dest].id},
                     {"cost", workload.outCost[edge.source]}});
  root["nodes"] = std::move(nodes);
  root["edges"] = std::move(edges);
  return root.dump(1) + "\n";
}

}  // namespace dnnplace
