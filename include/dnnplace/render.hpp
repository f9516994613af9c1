#pragma once
/// Drawing a plan (docs/render.md): the graph coloured by device (Graphviz,
/// in-process), the pipeline timeline, load and memory bars per device, and
/// one self-contained HTML report. Every number drawn is the evaluator's.

#include <optional>
#include <string>
#include <vector>

#include "dnnplace/compare.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

enum class RenderView { Graph, Timeline };
enum class RenderDetail { Auto, Full, Contracted };
enum class RenderFormat { Html, Svg, Dot };

struct RenderOptions {
  RenderView view = RenderView::Graph;       ///< .svg and .dot: which view
  RenderDetail detail = RenderDetail::Auto;  ///< graph view: Auto contracts large graphs
  int contractAbove = 300;                   ///< Auto: one box per block above this many nodes
  int samples = 4;                           ///< timeline: consecutive samples drawn
  double lowerBound = 0;                     ///< bars: a bound drawn as a line (0: none)
  EvaluateOptions evaluate;                  ///< objective, q, diffMaxima of the plan
};

/// The format a file name asks for: .html, .svg or .dot; else nullopt and
/// *error ("NAME: unknown extension ...").
std::optional<RenderFormat> renderFormatOf(const std::string& path, std::string* error);

/// Whether the graph view of `workload` draws every node (else one box per block).
bool rendersFullGraph(const Workload& workload, const RenderOptions& options);

/// The graph view as Graphviz DOT text.
std::string renderGraphDot(const Workload& workload, const Placement& placement,
                           const Evaluation& evaluation, const RenderOptions& options);
/// The graph view laid out by Graphviz's dot (libgvc, in-process) as SVG;
/// nullopt and *error if Graphviz fails.
std::optional<std::string> renderGraphSvg(const Workload& workload, const Placement& placement,
                                          const Evaluation& evaluation, const RenderOptions& options,
                                          std::string* error);
/// The timeline as SVG: the steady-state pipeline of a throughput plan, or the
/// single-sample schedule of a latency plan (docs/model.md §5) with its critical path.
std::string renderTimelineSvg(const Workload& workload, const Placement& placement,
                              const Evaluation& evaluation, const RenderOptions& options);
/// Load (compute, communication, forward, backward, all-reduce) and memory bars per device.
std::string renderBarsSvg(const Workload& workload, const Placement& placement,
                          const Evaluation& evaluation, const RenderOptions& options);

/// The HTML report of one outcome (its placement and evaluation are required):
/// summary, graph, timeline, bars and device table.
std::optional<std::string> renderReport(const Workload& workload, const SolveOutcome& outcome,
                                        const RenderOptions& options, std::string* error);
/// compare's report: per workload, a bar chart of each method's objective with
/// its bound, and the report of its best plan. `workloads` are those compared.
std::optional<std::string> renderCompareReport(const std::vector<const Workload*>& workloads,
                                               const std::vector<CompareRow>& rows,
                                               const RenderOptions& options, std::string* error);

/// An outcome for a plan file: the evaluator's verdict on it (method "plan").
/// Unknown ids make it infeasible. nullopt and *error if the file is not a plan
/// or its replicas do not fit the machine.
std::optional<SolveOutcome> outcomeOfPlanFile(const Workload& workload, const std::string& path,
                                              const EvaluateOptions& options, std::string* error);
/// The same for a plan already read; `name` stands for it in messages.
std::optional<SolveOutcome> outcomeOfPlan(const Workload& workload, const PlanFile& plan,
                                          const std::string& name, const EvaluateOptions& options,
                                          std::string* error);

/// Renders `outcome` to `path` in the format its extension names (.html: the
/// report; .svg: options.view; .dot: the graph). nullopt on success, else the
/// one-line error (an unknown extension, an unwritable path, Graphviz failing).
std::optional<std::string> renderToFile(const Workload& workload, const SolveOutcome& outcome,
                                        const std::string& path, const RenderOptions& options);

}  // namespace dnnplace
