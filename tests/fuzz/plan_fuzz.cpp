// libFuzzer target: the plan reader, and mapping what it accepts onto a
// small training workload and evaluating it (unknown, repeated and missing
// ids are violations, never out-of-range access).

#include <cstdint>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"
#include "fuzz_support.hpp"

namespace {

const dnnplace::Workload& target() {
  static const dnnplace::Workload workload = [] {
    std::string error;
    auto parsed =
        dnnplace::parseWorkload(R"({"maxSizePerFPGA": 10, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
{"id": 1, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1, "size": 3},
{"id": 2, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0},
{"id": 3, "supportedOnFpga": 0, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0},
{"id": 4, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 1, "colorClass": 1},
{"id": 5, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 1}],
"edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}, {"sourceId": 2, "destId": 3, "cost": 0.25},
{"sourceId": 3, "destId": 5, "cost": 1}, {"sourceId": 5, "destId": 4, "cost": 2}]})",
                                "w.json", &error);
    if (!parsed) dnnplace::fuzz::finding("the plan target's workload does not parse: " + error);
    return *parsed;
  }();
  return workload;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dnnplace;
  std::string error;
  auto plan = parsePlan(fuzz::asText(data, size), "plan.json", &error);
  if (!plan) {
    fuzz::expectOneLine(error, "plan.json");
    return 0;
  }
  std::vector<std::string> violations;
  const Placement placement = resolvePlan(target(), *plan, &violations);
  if (static_cast<int>(placement.deviceOf.size()) != target().numNodes())
    fuzz::finding("a resolved plan does not cover the workload");
  for (auto objective : {Objective::Throughput, Objective::Latency}) {
    EvaluateOptions options;
    options.objective = objective;
    const Evaluation evaluation = evaluate(target(), placement, options);
    if (evaluation.feasible != evaluation.violations.empty())
      fuzz::finding("an evaluation is feasible with violations, or infeasible without");
  }
  return 0;
}
