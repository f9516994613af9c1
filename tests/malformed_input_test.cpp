// Malformed workloads and plans: every one is rejected with one line naming the
// file, the element and the field; nothing crashes, hangs or aborts.
// Variants are built in memory from one valid workload by exact text edits.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

// Five nodes (one unsupported, one backward twin of id 11 in class 2, one
// without colorClass, one without size) and five edges with one cost per source.
const std::string kValid = R"({
  "maxSizePerFPGA": 1000,
  "maxFPGAs": 2,
  "maxCPUs": 1,
  "nodes": [
    {"id": 10, "name": "input", "supportedOnFpga": true, "cpuLatency": 1.5, "fpgaLatency": 0.25, "isBackwardNode": false, "colorClass": 1, "size": 100},
    {"id": 11, "supportedOnFpga": 1, "cpuLatency": 2.5, "fpgaLatency": 0.5, "isBackwardNode": 0, "colorClass": 2, "size": 200},
    {"id": 12, "supportedOnFpga": false, "cpuLatency": 3.5, "fpgaLatency": 0.75, "isBackwardNode": false, "size": 300},
    {"id": 13, "supportedOnFpga": true, "cpuLatency": 4.5, "fpgaLatency": 1.25, "isBackwardNode": false, "colorClass": 4},
    {"id": 21, "supportedOnFpga": true, "cpuLatency": 5.5, "fpgaLatency": 2.25, "isBackwardNode": true, "colorClass": 2, "size": 50}
  ],
  "edges": [
    {"sourceId": 10, "destId": 11, "cost": 0.125},
    {"sourceId": 10, "destId": 12, "cost": 0.125},
    {"sourceId": 11, "destId": 13, "cost": 0.375},
    {"sourceId": 12, "destId": 13, "cost": 0.0625},
    {"sourceId": 13, "destId": 21, "cost": 0.03125}
  ]
}
)";

/// kValid with `from` (which must occur exactly once) replaced by `to`.
std::string edit(const std::string& from, const std::string& to, const std::string& base = kValid) {
  const auto at = base.find(from);
  if (at == std::string::npos || base.find(from, at + 1) != std::string::npos) {
    ADD_FAILURE() << "test bug: '" << from << "' does not occur exactly once";
    return base;
  }
  std::string text = base;
  text.replace(at, from.size(), to);
  return text;
}

/// A chain 1 -> 2 -> … -> length closed into a cycle, with node 0 leading
/// into it and node 999 hanging off it (a node blocked by the cycle without
/// being on it, listed first among 1's successors).
std::string longCycle(int length) {
  std::string nodes =
      R"({"id": 0, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},)"
      R"( {"id": 999, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})";
  std::string edges =
      R"({"sourceId": 0, "destId": 1, "cost": 1}, {"sourceId": 1, "destId": 999, "cost": 1})";
  for (int i = 1; i <= length; ++i) {
    nodes += R"(, {"id": )" + std::to_string(i) +
             R"(, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})";
    edges += R"(, {"sourceId": )" + std::to_string(i) + R"(, "destId": )" +
             std::to_string(i == length ? 1 : i + 1) + R"(, "cost": 1})";
  }
  return R"({"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [)" + nodes +
         R"(], "edges": [)" + edges + "]}";
}

std::string edge1Text() { return R"({"sourceId": 10, "destId": 12, "cost": 0.125})"; }

struct Case {
  std::string label;
  std::string text;
  std::vector<std::string> expected;  ///< substrings the error must contain
};

