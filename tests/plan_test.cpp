// Reading plan files, including human-expert splits that list forward nodes only.

#include <gtest/gtest.h>

#include "dnnplace/plan.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

const char* kTraining = R"({
  "maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 1,
  "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 0, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 7},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 0, "fpgaLatency": 2, "isBackwardNode": 0, "colorClass": 8},
    {"id": 11, "supportedOnFpga": 1, "cpuLatency": 0, "fpgaLatency": 3, "isBackwardNode": 1, "colorClass": 7},
    {"id": 12, "supportedOnFpga": 1, "cpuLatency": 0, "fpgaLatency": 4, "isBackwardNode": 1, "colorClass": 8},
    {"id": 13, "supportedOnFpga": 1, "cpuLatency": 0, "fpgaLatency": 4, "isBackwardNode": 1}
  ],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 1}, {"sourceId": 2, "destId": 12, "cost": 2},
            {"sourceId": 12, "destId": 11, "cost": 3}]})";

TEST(Plan, ExpertSplitPlacesBackwardNodesWithTheirClass) {
  Workload w = testing::parseOrDie(kTraining);
  std::string error;
  auto file = parsePlan(R"({"maxLoad": -1, "fpgas": [{"load": -1, "nodes": [1]}, {"nodes": [2.0]}],
                            "cpus": [{"load": 0.0, "nodes": []}]})",
                        "e.json", &error);
  ASSERT_TRUE(file) << error;
  std::vector<std::string> problems;
  Placement p = resolvePlan(w, *file, &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(p.numAccelerators, 2);
  EXPECT_EQ(p.numCpus, 1);
  EXPECT_EQ(p.deviceOf, (std::vector<std::int32_t>{0, 1, 0, 1, Placement::kUnplaced}));
}

// However often a node is listed, it gets one line: how many times, and
// on which devices (a plan of 100,000 repeats once printed 100,000 lines).
TEST(Plan, ANodeListedManyTimesIsOneLine) {
  Workload w = testing::parseOrDie(kTraining);
  std::string error;
  std::string many;
  for (int i = 0; i < 1000; ++i) many += ", 1";
  auto file = parsePlan(R"({"fpgas": [{"nodes": [1, 2)" + many +
                            R"(]}, {"nodes": [1]}], "cpus": [{"nodes": [2, 1]}]})",
                        "e.json", &error);
  ASSERT_TRUE(file) << error;
  std::vector<std::string> problems;
  resolvePlan(w, *file, &problems);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "node 1 is listed 1003 times (fpgas[0], fpgas[1] and cpus[0])");
  EXPECT_EQ(problems[1], "node 2 is listed twice (fpgas[0] and cpus[0])");

  file = parsePlan(R"({"fpgas": [{"nodes": [1, 1, 2]}]})", "e.json", &error);
  ASSERT_TRUE(file) << error;
  problems.clear();
  resolvePlan(w, *file, &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "node 1 is listed twice on fpgas[0]");

  std::string everywhere = R"({"fpgas": [)";
  for (int d = 0; d < 6; ++d) everywhere += std::string(d ? ", " : "") + R"({"nodes": [1]})";
  file = parsePlan(everywhere + "]}", "e.json", &error);
  ASSERT_TRUE(file) << error;
  problems.clear();
  resolvePlan(w, *file, &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "node 1 is listed 6 times (fpgas[0], fpgas[1], fpgas[2], fpgas[3] and 2 more devices)");
}

TEST(Plan, UnknownAndRepeatedIdsAreReported) {
  Workload w = testing::parseOrDie(kTraining);
  std::string error;
  auto file = parsePlan(R"({"fpgas": [{"nodes": [1, 99, 13]}, {"nodes": [2, 1]}]})", "e.json", &error);
  ASSERT_TRUE(file) << error;
  std::vector<std::string> problems;
  Placement p = resolvePlan(w, *file, &problems);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "node 1 is listed twice (fpgas[0] and fpgas[1])");
  EXPECT_EQ(problems[1], "the plan lists node ids that are not in the workload: 99");
  EXPECT_EQ(p.deviceOf[0], 0);
  EXPECT_EQ(p.deviceOf[4], 0);
}

TEST(Plan, MalformedPlansNameTheElement) {
  std::string error;
  EXPECT_FALSE(parsePlan(R"({"fpgas": [{"nodes": [1, "x"]}]})", "p.json", &error));
  EXPECT_EQ(error, "p.json: fpgas[0]: nodes[1] must be an integer, got string \"x\"");
  EXPECT_FALSE(parsePlan(R"({"fpgas": [{"load": 1}]})", "p.json", &error));
  EXPECT_EQ(error, "p.json: fpgas[0]: nodes is missing");
  EXPECT_FALSE(parsePlan(R"({"maxLoad": 1})", "p.json", &error));
  EXPECT_EQ(error, "p.json: a plan needs \"fpgas\" and/or \"cpus\" (lists of {\"nodes\": [ids]})");
}

}  // namespace
}  // namespace dnnplace
