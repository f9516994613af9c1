// import piper: Piper's published inputs as workloads (docs/import.md), field by field, on
// every malformed input, and Piper's three inputs solved with dp --replicate.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dnnplace/import.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

using nlohmann::json;
using testing::runCli;
using testing::tempPath;
using testing::writeTemp;

json readJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// A small Piper input: a -> b -> c and a -> c, two configurations on b.
json smallInput() {
  auto tmpc = [](const char* id, double time, double params, double a, double b) {
    return json{{"id", id},
                {"timePerSample", time},
                {"parameterSize", params},
                {"memoryUsageA", a},
                {"memoryUsageB", b},
                {"syncTimeFw", json::object()},
                {"syncTimeBw", json::object()}};
  };
  json nodes = json::array();
  nodes.push_back(
      {{"id", 7}, {"name", "a"}, {"TMPCs", {{"1", {tmpc("vanilla", 0.002, 400, 10, 800)}}}}});
  nodes.push_back(
      {{"id", 8},
       {"name", "b"},
       {"TMPCs",
        {{"1",
          {tmpc("vanilla", 0.004, 1000, 50, 2000), tmpc("activation recomp", 0.005, 1000, 5, 2100)}},
         {"2", {tmpc("vanilla", 0.0001, 500, 1, 1)}}}}});
  nodes.push_back({{"id", 9}, {"TMPCs", {{"1", {tmpc("vanilla", 0.001, 0, 20, 30)}}}}});
  json edges = json::array();
  edges.push_back({{"sourceId", 7}, {"destId", 8}, {"communicationCost", 3e6}});
  edges.push_back({{"sourceId", 7}, {"destId", 9}, {"communicationCost", 5e6}});
  edges.push_back({{"sourceId", 8}, {"destId", 9}, {"communicationCost", 1e6}});
  return {{"maxMemoryPerDevice", 1e9}, {"maxDevices", 3}, {"bandwidth", 1e9},
          {"mbsInBatch", 64},          {"nodes", nodes},  {"edges", edges}};
}

std::optional<Workload> import(const json& input, PiperImportOptions options, ImportError* error) {
  const auto path = writeTemp(input.dump(), ".json");
  options.inputPath = path.string();
  auto workload = importPiper(options, error);
  std::filesystem::remove(path);
  return workload;
}

const Node& nodeWithId(const Workload& w, std::int64_t id) { return w.graph().nodes[*w.indexOf(id)]; }

