#include "commands.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include <unistd.h>

#include "dnnplace/compare.hpp"
#include "dnnplace/info.hpp"
#include "dnnplace/render.hpp"
#include "dnnplace/report.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::cli {

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

int fail(const std::string& message, int code) {
  std::cerr << "dnnplace: " << oneLine(message) << "\n";
  return code;
}

/// A result that never reached standard output (a full disk, a closed pipe)
/// is lost: say so rather than exit 0.
int afterOutput(int code) {
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int failed = fail("standard output: cannot write");
    return code == kOk ? failed : code;
  }
  return code;
}

/// A workload that would not load, with a hint when it is a model file.
int loadFailed(const std::string& path, const std::string& error) {
  const bool onnx = path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
  return fail(onnx ? error + " (an ONNX model? 'dnnplace import onnx' makes a workload of it)" : error);
}

int exitCodeFor(const SolveOutcome& outcome) {
  switch (outcome.call) {
    case CallStatus::Ok: break;
    case CallStatus::InvalidInput: return kInvalid;
    case CallStatus::InternalError: return kInternal;
  }
  switch (outcome.status) {
    case SolveStatus::Optimal:
    case SolveStatus::Feasible: return kOk;
    case SolveStatus::Infeasible: return kInfeasible;
    case SolveStatus::NoPlan: return kLimit;
  }
  return kInternal;
}

/// The DP shares its work among threads; other methods run on one.
int defaultThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(cores, 1u, 256u));
}

/// Half the machine's memory: where the DP stops (returning its best plan)
/// rather than drive the machine into swap or the out-of-memory killer. A
/// graph of 40 independent nodes has 2^40 ideals. 0 if the size is unknown.
std::uint64_t defaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize) / 2;
}

/// Progress on a terminal's stderr, for a run of `options`.
void showProgress(bool quiet, SolveOptions* options) {
  if (!quiet && isatty(STDERR_FILENO))
    options->progress = [](const std::string& line) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    };
  options->interrupt = &g_interrupted;
  std::signal(SIGINT, onInterrupt);
}

