#pragma once
/// The commands of the dnnplace CLI: each reads its arguments, calls the
/// library, writes the result and returns the exit code.
/// Exit codes: 0 ok, 1 internal error, 2 bad usage or invalid input,
/// 3 infeasible, 4 a limit stopped the work before any feasible plan.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/import.hpp"
#include "dnnplace/solver.hpp"

namespace dnnplace::cli {

enum Exit { kOk = 0, kInternal = 1, kInvalid = 2, kInfeasible = 3, kLimit = 4 };

/// Set by the first Ctrl-C; a run in progress returns its best plan.
extern std::atomic<bool> g_interrupted;

/// Prints "dnnplace: MESSAGE" (one line) on stderr and returns `code`.
int fail(const std::string& message, int code = kInvalid);
/// A result that never reached standard output (a full disk, a closed pipe)
/// is lost: say so rather than exit 0.
int afterOutput(int code);
/// The DP shares its work among threads; other methods run on one.
int defaultThreads();
/// Half the machine's memory (0 if unknown): where the DP stops, returning its best plan.
std::uint64_t defaultMemoryLimit();

struct SolveArgs {
  std::string workload, method = "dp", out, contiguity = "none", plan, report;
  bool quiet = false, verbose = false, contractLayers = false;
  SolveOptions options;
};

struct EvaluateArgs {
  std::string workload, plan, format = "text";
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
  std::string methods, format = "text", report;
  bool quiet = false;
  SolveOptions options;
};

struct RenderArgs {
  std::string workload, plan, out, view = "graph", detail = "auto";
  EvaluateOptions options;
};

struct ImportOnnxArgs {
  std::string model, device, cpu = "xeon-8380-core", granularity = "operator", out;
  std::vector<std::string> dims;  ///< NAME=VALUE
  bool quiet = false, optimizerStatesGiven = false;
  OnnxImportOptions options;
};

struct ImportPipedreamArgs {
  std::string activations = "charged", out;
  bool quiet = false;
  PipedreamImportOptions options;
};

struct ImportPiperArgs {
  std::string activations = "charged", out;
  bool quiet = false;
  // Negative: not given, the file's figure.
  int accelerators = -1;
  double memory = -1, bandwidth = -1, samplesPerSync = -1;
  PiperImportOptions options;
};

int runSolve(SolveArgs& args, OptionSet given);
int runEvaluate(const EvaluateArgs& args, OptionSet given);
int runInfo(const InfoArgs& args);
int runGenerate(GenerateArgs& args);
int runCompare(CompareArgs& args, OptionSet given);
int runRender(const RenderArgs& args, OptionSet given);
int runImportOnnx(ImportOnnxArgs& args);
int runImportPipedream(ImportPipedreamArgs& args);
int runImportPiper(ImportPiperArgs& args);

}  // namespace dnnplace::cli
