// The DP on the paper's workloads: reference optima and ideal counts
// (../shared/expected/throughput.json), and the restricted variants.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/solver.hpp"
#include "dp/dp.hpp"
#include "dp/ideal_lattice.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

bool isInception(const std::string& path) { return path.find("inceptionv3") != std::string::npos; }

/// Checks every workload with a dp_optimum whose path passes `select`;
/// returns how many.
int checkReferenceOptima(const std::filesystem::path& shared, bool (*select)(const std::string&)) {
  return testing::forEachExpectedWorkload(
      shared, "throughput.json",
      [select](const std::string& path, const nlohmann::json& figures) {
        return figures.contains("dp_optimum") && select(path);
      },
      [](const std::string&, const nlohmann::json& figures, const Workload& workload) {
        const IdealCount ideals = countIdeals(workload, 0);
        EXPECT_FALSE(ideals.exceeded);
        EXPECT_EQ(ideals.count, figures.at("ideals_after_contraction").get<std::uint64_t>());

        SolveOptions options;
        options.threads = 2;
        options.timeLimitSeconds = 3600;  // a loaded machine must not turn this into a time-out
        const SolveOutcome dp = solve(workload, "dp", options);
        EXPECT_EQ(dp.status, SolveStatus::Optimal) << dp.message;
        if (!dp.placement) return;
        const double optimum = figures.at("dp_optimum").get<double>();
        EXPECT_NEAR(dp.objective, optimum, 1e-6 * optimum);
        EXPECT_DOUBLE_EQ(dp.lowerBound, dp.objective);
        EvaluateOptions contiguous;
        contiguous.requireContiguous = true;
        const Evaluation evaluation = evaluate(workload, *dp.placement, contiguous);
        EXPECT_TRUE(evaluation.feasible);
        EXPECT_TRUE(evaluation.contiguous);
        EXPECT_NEAR(evaluation.objective, optimum, 1e-6 * optimum);

        for (const char* method : {"dp-linear", "pipedream"}) {
          const SolveOutcome restricted = solve(workload, method, options);
          EXPECT_EQ(restricted.status, SolveStatus::Feasible) << method << ": " << restricted.message;
          if (!restricted.placement) continue;
          EXPECT_GE(restricted.objective, dp.objective * (1 - 1e-9)) << method;
          EXPECT_TRUE(evaluate(workload, *restricted.placement, contiguous).contiguous) << method;
        }
      });
}

TEST(DpShared, ReferenceOptimaAndIdealCounts) {
  DNNPLACE_REQUIRE_SHARED(shared);
  EXPECT_EQ(checkReferenceOptima(shared, [](const std::string& path) { return !isInception(path); }),
            13);
}

TEST(DpShared, InceptionReferenceOptima) {
#ifndef __OPTIMIZE__
  GTEST_SKIP() << "InceptionV3's exact DP (36,596 ideals) takes minutes in an unoptimized "
                  "(Debug/sanitizer) build; the Release build runs it";
#endif
  DNNPLACE_REQUIRE_SHARED(shared);
  EXPECT_EQ(checkReferenceOptima(shared, isInception), 2);
}

}  // namespace
}  // namespace dnnplace
