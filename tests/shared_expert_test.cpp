// The paper's human-expert splits and trivial plans, evaluated on the paper's
// workloads, must reproduce the reference figures in ../shared/expected.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/solver.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

nlohmann::json readJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

Workload load(const std::filesystem::path& path) {
  std::string error;
  auto w = loadWorkload(path.string(), &error);
  if (!w) ADD_FAILURE() << error;
  return w ? std::move(*w) : Workload{};
}

double relative(double a, double b) { return std::fabs(a - b) / std::max(1e-12, std::fabs(b)); }

/// The workload and its expert split's placement (backward nodes inferred).
std::pair<Workload, Placement> loadExpert(const std::filesystem::path& shared,
                                          const std::string& workload, const nlohmann::json& figures) {
  Workload w = load(shared / "workloads" / workload);
  std::string error;
  auto file =
      loadPlan((shared / "workloads" / figures["expert_split"].get<std::string>()).string(), &error);
  if (!file) {
    ADD_FAILURE() << error;
    return {std::move(w), Placement{}};
  }
  std::vector<std::string> problems;
  Placement p = resolvePlan(w, *file, &problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return {std::move(w), std::move(p)};
}

TEST(SharedWorkloads, ExpertSplitsReproduceReferenceMaxLoad) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const auto expected = readJson(shared / "expected" / "throughput.json");
  int checked = 0;
  for (const auto& [name, figures] : expected["workloads"].items()) {
    if (!figures.contains("expert_split")) continue;
    SCOPED_TRACE(name);
    const double reference = figures["expert_max_load"].get<double>();
    auto [w, p] = loadExpert(shared, name, figures);
    Evaluation e = evaluate(w, p, {});
    EXPECT_TRUE(e.feasible) << (e.violations.empty() ? "" : e.violations[0]);
    EXPECT_LE(relative(e.objective, reference), 1e-6) << e.objective << " vs " << reference;
    // The same split through `solve --method expert --plan`.
    SolveOptions options;
    options.expertPlanPath =
        (shared / "workloads" / figures["expert_split"].get<std::string>()).string();
    const SolveOutcome outcome = solve(w, "expert", options);
    ASSERT_EQ(outcome.status, SolveStatus::Feasible) << outcome.message;
    EXPECT_LE(relative(outcome.objective, reference), 1e-6) << outcome.objective << " vs " << reference;
    ++checked;
  }
  EXPECT_EQ(checked, 8);  // every layer graph has an expert split
}

TEST(SharedWorkloads, ExpertMethodNeedsAPlanOfTheSameGraph) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const Workload w = load(shared / "workloads" / "throughput/LayerGraphs/bert24_inference.json");
  const SolveOutcome noPlan = solve(w, "expert", {});
  EXPECT_EQ(noPlan.call, CallStatus::InvalidInput);
  EXPECT_NE(noPlan.message.find("--plan"), std::string::npos) << noPlan.message;
  // GNMT's split names nodes BERT does not have.
  SolveOptions wrongPlan;
  wrongPlan.expertPlanPath = (shared / "workloads" / "experts" / "gnmt_inference_expert.json").string();
  const SolveOutcome mismatched = solve(w, "expert", wrongPlan);
  EXPECT_EQ(mismatched.status, SolveStatus::Infeasible) << mismatched.message;
  EXPECT_NE(mismatched.message.find("is not a feasible plan for"), std::string::npos)
      << mismatched.message;
}

TEST(SharedWorkloads, ExpertSplitsReproduceReferenceLatency) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const auto expected = readJson(shared / "expected" / "latency.json");
  int checked = 0;
  for (const auto& [name, figures] : expected["workloads"].items()) {
    if (!figures.contains("expert_split")) continue;
    SCOPED_TRACE(name);
    auto [w, p] = loadExpert(shared, name, figures);
    EvaluateOptions latency;
    latency.objective = Objective::Latency;
    Evaluation e = evaluate(w, p, latency);
    // The reference prints 3 decimals.
    EXPECT_NEAR(e.objective, figures["expert_latency"].get<double>(), 0.0005 + 1e-9);
    // Every expert split breaks the latency machine's limits: memory, or (bert24)
    // six accelerators where the latency workload has five.
    EXPECT_FALSE(e.feasible);
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(SharedWorkloads, SingleAcceleratorMatchesReferenceOrReportsMemory) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const auto expected = readJson(shared / "expected" / "throughput.json");
  int checked = 0;
  for (const auto& [name, figures] : expected["workloads"].items()) {
    SCOPED_TRACE(name);
    Workload w = load(shared / "workloads" / name);
    SolveOutcome outcome = solve(w, "single", {});
    if (figures["single_accelerator_fits_memory"].get<bool>()) {
      ASSERT_EQ(outcome.status, SolveStatus::Feasible) << outcome.message;
      EXPECT_LE(relative(outcome.objective, figures["single_accelerator"].get<double>()), 1e-6);
    } else {
      EXPECT_EQ(outcome.status, SolveStatus::Infeasible);
      EXPECT_NE(outcome.message.find("one accelerator holds"), std::string::npos) << outcome.message;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 15);
}

}  // namespace
}  // namespace dnnplace
