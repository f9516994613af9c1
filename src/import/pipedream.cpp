// PipeDream's layer profiles (graph.txt) as workloads: docs/import.md.
//
// A profile is lines of two kinds (PipeDream's graph/graph.py writes and reads them):
//   nodeN -- LAYER -- forward_compute_time=T, backward_compute_time=T, activation_size=S,
//            parameter_size=S [-- stage_id=I]
//   <tab>nodeA -- nodeB
// Times are milliseconds per minibatch, sizes bytes; an activation size may be a list
// "[s1; s2; ...]" (a layer with several outputs), which counts as its sum.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dnnplace/import.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

struct Layer {
  std::int64_t id = 0;  ///< N of "nodeN"
  std::string desc;     ///< the layer text, e.g. "Conv2d(3, 64, ...)"
  int line = 0;
  double forward = 0, backward = 0, activation = 0, parameters = 0;
};

struct ProfileEdge {
  std::size_t source = 0, dest = 0;  ///< indices into the layers
  int line = 0;
};

struct Profile {
  std::vector<Layer> layers;
  std::vector<ProfileEdge> edges;
};

constexpr std::string_view kSeparator = " -- ";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::string quoted(std::string_view text) {
  std::string out = printable(text);
  out.insert(out.begin(), '\'');
  out.push_back('\'');
  return out;
}

/// Reads the lines of a profile; each failure is one line naming the file, line and field.
class ProfileParser {
 public:
  explicit ProfileParser(std::string file) : file_(std::move(file)) {}

