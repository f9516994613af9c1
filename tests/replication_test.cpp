// Replicated stages (docs/model.md §9): the evaluator's load(B, r) by hand,
// plans with "replicas" as written and read, every bad input as printed,
// compare --replicate, and dp --replicate against PipeDream's own planner on
// its measured profiles (../shared/expected/pipedream.json).

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "dnnplace/compare.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/import.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/report.hpp"
#include "dnnplace/solver.hpp"
#include "test_support.hpp"
#include "util/deadline.hpp"

namespace dnnplace {
namespace {

using testing::runCli;

/// a → b → c; each source's edges cost 1; weights 10 (a) and 20 (b); 4
/// accelerators; the all-reduce at 5 bytes per ms, every 2 samples.
const char* kChain = R"({
  "maxSizePerFPGA": 100, "maxFPGAs": 4, "maxCPUs": 1, "syncBandwidth": 5, "samplesPerSync": 2,
  "nodes": [
    {"id": 1, "isBackwardNode": false, "supportedOnFpga": true, "cpuLatency": 60, "fpgaLatency": 6, "size": 10, "parameterSize": 10},
    {"id": 2, "isBackwardNode": false, "supportedOnFpga": true, "cpuLatency": 40, "fpgaLatency": 4, "size": 10, "parameterSize": 20},
    {"id": 3, "isBackwardNode": false, "supportedOnFpga": true, "cpuLatency": 20, "fpgaLatency": 2, "size": 10}
  ],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 1}, {"sourceId": 2, "destId": 3, "cost": 1}]
})";

std::string withoutSync() {
  nlohmann::json w = nlohmann::json::parse(kChain);
  w.erase("syncBandwidth");
  return w.dump();
}

Evaluation evaluateText(const Workload& w, const std::string& plan, EvaluateOptions options = {}) {
  std::string error;
  const auto file = parsePlan(plan, "plan.json", &error);
  EXPECT_TRUE(file) << error;
  return evaluatePlan(w, *file, options);
}

TEST(Replication, EvaluatorComputesLoadPerReplicaWithTheAllReduce) {
  const Workload w = testing::parseOrDie(kChain);
  // {a} on 3 replicas, {b, c} on one accelerator.
  const Evaluation e =
      evaluateText(w, R"({"fpgas": [{"nodes": [1], "replicas": 3}, {"nodes": [2, 3]}], "cpus": []})");
  ASSERT_TRUE(e.feasible) << (e.violations.empty() ? "" : e.violations[0]);
  ASSERT_EQ(e.devices.size(), 2u);
  // load({a}) = 6 + a's cost 1 (a → b crosses) = 7; sync(3) = 4 · 2/3 · 10 / 5 / 2 = 8/3.
  const DeviceReport& a = e.devices[0];
  EXPECT_EQ(a.replicas, 3);
  EXPECT_DOUBLE_EQ(a.syncLoad, 8.0 / 3 / 3);
  EXPECT_DOUBLE_EQ(a.forwardLoad, 7.0 / 3);
  EXPECT_DOUBLE_EQ(a.load, (7 + 8.0 / 3) / 3);
  EXPECT_DOUBLE_EQ(a.memory, 10);  // per replica: the whole block
  // {b, c}: 4 + 2 + a's cost (it receives a → b) = 7, one replica.
  EXPECT_EQ(e.devices[1].replicas, 1);
  EXPECT_DOUBLE_EQ(e.devices[1].syncLoad, 0);
  EXPECT_DOUBLE_EQ(e.devices[1].load, 7);
  EXPECT_DOUBLE_EQ(e.objective, 7);

  // Four replicas of {a, b} (W = 30): (10 + 1 + 4 · 3/4 · 30 / 5 / 2) / 4 = 20 / 4.
  const Evaluation four =
      evaluateText(w, R"({"fpgas": [{"nodes": [1, 2], "replicas": 4}], "cpus": [{"nodes": [3]}]})");
  ASSERT_TRUE(four.feasible);
  EXPECT_DOUBLE_EQ(four.devices[0].load, 5);
  EXPECT_DOUBLE_EQ(four.devices[1].load, 20);  // c on the CPU core: 20, no communication
}

