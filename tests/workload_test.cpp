// Loading workloads: the accepted spellings of docs/model.md §1 and the indexed graph.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

TEST(Workload, AcceptsPaperSpellings) {
  Workload w = testing::parseOrDie(R"({
    "maxSizePerFPGA": 1e9, "maxFPGAs": 2.0, "maxCPUs": 1,
    "nodes": [
      {"id": 5, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 0.5, "isBackwardNode": 0, "name": "conv", "layerId": 3},
      {"id": 9.0, "supportedOnFpga": false, "cpuLatency": 2, "fpgaLatency": 0, "isBackwardNode": false, "colorClass": 4, "size": 64},
      {"id": -3, "supportedOnFpga": true, "cpuLatency": 0, "fpgaLatency": 0, "isBackwardNode": 1, "colorClass": 4}
    ],
    "edges": [
      {"sourceId": 5, "destId": 9, "cost": 0.25, "size": 12},
      {"sourceId": 5, "destId": 9, "cost": 0.25},
      {"sourceId": 9, "destId": -3, "cost": 1}
    ]})");
  ASSERT_EQ(w.numNodes(), 3);
  EXPECT_EQ(w.machine.maxFpgas, 2);
  EXPECT_EQ(w.graph().nodes[0].name, "conv");
  EXPECT_FALSE(w.graph().nodes[1].supportedOnFpga);
  EXPECT_TRUE(w.graph().nodes[2].isBackward);
  EXPECT_DOUBLE_EQ(w.graph().nodes[1].size, 64);
  EXPECT_DOUBLE_EQ(w.graph().nodes[0].size, 0);
  EXPECT_EQ(w.graph().edges.size(), 2u);  // the duplicate edge is dropped
  EXPECT_DOUBLE_EQ(w.graph().outCost[0], 0.25);
  EXPECT_DOUBLE_EQ(w.graph().outCost[2], 0);
  EXPECT_EQ(w.graph().numClasses, 2);
  EXPECT_EQ(w.graph().classOf[1], w.graph().classOf[2]);
  EXPECT_NE(w.graph().classOf[0], w.graph().classOf[1]);
  EXPECT_EQ(*w.indexOf(-3), 2);
  EXPECT_FALSE(w.indexOf(4).has_value());
  ASSERT_EQ(w.successors(0).size(), 1u);
  EXPECT_EQ(w.successors(0)[0], 1);
  EXPECT_EQ(w.predecessors(2)[0], 1);
  EXPECT_EQ(w.graph().topologicalOrder, (std::vector<NodeIndex>{0, 1, 2}));
}

// Every accepted spelling of a node's or edge's fields reads the same value
// (ids written 3 or 3.0, flags true/false or 1/0): the same workload, field
// for field, on random graphs.
TEST(Workload, PlainAndOtherSpellingsReadTheSame) {
  std::mt19937_64 random(5);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + static_cast<int>(random() % 12);
    const auto amount = [&] {
      return random() % 2 ? std::to_string(random() % 1000)
                          : std::to_string(random() % 100000) + "." + std::to_string(random() % 1000);
    };
    const auto flag = [&] {
      return std::string(random() % 2 ? (random() % 2 ? "true" : "false") : (random() % 2 ? "1" : "0"));
    };
    std::string nodes[2], edges[2];
    for (int v = 0; v < n; ++v) {
      std::string fields = R"(, "supportedOnFpga": )" + flag() + R"(, "cpuLatency": )" + amount() +
                           R"(, "fpgaLatency": )" + amount() + R"(, "isBackwardNode": false)";
      if (random() % 2)
        fields += R"(, "colorClass": )" + std::to_string(static_cast<int>(random() % 5) - 1);
      if (random() % 2) fields += R"(, "size": )" + amount();
      if (random() % 2) fields += R"(, "name": "op)" + std::to_string(v) + R"(_with_a_long_name")";
      if (random() % 4 == 0) fields += R"(, "extra": [1, {"x": 2}])";
      const std::string id = std::to_string(10 * v + 3);
      for (int form = 0; form < 2; ++form)
        nodes[form] += std::string(v ? ", " : "") + R"({"id": )" + id + (form ? ".0" : "") + fields +
                       "}";
    }
    for (int v = 1; v < n; ++v) {
      const int u = static_cast<int>(random() % v);
      const std::string cost = std::to_string(u) + ".5";  // all edges leaving u carry the same cost
      for (int form = 0; form < 2; ++form)
        edges[form] += std::string(v > 1 ? ", " : "") + R"({"sourceId": )" +
                       std::to_string(10 * u + 3) + (form ? ".0" : "") + R"(, "destId": )" +
                       std::to_string(10 * v + 3) + R"(, "cost": )" + cost + "}";
    }
    std::optional<Workload> read[2];
    for (int form = 0; form < 2; ++form) {
      const std::string text = R"({"maxSizePerFPGA": 1e12, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [)" +
                               nodes[form] + R"(], "edges": [)" + edges[form] + "]}";
      std::string error;
      read[form] = parseWorkload(text, "w.json", &error);
      ASSERT_TRUE(read[form].has_value()) << error << "\n" << text;
    }
    ASSERT_EQ(read[0]->graph().nodes.size(), read[1]->graph().nodes.size());
    for (std::size_t v = 0; v < read[0]->graph().nodes.size(); ++v) {
      const Node &a = read[0]->graph().nodes[v], &b = read[1]->graph().nodes[v];
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.supportedOnFpga, b.supportedOnFpga);
      EXPECT_EQ(a.cpuLatency, b.cpuLatency);
      EXPECT_EQ(a.fpgaLatency, b.fpgaLatency);
      EXPECT_EQ(a.isBackward, b.isBackward);
      EXPECT_EQ(a.colorClass, b.colorClass);
      EXPECT_EQ(a.size, b.size);
      EXPECT_EQ(a.name, b.name);
      ++checked;
    }
    EXPECT_EQ(read[0]->graph().outCost, read[1]->graph().outCost);
    EXPECT_EQ(read[0]->graph().classOf, read[1]->graph().classOf);
    EXPECT_EQ(workloadToJson(*read[0]), workloadToJson(*read[1]));
  }
  EXPECT_GT(checked, 1500);
}