  std::optional<Profile> parse(std::string_view text, std::string* error) {
    error_ = error;
    std::vector<std::pair<int, std::string_view>> edgeLines;
    int lineNumber = 0;
    for (std::size_t start = 0; start <= text.size();) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = trim(text.substr(start, end - start));
      start = end + 1;
      ++lineNumber;
      if (line.empty()) continue;
      // A layer line has its fields after a second separator; an edge line has one separator.
      const auto first = line.find(kSeparator);
      if (first == std::string_view::npos) return fail(lineNumber, malformed(line));
      if (line.find(kSeparator, first + kSeparator.size()) == std::string_view::npos) {
        // Not two ids: most likely a layer line without its fields.
        std::int64_t id = 0;
        if (!readId(trim(line.substr(0, first)), &id) ||
            !readId(trim(line.substr(first + kSeparator.size())), &id))
          return fail(lineNumber, malformed(line));
        edgeLines.emplace_back(lineNumber, line);
        continue;
      }
      if (!parseLayer(lineNumber, line)) return std::nullopt;
    }
    if (profile_.layers.empty())
      return fail(0, "no layer lines (expected 'nodeN -- layer -- forward_compute_time=...')");
    // Edges may come before or after the layers they name.
    for (const auto& [number, line] : edgeLines)
      if (!parseEdge(number, line)) return std::nullopt;
    if (!checkAcyclic()) return std::nullopt;
    return std::move(profile_);
  }

 private:
  std::nullopt_t fail(int line, const std::string& message) {
    *error_ = file_ + ": " + (line > 0 ? "line " + std::to_string(line) + ": " : "") + message;
    return std::nullopt;
  }

  static std::string malformed(std::string_view line) {
    return "expected 'nodeN -- layer -- fields' or 'nodeA -- nodeB', got " + quoted(line);
  }

  /// N of "nodeN" (PipeDream's profiler names every layer so).
  static bool readId(std::string_view text, std::int64_t* id) {
    constexpr std::string_view kPrefix = "node";
    const std::string_view digits = text.substr(std::min(text.size(), kPrefix.size()));
    const char* end = digits.data() + digits.size();
    // Ids stay far below 2^53 so that backward ids (N + a power of ten) are exact everywhere.
    return text.substr(0, kPrefix.size()) == kPrefix && !digits.empty() && digits.size() <= 12 &&
           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
           std::from_chars(digits.data(), end, *id).ptr == end;
  }

  bool parseId(int line, std::string_view text, std::int64_t* id) {
    if (readId(text, id)) return true;
    fail(line, "node id must be nodeN with N a number of at most 12 digits, got " + quoted(text));
    return false;
  }

  /// A number >= 0, or a list "[a; b; ...]" of them (summed) where `list` allows one.
  bool parseAmount(int line, const std::string& node, std::string_view field, std::string_view text,
                   bool list, double* value) {
    auto bad = [&] {
      fail(line, node + ": " + std::string(field) + " must be a finite number from 0 to 1e27" +
                     (list ? " or a list [a; b; ...] of them" : "") + ", got " + quoted(text));
      return false;
    };
    auto one = [&](std::string_view item, double* out) {
      const char* end = item.data() + item.size();
      const auto result = std::from_chars(item.data(), end, *out);
      // At most 1e27: what the workload derives from it (4 x parameters +
      // activation, bytes over the bandwidth) stays below its cap of 1e30.
      return result.ec == std::errc() && result.ptr == end && std::isfinite(*out) && *out >= 0 &&
             *out <= 1e27;
    };
    if (!list || text.empty() || text.front() != '[') return one(text, value) ? true : bad();
    if (text.back() != ']') return bad();
    *value = 0;
    std::string_view items = text.substr(1, text.size() - 2);
    while (true) {
      const auto semicolon = items.find(';');
      double item = 0;
      if (!one(trim(items.substr(0, semicolon)), &item)) return bad();
      *value += item;
      if (semicolon == std::string_view::npos) break;
      items.remove_prefix(semicolon + 1);
    }
    if (!(*value <= 1e27)) {
      fail(line, node + ": " + std::string(field) + " sums to more than 1e27, got " + quoted(text));
      return false;
    }
    return true;
  }

  bool parseLayer(int line, std::string_view text) {
    Layer layer;
    layer.line = line;
    const auto first = text.find(kSeparator);
    if (!parseId(line, trim(text.substr(0, first)), &layer.id)) return false;
    const std::string node = "node" + std::to_string(layer.id);
    std::string_view rest = text.substr(first + kSeparator.size());
    // The fields are the last segment, or the one before an optional "stage_id=" (a
    // partitioned profile); the layer text between may itself contain the separator.
    auto fieldsAt = rest.rfind(kSeparator);
    if (trim(rest.substr(fieldsAt + kSeparator.size())).substr(0, 9) == "stage_id=") {
      rest = rest.substr(0, fieldsAt);
      fieldsAt = rest.rfind(kSeparator);
      if (fieldsAt == std::string_view::npos) {
        fail(line, malformed(text));
        return false;
      }
    }
    layer.desc = std::string(trim(rest.substr(0, fieldsAt)));
    if (layer.desc.empty()) {
      fail(line, node + ": empty layer description");
      return false;
    }
    std::string_view fields = rest.substr(fieldsAt + kSeparator.size());
    struct Field {
      std::string_view name;
      double* value;
      bool list;
      bool seen = false;
    };
    Field known[] = {{"forward_compute_time", &layer.forward, false},
                     {"backward_compute_time", &layer.backward, false},
                     {"activation_size", &layer.activation, true},
                     {"parameter_size", &layer.parameters, false}};
    while (!trim(fields).empty()) {
      const auto comma = fields.find(',');
      const std::string_view item = trim(fields.substr(0, comma));
      fields = comma == std::string_view::npos ? std::string_view() : fields.substr(comma + 1);
      const auto eq = item.find('=');
      const std::string_view name = trim(item.substr(0, eq));
      Field* field = nullptr;
      for (Field& candidate : known)
        if (candidate.name == name) field = &candidate;
      if (eq == std::string_view::npos || field == nullptr) {
        fail(line, node + ": unknown field " + quoted(item) +
                       " (expected forward_compute_time, backward_compute_time, activation_size, "
                       "parameter_size)");
        return false;
      }
      if (field->seen) {
        fail(line, node + ": " + std::string(name) + " given twice");
        return false;
      }
      field->seen = true;
      if (!parseAmount(line, node, name, trim(item.substr(eq + 1)), field->list, field->value))
        return false;
    }
    for (const Field& field : known)
      if (!field.seen) {
        fail(line, node + ": missing field " + std::string(field.name));
        return false;
      }
    const auto [it, fresh] = lineOfId_.emplace(layer.id, profile_.layers.size());
    if (!fresh) {
      fail(line, "duplicate node " + node + " (first on line " +
                     std::to_string(profile_.layers[it->second].line) + ")");
      return false;
    }
    profile_.layers.push_back(std::move(layer));
    return true;
  }

  bool parseEdge(int line, std::string_view text) {
    const auto separator = text.find(kSeparator);
    std::size_t ends[2];
    const std::string_view names[2] = {trim(text.substr(0, separator)),
                                       trim(text.substr(separator + kSeparator.size()))};
    for (int i = 0; i < 2; ++i) {
      std::int64_t id = 0;
      readId(names[i], &id);  // checked by parse()
      const auto it = lineOfId_.find(id);
      if (it == lineOfId_.end()) {
        fail(line, "edge names unknown node " + std::string(names[i]));
        return false;
      }
      ends[i] = it->second;
    }
    profile_.edges.push_back({ends[0], ends[1], line});
    return true;
  }

  /// Kahn's algorithm; on a cycle, names the last-written edge on one.
  bool checkAcyclic() {
    const std::size_t n = profile_.layers.size();
    std::vector<std::vector<std::size_t>> in(n);  // edge indices into each layer
    std::vector<std::vector<std::size_t>> out(n);
    for (std::size_t e = 0; e < profile_.edges.size(); ++e) {
      out[profile_.edges[e].source].push_back(e);
      in[profile_.edges[e].dest].push_back(e);
    }
    std::vector<std::size_t> inDegree(n), ready;
    for (std::size_t v = 0; v < n; ++v)
      if ((inDegree[v] = in[v].size()) == 0) ready.push_back(v);
    std::size_t done = 0;
    while (!ready.empty()) {
      const std::size_t v = ready.back();
      ready.pop_back();
      ++done;
      for (std::size_t e : out[v])
        if (--inDegree[profile_.edges[e].dest] == 0) ready.push_back(profile_.edges[e].dest);
    }
    if (done == n) return true;
    // Every layer left has a predecessor left: walking back from one must repeat a layer.
    std::size_t v = 0;
    while (inDegree[v] == 0) ++v;
    std::vector<std::size_t> path;  // edges walked, backwards
    std::vector<std::ptrdiff_t> stepAt(n, -1);
    while (stepAt[v] < 0) {
      stepAt[v] = static_cast<std::ptrdiff_t>(path.size());
      for (std::size_t e : in[v])
        if (inDegree[profile_.edges[e].source] > 0) {
          path.push_back(e);
          v = profile_.edges[e].source;
          break;
        }
    }
    std::vector<std::size_t> cycle(path.begin() + stepAt[v], path.end());
    std::reverse(cycle.begin(), cycle.end());  // now in edge direction, starting at v
    const std::size_t last = *std::max_element(cycle.begin(), cycle.end(), [&](auto a, auto b) {
      return profile_.edges[a].line < profile_.edges[b].line;
    });
    auto name = [&](std::size_t layer) { return "node" + std::to_string(profile_.layers[layer].id); };
    std::string walk = name(v);
    for (std::size_t e : cycle) walk += " -> " + name(profile_.edges[e].dest);
    const ProfileEdge& edge = profile_.edges[last];
    fail(edge.line, "edge " + name(edge.source) + " -- " + name(edge.dest) +
                        " closes a cycle: " + printable(walk, 200));
    return false;
  }

  std::string file_;
  std::string* error_ = nullptr;
  Profile profile_;
  std::map<std::int64_t, std::size_t> lineOfId_;  ///< layer index of each id
};

