// import pipedream: PipeDream's measured layer profiles as workloads (docs/import.md),
// checked against the profiles' own sums and against PipeDream's planner's figures.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dnnplace/import.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

using testing::runCli;
using testing::tempPath;
using testing::writeTemp;

const char* const kProfiles[] = {"alexnet.txt", "vgg16.txt", "resnet18.txt", "gnmt.txt"};

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// What the test reads from a profile itself, by splitting its lines (not with the importer's
/// parser): per layer its times and sizes, and which layers PipeDream's planner drops.
struct ProfileSums {
  int layers = 0, dropped = 0;
  double forward = 0, backward = 0, activation = 0, parameters = 0;  // over the kept layers
};

ProfileSums sumsOf(const std::string& text) {
  struct Row {
    std::string desc;
    double forward, backward, activation, parameters;
  };
  std::map<std::string, Row> rows;
  std::multimap<std::string, std::string> out;
  std::map<std::string, int> inDegree;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto first = line.find(" -- "), last = line.rfind(" -- ");
    if (line.rfind("node", 0) == 0 && first != last) {  // nodeN -- LAYER -- FIELDS
      std::map<std::string, std::string> fields;
      std::istringstream items(line.substr(last + 4));
      for (std::string item; std::getline(items, item, ',');) {
        item.erase(0, item.find_first_not_of(' '));
        const auto eq = item.find('=');
        if (eq != std::string::npos) fields[item.substr(0, eq)] = item.substr(eq + 1);
      }
      double activation = 0;
      std::string list = fields["activation_size"];
      for (char& c : list)
        if (c == '[' || c == ']' || c == ';') c = ' ';
      std::istringstream values(list);
      for (double item; values >> item;) activation += item;
      rows[line.substr(0, first)] = {line.substr(first + 4, last - first - 4),
                                     std::stod(fields.at("forward_compute_time")),
                                     std::stod(fields.at("backward_compute_time")), activation,
                                     std::stod(fields.at("parameter_size"))};
    } else if (line.rfind("\tnode", 0) == 0 && first != std::string::npos && first == last) {
      out.emplace(line.substr(1, first - 1), line.substr(first + 4));
      ++inDegree[line.substr(first + 4)];
    } else {
      ADD_FAILURE() << "unexpected profile line: " << line;
    }
  }
  // PipeDream's planner: Input* sources go, then the __getitem__* sinks of what is left.
  std::set<std::string> dropped;
  for (const auto& [id, row] : rows)
    if (inDegree[id] == 0 && row.desc.rfind("Input", 0) == 0) dropped.insert(id);
  std::set<std::string> sinks;
  for (const auto& [id, row] : rows) {
    bool sink = true;
    for (auto [it, end] = out.equal_range(id); it != end; ++it)
      sink = sink && dropped.count(it->second);
    if (sink && !dropped.count(id) && row.desc.rfind("__getitem__", 0) == 0) sinks.insert(id);
  }
  dropped.insert(sinks.begin(), sinks.end());
  ProfileSums sums;
  for (const auto& [id, row] : rows) {
    ++sums.layers;
    if (dropped.count(id)) {
      ++sums.dropped;
      continue;
    }
    sums.forward += row.forward;
    sums.backward += row.backward;
    sums.activation += row.activation;
    sums.parameters += row.parameters;
  }
  return sums;
}

PipedreamImportOptions optionsFor(const std::filesystem::path& profile, bool training) {
  PipedreamImportOptions options;
  options.profilePath = profile.string();
  options.bandwidth = 1e10;
  options.accelerators = 4;
  options.memory = 1e15;
  options.training = training;
  return options;
}

/// `solve --method dp` on a workload file: the plan's maxLoad (fails the test otherwise).
double dpMaxLoad(const std::filesystem::path& workload) {
  const auto plan = tempPath(".json");
  const auto result =
      runCli("solve '" + workload.string() + "' --method dp --quiet --out '" + plan.string() + "'");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  const auto json = nlohmann::json::parse(slurp(plan), nullptr, false);
  std::filesystem::remove(plan);
  if (!json.is_object() || !json.contains("maxLoad")) {
    ADD_FAILURE() << "no plan from " << workload;
    return -1;
  }
  return json["maxLoad"].get<double>();
}