TEST(Workload, RoundTripsThroughJson) {
  Workload w = testing::parseOrDie(R"({"maxSizePerFPGA": 7, "maxFPGAs": 1, "maxCPUs": 0,
    "nodes": [{"id": 1, "supportedOnFpga": 1, "cpuLatency": 0.1, "fpgaLatency": 0.2, "isBackwardNode": 0, "colorClass": 3, "size": 5},
              {"id": 2, "supportedOnFpga": 1, "cpuLatency": 0.3, "fpgaLatency": 0.4, "isBackwardNode": 0}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 0.7}]})");
  Workload again = testing::parseOrDie(workloadToJson(w));
  ASSERT_EQ(again.numNodes(), 2);
  EXPECT_EQ(again.graph().nodes[0].colorClass, std::optional<std::int64_t>(3));
  EXPECT_FALSE(again.graph().nodes[1].colorClass.has_value());
  EXPECT_DOUBLE_EQ(again.graph().nodes[1].fpgaLatency, 0.4);
  EXPECT_DOUBLE_EQ(again.graph().outCost[0], 0.7);
  EXPECT_DOUBLE_EQ(again.machine.maxSizePerFpga, 7);
}

TEST(Workload, ErrorsNameFileElementAndField) {
  std::string error;
  EXPECT_FALSE(parseWorkload(R"({"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [
      {"id": 7, "supportedOnFpga": 1, "cpuLatency": -1, "fpgaLatency": 0, "isBackwardNode": 0}],
      "edges": []})",
                             "m.json", &error));
  EXPECT_EQ(error, "m.json: node #0 (id 7): cpuLatency must be a finite number >= 0, got -1");
  EXPECT_FALSE(parseWorkload(R"({"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [
      {"id": 5, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 0, "isBackwardNode": 0}],
      "edges": [{"sourceId": 5, "destId": 9, "cost": 0}]})",
                             "m.json", &error));
  EXPECT_EQ(error, "m.json: edge #0 (5 -> 9): destId 9 is not a node id");
  EXPECT_FALSE(parseWorkload(R"({"maxFPGAs": 1})", "m.json", &error));
  EXPECT_EQ(error, "m.json: maxSizePerFPGA is missing");
}

TEST(Workload, ReportsACycleByItsNodes) {
  std::string error;
  EXPECT_FALSE(parseWorkload(R"({"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [
      {"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 0, "isBackwardNode": 0},
      {"id": 2, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 0, "isBackwardNode": 0},
      {"id": 3, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 0, "isBackwardNode": 0}],
      "edges": [{"sourceId": 1, "destId": 2, "cost": 0}, {"sourceId": 2, "destId": 3, "cost": 0},
                {"sourceId": 3, "destId": 2, "cost": 0}]})",
                             "c.json", &error));
  EXPECT_EQ(error, "c.json: the graph has a directed cycle through node ids 2 -> 3 -> 2");
}

/// A chain of `n` nodes with long names (heap strings) in one JSON text.
std::string chainWorkloadText(int n) {
  std::string text = R"({"maxSizePerFPGA": 1e12, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [)";
  for (int i = 0; i < n; ++i)
    text += std::string(i ? "," : "") + R"({"id": )" + std::to_string(i) +
            R"(, "name": "a long operator name, past any small-string buffer )" + std::to_string(i) +
            R"(", "supportedOnFpga": 1, "cpuLatency": )" + std::to_string(i % 7) +
            R"(, "fpgaLatency": 0.5, "isBackwardNode": 0, "colorClass": )" + std::to_string(i / 2) +
            "}";
  text += R"(], "edges": [)";
  for (int i = 0; i + 1 < n; ++i)
    text += std::string(i ? "," : "") + R"({"sourceId": )" + std::to_string(i) + R"(, "destId": )" +
            std::to_string(i + 1) + R"(, "cost": 0.25})";
  return text + "]}";
}

