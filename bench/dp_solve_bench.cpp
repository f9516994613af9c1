// In-process solve time of method "dp" on the shipped workloads with the
// fewest ideals, repeated in one process: the algorithm's own time once its
// code and data are in the caches and mapped. bench/run_floors.sh sets it
// beside the first solve of a fresh process (what docs/benchmarks.md's dp
// table and the reference figures measure) to show how much of that is the
// process's first touch of code and memory.
//
// Usage: dp_solve_bench [google-benchmark flags]; the workloads are read from
// $DNNPLACE_SHARED/workloads (default: the DNNPLACE_SHARED_DIR CMake option).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace {

std::string sharedDir() {
  const char* dir = std::getenv("DNNPLACE_SHARED");
  return dir && *dir ? dir : DNNPLACE_SHARED_DIR_DEFAULT;
}

void solveDpRepeatedly(benchmark::State& state, const std::string& relative) {
  const std::string path = sharedDir() + "/workloads/" + relative;
  std::string error;
  const auto workload = dnnplace::loadWorkload(path, &error);
  if (!workload) {
    state.SkipWithError(error.c_str());
    return;
  }
  dnnplace::SolveOptions options;
  options.threads = 2;
  double objective = 0;
  for (auto _ : state) {
    const dnnplace::SolveOutcome outcome = dnnplace::solve(*workload, "dp", options);
    if (outcome.status != dnnplace::SolveStatus::Optimal) {
      state.SkipWithError(("dp did not finish: " + outcome.message).c_str());
      return;
    }
    objective = outcome.objective;
    // The plan's `seconds`: what the dp table reports, without the evaluator's re-check.
    state.SetIterationTime(outcome.seconds);
  }
  state.counters["max_load"] = objective;
}

}  // namespace

BENCHMARK_CAPTURE(solveDpRepeatedly, bert24_inference, "throughput/LayerGraphs/bert24_inference.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, bert24_training, "throughput/LayerGraphs/bert24_training.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, resnet50_layers_inference,
                  "throughput/LayerGraphs/resnet50_inference.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, resnet50_layers_training,
                  "throughput/LayerGraphs/resnet50_training.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, resnet50_operators_inference,
                  "throughput/OperatorGraphs/resnet50_inference.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, resnet50_operators_training,
                  "throughput/OperatorGraphs/resnet50_training.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, bert_l3_operators_inference,
                  "throughput/OperatorGraphs/bert_l-3_inference.json")
    ->UseManualTime();
BENCHMARK_CAPTURE(solveDpRepeatedly, bert_l6_operators_inference,
                  "throughput/OperatorGraphs/bert_l-6_inference.json")
    ->UseManualTime();

BENCHMARK_MAIN();