// Every shared profile imports, for inference and training, with the profile's own totals:
// one node per kept layer (and one backward node per layer in training), the forward and
// backward times summing to the profile's, sizes and parameter sizes as docs/import.md says.
TEST(ImportPipedream, SharedProfilesKeepTheirTotals) {
  DNNPLACE_REQUIRE_SHARED(shared);
  for (const char* name : kProfiles) {
    const auto path = shared / "profiles" / "pipedream" / name;
    const ProfileSums sums = sumsOf(slurp(path));
    ASSERT_GT(sums.layers, 20) << name;
    for (bool training : {false, true}) {
      SCOPED_TRACE(std::string(name) + (training ? " training" : " inference"));
      ImportError error;
      const auto w = importPipedream(optionsFor(path, training), &error);
      ASSERT_TRUE(w) << error.message;
      const int kept = sums.layers - sums.dropped;
      EXPECT_EQ(w->numNodes(), training ? 2 * kept : kept);
      double forward = 0, backward = 0, cpu = 0, size = 0, parameters = 0;
      int backwardNodes = 0;
      for (const Node& node : w->graph().nodes) {
        (node.isBackward ? backward : forward) += node.fpgaLatency;
        backwardNodes += node.isBackward;
        cpu += node.cpuLatency;
        size += node.size;
        parameters += node.parameterSize;
        EXPECT_TRUE(node.supportedOnFpga);
        EXPECT_FALSE(node.name.empty());
      }
      EXPECT_EQ(backwardNodes, training ? kept : 0);
      EXPECT_NEAR(forward, sums.forward, 1e-9 * sums.forward);
      EXPECT_NEAR(backward, training ? sums.backward : 0, 1e-9 * sums.backward);
      EXPECT_NEAR(cpu, forward + backward, 1e-9 * cpu);
      const double expectedSize = training ? 4 * sums.parameters + sums.activation : sums.parameters;
      EXPECT_NEAR(size, expectedSize, 1e-9 * expectedSize);
      EXPECT_NEAR(parameters, training ? sums.parameters : 0, 1e-9 * sums.parameters);
      EXPECT_EQ(w->graph().numClasses, kept);
      EXPECT_EQ(w->machine.syncBandwidth, 1e7);  // bytes per millisecond
      EXPECT_EQ(w->machine.maxFpgas, 4);
      EXPECT_EQ(w->machine.maxSizePerFpga, 1e15);
    }
  }
  // AlexNet and VGG-16 are chains behind one Input; GNMT has three Input sources and
  // 20 __getitem__ layers, 8 of them sinks.
  EXPECT_EQ(sumsOf(slurp(shared / "profiles/pipedream/alexnet.txt")).dropped, 1);
  EXPECT_EQ(sumsOf(slurp(shared / "profiles/pipedream/gnmt.txt")).dropped, 3 + 8);
}

// The CLI writes a workload that `solve --method dp` solves, for inference and training
// with activations charged (the default).
TEST(ImportPipedream, CliImportsAndSolves) {
  DNNPLACE_REQUIRE_SHARED(shared);
  for (const char* name : kProfiles) {
    for (const char* mode : {"", " --training"}) {
      SCOPED_TRACE(std::string(name) + mode);
      const auto out = tempPath(".json");
      const auto result = runCli(
          "import pipedream '" + (shared / "profiles" / "pipedream" / name).string() +
          "' --bandwidth 1e10 --accelerators 4 --memory 16e9" + mode + " --out '" + out.string() + "'");
      ASSERT_EQ(result.exitCode, 0) << result.err;
      EXPECT_EQ(result.err.rfind("import pipedream: ", 0), 0u) << result.err;
      EXPECT_NE(result.err.find("; 4 accelerators of 16.0 GB, 0 CPU cores"), std::string::npos)
          << result.err;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
      std::string error;
      const auto w = loadWorkload(out.string(), &error);
      ASSERT_TRUE(w) << error;
      double work = 0;
      for (const Node& node : w->graph().nodes) work += node.fpgaLatency;
      const double maxLoad = dpMaxLoad(out);
      // Four accelerators share the work; transfers only add to it.
      EXPECT_GE(maxLoad, work / 4 * (1 - 1e-9));
      EXPECT_LE(maxLoad, work + 1e3);
      std::filesystem::remove(out);
    }
  }
}