TEST(Replication, EvaluatorNamesEveryViolation) {
  const Workload w = testing::parseOrDie(kChain);
  Evaluation e =
      evaluateText(w,
                   R"({"fpgas": [{"nodes": [1], "replicas": 3}, {"nodes": [2, 3], "replicas": 2}]})");
  EXPECT_FALSE(e.feasible);
  ASSERT_EQ(e.violations.size(), 1u);
  EXPECT_EQ(e.violations[0], "the plan uses 5 accelerators, maxFPGAs is 4");

  const Workload unsynced = testing::parseOrDie(withoutSync());
  e = evaluateText(unsynced, R"({"fpgas": [{"nodes": [1, 2, 3], "replicas": 2}]})");
  ASSERT_EQ(e.violations.size(), 1u);
  EXPECT_EQ(e.violations[0],
            "accelerator 0 has 2 replicas, but the workload has no syncBandwidth to synchronize them");

  EvaluateOptions latency;
  latency.objective = Objective::Latency;
  e = evaluateText(w, R"({"fpgas": [{"nodes": [1, 2, 3], "replicas": 2}]})", latency);
  ASSERT_EQ(e.violations.size(), 1u);
  EXPECT_EQ(e.violations[0],
            "accelerator 0 is replicated: replicas apply to the throughput objective only");
}

