// The HTML report (one outcome, or compare's rows), plan files as outcomes,
// and writing a rendering where its file name asks.

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "dnnplace/render.hpp"
#include "dnnplace/report.hpp"
#include "render/svg.hpp"

namespace dnnplace {

namespace {

using render::escape;
using render::num;

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1200px; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 13px; }
td, th { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
.summary td { text-align: left; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: middle; }
.view { overflow: auto; border: 1px solid #eee; padding: 6px; max-height: 900px; }
.view svg { max-width: 100%; height: auto; }
.violations { color: #b00; }
svg rect.bar:hover, svg g.node:hover polygon { stroke: #000; stroke-width: 2; }
#hover { position: fixed; right: 12px; bottom: 12px; background: #ffe; border: 1px solid #ccb;
         padding: 4px 8px; font-size: 12px; display: none; }
)css";

// Plain JavaScript: the title of what the pointer is over, in a box.
constexpr const char* kScript = R"js(
(function () {
  var box = document.getElementById('hover');
  document.addEventListener('mouseover', function (event) {
    var element = event.target, title = null;
    while (element && element !== document && !title) {
      var child = element.querySelector ? element.querySelector(':scope > title') : null;
      if (child) title = child.textContent;
      element = element.parentNode;
    }
    box.style.display = title ? 'block' : 'none';
    if (title) box.textContent = title;
  });
})();
)js";

/// Graphviz's SVG without its XML declaration and doctype, for inlining.
std::string inlineSvg(const std::string& svg) {
  const std::size_t start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

const char* objectiveKind(const EvaluateOptions& options) {
  if (options.objective == Objective::Latency) return "latency";
  return options.diffMaxima ? "max forward + max backward load" : "max load (time per sample)";
}

void open(std::ostringstream& html, const std::string& title) {
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
       << escape(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
}

void close(std::ostringstream& html) {
  html << "<div id=\"hover\"></div>\n<script>" << kScript << "</script>\n</body>\n</html>\n";
}

std::string row(const std::string& name, const std::string& id, double value,
                const std::string& shown) {
  char exact[40];
  std::snprintf(exact, sizeof exact, "%.17g", value);
  return "<tr><td>" + escape(name) + "</td><td id=\"" + id + "\" data-value=\"" + exact + "\">" +
         escape(shown) + "</td></tr>\n";
}

std::string exact(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

/// One outcome's sections: summary, views, device table.
std::optional<std::string> outcomeSections(const Workload& w, const SolveOutcome& outcome,
                                           const RenderOptions& options, std::string* error) {
  const Placement& p = *outcome.placement;
  const Evaluation& e = outcome.evaluation;
  RenderOptions drawn = options;
  drawn.lowerBound = outcome.lowerBound;
  const auto graph = renderGraphSvg(w, p, e, drawn, error);
  if (!graph) return std::nullopt;
  std::ostringstream html;
  html << "<section class=\"summary\">\n<h2>Summary</h2>\n<table>\n";
  html << "<tr><td>workload</td><td>" << escape(w.name) << "</td></tr>\n";
  html << "<tr><td>method</td><td id=\"method\">" << escape(outcome.method) << "</td></tr>\n";
  html << "<tr><td>status</td><td id=\"status\">"
       << escape(outcome.placement && !e.feasible ? "infeasible plan" : resultName(outcome))
       << "</td></tr>\n";
  html << row(std::string("objective: ") + objectiveKind(options.evaluate), "objective", e.objective,
              num(e.objective));
  html << row("lower bound", "bound", outcome.lowerBound,
              outcome.lowerBound > 0 ? num(outcome.lowerBound) : "none");
  html << row("gap", "gap", outcome.gap, outcome.lowerBound > 0 ? num(100 * outcome.gap) + " %" : "-");
  html << row("seconds", "seconds", outcome.seconds, num(outcome.seconds));
  html << "<tr><td>machine</td><td id=\"machine\">" << w.machine.maxFpgas << " accelerators of "
       << num(w.machine.maxSizePerFpga) << " bytes, " << w.machine.maxCpus
       << (w.machine.maxCpus == 1 ? " CPU core" : " CPU cores")
       << (w.machine.syncBandwidth > 0 ? ", all-reduce " + num(w.machine.syncBandwidth) + " bytes/ms"
                                       : "")
       << "</td></tr>\n";
  html << "<tr><td>graph</td><td>" << w.numNodes() << " nodes, " << w.graph().edges.size() << " edges"
       << (e.contiguous ? "" : "; blocks not contiguous") << "</td></tr>\n";
  html << "</table>\n";
  if (!e.violations.empty()) {
    html << "<ul class=\"violations\">\n";
    for (const auto& v : e.violations) html << "<li>" << escape(v) << "</li>\n";
    html << "</ul>\n";
  }
  if (!outcome.message.empty()) html << "<p>" << escape(outcome.message) << "</p>\n";
  html << "</section>\n";
  html << "<section class=\"graph-view\">\n<h2>Graph: "
       << (rendersFullGraph(w, options) ? "every node" : "one box per device block") << "</h2>\n"
       << "<div class=\"view\">" << inlineSvg(*graph) << "</div>\n</section>\n";
  html << "<section class=\"timeline-view\">\n<h2>"
       << (options.evaluate.objective == Objective::Latency ? "Schedule of one sample"
                                                            : "Pipeline (steady state)")
       << "</h2>\n<div class=\"view\">" << renderTimelineSvg(w, p, e, drawn) << "</div>\n</section>\n";
  html << "<section class=\"bars-view\">\n<h2>Load and memory</h2>\n<div class=\"view\">"
       << renderBarsSvg(w, p, e, drawn) << "</div>\n</section>\n";
  const bool latency = options.evaluate.objective == Objective::Latency;
  html << "<section class=\"devices\">\n<h2>Devices</h2>\n<table "
          "class=\"device-table\">\n<tr><th>device</th>"
          "<th>replicas</th><th>nodes</th><th>load</th><th>forward</th><th>backward</th>"
          "<th>all-reduce</th><th>memory</th>"
       << (latency ? "<th>subgraphs</th><th>finish</th>" : "") << "</tr>\n";
  for (const int d : render::pipelineOrder(w, p)) {
    const DeviceReport* r = render::reportOf(e, p, d);
    if (!r) continue;
    html << "<tr class=\"device\" data-device=\"" << render::deviceLabel(p, d) << "\" data-load=\""
         << exact(r->load) << "\" data-memory=\"" << exact(r->memory) << "\" data-replicas=\""
         << r->replicas << "\" data-nodes=\"" << r->numNodes
         << "\"><td><span class=\"swatch\" style=\"background:" << render::deviceColour(p, d)
         << "\"></span>" << render::deviceLabel(p, d) << "</td><td>" << r->replicas << "</td><td>"
         << r->numNodes << "</td><td>" << num(r->load) << "</td><td>" << num(r->forwardLoad)
         << "</td><td>" << num(r->backwardLoad) << "</td><td>" << num(r->syncLoad) << "</td><td>"
         << (r->accelerator ? num(r->memory) : "-") << "</td>";
    if (latency) html << "<td>" << r->pieces << "</td><td>" << num(r->finish) << "</td>";
    html << "</tr>\n";
  }
  html << "</table>\n</section>\n";
  return html.str();
}

/// compare's chart: one bar per method with a plan, its bound as a tick.
std::string compareChart(const std::vector<const CompareRow*>& rows) {
  double most = 0;
  for (const CompareRow* r : rows)
    if (hasPlan(r->outcome)) most = std::max({most, r->outcome.objective, r->outcome.lowerBound});
  most = std::max(most, 1e-300);
  constexpr double kLabel = 190, kWidth = 560, kRow = 22;
  const double height = 20 + kRow * static_cast<double>(rows.size()) + 30;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"compare-chart\" width=\""
      << num(kLabel + kWidth + 120) << "\" height=\"" << num(height)
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>objective per method</title>\n";
  double y = 10;
  for (const CompareRow* r : rows) {
    const SolveOutcome& o = r->outcome;
    svg << "<g class=\"method\" data-method=\"" << escape(o.method) << "\" data-objective=\""
        << exact(o.objective) << "\">\n<text x=\"4\" y=\"" << num(y + 15) << "\">" << escape(o.method)
        << "</text>\n";
    if (hasPlan(o)) {
      svg << "<rect class=\"objective\" x=\"" << num(kLabel) << "\" y=\"" << num(y + 4) << "\" width=\""
          << num(o.objective / most * kWidth) << "\" height=\"" << num(kRow - 8)
          << "\" fill=\"#4e79a7\"><title>" << escape(o.method + ": objective " + num(o.objective))
          << "</title></rect>\n<text x=\"" << num(kLabel + o.objective / most * kWidth + 6) << "\" y=\""
          << num(y + 15) << "\">" << num(o.objective) << "</text>\n";
    } else {
      svg << "<text x=\"" << num(kLabel) << "\" y=\"" << num(y + 15) << "\" fill=\"#b00\">"
          << escape(resultName(o)) << "</text>\n";
    }
    if (o.lowerBound > 0) {
      const double x = kLabel + o.lowerBound / most * kWidth;
      svg << "<line class=\"bound\" x1=\"" << num(x) << "\" y1=\"" << num(y + 1) << "\" x2=\"" << num(x)
          << "\" y2=\"" << num(y + kRow - 1) << "\" stroke=\"#2a7\" stroke-width=\"3\"><title>"
          << escape(o.method + ": lower bound " + num(o.lowerBound)) << "</title></line>\n";
    }
    svg << "</g>\n";
    y += kRow;
  }
  svg << "<text x=\"" << num(kLabel) << "\" y=\"" << num(y + 18)
      << "\">bars: objective; green ticks: each method's lower bound</text>\n</svg>\n";
  return svg.str();
}

}  // namespace

std::optional<RenderFormat> renderFormatOf(const std::string& path, std::string* error) {
  const std::size_t dot = path.rfind('.');
  const std::string extension = dot == std::string::npos ? "" : path.substr(dot);
  if (extension == ".html") return RenderFormat::Html;
  if (extension == ".svg") return RenderFormat::Svg;
  if (extension == ".dot") return RenderFormat::Dot;
  *error = path + ": unknown extension '" + extension + "' (expected .html, .svg or .dot)";
  return std::nullopt;
}

std::optional<std::string> renderReport(const Workload& workload, const SolveOutcome& outcome,
                                        const RenderOptions& options, std::string* error) {
  if (!outcome.placement) {
    *error = outcome.method + ": no plan to render";
    return std::nullopt;
  }
  const auto sections = outcomeSections(workload, outcome, options, error);
  if (!sections) return std::nullopt;
  std::ostringstream html;
  open(html, "dnnplace: " + workload.name + ", " + outcome.method);
  html << "<h1>" << escape(workload.name) << ": " << escape(outcome.method) << "</h1>\n" << *sections;
  close(html);
  return html.str();
}

std::optional<std::string> renderCompareReport(const std::vector<const Workload*>& workloads,
                                               const std::vector<CompareRow>& rows,
                                               const RenderOptions& options, std::string* error) {
  std::ostringstream html;
  open(html, "dnnplace compare");
  html << "<h1>Comparison</h1>\n";
  for (const Workload* w : workloads) {
    std::vector<const CompareRow*> mine;
    for (const auto& r : rows)
      if (r.workload == w->name) mine.push_back(&r);
    if (mine.empty()) continue;
    html << "<section class=\"workload\">\n<h2>" << escape(w->name) << "</h2>\n<div class=\"view\">"
         << compareChart(mine) << "</div>\n";
    const CompareRow* best = nullptr;
    for (const CompareRow* r : mine)
      if (hasPlan(r->outcome) && r->outcome.evaluation.feasible &&
          (!best || r->outcome.objective < best->outcome.objective))
        best = r;
    if (best) {
      html << "<h2>Best plan: " << escape(best->outcome.method) << "</h2>\n";
      const auto sections = outcomeSections(*w, best->outcome, options, error);
      if (!sections) return std::nullopt;
      html << *sections;
    }
    html << "</section>\n";
  }
  close(html);
  return html.str();
}

std::optional<SolveOutcome> outcomeOfPlanFile(const Workload& workload, const std::string& path,
                                              const EvaluateOptions& options, std::string* error) {
  const auto plan = loadPlan(path, error);
  if (!plan) return std::nullopt;
  return outcomeOfPlan(workload, *plan, inputName(path), options, error);
}

std::optional<SolveOutcome> outcomeOfPlan(const Workload& workload, const PlanFile& plan,
                                          const std::string& name, const EvaluateOptions& options,
                                          std::string* error) {
  if (!checkReplicas(workload, plan, name, error)) return std::nullopt;
  std::vector<std::string> problems;
  Placement placement = resolvePlan(workload, plan, &problems);
  if (!problems.empty()) {
    *error = name + ": " + problems.front() + " (a plan for another workload?)";
    return std::nullopt;
  }
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    if (placement.deviceOf[v] == Placement::kUnplaced) {
      *error = name + ": node " + std::to_string(workload.graph().nodes[v].id) + " of " +
               workload.name + " is on no device (a plan for another workload?)";
      return std::nullopt;
    }
  SolveOutcome outcome;
  outcome.method = "plan " + name;
  outcome.evaluation = evaluate(workload, placement, options);
  outcome.objective = outcome.evaluation.objective;
  outcome.status = outcome.evaluation.feasible ? SolveStatus::Feasible : SolveStatus::Infeasible;
  if (options.objective == Objective::Throughput && !options.diffMaxima) {
    // A plan with replicated stages may go below the bound of placements
    // without them (docs/model.md §9): the one that holds with replicas.
    // (Without syncBandwidth replicas make the plan infeasible: the bound without them stands.)
    bool replicated = false;
    for (int a = 0; a < placement.numAccelerators; ++a) replicated |= placement.replicasOf(a) > 1;
    replicated = replicated && workload.machine.syncBandwidth > 0;
    outcome.lowerBound = replicated ? replicatedThroughputLowerBound(workload)
                                    : trivialThroughputLowerBound(workload);
    if (outcome.objective > 0)
      outcome.gap = std::max(0.0, (outcome.objective - outcome.lowerBound) / outcome.objective);
  }
  outcome.placement = std::move(placement);
  return outcome;
}

std::optional<std::string> renderToFile(const Workload& workload, const SolveOutcome& outcome,
                                        const std::string& path, const RenderOptions& options) {
  std::string error;
  const auto format = renderFormatOf(path, &error);
  if (!format) return error;
  if (!outcome.placement) return outcome.method + ": no plan to render";
  std::optional<std::string> text;
  const Placement& p = *outcome.placement;
  if (*format == RenderFormat::Html)
    text = renderReport(workload, outcome, options, &error);
  else if (*format == RenderFormat::Dot)
    text = renderGraphDot(workload, p, outcome.evaluation, options);
  else if (options.view == RenderView::Timeline)
    text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
           renderTimelineSvg(workload, p, outcome.evaluation, options);
  else
    text = renderGraphSvg(workload, p, outcome.evaluation, options, &error);
  if (!text) return error;
  if (!writeText(path, *text, &error)) return error;
  return std::nullopt;
}

}  // namespace dnnplace