// With activations charged, AlexNet's best 4-stage training pipeline at 10 GB/s is its first
// three layers together: Conv2d 22.316 + 6.405, ReLU 0.813 + 0.733, MaxPool 0.756 + 1.148 ms,
// plus the MaxPool's 47775744-byte output sent forward (4.7775744 ms) and its gradient of
// the same size sent back by the next layer's backward node (4.7775744 ms). The first
// layer alone would pay its 198246400-byte output both ways (2 x 19.82 ms).
TEST(ImportPipedream, ChargedActivationsCostTheTransfers) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const auto out = tempPath(".json");
  const auto result = runCli("import pipedream '" +
                             (shared / "profiles/pipedream/alexnet.txt").string() +
                             "' --bandwidth 1e10 --accelerators 4 --memory 1e15 --training "
                             "--activations charged --out '" +
                             out.string() + "'");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NEAR(dpMaxLoad(out), 22.316 + 6.405 + 0.813 + 0.733 + 0.756 + 1.148 + 2 * 4.7775744, 1e-9);
  // What it read, on stderr (--quiet: nothing), as import onnx says: the
  // parameters are AlexNet's 61 M fp32 weights.
  EXPECT_EQ(result.err,
            "import pipedream: 44 nodes (22 forward, 22 backward), 44 edges, parameters 244.4 MB; "
            "4 accelerators of 1000000.0 GB, 0 CPU cores, all-reduce at 10.0 GB/s\n");
  const auto quiet =
      runCli("import pipedream '" + (shared / "profiles/pipedream/alexnet.txt").string() +
             "' --bandwidth 1e10 --accelerators 4 --memory 1e15 --quiet --out '" + out.string() + "'");
  EXPECT_EQ(quiet.exitCode, 0);
  EXPECT_EQ(quiet.err, "");
  std::filesystem::remove(out);
}

// PipeDream's own planner with --straight_pipeline (one worker per stage, no activation
// charge, no memory limit, 10 GB/s) and dnnplace's DP on the imported training workload
// find the same time per minibatch, for every profile and k of the expected file.
TEST(ImportPipedream, DpEqualsPipedreamsStraightPipeline) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const auto expected = nlohmann::json::parse(slurp(shared / "expected" / "pipedream.json"));
  int compared = 0;
  for (const auto& [name, figures] : expected["profiles"].items()) {
    for (const auto& [k, figure] : figures.items()) {
      SCOPED_TRACE(name + " k=" + k);
      const auto out = tempPath(".json");
      const auto result =
          runCli("import pipedream '" + (shared / "profiles" / "pipedream" / name).string() +
                 "' --bandwidth 1e10 --accelerators " + k +
                 " --memory 1e15 --training --activations free --out '" + out.string() + "'");
      ASSERT_EQ(result.exitCode, 0) << result.err;
      const double straight = figure["straight"].get<double>();
      EXPECT_NEAR(dpMaxLoad(out), straight, 1e-9 * straight);
      std::filesystem::remove(out);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 16);
}

// A small profile with each kind of layer: an Input source (dropped), a tuple output, a
// __getitem__ that is used (kept) and one that is a sink (dropped), a partitioned profile's
// stage_id, a blank line and Windows line ends.
const char* const kSmallProfile =
    "node1 -- Input -- forward_compute_time=100.000, backward_compute_time=0.000, "
    "activation_size=1000.0, parameter_size=0.000\n"
    "node2 -- Conv2d(3, 8, kernel_size=(3, 3)) -- forward_compute_time=2.000, "
    "backward_compute_time=3.000, activation_size=4000.0, parameter_size=800.000\r\n"
    "node3 -- LSTM(8, 8) -- forward_compute_time=1.500, backward_compute_time=2.500, "
    "activation_size=[2000.0; 500.0; 500.0], parameter_size=100.000 -- stage_id=1\n"
    "node4 -- __getitem__(0) -- forward_compute_time=0.000, backward_compute_time=0.000, "
    "activation_size=2000.0, parameter_size=0.000\n"
    "node5 -- __getitem__(1) -- forward_compute_time=0.000, backward_compute_time=0.000, "
    "activation_size=500.0, parameter_size=0.000\n"
    "node6 -- Add -- forward_compute_time=0.500, backward_compute_time=0.250, "
    "activation_size=2000.0, parameter_size=0.000\n"
    "\n"
    "\tnode1 -- node2\n"
    "\tnode2 -- node3\n"
    "\tnode3 -- node4\n"
    "\tnode3 -- node5\n"
    "\tnode4 -- node6\n"
    "\tnode2 -- node6";