/// One per kind of invalid input docs/model.md §1 lists.
std::vector<Case> malformedCases() {
  const std::string node12 =
      R"({"id": 12, "supportedOnFpga": false, "cpuLatency": 3.5, "fpgaLatency": 0.75, "isBackwardNode": false, "size": 300})";
  const std::string edge1 = R"({"sourceId": 10, "destId": 12, "cost": 0.125})";
  const std::string lastEdge = R"({"sourceId": 13, "destId": 21, "cost": 0.03125})";
  std::vector<Case> cases = {
      // Not JSON at all, or broken JSON.
      {"empty file", "", {"empty"}},
      {"only whitespace", " \n\t\r\n ", {"empty"}},
      {"truncated in the middle", kValid.substr(0, kValid.size() / 2), {"invalid JSON at byte"}},
      {"truncated after the first byte", "{", {"invalid JSON"}},
      {"missing final brace", kValid.substr(0, kValid.rfind('}')), {"invalid JSON"}},
      {"binary garbage",
       std::string("\x7f\x45\x4c\x46\x02\x01\x01\x00\xff\xfe\x00\x10", 12),
       {"invalid JSON at byte"}},
      {"NUL byte inside",
       edit("\"maxCPUs\": 1", std::string("\"maxCPUs\": \0 1", 14)),
       {"invalid JSON"}},
      {"trailing garbage", kValid + "garbage", {"invalid JSON"}},
      {"trailing garbage after a NUL byte",
       kValid + std::string("\0garbage", 8),
       {"invalid JSON at byte " + std::to_string(kValid.size()), "NUL byte"}},
      {"two documents", kValid + kValid, {"invalid JSON"}},
      {"trailing comma", edit(lastEdge + "\n", lastEdge + ",\n"), {"invalid JSON"}},
      {"single quotes", edit("\"maxCPUs\"", "'maxCPUs'"), {"invalid JSON"}},
      {"comment", edit("\"maxCPUs\": 1,", "\"maxCPUs\": 1, // one core"), {"invalid JSON"}},
      {"unterminated string", edit("\"name\": \"input\"", "\"name\": \"input"), {"invalid JSON"}},
      {"NaN token", edit("\"cpuLatency\": 3.5", "\"cpuLatency\": NaN"), {"invalid JSON"}},
      {"Infinity token", edit("\"fpgaLatency\": 0.75", "\"fpgaLatency\": Infinity"), {"invalid JSON"}},
      {"-Infinity token", edit("\"cost\": 0.375", "\"cost\": -Infinity"), {"invalid JSON"}},
      {"number too large for a double",
       edit("\"cpuLatency\": 3.5", "\"cpuLatency\": 1e400"),
       {"invalid JSON at byte", "1e400"}},
      {"latency too large to sum",
       edit("\"cpuLatency\": 3.5", "\"cpuLatency\": 1e308"),
       {"cpuLatency must be at most 1e30, got 1e+308"}},
      {"cost too large to sum",
       edit("\"cost\": 0.375", "\"cost\": 2e30"),
       {"cost must be at most 1e30, got 2e+30"}},
      {"deep array nesting", std::string(1'000'000, '['), {"nested deeper than"}},
      {"deep object nesting",
       [] {
         std::string text;
         for (int i = 0; i < 200'000; ++i) text += "{\"a\":";
         return text;
       }(),
       {"nested deeper than"}},
      {"nesting inside the nodes array",
       edit(node12, std::string(100, '[') + node12 + std::string(100, ']')),
       {"nested deeper than"}},

      // The top level.
      {"top level is an array", "[1, 2, 3]", {"top level must be a JSON object"}},
      {"top level is a number", "42", {"top level must be a JSON object"}},
      {"top level is a string", "\"workload\"", {"top level must be a JSON object"}},
      {"top level is null", "null", {"top level must be a JSON object"}},
      {"maxSizePerFPGA missing", edit("\"maxSizePerFPGA\": 1000,", ""), {"maxSizePerFPGA is missing"}},
      {"maxFPGAs missing", edit("\"maxFPGAs\": 2,", ""), {"maxFPGAs is missing"}},
      {"maxCPUs missing", edit("\"maxCPUs\": 1,", ""), {"maxCPUs is missing"}},
      {"nodes missing", edit("\"nodes\"", "\"vertices\""), {"nodes is missing"}},
      {"edges missing", edit("\"edges\"", "\"arcs\""), {"edges is missing"}},
      {"negative maxSizePerFPGA",
       edit("\"maxSizePerFPGA\": 1000", "\"maxSizePerFPGA\": -1"),
       {"maxSizePerFPGA must be a finite number >= 0, got -1"}},
      {"maxSizePerFPGA as string",
       edit("\"maxSizePerFPGA\": 1000", "\"maxSizePerFPGA\": \"1 GB\""),
       {"maxSizePerFPGA must be a number", "string \"1 GB\""}},
      {"maxSizePerFPGA null",
       edit("\"maxSizePerFPGA\": 1000", "\"maxSizePerFPGA\": null"),
       {"maxSizePerFPGA must be a number", "null"}},
      {"negative maxFPGAs",
       edit("\"maxFPGAs\": 2", "\"maxFPGAs\": -1"),
       {"maxFPGAs must be an integer >= 0, got -1"}},
      {"fractional maxFPGAs",
       edit("\"maxFPGAs\": 2", "\"maxFPGAs\": 1.5"),
       {"maxFPGAs must be an integer", "1.5"}},
      {"maxFPGAs as string",
       edit("\"maxFPGAs\": 2", "\"maxFPGAs\": \"2\""),
       {"maxFPGAs must be an integer", "string \"2\""}},
      {"maxFPGAs as bool",
       edit("\"maxFPGAs\": 2", "\"maxFPGAs\": true"),
       {"maxFPGAs must be an integer", "true"}},
      {"maxFPGAs 1e30",
       edit("\"maxFPGAs\": 2", "\"maxFPGAs\": 1e30"),
       {"maxFPGAs must be an integer", "64 bits"}},
      {"maxFPGAs beyond any machine",
       edit("\"maxFPGAs\": 2", "\"maxFPGAs\": 99999999999"),
       {"maxFPGAs must be at most"}},
      {"negative maxCPUs",
       edit("\"maxCPUs\": 1", "\"maxCPUs\": -3"),
       {"maxCPUs must be an integer >= 0, got -3"}},
      {"nodes is a string",
       "{\"maxSizePerFPGA\": 1, \"maxFPGAs\": 1, \"maxCPUs\": 1, \"nodes\": \"abc\", \"edges\": []}",
       {"nodes must be an array", "string \"abc\""}},
      {"nodes is an object (balanced)",
       "{\"maxSizePerFPGA\": 1, \"maxFPGAs\": 1, \"maxCPUs\": 1, \"nodes\": {}, \"edges\": []}",
       {"nodes must be an array", "object"}},
      {"edges is a number",
       edit("\"edges\": [", "\"edges\": 5, \"old\": ["),
       {"edges must be an array", "5"}},

      // Nodes.
      {"node is a number", edit(node12, "42"), {"node #2", "must be a JSON object", "42"}},
      {"node is an array", edit(node12, "[12]"), {"node #2", "must be a JSON object"}},
      {"node id missing", edit("\"id\": 12, ", ""), {"node #2", "id is missing"}},
      {"supportedOnFpga missing",
       edit("\"supportedOnFpga\": false, ", ""),
       {"node #2 (id 12)", "supportedOnFpga is missing"}},
      {"cpuLatency missing",
       edit("\"cpuLatency\": 3.5, ", ""),
       {"node #2 (id 12)", "cpuLatency is missing"}},
      {"fpgaLatency missing",
       edit("\"fpgaLatency\": 0.75, ", ""),
       {"node #2 (id 12)", "fpgaLatency is missing"}},
      {"isBackwardNode missing",
       edit("\"isBackwardNode\": true, ", ""),
       {"node #4 (id 21)", "isBackwardNode is missing"}},
      {"negative cpuLatency",
       edit("\"cpuLatency\": 3.5", "\"cpuLatency\": -1"),
       {"node #2 (id 12): cpuLatency must be a finite number >= 0, got -1"}},
      {"negative fpgaLatency",
       edit("\"fpgaLatency\": 0.75", "\"fpgaLatency\": -0.5"),
       {"node #2 (id 12): fpgaLatency must be a finite number >= 0, got -0.5"}},
      {"negative size",
       edit("\"size\": 300", "\"size\": -300"),
       {"node #2 (id 12): size must be a finite number >= 0, got -300"}},
      {"cpuLatency as string",
       edit("\"cpuLatency\": 3.5", "\"cpuLatency\": \"3.5\""),
       {"node #2 (id 12): cpuLatency must be a number", "string \"3.5\""}},
      {"fpgaLatency null",
       edit("\"fpgaLatency\": 0.75", "\"fpgaLatency\": null"),
       {"node #2 (id 12): fpgaLatency must be a number", "null"}},
      {"fpgaLatency array",
       edit("\"fpgaLatency\": 0.75", "\"fpgaLatency\": [0.75]"),
       {"node #2 (id 12): fpgaLatency must be a number", "array"}},
      {"size as bool",
       edit("\"size\": 300", "\"size\": true"),
       {"node #2 (id 12): size must be a number", "true"}},
      {"fractional id",
       edit("\"id\": 12,", "\"id\": 1.5,"),
       {"node #2", "id must be an integer", "1.5"}},
      {"id as string",
       edit("\"id\": 12,", "\"id\": \"12\","),
       {"node #2", "id must be an integer", "string \"12\""}},
      {"id 1e30",
       edit("\"id\": 12,", "\"id\": 1e30,"),
       {"node #2", "id must be an integer", "64 bits"}},
      {"id beyond int64",
       edit("\"id\": 12,", "\"id\": 18446744073709551615,"),
       {"node #2", "id must be an integer", "64 bits"}},
      {"supportedOnFpga 2",
       edit("\"supportedOnFpga\": false", "\"supportedOnFpga\": 2"),
       {"node #2 (id 12): supportedOnFpga must be true, false, 0 or 1, got 2"}},
      {"supportedOnFpga string",
       edit("\"supportedOnFpga\": false", "\"supportedOnFpga\": \"no\""),
       {"node #2 (id 12): supportedOnFpga must be true, false, 0 or 1", "string \"no\""}},
      {"isBackwardNode null",
       edit("\"isBackwardNode\": true", "\"isBackwardNode\": null"),
       {"node #4 (id 21): isBackwardNode must be true, false, 0 or 1, got null"}},
      {"isBackwardNode 0.5",
       edit("\"isBackwardNode\": 0,", "\"isBackwardNode\": 0.5,"),
       {"node #1 (id 11): isBackwardNode must be true, false, 0 or 1, got 0.5"}},
      {"colorClass string",
       edit("\"colorClass\": 4", "\"colorClass\": \"four\""),
       {"node #3 (id 13): colorClass must be an integer", "string \"four\""}},
      {"colorClass fractional",
       edit("\"colorClass\": 4", "\"colorClass\": 2.5"),
       {"node #3 (id 13): colorClass must be an integer", "2.5"}},
      {"duplicate id",
       edit("\"id\": 12,", "\"id\": 11,"),
       {"node #2 (id 11)", "id 11 is already used by node #1"}},

      // Edges.
      {"edge is a number", edit(edge1, "7"), {"edge #1", "must be a JSON object", "7"}},
      {"edge is a string", edit(edge1, "\"10->12\""), {"edge #1", "must be a JSON object"}},
      {"sourceId missing",
       edit(edge1, R"({"destId": 12, "cost": 0.125})"),
       {"edge #1", "sourceId is missing"}},
      {"destId missing",
       edit(edge1, R"({"sourceId": 10, "cost": 0.125})"),
       {"edge #1", "destId is missing"}},
      {"cost missing",
       edit(edge1, R"({"sourceId": 10, "destId": 12})"),
       {"edge #1", "cost is missing"}},
      {"sourceId as string",
       edit(edge1, R"({"sourceId": "10", "destId": 12, "cost": 0.125})"),
       {"edge #1", "sourceId must be an integer", "string \"10\""}},
      {"fractional destId",
       edit(edge1, R"({"sourceId": 10, "destId": 11.5, "cost": 0.125})"),
       {"edge #1", "destId must be an integer", "11.5"}},
      {"negative cost",
       edit("\"cost\": 0.375", "\"cost\": -1"),
       {"edge #2 (11 -> 13): cost must be a finite number >= 0, got -1"}},
      {"cost as string",
       edit("\"cost\": 0.375", "\"cost\": \"cheap\""),
       {"edge #2", "cost must be a number", "string \"cheap\""}},
      {"dangling destId",
       edit(edge1, R"({"sourceId": 10, "destId": 99, "cost": 0.125})"),
       {"edge #1 (10 -> 99): destId 99 is not a node id"}},
      {"dangling sourceId",
       edit(edge1, R"({"sourceId": 98, "destId": 12, "cost": 0.125})"),
       {"edge #1 (98 -> 12): sourceId 98 is not a node id"}},
      {"self-loop",
       edit(edge1, R"({"sourceId": 12, "destId": 12, "cost": 0.0625})"),
       {"edge #1 (12 -> 12)", "self-loop"}},
      {"unequal costs from one source",
       edit(edge1, R"({"sourceId": 10, "destId": 12, "cost": 0.25})"),
       {"edge #1 (10 -> 12)", "cost 0.25 differs from cost 0.125 of edge #0 (10 -> 11)"}},
      {"directed cycle",
       edit(lastEdge, lastEdge + R"(, {"sourceId": 13, "destId": 10, "cost": 0.03125})"),
       {"directed cycle", "10", "13"}},
      {"two-node cycle",
       edit(lastEdge, lastEdge + R"(, {"sourceId": 13, "destId": 11, "cost": 0.03125})"),
       {"directed cycle", "11 -> 13"}},
      {"cycle longer than the message shows", longCycle(30), {"directed cycle", " -> ... -> "}},
      {"backward to forward edge",
       edit(lastEdge, lastEdge + R"(, {"sourceId": 21, "destId": 13, "cost": 0})"),
       {"edge #5 (21 -> 13)", "backward node 21 to forward node 13"}},
  };
  return cases;
}

TEST(MalformedWorkload, TheBaseWorkloadIsValid) {
  std::string error;
  auto workload = parseWorkload(kValid, "base.json", &error);
  ASSERT_TRUE(workload) << error;
  EXPECT_EQ(workload->numNodes(), 5);
  EXPECT_EQ(workload->graph().edges.size(), 5u);
  EXPECT_EQ(workload->graph().numClasses, 4);  // 11 and 21 share class 2
  EXPECT_FALSE(workload->graph().nodes[2].supportedOnFpga);
  EXPECT_TRUE(workload->graph().nodes[4].isBackward);
  EXPECT_EQ(workload->graph().nodes[3].size, 0);  // size defaults to 0
}

TEST(MalformedWorkload, AtLeastFiftyKinds) { EXPECT_GE(malformedCases().size(), 50u); }

/// gtest names from the case labels ("NaN token" -> "NaN_token").
template <typename T>
std::string caseName(const ::testing::TestParamInfo<T>& info) {
  std::string name;
  for (char c : info.param.label) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

class MalformedWorkloadCase : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedWorkloadCase, IsRejectedWithOneLineNamingFileElementAndField) {
  const Case& c = GetParam();
  std::string error;
  auto workload = parseWorkload(c.text, "bad.json", &error);
  EXPECT_FALSE(workload) << "accepted";
  EXPECT_EQ(error.rfind("bad.json: ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << "more than one line: " << error;
  EXPECT_LT(error.size(), 400u) << error;
  for (const std::string& needle : c.expected)
    EXPECT_NE(error.find(needle), std::string::npos) << "'" << needle << "' not in: " << error;
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedWorkloadCase, ::testing::ValuesIn(malformedCases()),
                         caseName<Case>);

// The ids the cycle message lists follow edges of the graph (the chain of
// longCycle: i -> i + 1, and length -> 1), and the cycle closes on itself.
TEST(MalformedWorkload, CycleMessageFollowsRealEdges) {
  for (int length : {2, 5, 30}) {
    std::string error;
    ASSERT_FALSE(parseWorkload(longCycle(length), "cycle.json", &error));
    const auto at = error.find("through node ids ");
    ASSERT_NE(at, std::string::npos) << error;
    std::istringstream ids(error.substr(at + 17));
    std::vector<int> shown;
    for (std::string token; ids >> token;) {
      if (token == "->") continue;
      if (token == "...") {
        shown.push_back(-1);
        continue;
      }
      shown.push_back(std::stoi(token));
    }
    ASSERT_GE(shown.size(), 3u) << error;
    EXPECT_EQ(shown.front(), shown.back()) << error;
    for (std::size_t i = 0; i + 1 < shown.size(); ++i) {
      if (shown[i] < 0 || shown[i + 1] < 0) continue;
      const int next = shown[i] == length ? 1 : shown[i] + 1;
      EXPECT_EQ(shown[i + 1], next) << error;
    }
    EXPECT_EQ(std::count(shown.begin(), shown.end(), -1), length > 12 ? 1 : 0) << error;
  }
}

// Accepted variants: the lenient parts of docs/model.md §1.
TEST(MalformedWorkload, LenientInputIsAccepted) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"integers written as floats", edit("\"maxFPGAs\": 2", "\"maxFPGAs\": 2.0")},
      {"id as an integral float", edit("\"id\": 12,", "\"id\": 12.0,")},
      {"unknown fields", edit("\"maxCPUs\": 1,", "\"maxCPUs\": 1, \"comment\": {\"a\": [1, 2]},")},
      {"duplicate edge", edit(edge1Text(), edge1Text() + ", " + edge1Text())},
      {"edge with an extra size", edit("\"cost\": 0.375}", "\"cost\": 0.375, \"size\": 4096}")},
      {"negative ids",
       edit("\"id\": 12,", "\"id\": -12,",
            edit("\"destId\": 12", "\"destId\": -12", edit("\"sourceId\": 12", "\"sourceId\": -12")))},
      {"brackets inside a string",
       edit("\"name\": \"input\"", "\"name\": \"" + std::string(5000, '[') + "\"")},
      {"no nodes at all",
       "{\"maxSizePerFPGA\": 0, \"maxFPGAs\": 0, \"maxCPUs\": 0, \"nodes\": [], \"edges\": []}"},
  };
  for (const auto& [label, text] : cases) {
    std::string error;
    EXPECT_TRUE(parseWorkload(text, "ok.json", &error)) << label << ": " << error;
  }
}