TEST(Replication, PlansWriteAndReadReplicas) {
  const auto workload = testing::writeTemp(kChain);
  const auto plan = testing::tempPath(".json");
  auto result =
      runCli("solve " + workload.string() + " --method dp --replicate --out " + plan.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::ifstream in(plan);
  const nlohmann::json written = nlohmann::json::parse(in);
  // The optimum: a and b each on replicas, c with one of them, or the CPU
  // core; whatever the split, the entries' replicas add up to at most 4
  // and the evaluator reads back the plan's own loads.
  int replicas = 0;
  for (const auto& entry : written["fpgas"]) replicas += entry.value("replicas", 1);
  EXPECT_LE(replicas, 4);
  EXPECT_GT(replicas, static_cast<int>(written["fpgas"].size()));  // replication pays here
  result = runCli("evaluate " + workload.string() + " " + plan.string() + " --format json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json evaluated = nlohmann::json::parse(result.out);
  EXPECT_DOUBLE_EQ(evaluated["objective"].get<double>(), written["maxLoad"].get<double>());
  for (const auto& device : evaluated["devices"])
    if (device["kind"] == "accelerator" && device.value("replicas", 1) > 1) {
      EXPECT_GT(device["syncLoad"].get<double>(), 0);
    }
  // The text table gains the replica and sync columns.
  result = runCli("evaluate " + workload.string() + " " + plan.string());
  EXPECT_NE(result.out.find("   replicas           sync\n"), std::string::npos) << result.out;
}

TEST(Replication, BadInputsGiveOneLineAndExitTwo) {
  const auto workload = testing::writeTemp(kChain);
  struct Case {
    const char* plan;
    std::string expected;  ///< after "dnnplace: PLAN: "
  };
  for (const Case& c :
       {Case{R"({"fpgas": [{"nodes": [1, 2, 3], "replicas": 0}]})",
             "fpgas[0]: replicas must be at least 1, got 0"},
        Case{R"({"fpgas": [{"nodes": [1, 2, 3], "replicas": "x"}]})",
             "fpgas[0]: replicas must be an integer, got string \"x\""},
        Case{R"({"fpgas": [{"nodes": [1, 2]}, {"nodes": [3], "replicas": 5}]})",
             "fpgas[1]: replicas 5 is more than the workload's maxFPGAs (4)"},
        Case{R"({"fpgas": [{"nodes": [1, 2]}], "cpus": [{"nodes": [3], "replicas": 2}]})",
             "cpus[0]: replicas 2 on a CPU core: only accelerator blocks are replicated "
             "(docs/model.md §9)"}}) {
    const auto plan = testing::writeTemp(c.plan);
    const auto result = runCli("evaluate " + workload.string() + " " + plan.string());
    EXPECT_EQ(result.exitCode, 2) << c.plan;
    EXPECT_EQ(result.err, "dnnplace: " + plan.string() + ": " + c.expected + "\n");
    const auto expert =
        runCli("solve " + workload.string() + " --method expert --plan " + plan.string());
    EXPECT_EQ(expert.exitCode, 2) << c.plan;
    EXPECT_EQ(std::count(expert.err.begin(), expert.err.end(), '\n'), 1) << expert.err;
  }

  const auto unsynced = testing::writeTemp(withoutSync());
  for (const char* method : {"dp", "dp-linear", "pipedream", "milp"}) {
    const auto result = runCli("solve " + unsynced.string() + " --method " + method + " --replicate");
    EXPECT_EQ(result.exitCode, 2) << method;
    EXPECT_EQ(result.err,
              "dnnplace: " + std::string(method) +
                  ": --replicate needs the workload's syncBandwidth (docs/model.md §9): "
                  "without it no block can be replicated (import onnx --sync-bandwidth, or a "
                  "device with a sync figure, sets it)\n");
  }
  auto result = runCli("compare " + unsynced.string() + " --replicate --methods dp");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: compare: --replicate needs the syncBandwidth of " +
                            unsynced.string() +
                            " (docs/model.md §9): without it no block can be replicated\n");
  // One rule whatever the workload: --replicate with no method that replicates.
  for (const auto& file : {workload, unsynced}) {
    result = runCli("compare " + file.string() + " --replicate --methods scotch,single");
    EXPECT_EQ(result.exitCode, 2);
    EXPECT_EQ(result.err,
              "dnnplace: compare: --replicate applies to --method dp, dp-linear, pipedream and milp, "
              "and none of them is compared\n");
  }
  result = runCli("solve " + workload.string() + " --method scotch --replicate");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(
      result.err,
      "dnnplace: solve: --replicate applies to --method dp, dp-linear, pipedream and milp only\n");
  result = runCli("solve " + workload.string() + " --method dp --replicate --objective latency");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: solve: --replicate applies to --objective throughput only\n");

  nlohmann::json negative = nlohmann::json::parse(kChain);
  negative["nodes"][1]["parameterSize"] = -3;
  const auto bad = testing::writeTemp(negative.dump());
  result = runCli("solve " + bad.string() + " --method dp --replicate");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + bad.string() +
                            ": node #1 (id 2): parameterSize must be a finite number >= 0, got -3\n");
  // So tiny a bandwidth that the all-reduce of 1e30 bytes of weights would
  // be infinite (a plan was once "feasible" with an infinite max-load).
  for (const double bandwidth : {0.0, 1e-300, -1.0}) {
    nlohmann::json slow = nlohmann::json::parse(kChain);
    slow["syncBandwidth"] = bandwidth;
    const auto file = testing::writeTemp(slow.dump());
    result = runCli("info " + file.string());
    EXPECT_EQ(result.exitCode, 2) << bandwidth;
    EXPECT_NE(result.err.find(": syncBandwidth must be "), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

// One time limit for every part of a method with --replicate (the pure
// pipeline, the chain along one order, the DP with replicas; milp's MILP and
// dp --replicate): each part once counted the whole limit from its own start,
// and 3 s became 6.3 s (dp) and 5 s 14 s (milp). A lattice too large for the
// limit keeps the pure pipeline's plan, and the plan's seconds are the whole run's.
TEST(Replication, TheTimeLimitHoldsForAllTheParts) {
  GeneratorOptions generator;
  generator.shape = GraphShape::Transformer;
  generator.blocks = 8;
  generator.width = 8;
  generator.accelerators = 16;
  Workload generated = generateWorkload(generator);
  nlohmann::json json = nlohmann::json::parse(workloadToJson(generated));
  json["syncBandwidth"] = 1e6;
  for (auto& node : json["nodes"]) node["parameterSize"] = node["size"].get<double>() / 2;
  const Workload w = testing::parseOrDie(json.dump());
  for (const char* method : {"dp", "milp"}) {
    SolveOptions options;
    options.replicate = true;
    options.timeLimitSeconds = 2;
    const auto start = std::chrono::steady_clock::now();
    const SolveOutcome outcome = solve(w, method, options);
    const double seconds = secondsSince(start);
    ASSERT_TRUE(outcome.placement) << method << ": " << outcome.message;
    // max(1 s, 10%), and the re-check (slower under AddressSanitizer).
    EXPECT_LT(seconds, 2 + 1 + (testing::kSanitized ? 1.5 : 0.5)) << method;
    EXPECT_GT(outcome.seconds, 0.5 * seconds) << method;
    EXPECT_LE(outcome.seconds, seconds) << method;
    // Cut short, it still proves the work bound with replication.
    EXPECT_GT(outcome.lowerBound, 0) << method << ": " << outcome.message;
    EXPECT_LE(outcome.lowerBound, outcome.objective) << method;
  }
}

// dp --replicate on two threads (the pure DP's pool, wavefront.hpp: each
// ideal awaits the sub-ideals it reads) finds the optimum one thread finds,
// on lattices large enough for the pool to use both (small ones run on one:
// the brute-force tests above), the second thread from the start.
TEST(Replication, TwoThreadsFindTheOptimumOfOne) {
  int pooled = 0;
  for (int seed = 1; seed <= 8; ++seed) {
    GeneratorOptions generator;
    generator.shape = seed % 2 ? GraphShape::Transformer : GraphShape::SeriesParallel;
    generator.blocks = seed % 2 ? 3 : 1;
    generator.width = seed % 2 ? 3 : 6;
    generator.chainLength = 3;
    generator.accelerators = 4 + seed;
    generator.seed = static_cast<std::uint64_t>(seed);
    nlohmann::json json = nlohmann::json::parse(workloadToJson(generateWorkload(generator)));
    json["syncBandwidth"] = seed % 3 == 0 ? 1e9 : 1e4;  // replication nearly free, or costly
    for (auto& node : json["nodes"]) node["parameterSize"] = node["size"].get<double>() / 4;
    const Workload w = testing::parseOrDie(json.dump());
    SolveOptions options;
    options.replicate = true;
    options.threadStartSeconds = 0;
    options.threads = 1;
    const SolveOutcome one = solve(w, "dp", options);
    options.threads = 2;
    const SolveOutcome two = solve(w, "dp", options);
    ASSERT_TRUE(one.placement && two.placement) << one.message << " / " << two.message;
    EXPECT_EQ(one.status, SolveStatus::Optimal) << one.message;
    EXPECT_EQ(two.status, SolveStatus::Optimal) << two.message;
    EXPECT_EQ(one.objective, two.objective) << "seed " << seed;
    // The lattice's size, as the message gives it: the pool takes two
    // threads from 512 ideals on.
    const auto at = two.message.find(" ideals, ");
    ASSERT_NE(at, std::string::npos) << two.message;
    auto start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(two.message[start - 1]))) --start;
    ASSERT_LT(start, at) << two.message;
    if (std::stoll(two.message.substr(start, at - start)) >= 512) ++pooled;
  }
  EXPECT_GE(pooled, 6);
}

TEST(Replication, CompareListsEachReplicatingMethodBesideItsPurePipeline) {
  const Workload w = testing::parseOrDie(kChain);
  SolveOptions options;
  options.replicate = true;
  options.timeLimitSeconds = 20;
  const std::vector<std::string> names = {"dp", "dp-linear", "pipedream", "milp", "scotch"};
  EXPECT_EQ(rowsPerWorkload(names, options), 9u);
  const auto rows = compareMethods({&w}, names, options);
  std::vector<std::string> methods;
  for (const auto& row : rows) methods.push_back(row.outcome.method);
  EXPECT_EQ(methods,
            (std::vector<std::string>{"dp", "dp --replicate", "dp-linear", "dp-linear --replicate",
                                      "pipedream", "pipedream --replicate", "milp", "milp --replicate",
                                      "scotch"}));
  const double pure = rows[0].outcome.objective, replicated = rows[1].outcome.objective;
  EXPECT_EQ(rows[1].outcome.status, SolveStatus::Optimal);
  EXPECT_LT(replicated, pure);
  for (std::size_t i : {3, 5, 7}) EXPECT_GE(rows[i].outcome.objective, replicated * (1 - 1e-12));
  // milp --replicate keeps the better of its own plan with replicas and dp --replicate's.
  EXPECT_DOUBLE_EQ(rows[7].outcome.objective, replicated);
  EXPECT_LE(rows[7].outcome.lowerBound, replicated);
  EXPECT_GT(rows[7].outcome.lowerBound, 0);
  EXPECT_EQ(rows[1].devicesUsed, 4);  // replicas counted
}

// PipeDream's planner on its own profiles, with its cost (10 GB/s all-reduce,
// no activation charge): dp's pure pipeline equals its straight pipeline,
// dp --replicate is never slower than its replicated plan, and pipedream
// --replicate (its method on our linearization) equals it on the chains
// (AlexNet, VGG-16). On the branching graphs its chain is another one:
// ResNet-18's residual blocks merged by biconnected component (PipeDream's
// planner walks the graph's antichains, as dp does), within 3% (2.8% at
// k = 4 and 32), GNMT's three inputs further (docs/results.md).
TEST(Replication, MatchesPipeDreamsPlannerOnItsProfiles) {
  DNNPLACE_REQUIRE_SHARED(shared);
  std::ifstream in(shared / "expected" / "pipedream.json");
  ASSERT_TRUE(in) << "expected/pipedream.json";
  const nlohmann::json expected = nlohmann::json::parse(in);
  int compared = 0;
  for (const auto& [file, byK] : expected["profiles"].items()) {
    for (const auto& [k, figures] : byK.items()) {
      PipedreamImportOptions options;
      options.profilePath = (shared / "profiles" / "pipedream" / file).string();
      options.bandwidth = expected["bandwidth_bytes_per_second"].get<double>();
      options.accelerators = std::stoi(k);
      options.memory = 1e15;  // PipeDream's figures: no memory constraint
      options.training = true;
      options.chargeActivations = false;
      ImportError error;
      const auto w = importPipedream(options, &error);
      ASSERT_TRUE(w) << error.message;
      SolveOptions pure, replicate;
      replicate.replicate = true;
      const SolveOutcome dp = solve(*w, "dp", pure);
      const SolveOutcome dpReplicated = solve(*w, "dp", replicate);
      const SolveOutcome pipedream = solve(*w, "pipedream", replicate);
      const std::string where = file + " k=" + k;
      ASSERT_EQ(dp.status, SolveStatus::Optimal) << where;
      ASSERT_EQ(dpReplicated.status, SolveStatus::Optimal) << where << ": " << dpReplicated.message;
      const double straight = figures["straight"].get<double>();
      const double theirs = figures["replicated"].get<double>();
      EXPECT_NEAR(dp.objective, straight, 1e-9 * straight) << where;
      EXPECT_LE(dpReplicated.objective, theirs * (1 + 1e-9)) << where;
      ASSERT_TRUE(hasPlan(pipedream)) << where;
      EXPECT_GE(pipedream.objective, dpReplicated.objective * (1 - 1e-9)) << where;
      if (file == "alexnet.txt" || file == "vgg16.txt") {
        EXPECT_NEAR(pipedream.objective, theirs, 1e-9 * theirs) << where;
      } else if (file == "resnet18.txt") {
        EXPECT_LE(pipedream.objective, theirs * 1.03) << where;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 16);
}

}  // namespace
}  // namespace dnnplace