const Node& nodeWithId(const Workload& w, std::int64_t id) {
  const auto index = w.indexOf(id);
  EXPECT_TRUE(index) << "no node " << id;
  return w.graph().nodes[index.value_or(0)];
}

double costOf(const Workload& w, std::int64_t id) { return w.graph().outCost[*w.indexOf(id)]; }

std::set<std::pair<std::int64_t, std::int64_t>> edgesOf(const Workload& w) {
  std::set<std::pair<std::int64_t, std::int64_t>> edges;
  for (const Edge& e : w.graph().edges)
    edges.emplace(w.graph().nodes[e.source].id, w.graph().nodes[e.dest].id);
  return edges;
}

TEST(ImportPipedream, MappingOfEachField) {
  const auto path = writeTemp(kSmallProfile, ".txt");
  PipedreamImportOptions options;
  options.profilePath = path.string();
  options.bandwidth = 2e6;  // 1000 bytes cost 0.5 ms
  options.accelerators = 3;
  options.cpus = 2;
  options.memory = 1e6;
  ImportError error;
  const auto inference = importPipedream(options, &error);
  ASSERT_TRUE(inference) << error.message;
  EXPECT_EQ(inference->numNodes(), 4);
  EXPECT_FALSE(inference->indexOf(1));  // the Input source
  EXPECT_FALSE(inference->indexOf(5));  // the __getitem__ sink
  const Node& conv = nodeWithId(*inference, 2);
  EXPECT_EQ(conv.name, "Conv2d(3, 8, kernel_size=(3, 3))");
  EXPECT_EQ(conv.fpgaLatency, 2.0);
  EXPECT_EQ(conv.cpuLatency, 2.0);
  EXPECT_TRUE(conv.supportedOnFpga);
  EXPECT_FALSE(conv.isBackward);
  EXPECT_EQ(conv.colorClass, 2);
  EXPECT_EQ(conv.size, 800);
  EXPECT_EQ(conv.parameterSize, 0);  // inference replicas all-reduce nothing
  EXPECT_EQ(nodeWithId(*inference, 3).size, 100);
  EXPECT_EQ(costOf(*inference, 2), 2.0);  // 4000 bytes at 2e6 bytes/s
  EXPECT_EQ(costOf(*inference, 3), 1.5);  // the sum of the list, 3000 bytes
  EXPECT_EQ(costOf(*inference, 4), 1.0);
  EXPECT_EQ(costOf(*inference, 6), 0.0);  // a sink sends nothing
  EXPECT_EQ(edgesOf(*inference),
            (std::set<std::pair<std::int64_t, std::int64_t>>{{2, 3}, {3, 4}, {4, 6}, {2, 6}}));
  EXPECT_EQ(inference->machine.maxFpgas, 3);
  EXPECT_EQ(inference->machine.maxCpus, 2);
  EXPECT_EQ(inference->machine.maxSizePerFpga, 1e6);
  EXPECT_EQ(inference->machine.syncBandwidth, 2000);
  EXPECT_EQ(inference->machine.samplesPerSync, 1);

  options.training = true;
  const auto training = importPipedream(options, &error);
  ASSERT_TRUE(training) << error.message;
  EXPECT_EQ(training->numNodes(), 8);
  // Backward ids: N + 10, the first power of ten above every N.
  const Node& convBack = nodeWithId(*training, 12);
  EXPECT_TRUE(convBack.isBackward);
  EXPECT_EQ(convBack.name, "Conv2d(3, 8, kernel_size=(3, 3)) [backward]");
  EXPECT_EQ(convBack.fpgaLatency, 3.0);
  EXPECT_EQ(convBack.cpuLatency, 3.0);
  EXPECT_EQ(convBack.colorClass, 2);
  EXPECT_EQ(convBack.size, 0);  // the forward node holds the layer's memory
  EXPECT_EQ(nodeWithId(*training, 2).size, 4 * 800 + 4000);
  EXPECT_EQ(nodeWithId(*training, 2).parameterSize, 800);
  EXPECT_EQ(nodeWithId(*training, 3).size, 4 * 100 + 3000);
  EXPECT_EQ(nodeWithId(*training, 6).size, 2000);
  EXPECT_EQ(nodeWithId(*training, 16).fpgaLatency, 0.25);
  EXPECT_EQ(edgesOf(*training),
            (std::set<std::pair<std::int64_t, std::int64_t>>{
                {2, 3}, {3, 4}, {4, 6}, {2, 6}, {13, 12}, {14, 13}, {16, 14}, {16, 12}}));
  // A backward node pays the largest gradient it sends: Add's inputs are 2000 and 4000 bytes.
  EXPECT_EQ(costOf(*training, 16), 2.0);
  EXPECT_EQ(costOf(*training, 14), 1.5);
  EXPECT_EQ(costOf(*training, 13), 2.0);
  EXPECT_EQ(costOf(*training, 12), 0.0);  // its only input, the Input layer, was dropped

  options.chargeActivations = false;
  const auto free = importPipedream(options, &error);
  ASSERT_TRUE(free) << error.message;
  for (double cost : free->graph().outCost) EXPECT_EQ(cost, 0);
  std::filesystem::remove(path);
}