// The user-facing path: `dnnplace info` and `evaluate` exit 2 with one line on
// stderr naming the file; a sample of the corpus is enough (same parser).
TEST(MalformedWorkload, CliExitsTwoWithOneLineNamingTheFile) {
  const auto cases = malformedCases();
  const auto plan =
      testing::writeTemp(R"({"fpgas": [{"nodes": [10, 11, 13, 21]}], "cpus": [{"nodes": [12]}]})");
  for (std::size_t i = 0; i < cases.size(); i += 7) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.label);
    const auto path = testing::writeTemp(c.text);
    for (const std::string& command :
         {"info '" + path.string() + "'", "evaluate '" + path.string() + "' '" + plan.string() + "'"}) {
      auto result = testing::runCli(command);
      EXPECT_EQ(result.exitCode, 2) << command << "\n" << result.err;
      EXPECT_TRUE(result.out.empty()) << result.out;
      ASSERT_FALSE(result.err.empty());
      EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "not one line: " << result.err;
      EXPECT_NE(result.err.find(path.string() + ": "), std::string::npos) << result.err;
      EXPECT_NE(result.err.find(c.expected.front()), std::string::npos) << result.err;
    }
    std::filesystem::remove(path);
  }
  std::filesystem::remove(plan);
}

TEST(MalformedWorkload, CliRejectsUnreadableFiles) {
  auto missing = testing::runCli("info /nonexistent/dnnplace/workload.json");
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("/nonexistent/dnnplace/workload.json: cannot open"), std::string::npos)
      << missing.err;
  auto directory = testing::runCli("info /tmp");
  EXPECT_EQ(directory.exitCode, 2) << directory.err;
  EXPECT_NE(directory.err.find("/tmp: cannot read: it is a directory"), std::string::npos)
      << directory.err;
}

