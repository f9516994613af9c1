// The command line as a user meets it: help, exit codes, one-line errors.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace dnnplace {
namespace {

using testing::runCli;
using testing::writeTemp;

const char* kWorkload = R"({"maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
  {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 40},
  {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 40}],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]})";

TEST(Cli, HelpOnEveryCommand) {
  for (const char* command : {"", "solve ", "evaluate ", "info ", "generate ", "compare "}) {
    auto result = runCli(std::string(command) + "--help");
    EXPECT_EQ(result.exitCode, 0) << command;
    EXPECT_NE(result.out.find("Usage"), std::string::npos) << command << result.out;
  }
}

TEST(Cli, BadUsageIsExitTwoWithOneLine) {
  auto result = runCli("solve");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_NE(result.err.find("workload is required"), std::string::npos) << result.err;
  result = runCli("frobnicate");
  EXPECT_EQ(result.exitCode, 2);
  result = runCli("solve x.json --objective speed");
  EXPECT_EQ(result.exitCode, 2);
}

TEST(Cli, MissingFileIsExitTwo) {
  auto result = runCli("info /nonexistent/w.json");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: /nonexistent/w.json: cannot open: No such file or directory\n");
}

TEST(Cli, SolveSingleWritesAPlanThatEvaluates) {
  auto workload = writeTemp(kWorkload);
  auto plan = testing::tempPath(".json");
  auto result = runCli("solve " + workload.string() + " --method single --out " + plan.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("single: feasible, max-load 3"), std::string::npos) << result.err;
  auto evaluation = runCli("evaluate " + workload.string() + " " + plan.string() + " --format json");
  ASSERT_EQ(evaluation.exitCode, 0) << evaluation.err;
  auto json = nlohmann::json::parse(evaluation.out);
  EXPECT_EQ(json["feasible"], true);
  EXPECT_DOUBLE_EQ(json["objective"].get<double>(), 3);
  EXPECT_EQ(json["devices"].size(), 1u);
  EXPECT_TRUE(json["violations"].empty());
}

TEST(Cli, SolveOnStdoutKeepsReferenceFields) {
  auto workload = writeTemp(kWorkload);
  auto result = runCli("solve " + workload.string() + " --method cpu --quiet");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(result.err.empty());
  auto plan = nlohmann::json::parse(result.out);
  EXPECT_DOUBLE_EQ(plan["maxLoad"].get<double>(), 30);
  EXPECT_TRUE(plan["fpgas"].empty());
  ASSERT_EQ(plan["cpus"].size(), 1u);
  EXPECT_EQ(plan["cpus"][0]["nodes"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(plan["status"], "feasible");
}

TEST(Cli, InfeasiblePlanIsExitThreeNamingViolations) {
  auto workload = writeTemp(kWorkload);
  auto plan = writeTemp(R"({"fpgas": [{"nodes": [1]}, {"nodes": [2]}, {"nodes": []}], "cpus": [{"nodes": [1]}]})");
  auto result = runCli("evaluate " + workload.string() + " " + plan.string());
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_NE(result.out.find("node 1 is listed twice (fpgas[0] and cpus[0])"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("max-load:   2.5"), std::string::npos) << result.out;
}

TEST(Cli, SingleWhenMemoryDoesNotFitIsExitThree) {
  auto workload = writeTemp(R"({"maxSizePerFPGA": 50, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 40},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 40}],
    "edges": []})");
  auto result = runCli("solve " + workload.string() + " --method single");
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.err, "dnnplace: single: the whole graph needs 80 bytes, one accelerator holds 50\n");
}

TEST(Cli, InfoReportsGraphStatistics) {
  auto workload = writeTemp(kWorkload);
  auto result = runCli("info " + workload.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("nodes:                    2 (2 forward, 0 backward)"), std::string::npos);
  EXPECT_NE(result.out.find("edges:                    1"), std::string::npos);
  EXPECT_NE(result.out.find("max-load lower bound:     2\n"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace dnnplace
