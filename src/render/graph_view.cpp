// The graph view: DOT text of the plan (every node, or one box per device
// block), laid out and drawn as SVG by Graphviz used as a library.

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "dnnplace/render.hpp"
#include "render/svg.hpp"

namespace dnnplace {

namespace {

using render::num;

/// A DOT double-quoted string's content.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + '"';
}

/// The legend: one cell per used device in its colour, as the graph's HTML-like label.
std::string legendLabel(const Workload& w, const Placement& p, const Evaluation& e) {
  std::string cells;
  for (const int d : render::pipelineOrder(w, p)) {
    const DeviceReport* r = render::reportOf(e, p, d);
    cells += "<TD BGCOLOR=\"" + render::deviceColour(p, d) + "\">" + render::deviceLabel(p, d) +
             (r && r->replicas > 1 ? " x" + std::to_string(r->replicas) : "") + "</TD>";
  }
  return "<<TABLE BORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"4\"><TR>" + cells + "</TR></TABLE>>";
}

void header(std::ostringstream& dot, const Workload& w, const Placement& p, const Evaluation& e) {
  dot << "digraph plan {\n  graph [rankdir=TB, labelloc=t, fontname=\"sans-serif\", tooltip="
      << quoted(w.name) << ", label=" << legendLabel(w, p, e) << "];\n"
      << "  node [shape=box, style=filled, fontname=\"sans-serif\", fontsize=10];\n"
      << "  edge [color=\"#999999\", arrowsize=0.6, fontname=\"sans-serif\", fontsize=9];\n";
}

std::string fullDot(const Workload& w, const Placement& p, const Evaluation& e) {
  std::ostringstream dot;
  header(dot, w, p, e);
  const Graph& g = w.graph();
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const Node& node = g.nodes[v];
    const int d = p.deviceOf[v];
    const std::string tip =
        (node.name.empty() ? "node " + std::to_string(node.id)
                           : node.name + " (node " + std::to_string(node.id) + ")") +
        (node.isBackward ? ", backward" : "") + " on " + render::deviceLabel(p, d) + "\nfpgaLatency " +
        num(node.fpgaLatency) + (node.supportedOnFpga ? "" : " (CPU only)") + ", cpuLatency " +
        num(node.cpuLatency) + "\nsize " + num(node.size) + ", cost " + num(g.outCost[v]);
    dot << "  n" << v << " [id=" << quoted("node_" + std::to_string(node.id))
        << ", label=" << quoted(node.name.empty() ? std::to_string(node.id) : node.name)
        << ", fillcolor=" << quoted(render::deviceColour(p, d)) << ", tooltip=" << quoted(tip)
        << (node.isBackward ? ", style=\"filled,dashed\"" : "") << "];\n";
  }
  for (const Edge& edge : g.edges) {
    const int du = p.deviceOf[edge.source], dv = p.deviceOf[edge.dest];
    dot << "  n" << edge.source << " -> n" << edge.dest;
    if (du != dv)
      dot << " [penwidth=2.5, color=\"#222222\", label=" << quoted(num(g.outCost[edge.source]))
          << ", tooltip="
          << quoted(render::deviceLabel(p, du) + " to " + render::deviceLabel(p, dv) + ": cost " +
                    num(g.outCost[edge.source]))
          << "]";
    dot << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

std::string contractedDot(const Workload& w, const Placement& p, const Evaluation& e) {
  std::ostringstream dot;
  header(dot, w, p, e);
  for (const int d : render::pipelineOrder(w, p)) {
    const DeviceReport* r = render::reportOf(e, p, d);
    if (!r) continue;
    const std::string name = render::deviceLabel(p, d) +
                             (r->replicas > 1 ? " x" + std::to_string(r->replicas) : "");
    dot << "  d" << d << " [id=" << quoted("block_" + std::to_string(d)) << ", label="
        << quoted(name + "\nload " + num(r->load) + "\nmemory " + num(r->memory) + "\n" +
                  std::to_string(r->numNodes) + " nodes")
        << ", fillcolor=" << quoted(render::deviceColour(p, d)) << ", fontsize=12, tooltip="
        << quoted(name + ": " + std::to_string(r->numNodes) + " nodes, load " + num(r->load) +
                  " (forward " + num(r->forwardLoad) + ", backward " + num(r->backwardLoad) +
                  "), memory " + num(r->memory))
        << "];\n";
  }
  // Between two blocks: each source's cost once per destination block.
  std::map<std::pair<int, int>, double> cost;
  std::set<std::pair<NodeIndex, int>> paid;
  for (const Edge& edge : w.graph().edges) {
    const int du = p.deviceOf[edge.source], dv = p.deviceOf[edge.dest];
    if (du == dv || du < 0 || dv < 0) continue;
    double& c = cost[{du, dv}];
    if (paid.emplace(edge.source, dv).second) c += w.graph().outCost[edge.source];
  }
  for (const auto& [pair, c] : cost)
    dot << "  d" << pair.first << " -> d" << pair.second
        << " [penwidth=2.5, color=\"#222222\", label=" << quoted(num(c)) << ", tooltip="
        << quoted(render::deviceLabel(p, pair.first) + " to " + render::deviceLabel(p, pair.second) +
                  ": cost " + num(c))
        << "];\n";
  dot << "}\n";
  return dot.str();
}

}  // namespace

bool rendersFullGraph(const Workload& workload, const RenderOptions& options) {
  switch (options.detail) {
    case RenderDetail::Full: return true;
    case RenderDetail::Contracted: return false;
    case RenderDetail::Auto: break;
  }
  return workload.numNodes() <= options.contractAbove;
}

std::string renderGraphDot(const Workload& workload, const Placement& placement,
                           const Evaluation& evaluation, const RenderOptions& options) {
  return rendersFullGraph(workload, options) ? fullDot(workload, placement, evaluation)
                                             : contractedDot(workload, placement, evaluation);
}

std::optional<std::string> renderGraphSvg(const Workload& workload, const Placement& placement,
                                          const Evaluation& evaluation, const RenderOptions& options,
                                          std::string* error) {
  const std::string dot = renderGraphDot(workload, placement, evaluation, options);
  // Graphviz keeps global state (and its text-size cache outlives a freed
  // context in 2.43): one context for the process, used under a lock.
  static std::mutex graphviz;
  const std::lock_guard lock(graphviz);
  static GVC_t* const context = gvContext();
  if (!context) {
    *error = "graphviz: cannot create a context";
    return std::nullopt;
  }
  std::optional<std::string> svg;
  Agraph_t* graph = agmemread(dot.c_str());
  if (!graph) {
    *error = "graphviz: cannot read the graph of " + workload.name;
  } else if (gvLayout(context, graph, "dot") != 0) {
    *error =
        "graphviz: the dot layout failed (is the graphviz package's plugin configuration installed?)";
    agclose(graph);
  } else {
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(context, graph, "svg", &data, &length) == 0 && data)
      svg = std::string(data, length);
    else
      *error = "graphviz: cannot render SVG";
    if (data) gvFreeRenderData(data);
    gvFreeLayout(context, graph);
    agclose(graph);
  }
  return svg;
}

}  // namespace dnnplace
