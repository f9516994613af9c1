// The dnnplace command line: parses arguments and dispatches to the library.
// Exit codes: 0 ok, 1 internal error, 2 bad usage or invalid input,
// 3 infeasible, 4 a limit stopped the work before any feasible plan.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string_view>
#include <thread>

#include <unistd.h>

#include "dnnplace/compare.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dp/ideal_lattice.hpp"
#include "dnnplace/report.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace {

using namespace dnnplace;

enum Exit { kOk = 0, kInternal = 1, kInvalid = 2, kInfeasible = 3, kLimit = 4 };

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process
}

// CLI11's number checks let NaN through (every comparison with it is false)
// and print their bounds with all 309 digits of DBL_MAX: these say what is
// wanted, in a few words.
CLI::Validator finiteNumber(const std::string& what, double low, double high, bool lowIncluded) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        const bool aboveLow = lowIncluded ? value >= low : value > low;
        if (used != text.size() || text.empty() || !std::isfinite(value) || !aboveLow)
          return "expected " + what + ", got '" + text + "'";
        if (value > high) {
          char most[32];
          std::snprintf(most, sizeof most, "%.15g", high);
          return "expected " + what + " of at most " + most + ", got '" + text + "'";
        }
        return std::string();
      },
      what);
}

// A negative number would wrap around in an unsigned option, and one past
// 2^64 - 1 would be clamped to it.
const CLI::Validator kNonNegativeInteger(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || text[0] == '-' || text[0] == '+' || end != text.data() + text.size() ||
          status == std::errc::invalid_argument)
        return "expected a non-negative integer, got '" + text + "'";
      if (status == std::errc::result_out_of_range)
        return "expected a non-negative integer of at most 18446744073709551615, got '" + text + "'";
      return std::string();
    },
    "N");

/// A message as one line: control characters (a newline or a terminal
/// escape in a file name, say) are written as escapes.
std::string oneLine(const std::string& message) {
  std::string line;
  line.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      line += c;
    } else if (c == '\n') {
      line += "\\n";
    } else if (c == '\t') {
      line += "\\t";
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      line += escaped;
    }
  }
  return line;
}

int fail(const std::string& message, int code = kInvalid) {
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

bool writeOutput(const std::string& path, const std::string& text, std::string* error) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return true;
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    *error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const int writeError = errno;
  const bool closed = std::fclose(file) == 0;  // a full disk may show only here
  if (!written || !closed) {
    *error = path + ": cannot write: " + std::strerror(written ? errno : writeError);
    return false;
  }
  return true;
}

int exitCodeFor(SolveStatus status) {
  switch (status) {
    case SolveStatus::Optimal:
    case SolveStatus::Feasible: return kOk;
    case SolveStatus::Infeasible: return kInfeasible;
    case SolveStatus::NoSolution: return kLimit;
    case SolveStatus::InvalidInput: return kInvalid;
    case SolveStatus::Error: return kInternal;
  }
  return kInternal;
}

