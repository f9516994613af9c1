// The timeline (steady-state pipeline or single-sample schedule) and the
// load and memory bars: hand-written SVG.

#include <algorithm>
#include <sstream>

#include "dnnplace/render.hpp"
#include "render/schedule.hpp"
#include "render/svg.hpp"

namespace dnnplace {

namespace {

using render::escape;
using render::num;

constexpr double kLabelWidth = 150, kPlotWidth = 760, kRowHeight = 22, kTop = 30;
constexpr const char* kCommunication = "#5a5a5a";
constexpr const char* kSync = "#1f1f1f";
constexpr const char* kSamplePalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                          "#b07aa1", "#76b7b2", "#edc948", "#9c755f"};

void openSvg(std::ostringstream& svg, double width, double height, const std::string& cls,
             const std::string& title) {
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" << cls << "\" width=\"" << num(width)
      << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width) << ' ' << num(height)
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" << escape(title) << "</title>\n";
}

void rect(std::ostringstream& svg, double x, double y, double w, double h, const std::string& fill,
          const std::string& cls, const std::string& tip, const std::string& extra = "") {
  svg << "<rect class=\"" << cls << "\" x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\""
      << num(std::max(w, 0.0)) << "\" height=\"" << num(h) << "\" fill=\"" << fill << '"' << extra
      << "><title>" << escape(tip) << "</title></rect>\n";
}

void text(std::ostringstream& svg, double x, double y, const std::string& content,
          const std::string& extra = "") {
  svg << "<text x=\"" << num(x) << "\" y=\"" << num(y) << '"' << extra << '>' << escape(content)
      << "</text>\n";
}

void legend(std::ostringstream& svg, double y,
            const std::vector<std::pair<std::string, std::string>>& items) {
  double x = kLabelWidth;
  for (const auto& [fill, label] : items) {
    rect(svg, x, y - 10, 12, 12, fill, "key", label);
    text(svg, x + 16, y, label);
    x += 26 + 7.0 * static_cast<double>(label.size());
  }
}

/// Time axis ticks under the rows.
void axis(std::ostringstream& svg, double y, double span, double scale) {
  svg << "<line x1=\"" << num(kLabelWidth) << "\" y1=\"" << num(y) << "\" x2=\""
      << num(kLabelWidth + kPlotWidth) << "\" y2=\"" << num(y) << "\" stroke=\"#333\"/>\n";
  for (int i = 0; i <= 5; ++i) {
    const double t = span * i / 5, x = kLabelWidth + t * scale;
    svg << "<line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x) << "\" y2=\""
        << num(y + 4) << "\" stroke=\"#333\"/>\n";
    text(svg, x, y + 16, num(t), " text-anchor=\"middle\"");
  }
}

std::string throughputTimeline(const Workload& w, const Placement& p, const Evaluation& e,
                               const RenderOptions& options) {
  const std::vector<int> stages = render::pipelineOrder(w, p);
  const auto split = render::computeSplit(w, p);
  double period = 0;
  for (const auto& r : e.devices) period = std::max(period, r.load);
  int rows = 0;
  for (const int d : stages) rows += p.isAccelerator(d) ? std::max(p.replicasOf(d), 1) : 1;
  const int samples = std::max(options.samples, 1);
  const double span = std::max(period * (samples + static_cast<int>(stages.size()) - 1), 1e-300);
  const double scale = kPlotWidth / span;
  const double height = kTop + rows * kRowHeight + 80;
  std::ostringstream svg;
  openSvg(svg, kLabelWidth + kPlotWidth + 20, height, "timeline throughput",
          "Steady-state pipeline of " + w.name);
  double y = kTop;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const int d = stages[i];
    const DeviceReport* report = render::reportOf(e, p, d);
    if (!report) continue;
    const int replicas = p.isAccelerator(d) ? std::max(p.replicasOf(d), 1) : 1;
    const bool bottleneck = sameObjective(report->load, period);
    for (int j = 0; j < replicas; ++j, y += kRowHeight) {
      const std::string name = render::deviceLabel(p, d) +
                               (replicas > 1 ? " r" + std::to_string(j + 1) : "");
      svg << "<g class=\"row" << (bottleneck ? " bottleneck" : "") << "\" data-device=\""
          << escape(render::deviceLabel(p, d)) << "\" data-replica=\"" << j + 1 << "\">\n";
      text(svg, 4, y + 15, name + (bottleneck ? "  (bottleneck)" : ""),
           bottleneck ? " font-weight=\"bold\" fill=\"#c00\"" : "");
      if (bottleneck)
        rect(svg, kLabelWidth, y + 1, kPlotWidth, kRowHeight - 2, "#fde0dd", "bottleneck-band",
             render::deviceLabel(p, d) + " is the bottleneck: load " + num(report->load));
      // One replica of r runs every r-th sample, each taking r times its per-sample share.
      const double r = replicas;
      const render::ComputeSplit c = split[d];
      const std::pair<double, std::string> parts[] = {{c.forward * r, ""},
                                                      {(report->forwardLoad - c.forward) * r,
                                                       kCommunication},
                                                      {c.backward * r, ""},
                                                      {(report->backwardLoad - c.backward) * r,
                                                       kCommunication},
                                                      {report->syncLoad * r, kSync}};
      const char* kinds[] = {"forward", "communication forward", "backward", "communication backward",
                             "sync"};
      for (int s = j; s < samples; s += replicas) {
        double x = (s + static_cast<double>(i)) * period;
        const std::string colour = kSamplePalette[s % std::size(kSamplePalette)];
        for (int k = 0; k < 5; ++k) {
          const double length = parts[k].first;
          if (length <= 0) continue;
          const std::string fill = parts[k].second.empty() ? colour : parts[k].second;
          const std::string extra = k == 2 ? " fill-opacity=\"0.55\"" : "";
          rect(svg, kLabelWidth + x * scale, y + 4, length * scale, kRowHeight - 8, fill,
               std::string("bar ") + kinds[k],
               "sample " + std::to_string(s + 1) + " on " + name + ": " + kinds[k] + " " + num(length) +
                   " from " + num(x),
               extra);
          x += length;
        }
      }
      svg << "</g>\n";
    }
  }
  axis(svg, y + 4, span, scale);
  legend(svg, y + 40,
         {{kSamplePalette[0], "forward (colour: sample)"},
          {"#a7bcd3", "backward"},
          {kCommunication, "communication"},
          {kSync, "all-reduce"}});
  text(svg, kLabelWidth, 18,
       "time per sample " + num(period) + ", throughput " + num(period > 0 ? 1 / period : 0) +
           " samples per time unit; " + std::to_string(samples) + " consecutive samples",
       " class=\"caption\"");
  svg << "</svg>\n";
  return svg.str();
}