TEST(ImportPiper, MappingOfEachField) {
  ImportError error;
  const auto w = import(smallInput(), {}, &error);
  ASSERT_TRUE(w) << error.message;
  EXPECT_EQ(w->machine.maxFpgas, 3);
  EXPECT_EQ(w->machine.maxCpus, 0);
  EXPECT_DOUBLE_EQ(w->machine.maxSizePerFpga, 1e9);
  EXPECT_DOUBLE_EQ(w->machine.syncBandwidth, 1e6);  // bytes per millisecond
  EXPECT_DOUBLE_EQ(w->machine.samplesPerSync, 64);
  ASSERT_EQ(w->numNodes(), 3);
  const Node& a = nodeWithId(*w, 7);
  const Node& b = nodeWithId(*w, 8);
  const Node& c = nodeWithId(*w, 9);
  EXPECT_EQ(a.name, "a");
  EXPECT_DOUBLE_EQ(a.fpgaLatency, 2);  // 0.002 s
  EXPECT_DOUBLE_EQ(a.cpuLatency, 2);
  EXPECT_FALSE(a.isBackward);
  EXPECT_DOUBLE_EQ(a.size, 810);  // b + 1 x a
  EXPECT_DOUBLE_EQ(a.parameterSize, 400);
  // b: the faster configuration of degree 1 ("vanilla"), never degree 2's.
  EXPECT_DOUBLE_EQ(b.fpgaLatency, 4);
  EXPECT_DOUBLE_EQ(b.size, 2050);
  EXPECT_DOUBLE_EQ(b.parameterSize, 1000);
  EXPECT_DOUBLE_EQ(c.size, 50);
  // a's edges carry 3e6 and 5e6 bytes: the larger, forward and back, at 1e9 bytes/s = 10 ms.
  const Graph& g = w->graph();
  EXPECT_DOUBLE_EQ(g.outCost[*w->indexOf(7)], 10);
  EXPECT_DOUBLE_EQ(g.outCost[*w->indexOf(8)], 2);
  EXPECT_DOUBLE_EQ(g.outCost[*w->indexOf(9)], 0);

  PiperImportOptions options;
  options.accelerators = 5;
  options.cpus = 2;
  options.memory = 4e9;
  options.bandwidth = 2e9;
  options.chargeActivations = true;
  options.inFlight = 3;
  options.samplesPerSync = 8;
  const auto other = import(smallInput(), options, &error);
  ASSERT_TRUE(other) << error.message;
  EXPECT_EQ(other->machine.maxFpgas, 5);
  EXPECT_EQ(other->machine.maxCpus, 2);
  EXPECT_DOUBLE_EQ(other->machine.maxSizePerFpga, 4e9);
  EXPECT_DOUBLE_EQ(other->machine.syncBandwidth, 2e6);
  EXPECT_DOUBLE_EQ(other->machine.samplesPerSync, 8);
  EXPECT_DOUBLE_EQ(nodeWithId(*other, 8).size, 2000 + 3 * 50);
  EXPECT_DOUBLE_EQ(other->graph().outCost[*other->indexOf(7)], 5);

  options.chargeActivations = false;
  const auto free = import(smallInput(), options, &error);
  ASSERT_TRUE(free) << error.message;
  for (double cost : free->graph().outCost) EXPECT_EQ(cost, 0);
}

// Piper's README names the batch maxBatchSize; its files say mbsInBatch. Either is read.
TEST(ImportPiper, ReadsMaxBatchSize) {
  json input = smallInput();
  input.erase("mbsInBatch");
  input["maxBatchSize"] = 32;
  ImportError error;
  const auto w = import(input, {}, &error);
  ASSERT_TRUE(w) << error.message;
  EXPECT_DOUBLE_EQ(w->machine.samplesPerSync, 32);
}