/// "dp, dp-linear, …": for messages about an unknown method.
std::string methodNames() {
  std::string names;
  for (const auto& m : methods()) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

std::string methodList() {
  std::string text;
  for (const auto& m : methods())
    text += "\n  " + m.name + std::string(14 - std::min<std::size_t>(13, m.name.size()), ' ') +
            m.summary;
  return text;
}

/// Options given on the command line (their defaults are valid values, so
/// only their count tells whether the user asked for them).
struct Given {
  bool q = false, gap = false, restarts = false, contiguity = false;
};

/// The options Given reports on, kept as they are added: looking four up by
/// name cost 3% of a small workload's whole run.
struct GivenOptions {
  const CLI::Option *q = nullptr, *gap = nullptr, *restarts = nullptr, *contiguity = nullptr;
  Given read() const {
    auto given = [](const CLI::Option* option) { return option && option->count() > 0; };
    return {given(q), given(gap), given(restarts), given(contiguity)};
  }
};

struct SolveArgs {
  std::string workload, method = "dp", out, contiguity = "none", plan;
  bool quiet = false, verbose = false;
  Given given;
  SolveOptions options;
};

/// A flag the objective would silently ignore (solve, compare and evaluate); empty if none.
std::string flagOfTheOtherObjective(Objective objective, bool qGiven, bool diffMaxima) {
  const bool latency = objective == Objective::Latency;
  if (qGiven && !latency) return "--q applies to --objective latency only";
  if (diffMaxima && latency) return "--diffmaxima applies to --objective throughput only";
  return "";
}

/// A flag that the chosen method or objective would silently ignore; empty if none.
std::string inapplicableFlag(const SolveArgs& args) {
  if (!args.plan.empty() && args.method != "expert") return "--plan is read by --method expert only";
  if (!args.options.writeModelPath.empty() && args.method != "milp")
    return "--write-model is written by --method milp only";
  if (args.given.contiguity && args.method != "milp") return "--contiguity applies to --method milp only";
  if (args.given.gap && args.method != "milp") return "--gap applies to --method milp only";
  if (args.given.restarts && args.method != "local-search" && args.method != "milp")
    return "--restarts applies to --method local-search and milp (its warm start) only";
  return flagOfTheOtherObjective(args.options.objective, args.given.q, args.options.diffMaxima);
}

struct EvaluateArgs {
  std::string workload, plan, format = "text";
  Given given;
  EvaluateOptions options;
};

struct InfoArgs {
  std::string workload;
  std::uint64_t maxIdeals = 10'000'000;
  double timeLimitSeconds = 60;
};

struct GenerateArgs {
  std::string shape, out;
  GeneratorOptions options;
};

struct CompareArgs {
  std::vector<std::string> workloads;
  std::string methods, format = "text";
  bool quiet = false;
  Given given;
  SolveOptions options;
};

std::function<void(const std::string&)> terminalProgress(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return {};
  return [](const std::string& line) { std::fprintf(stderr, "\r\033[K%s", line.c_str()); };
}

void clearProgress(bool quiet) {
  if (!quiet && isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
}

int runSolve(SolveArgs& args) {
  if (!findMethod(args.method))
    return fail("solve: unknown method '" + args.method + "' (expected one of: " + methodNames() + ")");
  if (const std::string why = inapplicableFlag(args); !why.empty()) return fail("solve: " + why);
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  const auto loadStart = Clock::now();
  std::string error;
  auto workload = loadWorkload(args.workload, &error);
  if (!workload) return fail(error);
  const double loadSeconds = seconds(loadStart);

  args.options.contiguity = args.contiguity == "convex" ? Contiguity::Convex : Contiguity::None;
  args.options.expertPlanPath = args.plan;
  args.options.progress = terminalProgress(args.quiet);
  args.options.interrupt = &g_interrupted;
  std::signal(SIGINT, onInterrupt);

  const auto solveStart = Clock::now();
  SolveOutcome outcome = solve(*workload, args.method, args.options);
  const double solveSeconds = seconds(solveStart);
  clearProgress(args.quiet);
  // A plan the re-check rejected is never written, not even with its status.
  if (outcome.status == SolveStatus::Error) return fail(args.method + ": " + outcome.message, kInternal);
  if (!outcome.placement) {
    const std::string why = outcome.message.empty() ? statusName(outcome.status) : outcome.message;
    return fail(args.method + ": " + why, exitCodeFor(outcome.status));
  }
  const auto writeStart = Clock::now();
  if (!writeOutput(args.out,
                   planToJson(*workload, outcome, evaluateOptionsFor(args.options)), &error))
    return fail(error);
  if (!args.quiet) std::cerr << outcomeSummary(*workload, outcome, evaluateOptionsFor(args.options));
  if (args.verbose)
    std::fprintf(stderr, "phases: load+validate %.3f s, solve+verify %.3f s, write %.3f s\n",
                 loadSeconds, solveSeconds, seconds(writeStart));
  return exitCodeFor(outcome.status);
}

int runEvaluate(const EvaluateArgs& args) {
  if (const std::string why = flagOfTheOtherObjective(args.options.objective, args.given.q, args.options.diffMaxima);
      !why.empty())
    return fail("evaluate: " + why);
  std::string error;
  auto workload = loadWorkload(args.workload, &error);
  if (!workload) return fail(error);
  auto plan = loadPlan(args.plan, &error);
  if (!plan) return fail(error);
  std::vector<std::string> problems;
  Placement placement = resolvePlan(*workload, *plan, &problems);
  Evaluation evaluation = evaluate(*workload, placement, args.options);
  evaluation.violations.insert(evaluation.violations.begin(), problems.begin(), problems.end());
  evaluation.feasible = evaluation.violations.empty();
  std::cout << (args.format == "json" ? evaluationToJson(evaluation, args.options)
                                      : evaluationToText(evaluation, args.options));
  return evaluation.feasible ? kOk : kInfeasible;
}

int runInfo(const InfoArgs& args) {
  std::string error;
  auto workload = loadWorkload(args.workload, &error);
  if (!workload) return fail(error);
  const Workload& w = *workload;
  int backward = 0, orphans = 0;
  double acceleratorWork = 0, cpuWork = 0, memory = 0;
  std::vector<char> classHasForward(w.numClasses, 0);
  for (const Node& node : w.nodes) {
    backward += node.isBackward;
    acceleratorWork += node.fpgaLatency;
    cpuWork += node.cpuLatency;
    memory += node.size;
  }
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (!w.nodes[v].isBackward) classHasForward[w.classOf[v]] = 1;
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (w.nodes[v].isBackward && !classHasForward[w.classOf[v]]) ++orphans;
  CountLimits limits;
  limits.deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(args.timeLimitSeconds));
  const IdealCount ideals = countIdeals(w, args.maxIdeals, limits);
  std::printf("workload:                 %s\n", w.name.c_str());
  std::printf("machine:                  %d accelerators of %.6g bytes, %d CPU core%s\n",
              w.machine.maxFpgas, w.machine.maxSizePerFpga, w.machine.maxCpus,
              w.machine.maxCpus == 1 ? "" : "s");
  std::printf("nodes:                    %d (%d forward, %d backward)\n", w.numNodes(),
              w.numNodes() - backward, backward);
  std::printf("edges:                    %zu\n", w.edges.size());
  std::printf("color classes:            %d\n", w.numClasses);
  std::printf("orphan backward nodes:    %d\n", orphans);
  if (ideals.exceeded)
    std::printf("ideals (contracted):      more than %llu\n",
                static_cast<unsigned long long>(ideals.count));
  else if (ideals.stopped)
    std::printf("ideals (contracted):      at least %llu (counting stopped at --time-limit %g s)\n",
                static_cast<unsigned long long>(ideals.count), args.timeLimitSeconds);
  else
    std::printf("ideals (contracted):      %llu\n", static_cast<unsigned long long>(ideals.count));
  std::printf("total accelerator work:   %.10g\n", acceleratorWork);
  std::printf("total CPU work:           %.10g\n", cpuWork);
  std::printf("total memory:             %.10g bytes\n", memory);
  std::printf("max-load lower bound:     %.10g\n", trivialThroughputLowerBound(w));
  return kOk;
}

int runGenerate(GenerateArgs& args) {
  if (!parseGraphShape(args.shape, &args.options.shape))
    return fail("generate: unknown shape '" + args.shape +
                "' (expected chain, transformer, cnn or series-parallel)");
  std::string error;
  if (!validGeneratorOptions(args.options, &error)) return fail("generate: " + error);
  const Workload workload = generateWorkload(args.options);
  if (!writeOutput(args.out, workloadToJson(workload), &error)) return fail(error);
  return kOk;
}

int runCompare(CompareArgs& args) {
  if (const std::string why = flagOfTheOtherObjective(args.options.objective, args.given.q, args.options.diffMaxima);
      !why.empty())
    return fail("compare: " + why);
  std::vector<Workload> workloads;
  workloads.reserve(args.workloads.size());
  for (const auto& path : args.workloads) {
    std::string error;
    auto workload = loadWorkload(path, &error);
    if (!workload) return fail(error);
    workloads.push_back(std::move(*workload));
  }
  std::vector<std::string> names;
  if (args.methods.empty()) {
    names = defaultMethods(args.options.objective);
  } else {
    std::stringstream list(args.methods);
    const bool latency = args.options.objective == Objective::Latency;
    for (std::string name; std::getline(list, name, ',');) {
      const MethodInfo* method = findMethod(name);
      if (!method) return fail("compare: unknown method '" + name + "' (expected one of: " + methodNames() + ")");
      if (name == "expert") return fail("compare: method 'expert' needs a split (--plan), which only solve takes");
      if (!(latency ? method->latency : method->throughput))
        return fail("compare: method '" + name + "' does not support the " +
                    (latency ? "latency" : "throughput") + " objective");
      names.push_back(name);
    }
  }
  std::vector<const Workload*> pointers;
  for (const auto& w : workloads) pointers.push_back(&w);
  args.options.progress = terminalProgress(args.quiet);
  args.options.interrupt = &g_interrupted;
  std::signal(SIGINT, onInterrupt);
  const auto rows = compareMethods(pointers, names, args.options);
  clearProgress(args.quiet);
  std::cout << formatComparison(rows, args.format);
  // Infeasible or limited rows are results; an internal error is a bug.
  for (const auto& row : rows)
    if (row.outcome.status == SolveStatus::Error)
      return fail("compare: " + row.outcome.method + " on " + row.workload + ": " + row.outcome.message, kInternal);
  return kOk;
}

void addObjective(CLI::App* command, Objective* objective) {
  command
      ->add_option_function<std::string>(
          "--objective",
          [objective](const std::string& name) {
            *objective = name == "latency" ? Objective::Latency : Objective::Throughput;
          },
          "throughput (max-load, the default) or latency")
      ->check(CLI::IsMember({"throughput", "latency"}));
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

/// The options solve and compare share: the objective and how a method runs.
void addRunOptions(CLI::App* command, SolveOptions* options, const std::string& timeLimitHelp,
                   GivenOptions* given) {
  addObjective(command, &options->objective);
  command->add_option("--time-limit", options->timeLimitSeconds, timeLimitHelp)
      ->check(finiteNumber("a positive number of seconds", 0, 1e9, false))->capture_default_str();
  options->threads = defaultThreads();
  command->add_option("--threads", options->threads, "worker threads for dp, joining a DP run once it has taken 5 ms (default: this machine's cores)")
      ->check(CLI::Range(1, 256))->capture_default_str();
  command->add_option("--seed", options->seed, "random seed")->check(kNonNegativeInteger)->capture_default_str();
  given->q = command->add_option("--q", options->q, "latency: subgraphs per accelerator")
                 ->check(CLI::Range(1, 64))->capture_default_str();
  given->restarts = command->add_option("--restarts", options->restarts, "local-search restarts")
                        ->check(CLI::Range(1, 1000000))->capture_default_str();
  command->add_flag("--diffmaxima", options->diffMaxima, "throughput: minimize max forward + max backward load");
  command->add_option("--max-ideals", options->maxIdeals,
                      "dp, dp-linear, pipedream: stop past this many ideals (dp returns its best plan; 0: no cap)")
      ->check(kNonNegativeInteger);
  options->memoryLimitBytes = defaultMemoryLimit();
  command->add_option("--memory-limit", options->memoryLimitBytes,
                      "dp, dp-linear, pipedream: stop past this many bytes of ideals and DP tables (dp returns "
                      "its best plan; 0: no cap; default: half this machine's memory)")
      ->check(kNonNegativeInteger)->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "dnnplace: optimal placement of DNN operators on accelerators and CPU cores.\n"
      "Workloads and plans are JSON (see docs/ and the README)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dnnplace 0.1.0");

  GivenOptions given;  // of the one command named
  SolveArgs solveArgs;
  auto* solveCmd = app.add_subcommand("solve", "find a placement and write its plan JSON");
  EvaluateArgs evalArgs;
  auto* evalCmd = app.add_subcommand(
      "evaluate", "check a plan against a workload and recompute its objective (exit 3 if infeasible)");
  InfoArgs infoArgs;
  auto* infoCmd = app.add_subcommand("info", "print graph statistics of a workload");
  GenerateArgs genArgs;
  auto* genCmd = app.add_subcommand("generate", "write a synthetic workload JSON");
  CompareArgs cmpArgs;
  cmpArgs.options.timeLimitSeconds = 60;
  auto* cmpCmd = app.add_subcommand("compare", "run several methods side by side");

  // Only the command named gets its options: defining every command's
  // (CLI11 builds each option's names, checks and help text) cost more than
  // reading a small workload. It is the first argument that names one, so
  // that `--help solve` shows solve's whole help too.
  std::string_view command;
  for (int i = 1; i < argc && command.empty(); ++i)
    for (const char* name : {"solve", "evaluate", "info", "generate", "compare"})
      if (std::string_view(argv[i]) == name) command = name;
  if (command == "solve") {
    solveCmd->footer("Methods:" + methodList());
    solveCmd->add_option("workload", solveArgs.workload, "workload JSON file (- for standard input)")->required();
    solveCmd->add_option("--method", solveArgs.method, "placement method (see below)")
        ->capture_default_str();
    solveCmd->add_option("--out", solveArgs.out, "write the plan here instead of stdout");
    addRunOptions(solveCmd, &solveArgs.options, "seconds", &given);
    given.contiguity = solveCmd->add_option("--contiguity", solveArgs.contiguity, "milp throughput: none or convex")
                           ->check(CLI::IsMember({"none", "convex"}))->capture_default_str();
    given.gap = solveCmd->add_option("--gap", solveArgs.options.relativeGap, "milp: relative gap to stop at")
                    ->check(finiteNumber("a gap between 0 and 1", 0, 1, true))->capture_default_str();
    solveCmd->add_option("--plan", solveArgs.plan, "expert: the split to evaluate")
        ->check(CLI::ExistingFile);
    solveCmd->add_option("--write-model", solveArgs.options.writeModelPath,
                         "milp: also export the model (.lp or .mps)");
    solveCmd->add_flag("--quiet", solveArgs.quiet, "no summary or progress on stderr");
    solveCmd->add_flag("--verbose", solveArgs.verbose, "report the time of each phase");
  } else if (command == "evaluate") {
    evalCmd->add_option("workload", evalArgs.workload, "workload JSON file (- for standard input)")->required();
    evalCmd->add_option("plan", evalArgs.plan, "plan JSON file (- for standard input)")->required();
    addObjective(evalCmd, &evalArgs.options.objective);
    given.q = evalCmd->add_option("--q", evalArgs.options.q, "latency: subgraphs allowed per accelerator")
                  ->check(CLI::Range(1, 1 << 20))->capture_default_str();
    evalCmd->add_flag("--contiguous", evalArgs.options.requireContiguous,
                      "flag plans whose blocks are not contiguous");
    evalCmd->add_flag("--diffmaxima", evalArgs.options.diffMaxima,
                      "objective: max forward + max backward load");
    evalCmd->add_option("--format", evalArgs.format, "text or json")
        ->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  } else if (command == "info") {
    infoCmd->add_option("workload", infoArgs.workload, "workload JSON file (- for standard input)")->required();
    infoCmd->add_option("--max-ideals", infoArgs.maxIdeals, "stop counting ideals past this many (0: no cap)")
        ->check(kNonNegativeInteger)->capture_default_str();
    infoCmd->add_option("--time-limit", infoArgs.timeLimitSeconds, "stop counting ideals after this many seconds")
        ->check(finiteNumber("a positive number of seconds", 0, 1e9, false))->capture_default_str();
  } else if (command == "generate") {
    genCmd->add_option("shape", genArgs.shape, "chain, transformer, cnn or series-parallel")
        ->required();
    genCmd->add_option("--blocks", genArgs.options.blocks, "layers or blocks")
        ->check(CLI::Range(1, 100000))->capture_default_str();
    genCmd->add_option("--width", genArgs.options.width, "heads or parallel branches")
        ->check(CLI::Range(1, 1000))->capture_default_str();
    genCmd->add_option("--chain-length", genArgs.options.chainLength,
                       "series-parallel: nodes per parallel chain")
        ->check(CLI::Range(1, 100000))->capture_default_str();
    genCmd->add_option("--unsupported-fraction", genArgs.options.unsupportedFraction,
                       "share of nodes that only run on CPUs")
        ->check(CLI::Range(0.0, 1.0))->capture_default_str();
    genCmd->add_flag("--training", genArgs.options.training, "add backward twins");
    genCmd->add_option("--seed", genArgs.options.seed, "random seed")
        ->check(kNonNegativeInteger)->capture_default_str();
    genCmd->add_option("--accelerators", genArgs.options.accelerators, "maxFPGAs")
        ->check(CLI::Range(0, 1 << 20))->capture_default_str();
    genCmd->add_option("--cpus", genArgs.options.cpus, "maxCPUs")
        ->check(CLI::Range(0, 1 << 20))->capture_default_str();
    genCmd->add_option("--memory", genArgs.options.memoryPerAccelerator, "bytes per accelerator")
        ->check(finiteNumber("a number of bytes >= 0", 0, 1e30, true))->capture_default_str();
    genCmd->add_option("--out", genArgs.out, "write here instead of stdout");
  } else if (command == "compare") {
    cmpCmd->footer("Methods:" + methodList());
    cmpCmd->add_option("workloads", cmpArgs.workloads, "workload JSON files")->required();
    cmpCmd->add_option("--methods", cmpArgs.methods,
                       "comma-separated methods (default: all for the objective)");
    addRunOptions(cmpCmd, &cmpArgs.options, "seconds per method run", &given);
    cmpCmd->add_option("--format", cmpArgs.format, "text, json or csv")
        ->check(CLI::IsMember({"text", "json", "csv"}))->capture_default_str();
    cmpCmd->add_flag("--quiet", cmpArgs.quiet, "no progress on stderr");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {  // help and the version are results too
    return afterOutput(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return afterOutput(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return afterOutput(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // A mistyped command reads better named than as "a subcommand is required".
    if (argc > 1 && argv[1][0] != '-') {
      std::string names;
      bool known = false;
      for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
        names += (names.empty() ? "" : ", ") + command->get_name();
        known = known || command->get_name() == argv[1];
      }
      if (!known) return fail("unknown command '" + std::string(argv[1]) + "' (expected one of: " + names + ")");
    }
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    return fail(what + " (see --help)");
  }

  int code = kInvalid;
  try {
    if (*solveCmd) {
      solveArgs.given = given.read();
      code = runSolve(solveArgs);
    } else if (*evalCmd) {
      evalArgs.given = given.read();
      code = runEvaluate(evalArgs);
    } else if (*infoCmd) {
      code = runInfo(infoArgs);
    } else if (*genCmd) {
      code = runGenerate(genArgs);
    } else if (*cmpCmd) {
      cmpArgs.given = given.read();
      code = runCompare(cmpArgs);
    }
  } catch (const std::bad_alloc&) {
    return fail("out of memory", kLimit);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), kInternal);
  }
  return afterOutput(code);
}