// ---------------------------------------------------------------------------
// Plans for `dnnplace evaluate` against the valid workload (maxFPGAs 2, memory
// 1000 per accelerator, node 12 CPU-only, 11 and 21 one class).

struct PlanCase {
  std::string label;
  std::string plan;
  int exitCode;
  std::vector<std::string> expected;  ///< in stderr (exit 2) or stdout (exit 3)
};

std::vector<PlanCase> planCases() {
  return {
      {"empty plan file", "", 2, {"empty"}},
      {"invalid JSON", "{\"fpgas\": [", 2, {"invalid JSON"}},
      {"binary garbage", std::string("\x00\x01\x02\xff", 4), 2, {"invalid JSON"}},
      {"deep nesting", std::string(100000, '['), 2, {"nested deeper than"}},
      {"top level array", "[[10, 11]]", 2, {"must be a JSON object"}},
      {"neither fpgas nor cpus", "{\"maxLoad\": 3}", 2, {"fpgas"}},
      {"fpgas not an array", "{\"fpgas\": {\"nodes\": [10]}}", 2, {"fpgas must be an array"}},
      {"device not an object", "{\"fpgas\": [[10, 11]]}", 2, {"fpgas[0]", "must be a JSON object"}},
      {"nodes missing", "{\"fpgas\": [{\"load\": 1}]}", 2, {"fpgas[0]", "nodes is missing"}},
      {"nodes not an array", "{\"cpus\": [{\"nodes\": 12}]}", 2, {"cpus[0]", "nodes must be an array"}},
      {"node id a string",
       "{\"fpgas\": [{\"nodes\": [10, \"11\"]}]}",
       2,
       {"fpgas[0]", "nodes[1]", "must be an integer"}},
      {"node id fractional",
       "{\"fpgas\": [{\"nodes\": [10.5]}]}",
       2,
       {"fpgas[0]", "nodes[0]", "must be an integer", "10.5"}},
      {"node id huge", "{\"fpgas\": [{\"nodes\": [1e30]}]}", 2, {"nodes[0]", "64 bits"}},

      {"unknown node id",
       R"({"fpgas": [{"nodes": [10, 11, 13, 21, 99]}], "cpus": [{"nodes": [12]}]})",
       3,
       {"99"}},
      {"node listed twice",
       R"({"fpgas": [{"nodes": [10, 11, 13, 21]}, {"nodes": [10]}], "cpus": [{"nodes": [12]}]})",
       3,
       {"10", "twice"}},
      {"node missing", R"({"fpgas": [{"nodes": [10, 11, 21]}], "cpus": [{"nodes": [12]}]})", 3, {"13"}},
      {"unsupported node on an accelerator",
       R"({"fpgas": [{"nodes": [10, 11, 12, 13, 21]}]})",
       3,
       {"12", "not supported"}},
      {"color class split",
       R"({"fpgas": [{"nodes": [10, 11, 13]}, {"nodes": [21]}], "cpus": [{"nodes": [12]}]})",
       3,
       {"class 2"}},
      {"too many accelerators",
       R"({"fpgas": [{"nodes": [10]}, {"nodes": [11, 21]}, {"nodes": [13]}], "cpus": [{"nodes": [12]}]})",
       3,
       {"3 accelerators", "maxFPGAs is 2"}},
      {"too many CPU cores",
       R"({"fpgas": [{"nodes": [10, 11, 21]}], "cpus": [{"nodes": [12]}, {"nodes": [13]}]})",
       3,
       {"2 CPU cores", "maxCPUs is 1"}},
  };
}