TEST(ImportPiper, MalformedInputMessages) {
  struct Case {
    std::function<void(json&)> edit;
    std::string message;  // after "FILE: "
  };
  const std::vector<Case> cases = {
      {[](json& j) { j = json::array(); },
       "expected an object with maxMemoryPerDevice, maxDevices, bandwidth, nodes, edges"},
      {[](json& j) { j.erase("maxDevices"); }, "top level: missing field maxDevices"},
      {[](json& j) { j["maxDevices"] = 2.5; },
       "top level: maxDevices must be an integer from 0 to 1048576, got 2.5"},
      {[](json& j) { j["bandwidth"] = 0; },
       "top level: bandwidth must be a finite number > 0 and at most 1e27, got 0"},
      {[](json& j) { j["maxMemoryPerDevice"] = -1; },
       "top level: maxMemoryPerDevice must be a finite number >= 0 and at most 1e27, got -1"},
      {[](json& j) { j.erase("mbsInBatch"); }, "top level: missing field mbsInBatch"},
      {[](json& j) { j["mbsInBatch"] = 0; },
       "top level: mbsInBatch must be an integer from 1 to 1099511627776, got 0"},
      {[](json& j) { j["nodes"] = json::array(); }, "nodes must be a non-empty array"},
      {[](json& j) { j.erase("edges"); }, "edges must be an array"},
      {[](json& j) { j["nodes"][1] = 3; }, "nodes[1] must be an object"},
      {[](json& j) { j["nodes"][1].erase("id"); }, "nodes[1]: missing field id"},
      {[](json& j) { j["nodes"][2]["id"] = 7; }, "duplicate node 7 (nodes[0] and nodes[2])"},
      {[](json& j) { j["nodes"][0].erase("TMPCs"); }, "node 7: missing field TMPCs"},
      {[](json& j) { j["nodes"][1]["TMPCs"].erase("1"); },
       "node 8: TMPCs has no configuration for tensor-parallel degree 1 (TMPCs[\"1\"]: missing)"},
      {[](json& j) { j["nodes"][1]["TMPCs"]["1"] = json::array(); },
       "node 8: TMPCs has no configuration for tensor-parallel degree 1 (TMPCs[\"1\"]: [])"},
      {[](json& j) { j["nodes"][1]["TMPCs"]["1"][1]["timePerSample"] = -0.5; },
       "node 8: TMPCs[\"1\"][1] 'activation recomp': timePerSample must be a finite number >= 0 and at "
       "most 1e27, "
       "got -0.5"},
      {[](json& j) { j["nodes"][0]["TMPCs"]["1"][0].erase("memoryUsageA"); },
       "node 7: TMPCs[\"1\"][0] 'vanilla': missing field memoryUsageA"},
      {[](json& j) { j["nodes"][0]["TMPCs"]["1"][0]["parameterSize"] = "big"; },
       "node 7: TMPCs[\"1\"][0] 'vanilla': parameterSize must be a finite number >= 0 and at most "
       "1e27, got \"big\""},
      {[](json& j) { j["nodes"][1]["TMPCs"]["1"][1]["id"] = "vanilla"; },
       "node 8: TMPCs[\"1\"][1]: id 'vanilla' given twice"},
      {[](json& j) { j["edges"][1]["destId"] = 42; }, "edges[1]: destId 42 is no node"},
      {[](json& j) { j["edges"][0]["sourceId"] = 41; }, "edges[0]: sourceId 41 is no node"},
      {[](json& j) { j["nodes"][1]["TMPCs"]["1"][0]["timePerSample"] = 1e300; },
       "node 8: TMPCs[\"1\"][0] 'vanilla': timePerSample must be a finite number >= 0 and at most "
       "1e27, got 1e+300"},
      {[](json& j) { j["edges"][2]["communicationCost"] = -1; },
       "edges[2]: communicationCost must be a finite number >= 0 and at most 1e27, got -1"},
      {[](json& j) { j["edges"].push_back(j["edges"][0]); }, "edges[3]: edge 7 -> 8 given twice"},
  };
  for (const Case& c : cases) {
    json input = smallInput();
    c.edit(input);
    const auto path = writeTemp(input.dump(), ".json");
    SCOPED_TRACE(c.message);
    PiperImportOptions options;
    options.inputPath = path.string();
    ImportError error;
    EXPECT_FALSE(importPiper(options, &error));
    EXPECT_EQ(error.message, path.string() + ": " + c.message);
    EXPECT_FALSE(error.infeasible);
    std::filesystem::remove(path);
  }
}