void clearProgress(bool quiet) {
  if (!quiet && isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
}

int runSolve(SolveArgs& args, OptionSet given) {
  const MethodInfo* method = findMethod(args.method);
  if (!method) return fail("solve: " + unknownMethod(args.method));
  if (const std::string why = ignoredOption(method, args.options.objective, given); !why.empty())
    return fail("solve: " + why);
  std::vector<PhaseTime> phases;
  PhaseTimes timer(&phases);  // load, validate, the method's, verify, write
  std::string error;
  std::optional<Workload> workload;
  if (auto text = timer.time("load", [&] {
        return readFile(args.workload, &error, readLimitFor(args.options.memoryLimitBytes));
      }))
    workload =
        timer.time("validate", [&] { return parseWorkload(*text, inputName(args.workload), &error); });
  if (!workload) return loadFailed(args.workload, error);

  args.options.contiguity = args.contiguity == "convex" ? Contiguity::Convex : Contiguity::None;
  args.options.expertPlanPath = args.plan;
  args.options.contractLayers = args.contractLayers;
  // Where the results go, before the run they would be lost after.
  std::string reportError;
  if (!args.report.empty() && !renderFormatOf(args.report, &reportError)) return fail(reportError);
  for (const std::string& path : {args.out, args.report})
    if (const std::string why = unwritablePath(path); !why.empty()) return fail(why);
  if (const std::string why = unwritablePath(args.options.writeModelPath); !why.empty())
    return fail(args.method + ": --write-model: " + why);
  showProgress(args.quiet, &args.options);
  const SolveOutcome outcome = solve(*workload, args.method, args.options);
  clearProgress(args.quiet);
  // A plan the re-check rejected is never written, not even with its status.
  if (outcome.call == CallStatus::InternalError)
    return fail(args.method + ": " + outcome.message, kInternal);
  if (!outcome.placement) {
    const std::string why = outcome.message.empty() ? resultName(outcome) : outcome.message;
    return fail(args.method + ": " + why, exitCodeFor(outcome));
  }
  phases.insert(phases.end(), outcome.phases.begin(), outcome.phases.end());
  const EvaluateOptions evaluated = evaluateOptionsFor(args.options);
  if (!timer.time("write", [&] {
        return writeText(args.out, planToJson(*workload, outcome, evaluated), &error);
      }))
    return fail(error);
  if (!args.report.empty()) {
    RenderOptions render;
    render.evaluate = evaluated;
    if (const auto failed = renderToFile(*workload, outcome, args.report, render)) return fail(*failed);
  }
  if (!args.quiet) std::cerr << outcomeSummary(*workload, outcome, evaluated);
  if (args.verbose) std::cerr << phasesLine(phases);
  return exitCodeFor(outcome);
}

int runEvaluate(const EvaluateArgs& args, OptionSet given) {
  if (const std::string why = ignoredOption(nullptr, args.options.objective, given); !why.empty())
    return fail("evaluate: " + why);
  if (args.workload == "-" && args.plan == "-")
    return fail("evaluate: the workload and the plan cannot both be standard input");
  std::string error;
  const auto workload = loadWorkload(args.workload, &error);
  if (!workload) return loadFailed(args.workload, error);
  const auto evaluation = evaluatePlanFile(*workload, args.plan, args.options, &error);
  if (!evaluation) return fail(error);
  std::cout << (args.format == "json" ? evaluationToJson(*evaluation, args.options)
                                      : evaluationToText(*evaluation, args.options));
  return evaluation->feasible ? kOk : kInfeasible;
}

int runInfo(const InfoArgs& args) {
  std::string error;
  const auto workload = loadWorkload(args.workload, &error);
  if (!workload) return loadFailed(args.workload, error);
  std::cout << statisticsToText(*workload,
                                workloadStatistics(*workload, args.maxIdeals, args.timeLimitSeconds));
  return kOk;
}

int runGenerate(GenerateArgs& args) {
  if (!parseGraphShape(args.shape, &args.options.shape))
    return fail("generate: unknown shape '" + args.shape +
                "' (expected chain, transformer, cnn or series-parallel)");
  std::string error;
  if (!validGeneratorOptions(args.options, &error)) return fail("generate: " + error);
  if (!writeText(args.out, workloadToJson(generateWorkload(args.options)), &error)) return fail(error);
  return kOk;
}

int runCompare(CompareArgs& args, OptionSet given) {
  if (const std::string why = ignoredOption(nullptr, args.options.objective, given); !why.empty())
    return fail("compare: " + why);
  std::vector<Workload> workloads;
  std::string error;
  for (const auto& path : args.workloads) {
    auto workload = loadWorkload(path, &error, readLimitFor(args.options.memoryLimitBytes));
    if (!workload) return loadFailed(path, error);
    workloads.push_back(std::move(*workload));
  }
  const auto names =
      methodsToCompare(args.methods, args.options.objective, &error, args.options.diffMaxima);
  if (!names) return fail("compare: " + error);
  if (!args.report.empty() && renderFormatOf(args.report, &error) != RenderFormat::Html)
    return fail("compare: " + args.report + ": the report is HTML (expected a .html file name)");
  if (const std::string why = unwritablePath(args.report); !why.empty()) return fail(why);
  std::vector<const Workload*> pointers;
  for (const auto& w : workloads) pointers.push_back(&w);
  // Every replicated row would be refused: say so once, as solve does.
  if (const std::string why = replicateRefusal(pointers, *names, args.options); !why.empty())
    return fail("compare: " + why);
  showProgress(args.quiet, &args.options);
  const auto rows = compareMethods(pointers, *names, args.options);
  clearProgress(args.quiet);
  std::cout << formatComparison(rows, args.format);
  if (!args.report.empty()) {
    RenderOptions render;
    render.evaluate = evaluateOptionsFor(args.options);
    const auto html = renderCompareReport(pointers, rows, render, &error);
    if (!html || !writeText(args.report, *html, &error)) return fail(error);
  }
  const std::size_t runs = workloads.size() * rowsPerWorkload(*names, args.options);
  if (rows.size() < runs)
    std::cerr << "compare: interrupted after " << rows.size() << " of " << runs
              << " runs; the ratios rank the rows shown\n";
  // Infeasible or limited rows are results; an internal error is a bug.
  for (const auto& row : rows)
    if (row.outcome.call == CallStatus::InternalError)
      return fail("compare: " + row.outcome.method + " on " + row.workload + ": " + row.outcome.message,
                  kInternal);
  return kOk;
}

int runRender(const RenderArgs& args, OptionSet given) {
  if (const std::string why = ignoredOption(nullptr, args.options.objective, given); !why.empty())
    return fail("render: " + why);
  std::string error;
  const auto format = renderFormatOf(args.out, &error);
  if (!format) return fail("render: " + error);
  if (args.view == "timeline" && *format != RenderFormat::Svg)
    return fail("render: --view timeline writes SVG (expected a .svg file name, not " + args.out + ")");
  if (args.workload == "-" && args.plan == "-")
    return fail("render: the workload and the plan cannot both be standard input");
  if (const std::string why = unwritablePath(args.out); !why.empty()) return fail(why);
  const auto workload = loadWorkload(args.workload, &error);
  if (!workload) return loadFailed(args.workload, error);
  const auto outcome = outcomeOfPlanFile(*workload, args.plan, args.options, &error);
  if (!outcome) return fail(error);
  RenderOptions options;
  options.evaluate = args.options;
  options.view = args.view == "timeline" ? RenderView::Timeline : RenderView::Graph;
  options.detail = args.detail == "full"         ? RenderDetail::Full
                   : args.detail == "contracted" ? RenderDetail::Contracted
                                                 : RenderDetail::Auto;
  if (const auto failed = renderToFile(*workload, *outcome, args.out, options)) return fail(*failed);
  return kOk;
}

}  // namespace dnnplace::cli