// Each kind of bad input gets one line naming the file, the line and the field.
TEST(ImportPipedream, MalformedInputMessages) {
  const std::string ok =
      "forward_compute_time=1.0, backward_compute_time=2.0, activation_size=8.0, parameter_size=4.0";
  struct Case {
    std::string text;
    std::string message;  // after "FILE: "
  };
  const std::vector<Case> cases = {
      {"", "no layer lines (expected 'nodeN -- layer -- forward_compute_time=...')"},
      {"node1 -- A -- " + ok + "\nnonsense\n",
       "line 2: expected 'nodeN -- layer -- fields' or 'nodeA -- nodeB', got 'nonsense'"},
      {"node1 -- A -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=8.0",
       "line 1: node1: missing field parameter_size"},
      {"node1 -- A -- forward_compute_time=-1.0, backward_compute_time=2.0, activation_size=8.0, "
       "parameter_size=4.0",
       "line 1: node1: forward_compute_time must be a finite number from 0 to 1e27, got '-1.0'"},
      {"node1 -- A -- forward_compute_time=1.0, backward_compute_time=nan, activation_size=8.0, "
       "parameter_size=4.0",
       "line 1: node1: backward_compute_time must be a finite number from 0 to 1e27, got 'nan'"},
      {"node1 -- A -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=[8.0; "
       "inf], parameter_size=4.0",
       "line 1: node1: activation_size must be a finite number from 0 to 1e27 or a list [a; b; ...] of "
       "them, "
       "got '[8.0; inf]'"},
      {"node1 -- A -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=8.0, "
       "parameter_size=1e999",
       "line 1: node1: parameter_size must be a finite number from 0 to 1e27, got '1e999'"},
      {"node1 -- A -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=8.0, "
       "parameter_size=",
       "line 1: node1: parameter_size must be a finite number from 0 to 1e27, got ''"},
      // Finite but past what the workload holds: named here, by line and field (the
      // workload's own check named the node's cpuLatency).
      {"node1 -- A -- forward_compute_time=1e300, backward_compute_time=2.0, activation_size=8.0, "
       "parameter_size=4.0",
       "line 1: node1: forward_compute_time must be a finite number from 0 to 1e27, got '1e300'"},
      {"node1 -- A -- forward_compute_time=1.0, backward_compute_time=2.0, "
       "activation_size=[9e26; 9e26], parameter_size=4.0",
       "line 1: node1: activation_size sums to more than 1e27, got '[9e26; 9e26]'"},
      {"node1 -- A -- " + ok + ", colour=red",
       "line 1: node1: unknown field 'colour=red' (expected forward_compute_time, "
       "backward_compute_time, activation_size, parameter_size)"},
      {"node1 -- A -- " + ok + ", parameter_size=4.0", "line 1: node1: parameter_size given twice"},
      {"layer1 -- A -- " + ok,
       "line 1: node id must be nodeN with N a number of at most 12 digits, got 'layer1'"},
      {"node1 --  -- " + ok, "line 1: node1: empty layer description"},
      {"node1 -- A -- " + ok + "\n\nnode1 -- B -- " + ok,
       "line 3: duplicate node node1 (first on line 1)"},
      {"node1 -- A -- " + ok + "\n\tnode1 -- node7", "line 2: edge names unknown node node7"},
      {"node1 -- A -- " + ok + "\n\tnode1 -- x",
       "line 2: expected 'nodeN -- layer -- fields' or 'nodeA -- nodeB', got 'node1 -- x'"},
      {"node1 -- Input",
       "line 1: expected 'nodeN -- layer -- fields' or 'nodeA -- nodeB', got "
       "'node1 -- Input'"},
      {"node1 -- A -- " + ok + "\nnode2 -- B -- " + ok + "\nnode3 -- C -- " + ok +
           "\n\tnode1 -- node2\n\tnode3 -- node2\n\tnode2 -- node3",
       "line 6: edge node2 -- node3 closes a cycle: node2 -> node3 -> node2"},
      {"node1 -- A -- " + ok + "\n\tnode1 -- node1",
       "line 2: edge node1 -- node1 closes a cycle: node1 -> node1"},
      {"node1 -- Input -- " + ok, "no layers besides Input sources and __getitem__ sinks"},
  };
  for (const Case& c : cases) {
    const auto path = writeTemp(c.text, ".txt");
    PipedreamImportOptions options;
    options.profilePath = path.string();
    options.bandwidth = 1e9;
    options.memory = 1e9;
    ImportError error;
    EXPECT_FALSE(importPipedream(options, &error)) << c.text;
    EXPECT_EQ(error.message, path.string() + ": " + c.message);
    EXPECT_FALSE(error.infeasible);
    std::filesystem::remove(path);
  }
  // Options the CLI would refuse, from a library caller.
  PipedreamImportOptions options;
  options.profilePath = "graph.txt";
  options.bandwidth = 0;
  ImportError error;
  EXPECT_FALSE(importPipedream(options, &error));
  EXPECT_EQ(error.message,
            "graph.txt: import pipedream needs a positive finite bandwidth, a finite memory >= 0 and "
            "device counts >= 0 (got bandwidth 0, memory 0, 1 accelerators, 0 CPU cores)");
}