class MalformedPlanCase : public ::testing::TestWithParam<PlanCase> {};

TEST_P(MalformedPlanCase, EvaluateExitsTwoWhenUnreadableThreeWithNamedViolations) {
  const PlanCase& c = GetParam();
  const auto workload = testing::writeTemp(kValid);
  const auto plan = testing::writeTemp(c.plan);
  auto result = testing::runCli("evaluate '" + workload.string() + "' '" + plan.string() + "'");
  EXPECT_EQ(result.exitCode, c.exitCode) << result.out << result.err;
  const std::string& text = c.exitCode == 2 ? result.err : result.out;
  if (c.exitCode == 2) {
    EXPECT_NE(result.err.find(plan.string() + ": "), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "not one line: " << result.err;
  }
  for (const std::string& needle : c.expected)
    EXPECT_NE(text.find(needle), std::string::npos) << "'" << needle << "' not in: " << text;
  std::filesystem::remove(plan);
  std::filesystem::remove(workload);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedPlanCase, ::testing::ValuesIn(planCases()),
                         caseName<PlanCase>);

TEST(MalformedPlan, MemoryOverflowIsNamed) {
  // 100 + 200 + 50 + 0 bytes fit in 1000; shrink the accelerator to 300.
  const auto workload = testing::writeTemp(edit("\"maxSizePerFPGA\": 1000", "\"maxSizePerFPGA\": 300"));
  const auto plan =
      testing::writeTemp(R"({"fpgas": [{"nodes": [10, 11, 13, 21]}], "cpus": [{"nodes": [12]}]})");
  auto result = testing::runCli("evaluate '" + workload.string() + "' '" + plan.string() + "'");
  EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
  EXPECT_NE(result.out.find("350"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("300"), std::string::npos) << result.out;
  std::filesystem::remove(plan);
  std::filesystem::remove(workload);
}

TEST(MalformedPlan, AValidPlanPassesAndExpertStyleBackwardNodesFollowTheirClass) {
  const auto workload = testing::writeTemp(kValid);
  // Node 21 (backward, class 2) is omitted: it follows 11.
  const auto plan = testing::writeTemp(
      R"({"fpgas": [{"nodes": [10, 11, 13]}, {"nodes": []}], "cpus": [{"nodes": [12]}]})");
  auto result = testing::runCli("evaluate '" + workload.string() + "' '" + plan.string() + "'");
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  std::filesystem::remove(plan);
  std::filesystem::remove(workload);
}
}  // namespace
}  // namespace dnnplace