// Large and small arrays, long strings, a document abandoned half-way, and
// two threads parsing at once must all come out whole (ASan and LSan check
// the frees).
TEST(Workload, LargeDocumentsParseWholeInParallelAndAfterErrors) {
  const int n = 3000;
  const std::string text = chainWorkloadText(n);
  std::string error;
  EXPECT_FALSE(parseWorkload(text.substr(0, text.size() / 2), "half.json", &error));
  EXPECT_NE(error.find("half.json: invalid JSON at byte"), std::string::npos) << error;

  auto check = [&](const Workload& w) {
    ASSERT_EQ(w.numNodes(), n);
    EXPECT_EQ(w.graph().numClasses, n / 2);
    EXPECT_EQ(w.graph().nodes[n - 1].name,
              "a long operator name, past any small-string buffer " + std::to_string(n - 1));
    EXPECT_DOUBLE_EQ(w.graph().nodes[n - 2].cpuLatency, (n - 2) % 7);
    EXPECT_EQ(w.graph().edges.size(), static_cast<std::size_t>(n - 1));
  };
  std::optional<Workload> inThread;
  std::thread other([&] {
    std::string threadError;
    inThread = parseWorkload(text, "t.json", &threadError);
  });
  const Workload here = testing::parseOrDie(text);
  other.join();
  check(here);
  ASSERT_TRUE(inThread.has_value());
  check(*inThread);
}

// A regular file is read into a buffer of its size; a pipe, of unknown size,
// into one that grows. Both must give the file's bytes exactly.
TEST(Workload, ReadsFilesAndPipesWhole) {
  const std::string text = chainWorkloadText(400);  // tens of KB: the pipe's buffer grows several times
  ASSERT_GT(text.size(), 40000u);
  const std::filesystem::path file = testing::writeTemp(text);
  std::string error;
  const auto fromFile = readFile(file.string(), &error);
  ASSERT_TRUE(fromFile) << error;
  EXPECT_EQ(*fromFile, text);
  const auto fromEmpty = readFile(testing::writeTemp("", ".txt").string(), &error);
  ASSERT_TRUE(fromEmpty) << error;
  EXPECT_EQ(*fromEmpty, "");

  const std::filesystem::path fifo = testing::tempPath(".fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::FILE* out = std::fopen(fifo.c_str(), "w");
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(std::fwrite(text.data(), 1, text.size(), out), text.size());
    std::fclose(out);
  });
  const auto fromPipe = readFile(fifo.string(), &error);
  writer.join();
  std::filesystem::remove(fifo);
  ASSERT_TRUE(fromPipe) << error;
  EXPECT_EQ(*fromPipe, text);

  EXPECT_FALSE(readFile((file.parent_path() / "no such file.json").string(), &error));
  EXPECT_NE(error.find("no such file.json: cannot open: No such file or directory"), std::string::npos)
      << error;
  EXPECT_FALSE(readFile(file.parent_path().string(), &error));
  EXPECT_NE(error.find(": cannot read: it is a directory"), std::string::npos) << error;
  // Opens, but its first bytes are not mapped: the read itself fails.
  EXPECT_FALSE(readFile("/proc/self/mem", &error));
  EXPECT_EQ(error, "/proc/self/mem: cannot read: Input/output error");
}

}  // namespace
}  // namespace dnnplace

namespace dnnplace {
namespace {

TEST(Workload, AnotherMachineSharesTheGraph) {
  std::string error;
  const auto workload = parseWorkload(R"({"maxSizePerFPGA": 10, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
{"id": 1, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0},
{"id": 2, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0}],
"edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]})",
                                      "w.json", &error);
  ASSERT_TRUE(workload) << error;
  Machine bigger = workload->machine;
  bigger.maxFpgas = 8;
  const Workload other = workload->onMachine(bigger);
  EXPECT_EQ(&other.graph(), &workload->graph());
  EXPECT_EQ(other.machine.maxFpgas, 8);
  EXPECT_EQ(workload->machine.maxFpgas, 2);
  EXPECT_EQ(other.name, "w.json");
  const Workload copy = *workload;  // a copy shares it too
  EXPECT_EQ(&copy.graph(), &workload->graph());
  EXPECT_EQ(solve(other, "dp", SolveOptions()).placement->numAccelerators, 8);
}

}  // namespace
}  // namespace dnnplace