bool startsWith(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

/// Which layers PipeDream's planner keeps: it removes the sources named Input* (the data
/// loader; their forward time is the loading time, not accelerator work) and then the
/// sinks named __getitem__* (unused parts of a tuple output).
std::vector<bool> keptLayers(const Profile& profile) {
  const std::size_t n = profile.layers.size();
  std::vector<bool> kept(n, true);
  std::vector<int> inDegree(n, 0), outDegree(n, 0);
  for (const ProfileEdge& e : profile.edges) ++inDegree[e.dest];
  for (std::size_t v = 0; v < n; ++v)
    if (inDegree[v] == 0 && startsWith(profile.layers[v].desc, "Input")) kept[v] = false;
  for (const ProfileEdge& e : profile.edges)
    if (kept[e.dest]) ++outDegree[e.source];
  for (std::size_t v = 0; v < n; ++v)
    if (kept[v] && outDegree[v] == 0 && startsWith(profile.layers[v].desc, "__getitem__"))
      kept[v] = false;
  return kept;
}

}  // namespace

std::optional<Workload> importPipedream(const PipedreamImportOptions& options, ImportError* error) {
  const std::string file = inputName(options.profilePath);
  // The CLI checks these too; a library caller gets the same one-line answer.
  if (!(options.bandwidth > 0 && std::isfinite(options.bandwidth)) ||
      !(options.memory >= 0 && std::isfinite(options.memory)) || options.accelerators < 0 ||
      options.cpus < 0) {
    error->message = file +
                     ": import pipedream needs a positive finite bandwidth, a finite memory "
                     ">= 0 and device counts >= 0 (got bandwidth " +
                     formatShortest(options.bandwidth) + ", memory " + formatShortest(options.memory) +
                     ", " + std::to_string(options.accelerators) + " accelerators, " +
                     std::to_string(options.cpus) + " CPU cores)";
    return std::nullopt;
  }
  std::string message;
  const auto text = readFile(options.profilePath, &message);
  if (!text) {
    error->message = message;
    return std::nullopt;
  }
  auto profile = ProfileParser(file).parse(*text, &message);
  if (!profile) {
    error->message = message;
    return std::nullopt;
  }
  const std::vector<bool> kept = keptLayers(*profile);
  if (std::find(kept.begin(), kept.end(), true) == kept.end()) {
    error->message = file + ": no layers besides Input sources and __getitem__ sinks";
    return std::nullopt;
  }

  // Backward ids: N plus a power of ten above every N, so node12's twin reads as 1012 (or 112).
  std::int64_t base = 10;
  for (const Layer& layer : profile->layers)
    while (base <= layer.id) base *= 10;
  const bool charged = options.chargeActivations;
  // PipeDream's bandwidth is bytes per second, our times milliseconds.
  auto transfer = [&](double bytes) { return charged ? 1000.0 * bytes / options.bandwidth : 0.0; };

  std::vector<Node> nodes;
  for (std::size_t v = 0; v < profile->layers.size(); ++v) {
    if (!kept[v]) continue;
    const Layer& layer = profile->layers[v];
    Node node;
    node.id = layer.id;
    node.name = layer.desc;
    node.supportedOnFpga = true;
    node.fpgaLatency = layer.forward;
    // PipeDream profiles no CPU: a core is taken to be as fast as the profiled GPU.
    node.cpuLatency = layer.forward;
    node.colorClass = layer.id;
    // Training holds weights, their gradient and Adam's two moments, and the output stashed
    // for the backward pass; inference the weights only.
    node.size = options.training ? 4 * layer.parameters + layer.activation : layer.parameters;
    // Only training all-reduces gradients between replicas; inference replicas need no sync.
    node.parameterSize = options.training ? layer.parameters : 0;
    if (node.size > options.memory && options.cpus == 0) {
      error->infeasible = true;
      error->message = file + ": line " + std::to_string(layer.line) + ": node" +
                       std::to_string(layer.id) + " " + printable(layer.desc, 40) + " needs " +
                       formatShortest(node.size) + " bytes" +
                       (options.training ? " (4 x parameter_size + activation_size)" : "") +
                       ", more than --memory " + formatShortest(options.memory) + ", and --cpus is 0";
      return std::nullopt;
    }
    nodes.push_back(std::move(node));
  }
  std::vector<RawEdge> edges;
  for (const ProfileEdge& e : profile->edges)
    if (kept[e.source] && kept[e.dest])
      edges.push_back({profile->layers[e.source].id, profile->layers[e.dest].id,
                       transfer(profile->layers[e.source].activation)});

  if (options.training) {
    // A backward node sends each predecessor the gradient of that predecessor's output; one
    // cost per source (docs/model.md §1), so it is charged the largest of them.
    std::vector<double> largestGradient(profile->layers.size(), 0);
    for (const ProfileEdge& e : profile->edges)
      if (kept[e.source] && kept[e.dest])
        largestGradient[e.dest] =
            std::max(largestGradient[e.dest], profile->layers[e.source].activation);
    for (std::size_t v = 0; v < profile->layers.size(); ++v) {
      if (!kept[v]) continue;
      const Layer& layer = profile->layers[v];
      Node node;
      node.id = layer.id + base;
      node.name = layer.desc + " [backward]";
      node.supportedOnFpga = true;
      node.fpgaLatency = layer.backward;
      node.cpuLatency = layer.backward;
      node.isBackward = true;
      node.colorClass = layer.id;  // with its forward node, which holds the layer's memory
      nodes.push_back(std::move(node));
    }
    for (const ProfileEdge& e : profile->edges)
      if (kept[e.source] && kept[e.dest])
        edges.push_back({profile->layers[e.dest].id + base, profile->layers[e.source].id + base,
                         transfer(largestGradient[e.dest])});
  }

  Machine machine;
  machine.maxSizePerFpga = options.memory;
  machine.maxFpgas = options.accelerators;
  machine.maxCpus = options.cpus;
  machine.syncBandwidth = options.bandwidth / 1000.0;
  auto workload = buildWorkload(file, machine, std::move(nodes), edges, &message);
  if (!workload) {
    error->message = message;
    return std::nullopt;
  }
  return workload;
}

}  // namespace dnnplace