std::string latencyTimeline(const Workload& w, const Placement& p, const RenderOptions&) {
  const auto schedule = render::latencySchedule(w, p);
  std::ostringstream svg;
  if (!schedule) {
    openSvg(svg, kLabelWidth + kPlotWidth, 60, "timeline latency", "No schedule");
    text(svg, 10, 30, "no schedule: subgraphs wait on each other in a cycle or a node is unplaced");
    svg << "</svg>\n";
    return svg.str();
  }
  const std::vector<int> devices = render::pipelineOrder(w, p);
  const double span = std::max(schedule->makespan, 1e-300), scale = kPlotWidth / span;
  const double height = kTop + static_cast<double>(devices.size()) * kRowHeight + 80;
  openSvg(svg, kLabelWidth + kPlotWidth + 20, height, "timeline latency",
          "Single-sample schedule of " + w.name);
  double y = kTop;
  for (const int d : devices) {
    svg << "<g class=\"row\" data-device=\"" << escape(render::deviceLabel(p, d)) << "\">\n";
    text(svg, 4, y + 15, render::deviceLabel(p, d));
    for (const auto& task : schedule->tasks) {
      if (task.device != d) continue;
      const std::string what = task.piece > 0
                                   ? "subgraph " + std::to_string(task.piece) + " (" +
                                         std::to_string(task.numNodes) + " nodes)"
                                   : "node " + std::to_string(w.graph().nodes[task.node].id) +
                                         (w.graph().nodes[task.node].name.empty()
                                              ? ""
                                              : " " + w.graph().nodes[task.node].name);
      const std::string tip = render::deviceLabel(p, d) + " " + what + ": " + num(task.start) + " to " +
                              num(task.finish) + " (compute " + num(task.compute) + ", communication " +
                              num(task.communication) + ")" +
                              (task.critical ? ", on the critical path" : "");
      const std::string stroke = task.critical ? " stroke=\"#c00\" stroke-width=\"2\"" : "";
      const std::string cls = task.critical ? "bar critical" : "bar";
      rect(svg, kLabelWidth + task.start * scale, y + 4, task.compute * scale, kRowHeight - 8,
           render::deviceColour(p, d), cls + " compute", tip, stroke);
      rect(svg, kLabelWidth + (task.start + task.compute) * scale, y + 4, task.communication * scale,
           kRowHeight - 8, kCommunication, cls + " communication", tip, stroke);
    }
    svg << "</g>\n";
    y += kRowHeight;
  }
  axis(svg, y + 4, span, scale);
  legend(svg, y + 40, {{"#4e79a7", "compute (colour: device)"}, {kCommunication, "communication"}});
  svg << "<rect x=\"" << num(kLabelWidth + 420) << "\" y=\"" << num(y + 30)
      << "\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"#c00\" stroke-width=\"2\"/>\n";
  text(svg, kLabelWidth + 436, y + 40, "critical path");
  text(svg, kLabelWidth, 18, "latency " + num(schedule->makespan) + " for one sample; gaps are waiting",
       " class=\"caption\"");
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace

std::string renderTimelineSvg(const Workload& workload, const Placement& placement,
                              const Evaluation& evaluation, const RenderOptions& options) {
  return options.evaluate.objective == Objective::Latency
             ? latencyTimeline(workload, placement, options)
             : throughputTimeline(workload, placement, evaluation, options);
}

std::string renderBarsSvg(const Workload& workload, const Placement& placement,
                          const Evaluation& evaluation, const RenderOptions& options) {
  const std::vector<int> devices = render::pipelineOrder(workload, placement);
  const auto split = render::computeSplit(workload, placement);
  const bool latency = options.evaluate.objective == Objective::Latency;
  double most = std::max(options.lowerBound, evaluation.objective);
  for (const auto& r : evaluation.devices) most = std::max(most, r.load);
  most = std::max(most, 1e-300);
  const double capacity = workload.machine.maxSizePerFpga;
  double mostMemory = capacity;
  for (const auto& r : evaluation.devices) mostMemory = std::max(mostMemory, r.memory);
  mostMemory = std::max(mostMemory, 1e-300);
  constexpr double kLoadWidth = 420, kGap = 40, kMemoryWidth = 300;
  const double memoryX = kLabelWidth + kLoadWidth + kGap;
  const double height = kTop + static_cast<double>(devices.size()) * kRowHeight + 70;
  std::ostringstream svg;
  openSvg(svg, memoryX + kMemoryWidth + 20, height, "bars", "Load and memory per device");
  text(svg, kLabelWidth, 18, latency ? "busy time per device" : "load per sample",
       " font-weight=\"bold\"");
  text(svg, memoryX, 18, "memory (capacity " + num(capacity) + ")", " font-weight=\"bold\"");
  double y = kTop;
  for (const int d : devices) {
    const DeviceReport* r = render::reportOf(evaluation, placement, d);
    if (!r) continue;
    const std::string name = render::deviceLabel(placement, d) +
                             (r->replicas > 1 ? " x" + std::to_string(r->replicas) : "");
    svg << "<g class=\"device-bars\" data-device=\"" << escape(render::deviceLabel(placement, d))
        << "\">\n";
    text(svg, 4, y + 15, name);
    const double scale = kLoadWidth / most;
    double x = kLabelWidth;
    auto part = [&](double value, const std::string& fill, const std::string& what,
                    const std::string& extra = "") {
      if (value <= 0) return;
      rect(svg, x, y + 4, value * scale, kRowHeight - 8, fill, "load " + what,
           name + " " + what + ": " + num(value), extra);
      x += value * scale;
    };
    if (latency) {
      part(r->load, render::deviceColour(placement, d), "busy");
    } else {
      const render::ComputeSplit c = split[d];
      const std::string colour = render::deviceColour(placement, d);
      part(c.forward, colour, "forward-compute");
      part(r->forwardLoad - c.forward, kCommunication, "forward-communication");
      part(c.backward, colour, "backward-compute", " fill-opacity=\"0.55\"");
      part(r->backwardLoad - c.backward, "#8c8c8c", "backward-communication");
      part(r->syncLoad, kSync, "all-reduce");
    }
    text(svg, x + 4, y + 15, num(r->load));
    if (r->accelerator) {
      const double memoryScale = kMemoryWidth / mostMemory;
      const bool over = capacity > 0 && r->memory > capacity * (1 + 1e-12);
      rect(svg, memoryX, y + 4, r->memory * memoryScale, kRowHeight - 8, over ? "#e15759" : "#76b7b2",
           "memory", name + " memory " + num(r->memory) + " of " + num(capacity));
      if (capacity > 0)
        svg << "<line class=\"capacity\" x1=\"" << num(memoryX + capacity * memoryScale) << "\" y1=\""
            << num(y + 1) << "\" x2=\"" << num(memoryX + capacity * memoryScale) << "\" y2=\""
            << num(y + kRowHeight - 1) << "\" stroke=\"#000\" stroke-width=\"2\"/>\n";
    }
    svg << "</g>\n";
    y += kRowHeight;
  }
  auto vertical = [&](double value, const std::string& colour, const std::string& cls,
                      const std::string& label, const char* anchor) {
    const double x = kLabelWidth + value * kLoadWidth / most;
    svg << "<line class=\"" << cls << "\" x1=\"" << num(x) << "\" y1=\"" << num(kTop - 4) << "\" x2=\""
        << num(x) << "\" y2=\"" << num(y + 4) << "\" stroke=\"" << colour
        << "\" stroke-width=\"2\" stroke-dasharray=\"5,3\"><title>" << escape(label + " " + num(value))
        << "</title></line>\n";
    // A few pixels off the line, so that a bound equal to the objective
    // keeps its label apart from the objective's.
    text(svg, x + (std::string(anchor) == "end" ? -4 : 4), y + 18, label + " " + num(value),
         std::string(" text-anchor=\"") + anchor + "\" fill=\"" + colour + "\"");
  };
  if (options.lowerBound > 0) vertical(options.lowerBound, "#2a7", "bound", "lower bound", "end");
  if (evaluation.objective > 0 && !options.evaluate.diffMaxima)
    vertical(evaluation.objective, "#c00", "objective", latency ? "latency" : "max load", "start");
  if (!latency)
    legend(svg, y + 45,
           {{"#4e79a7", "forward compute"},
            {kCommunication, "forward comm."},
            {"#a7bcd3", "backward compute"},
            {"#8c8c8c", "backward comm."},
            {kSync, "all-reduce"}});
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace dnnplace