TEST(ImportPiper, CliErrorsAndExitCodes) {
  // A cycle is found when the workload is built: exit 2 with one line naming the file.
  json input = smallInput();
  input["edges"].push_back({{"sourceId", 9}, {"destId", 7}, {"communicationCost", 0}});
  auto path = writeTemp(smallInput().dump(), ".json");
  // What it read, on stderr (--quiet: nothing).
  auto result = runCli("import piper '" + path.string() + "' --out /dev/null");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err.rfind("import piper: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(" nodes ("), std::string::npos) << result.err;
  EXPECT_EQ(runCli("import piper '" + path.string() + "' --out /dev/null --quiet").err, "");
  std::filesystem::remove(path);
  path = writeTemp(input.dump(), ".json");
  result = runCli("import piper '" + path.string() + "'");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find(path.string()), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("cycle"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  std::filesystem::remove(path);

  path = writeTemp("{\"maxDevices\": ", ".json");
  result = runCli("import piper '" + path.string() + "'");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err.rfind("dnnplace: " + path.string() + ": not JSON", 0), 0) << result.err;
  std::filesystem::remove(path);

  result = runCli("import piper /nonexistent/piper.json");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("/nonexistent/piper.json"), std::string::npos) << result.err;

  // b needs 2050 bytes (vanilla: 2000 + 1 x 50): more than 2000 bytes of memory and no CPU core.
  path = writeTemp(smallInput().dump(), ".json");
  result = runCli("import piper '" + path.string() + "' --memory 2000");
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_NE(result.err.find("node 8 b needs 2050 bytes"), std::string::npos) << result.err;
  result = runCli("import piper '" + path.string() + "' --activations some");
  EXPECT_EQ(result.exitCode, 2);
  result = runCli("import piper '" + path.string() + "' --bandwidth 0");
  EXPECT_EQ(result.exitCode, 2);
  std::filesystem::remove(path);
}

/// What the test reads from an input itself: per node the fastest degree-1 configuration.
struct InputSums {
  int nodes = 0, edges = 0, devices = 0, batch = 0;
  double seconds = 0, parameters = 0, bandwidth = 0;
};

InputSums sumsOf(const json& input) {
  InputSums sums;
  sums.nodes = static_cast<int>(input["nodes"].size());
  sums.edges = static_cast<int>(input["edges"].size());
  sums.devices = input["maxDevices"].get<int>();
  sums.batch = input["mbsInBatch"].get<int>();
  sums.bandwidth = input["bandwidth"].get<double>();
  for (const json& node : input["nodes"]) {
    const json* best = nullptr;
    for (const json& tmpc : node["TMPCs"]["1"])
      if (best == nullptr ||
          tmpc["timePerSample"].get<double>() < (*best)["timePerSample"].get<double>())
        best = &tmpc;
    sums.seconds += (*best)["timePerSample"].get<double>();
    sums.parameters += (*best)["parameterSize"].get<double>();
  }
  return sums;
}

double maxLoadOf(const std::filesystem::path& plan) { return readJson(plan)["maxLoad"].get<double>(); }

/// solve --method dp, without and with --replicate, into the two plan files.
void solveBoth(const std::filesystem::path& workload, const std::filesystem::path& pure,
               const std::filesystem::path& replicated) {
  for (const auto& [plan, flag] : {std::pair{pure, ""}, std::pair{replicated, " --replicate"}}) {
    const auto result = runCli("solve '" + workload.string() + "' --method dp" + flag +
                               " --quiet --out '" + plan.string() + "'");
    ASSERT_EQ(result.exitCode, 0) << result.err;
  }
}

/// `evaluate` accepts the plan and recomputes its max-load.
void expectEvaluatorAgrees(const std::filesystem::path& workload, const std::filesystem::path& plan,
                           double maxLoad) {
  const auto result = runCli("evaluate '" + workload.string() + "' '" + plan.string() + "'");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("feasible:   yes"), std::string::npos) << result.out;
  const auto at = result.out.find("max-load:");
  ASSERT_NE(at, std::string::npos) << result.out;
  EXPECT_NEAR(std::stod(result.out.substr(at + 9)), maxLoad, 1e-9 * maxLoad);
}