TEST(ImportPipedream, CliErrorsAndExitCodes) {
  const auto missing = tempPath(".txt");
  auto result = runCli("import pipedream '" + missing.string() +
                       "' --bandwidth 1e9 --accelerators 2 --memory 1e9");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + missing.string() + ": cannot open: No such file or directory\n");

  const auto bad = writeTemp(
      "node1 -- A -- forward_compute_time=x, backward_compute_time=0, "
      "activation_size=0, parameter_size=0\n",
      ".txt");
  result =
      runCli("import pipedream '" + bad.string() + "' --bandwidth 1e9 --accelerators 2 --memory 1e9");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: " + bad.string() +
                ": line 1: node1: forward_compute_time must be a finite number from 0 to 1e27, "
                "got 'x'\n");
  EXPECT_EQ(result.out, "");

  // A layer larger than an accelerator, with no CPU core to take it: infeasible (exit 3).
  const auto small = writeTemp(kSmallProfile, ".txt");
  result = runCli("import pipedream '" + small.string() +
                  "' --bandwidth 1e9 --accelerators 2 --memory 5000 --training");
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.err, "dnnplace: " + small.string() +
                            ": line 2: node2 Conv2d(3, 8, kernel_size=(3, 3)) needs 7200 bytes "
                            "(4 x parameter_size + activation_size), more than --memory 5000, and "
                            "--cpus is 0\n");
  // A CPU core can: the workload is written, to standard output without --out.
  result = runCli("import pipedream '" + small.string() +
                  "' --bandwidth 1e9 --accelerators 2 --memory 5000 --training --cpus 1");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_TRUE(json.is_object());
  EXPECT_EQ(json["maxCPUs"], 1);
  EXPECT_EQ(json["maxFPGAs"], 2);
  EXPECT_EQ(json["maxSizePerFPGA"], 5000);
  EXPECT_EQ(json["syncBandwidth"], 1e6);
  EXPECT_EQ(json["nodes"].size(), 8u);

  result = runCli("import pipedream '" + small.string() +
                  "' --bandwidth 1e9 --accelerators 2 --memory 5000 --activations some");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--activations"), std::string::npos) << result.err;
  std::filesystem::remove(bad);
  std::filesystem::remove(small);
}

}  // namespace
}  // namespace dnnplace
