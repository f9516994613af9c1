// libFuzzer target: load -> info's ideal count -> bounded dp, greedy and
// the evaluator, on whatever workload the input is. A valid workload must
// never make a method report an internal error; every plan is re-checked by
// solve() itself. The machine is capped so that one input stays cheap.

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "dp/ideal_lattice.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dnnplace;
  std::string error;
  auto parsed = parseWorkload(fuzz::asText(data, size), "fuzz.json", &error);
  if (!parsed) {
    fuzz::expectOneLine(error, "fuzz.json");
    return 0;
  }
  if (parsed->numNodes() > 64) return 0;
  Workload workload = *parsed;
  workload.machine.maxFpgas = std::min(workload.machine.maxFpgas, 8);
  workload.machine.maxCpus = std::min(workload.machine.maxCpus, 4);

  CountLimits limits;
  limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  const IdealCount ideals = countIdeals(workload, 20000, limits);
  if (ideals.count == 0 && workload.numNodes() > 0 && !ideals.stopped)
    fuzz::finding("a non-empty graph with no ideal counted");

  SolveOptions options;
  options.timeLimitSeconds = 0.5;
  options.maxIdeals = 20000;
  options.memoryLimitBytes = 64 << 20;
  options.threads = 1;
  auto check = [&](const char* method, const SolveOptions& o) {
    const SolveOutcome outcome = solve(workload, method, o);
    if (outcome.call == CallStatus::InternalError)
      fuzz::finding(std::string(method) + ": " + outcome.message);
    if (outcome.placement) {
      EvaluateOptions eval = evaluateOptionsFor(o);
      const Evaluation evaluation = evaluate(workload, *outcome.placement, eval);
      if (!evaluation.feasible) fuzz::finding(std::string(method) + " returned an infeasible plan");
    }
  };
  check("dp", options);
  SolveOptions latency = options;
  latency.objective = Objective::Latency;
  check("greedy", latency);
  return 0;
}