// Each of Piper's inputs imports and solves with dp --replicate at its own maxDevices (10)
// and at k = 16. Replication is never worse than the pure pipeline, the evaluator accepts
// the plan with the same objective, and on these inputs (all-reduces of a few hundred
// microseconds against seconds of compute) the optimum is pure data parallelism: one block
// on all k accelerators, load (work + 4 (k-1)/k W / syncBandwidth / samplesPerSync) / k.
TEST(ImportPiper, SharedInputsSolveWithReplication) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const std::pair<const char*, int> inputs[] = {{"bert32a100", 37}, {"gnmt", 78}, {"resnet", 177}};
  for (const auto& [name, nodeCount] : inputs) {
    const auto file = shared / "profiles" / "piper" / (std::string(name) + ".json");
    const InputSums sums = sumsOf(readJson(file));
    ASSERT_EQ(sums.nodes, nodeCount);
    for (const int k : {sums.devices, 16}) {
      SCOPED_TRACE(std::string(name) + " k=" + std::to_string(k));
      const auto workload = tempPath(".json");
      auto result = runCli("import piper '" + file.string() + "' --accelerators " + std::to_string(k) +
                           " --out '" + workload.string() + "'");
      ASSERT_EQ(result.exitCode, 0) << result.err;
      EXPECT_EQ(result.err.rfind("import piper: " + std::to_string(sums.nodes) + " nodes", 0), 0u)
          << result.err;
      EXPECT_NE(result.err.find("; " + std::to_string(k) + " accelerators of "), std::string::npos)
          << result.err;
      std::string error;
      const auto w = loadWorkload(workload.string(), &error);
      ASSERT_TRUE(w) << error;
      EXPECT_EQ(w->numNodes(), sums.nodes);
      EXPECT_EQ(w->machine.maxFpgas, k);
      EXPECT_DOUBLE_EQ(w->machine.samplesPerSync, sums.batch);
      double work = 0, parameters = 0;
      for (const Node& node : w->graph().nodes) {
        work += node.fpgaLatency;
        parameters += node.parameterSize;
      }
      EXPECT_NEAR(work, 1000 * sums.seconds, 1e-9 * work);
      EXPECT_NEAR(parameters, sums.parameters, 1e-9 * parameters);

      const auto pure = tempPath(".json"), replicated = tempPath(".json");
      ASSERT_NO_FATAL_FAILURE(solveBoth(workload, pure, replicated));
      const double pureLoad = maxLoadOf(pure), replicatedLoad = maxLoadOf(replicated);
      EXPECT_LE(replicatedLoad, pureLoad * (1 + 1e-9));
      // The pure pipeline cannot beat an even split of the work.
      EXPECT_GE(pureLoad, work / k * (1 - 1e-9));
      const double sync = 4.0 * (k - 1) / k * parameters / (sums.bandwidth / 1000) / sums.batch;
      EXPECT_NEAR(replicatedLoad, (work + sync) / k, 1e-9 * replicatedLoad);
      const json plan = readJson(replicated);
      ASSERT_EQ(plan["fpgas"].size(), 1u);
      EXPECT_EQ(plan["fpgas"][0]["replicas"].get<int>(), k);

      expectEvaluatorAgrees(workload, replicated, replicatedLoad);
      for (const auto& path : {workload, pure, replicated}) std::filesystem::remove(path);
    }
  }
}

// With --in-flight K (each replica holds K microbatches' activations, Piper's y at most K),
// BERT-32 and ResNet no longer fit on one accelerator: the replicated optimum is a pipeline
// of replicated blocks, still no slower than the pure pipeline, and the evaluator agrees.
TEST(ImportPiper, MemoryBindsWithMicrobatchesInFlight) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const std::pair<const char*, double> inputs[] = {{"bert32a100", 102.8347562311111},
                                                   {"resnet", 46453.665995407624}};
  for (const auto& [name, expected] : inputs) {
    SCOPED_TRACE(name);
    const auto file = shared / "profiles" / "piper" / (std::string(name) + ".json");
    const auto workload = tempPath(".json"), pure = tempPath(".json"), replicated = tempPath(".json");
    auto result =
        runCli("import piper '" + file.string() + "' --in-flight 10 --out '" + workload.string() + "'");
    ASSERT_EQ(result.exitCode, 0) << result.err;
    ASSERT_NO_FATAL_FAILURE(solveBoth(workload, pure, replicated));
    const double replicatedLoad = maxLoadOf(replicated);
    EXPECT_NEAR(replicatedLoad, expected, 1e-9 * expected);
    EXPECT_LE(replicatedLoad, maxLoadOf(pure));
    const json plan = readJson(replicated);
    EXPECT_GT(plan["fpgas"].size(), 1u);
    int replicas = 0, replicatedBlocks = 0;
    for (const json& block : plan["fpgas"]) {
      const int r = block.value("replicas", 1);
      replicas += r;
      replicatedBlocks += r > 1;
    }
    EXPECT_LE(replicas, 10);
    EXPECT_GT(replicatedBlocks, 0);
    expectEvaluatorAgrees(workload, replicated, replicatedLoad);
    for (const auto& path : {workload, pure, replicated}) std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace dnnplace
