// The synthetic workload generator: deterministic, valid, shaped as documented.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "dnnplace/generator.hpp"
#include "dp/ideal_lattice.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

GeneratorOptions optionsFor(GraphShape shape, int blocks, int width, bool training,
                            std::uint64_t seed = 7) {
  GeneratorOptions options;
  options.shape = shape;
  options.blocks = blocks;
  options.width = width;
  options.training = training;
  options.seed = seed;
  return options;
}

const GraphShape kShapes[] = {GraphShape::Chain, GraphShape::Transformer, GraphShape::Cnn,
                              GraphShape::SeriesParallel};

int countForward(const Workload& w) {
  return static_cast<int>(std::count_if(w.graph().nodes.begin(), w.graph().nodes.end(),
                                        [](const Node& node) { return !node.isBackward; }));
}

/// Ideals (predecessor-closed sets) of the forward nodes, by trying every subset.
std::uint64_t bruteForceIdeals(const Workload& w) {
  std::vector<NodeIndex> forward;
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (!w.graph().nodes[v].isBackward) forward.push_back(v);
  const int n = static_cast<int>(forward.size());
  EXPECT_LE(n, 22) << "too many nodes to enumerate";
  std::vector<int> position(w.numNodes(), -1);
  for (int i = 0; i < n; ++i) position[forward[i]] = i;
  std::uint64_t ideals = 0;
  for (std::uint64_t subset = 0; subset < (std::uint64_t{1} << n); ++subset) {
    bool closed = true;
    for (const Edge& e : w.graph().edges) {
      const int from = position[e.source], to = position[e.dest];
      if (from < 0 || to < 0) continue;
      if ((subset >> to & 1) && !(subset >> from & 1)) closed = false;
    }
    ideals += closed;
  }
  return ideals;
}

TEST(Generator, ParsesShapeNames) {
  GraphShape shape = GraphShape::Chain;
  EXPECT_TRUE(parseGraphShape("transformer", &shape));
  EXPECT_EQ(shape, GraphShape::Transformer);
  EXPECT_TRUE(parseGraphShape("cnn", &shape));
  EXPECT_EQ(shape, GraphShape::Cnn);
  EXPECT_TRUE(parseGraphShape("series-parallel", &shape));
  EXPECT_EQ(shape, GraphShape::SeriesParallel);
  EXPECT_TRUE(parseGraphShape("chain", &shape));
  EXPECT_EQ(shape, GraphShape::Chain);
  EXPECT_FALSE(parseGraphShape("Transformer ", &shape));
  EXPECT_FALSE(parseGraphShape("", &shape));
  EXPECT_EQ(shape, GraphShape::Chain);  // untouched on failure
}

TEST(Generator, SameOptionsGiveIdenticalWorkloads) {
  for (GraphShape shape : kShapes)
    for (bool training : {false, true}) {
      auto options = optionsFor(shape, 3, 2, training, 42);
      EXPECT_EQ(workloadToJson(generateWorkload(options)), workloadToJson(generateWorkload(options)));
    }
}

TEST(Generator, SeedChangesValuesNotStructure) {
  for (GraphShape shape : kShapes) {
    Workload a = generateWorkload(optionsFor(shape, 3, 2, true, 1));
    Workload b = generateWorkload(optionsFor(shape, 3, 2, true, 2));
    ASSERT_EQ(a.numNodes(), b.numNodes());
    ASSERT_EQ(a.graph().edges.size(), b.graph().edges.size());
    bool anyLatencyDiffers = false;
    for (NodeIndex v = 0; v < a.numNodes(); ++v)
      anyLatencyDiffers |= a.graph().nodes[v].fpgaLatency != b.graph().nodes[v].fpgaLatency;
    EXPECT_TRUE(anyLatencyDiffers) << "seed had no effect";
  }
}

TEST(Generator, OutputRoundTripsThroughTheParser) {
  for (GraphShape shape : kShapes)
    for (bool training : {false, true}) {
      Workload original = generateWorkload(optionsFor(shape, 2, 3, training));
      const std::string json = workloadToJson(original);
      std::string error;
      auto parsed = parseWorkload(json, "generated.json", &error);
      ASSERT_TRUE(parsed) << error;
      EXPECT_EQ(parsed->numNodes(), original.numNodes());
      EXPECT_EQ(parsed->graph().edges.size(), original.graph().edges.size());
      EXPECT_EQ(parsed->graph().numClasses, original.graph().numClasses);
      EXPECT_EQ(workloadToJson(*parsed), json);
    }
}

TEST(Generator, MachineComesFromTheOptions) {
  GeneratorOptions options = optionsFor(GraphShape::Cnn, 2, 1, false);
  options.accelerators = 3;
  options.cpus = 5;
  options.memoryPerAccelerator = 2.5e9;
  Workload w = generateWorkload(options);
  EXPECT_EQ(w.machine.maxFpgas, 3);
  EXPECT_EQ(w.machine.maxCpus, 5);
  EXPECT_EQ(w.machine.maxSizePerFpga, 2.5e9);
}

// Realistic magnitudes: compute nodes take between microseconds and a second
// on an accelerator, a CPU core is several times slower, sizes are whole bytes,
// and the only zero-work nodes are leaves (weights and inputs) with a size.
TEST(Generator, NumbersLookProfiled) {
  for (GraphShape shape : kShapes)
    for (bool training : {false, true}) {
      Workload w = generateWorkload(optionsFor(shape, 4, 4, training));
      int computeNodes = 0, leaves = 0;
      for (NodeIndex v = 0; v < w.numNodes(); ++v) {
        const Node& node = w.graph().nodes[v];
        EXPECT_TRUE(node.supportedOnFpga);  // default: all supported
        EXPECT_EQ(node.size, std::floor(node.size));
        ASSERT_TRUE(node.colorClass.has_value());
        if (node.fpgaLatency == 0) {
          EXPECT_EQ(node.cpuLatency, 0);
          EXPECT_GT(node.size, 0) << "a zero-work node should be a weight or input";
          if (!node.isBackward) {
            EXPECT_TRUE(w.predecessors(v).empty()) << "zero-work forward node is not a leaf";
            EXPECT_EQ(w.successors(v).size(), 1u);
          }
          ++leaves;
        } else {
          ++computeNodes;
          EXPECT_GT(node.fpgaLatency, 1e-3);
          EXPECT_LT(node.fpgaLatency, 1000);
          EXPECT_GT(node.cpuLatency, 5 * node.fpgaLatency);
          EXPECT_LT(node.cpuLatency, 20 * node.fpgaLatency);
        }
        EXPECT_GE(w.graph().outCost[v], 0);
        EXPECT_LT(w.graph().outCost[v], 1000);
      }
      EXPECT_GT(computeNodes, 0);
      const bool hasWeightLeaves = shape == GraphShape::Transformer || shape == GraphShape::Cnn;
      EXPECT_EQ(leaves > 0, hasWeightLeaves);
    }
}

TEST(Generator, ChainIsASequence) {
  Workload w = generateWorkload(optionsFor(GraphShape::Chain, 6, 1, false));
  ASSERT_EQ(w.numNodes(), 6);
  ASSERT_EQ(w.graph().edges.size(), 5u);
  for (int i = 0; i + 1 < static_cast<int>(w.graph().topologicalOrder.size()); ++i) {
    auto next = w.successors(w.graph().topologicalOrder[i]);
    ASSERT_EQ(next.size(), 1u);
    EXPECT_EQ(next[0], w.graph().topologicalOrder[i + 1]);
  }
  EXPECT_EQ(bruteForceIdeals(w), 7u);
}

// Per block: a LayerNorm (with its weight leaf) feeding `width` heads, each of
// three projections (each with a weight leaf) joined by an attention node; a
// concat; the output projection; a residual add that also takes the block
// input; LayerNorm, MLP up, GELU, MLP down, and a second residual add.
TEST(Generator, TransformerBlocksHaveAttentionBranchesAndResiduals) {
  const int blocks = 3, heads = 4;
  Workload w = generateWorkload(optionsFor(GraphShape::Transformer, blocks, heads, false));
  // 3 (tokens, embedding + weight) + per block 14 + 7·heads + 4 (final norm, pooler).
  EXPECT_EQ(w.numNodes(), 3 + blocks * (14 + 7 * heads) + 4);

  int attentionNodes = 0, concatNodes = 0, residualAdds = 0, weightLeaves = 0;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const auto preds = w.predecessors(v);
    const Node& node = w.graph().nodes[v];
    if (node.fpgaLatency == 0 && preds.empty()) {
      ++weightLeaves;
      continue;
    }
    int computePreds = 0, leafPreds = 0;
    for (NodeIndex u : preds) (w.graph().nodes[u].fpgaLatency == 0 ? leafPreds : computePreds)++;
    if (computePreds == 3 && leafPreds == 0) {
      // Attention: its three inputs are projections of one LayerNorm.
      ++attentionNodes;
      std::set<NodeIndex> norms;
      for (NodeIndex u : preds)
        for (NodeIndex x : w.predecessors(u))
          if (w.graph().nodes[x].fpgaLatency > 0) norms.insert(x);
      EXPECT_EQ(norms.size(), 1u);
    } else if (computePreds == heads) {
      ++concatNodes;
    } else if (computePreds == 2) {
      ++residualAdds;
    }
  }
  EXPECT_EQ(attentionNodes, blocks * heads);
  EXPECT_EQ(concatNodes, blocks);
  EXPECT_EQ(residualAdds, 2 * blocks);
  // Weights: embedding, 2 norms + 3·heads projections + 3 dense per block,
  // final norm and pooler; plus the token input.
  EXPECT_EQ(weightLeaves, 1 + 1 + blocks * (5 + 3 * heads) + 2);
}

std::set<NodeIndex> ancestorsOf(const Workload& w, NodeIndex v) {
  std::set<NodeIndex> seen{v};
  std::vector<NodeIndex> stack{v};
  while (!stack.empty()) {
    NodeIndex x = stack.back();
    stack.pop_back();
    for (NodeIndex u : w.predecessors(x))
      if (seen.insert(u).second) stack.push_back(u);
  }
  return seen;
}

TEST(Generator, CnnBlocksJoinAShortcutAtAnAdd) {
  const int blocks = 8;  // two per stage: stages 2, 3 and 4 start with a projection
  Workload w = generateWorkload(optionsFor(GraphShape::Cnn, blocks, 1, false));
  int joins = 0, identityShortcuts = 0, projectionShortcuts = 0;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    std::vector<NodeIndex> computePreds;
    for (NodeIndex u : w.predecessors(v))
      if (w.graph().nodes[u].fpgaLatency > 0) computePreds.push_back(u);
    if (computePreds.size() != 2) continue;
    ++joins;
    auto a = ancestorsOf(w, computePreds[0]), b = ancestorsOf(w, computePreds[1]);
    if (a.count(computePreds[1]) || b.count(computePreds[0])) {
      ++identityShortcuts;  // the block input itself joins the main branch
    } else {
      ++projectionShortcuts;
      std::vector<NodeIndex> common;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
      EXPECT_FALSE(common.empty()) << "both branches start at the block input";
    }
  }
  EXPECT_EQ(joins, blocks);
  EXPECT_EQ(projectionShortcuts, 3);
  EXPECT_EQ(identityShortcuts, blocks - 3);
  // The branches add ideals: more than a chain of the same length has.
  Workload small = generateWorkload(optionsFor(GraphShape::Cnn, 1, 1, false));
  EXPECT_GT(bruteForceIdeals(small), static_cast<std::uint64_t>(countForward(small) + 1));
}

TEST(Generator, SeriesParallelIdealCountFollowsTheFormula) {
  // ∅, the input alone plus every mix of branch prefixes per block, each join.
  for (auto [blocks, width, length] :
       {std::tuple{1, 2, 2}, std::tuple{2, 3, 1}, std::tuple{1, 3, 3}, std::tuple{3, 2, 2}}) {
    GeneratorOptions options = optionsFor(GraphShape::SeriesParallel, blocks, width, false);
    options.chainLength = length;
    Workload w = generateWorkload(options);
    EXPECT_EQ(w.numNodes(), 1 + blocks * (width * length + 1));
    std::uint64_t perBlock = 1;
    for (int i = 0; i < width; ++i) perBlock *= length + 1;
    EXPECT_EQ(bruteForceIdeals(w), 2 + blocks * perBlock)
        << blocks << " blocks, width " << width << ", length " << length;
  }
}

TEST(Generator, TrainingAddsOneBackwardTwinPerForwardNode) {
  for (GraphShape shape : kShapes) {
    Workload inference = generateWorkload(optionsFor(shape, 2, 2, false));
    Workload w = generateWorkload(optionsFor(shape, 2, 2, true));
    const int forward = countForward(w);
    EXPECT_EQ(forward, inference.numNodes() + 1) << "training adds exactly a loss node";
    ASSERT_EQ(w.numNodes(), 2 * forward);

    std::map<std::int64_t, std::vector<NodeIndex>> byClass;
    for (NodeIndex v = 0; v < w.numNodes(); ++v) byClass[*w.graph().nodes[v].colorClass].push_back(v);
    std::map<NodeIndex, NodeIndex> twinOf;
    for (const auto& [cls, members] : byClass) {
      ASSERT_EQ(members.size(), 2u) << "class " << cls;
      NodeIndex f = members[0], b = members[1];
      if (w.graph().nodes[f].isBackward) std::swap(f, b);
      ASSERT_FALSE(w.graph().nodes[f].isBackward);
      ASSERT_TRUE(w.graph().nodes[b].isBackward);
      EXPECT_EQ(w.graph().classOf[f], w.graph().classOf[b]);
      twinOf[f] = b;
      if (w.graph().nodes[f].fpgaLatency > 0) {
        EXPECT_GT(w.graph().nodes[b].fpgaLatency, w.graph().nodes[f].fpgaLatency);
      }
    }
    std::set<std::pair<NodeIndex, NodeIndex>> edges;
    for (const Edge& e : w.graph().edges) edges.insert({e.source, e.dest});
    int forwardToBackward = 0;
    for (const Edge& e : w.graph().edges) {
      const bool sourceBackward = w.graph().nodes[e.source].isBackward;
      const bool destBackward = w.graph().nodes[e.dest].isBackward;
      EXPECT_FALSE(sourceBackward && !destBackward) << "backward to forward edge";
      if (!sourceBackward && !destBackward) {
        EXPECT_TRUE(edges.count({twinOf[e.dest], twinOf[e.source]})) << "reversed edge missing";
      }
      if (!sourceBackward && destBackward) {
        ++forwardToBackward;
        EXPECT_EQ(twinOf[e.source], e.dest) << "only the loss feeds its twin";
      }
    }
    EXPECT_EQ(forwardToBackward, 1);
    const NodeIndex loss = w.graph().topologicalOrder[forward - 1];
    EXPECT_TRUE(w.successors(loss).size() == 1 && w.successors(loss)[0] == twinOf[loss]);
  }
}

TEST(Generator, UnsupportedNodesOnlyWhenAsked) {
  GeneratorOptions options = optionsFor(GraphShape::Transformer, 2, 2, true);
  options.unsupportedFraction = 0.3;
  Workload w = generateWorkload(options);
  int unsupported = 0;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    if (w.graph().nodes[v].supportedOnFpga) continue;
    ++unsupported;
    EXPECT_GT(w.graph().nodes[v].cpuLatency, 0) << "weights stay supported";
    for (NodeIndex x : w.classMembers(w.graph().classOf[v]))
      EXPECT_FALSE(w.graph().nodes[x].supportedOnFpga) << "a class is supported or not as a whole";
  }
  EXPECT_GT(unsupported, 0);
  EXPECT_LT(unsupported, w.numNodes() / 2);
  options.unsupportedFraction = 1;
  Workload all = generateWorkload(options);
  for (const Node& node : all.graph().nodes) EXPECT_EQ(node.supportedOnFpga, node.fpgaLatency == 0);
}

TEST(Generator, RejectsOptionsOutOfRange) {
  auto expectRejected = [](GeneratorOptions options, const std::string& needle) {
    std::string error;
    EXPECT_FALSE(validGeneratorOptions(options, &error));
    EXPECT_NE(error.find(needle), std::string::npos) << error;
    EXPECT_THROW(generateWorkload(options), std::invalid_argument);
  };
  GeneratorOptions options;
  options.blocks = 0;
  expectRejected(options, "blocks");
  options = {};
  options.width = -1;
  expectRejected(options, "width");
  options = {};
  options.chainLength = 0;
  expectRejected(options, "chain length");
  options = {};
  options.accelerators = -2;
  expectRejected(options, "accelerators");
  options = {};
  options.cpus = -1;
  expectRejected(options, "cpus");
  options = {};
  options.memoryPerAccelerator = -1;
  expectRejected(options, "memory");
  options = {};
  options.memoryPerAccelerator = std::numeric_limits<double>::quiet_NaN();
  expectRejected(options, "memory");
  options = {};
  options.unsupportedFraction = 1.5;
  expectRejected(options, "unsupported");
  options = {};
  options.shape = GraphShape::Transformer;
  options.blocks = 100000;
  options.width = 1000;
  expectRejected(options, "more than");

  std::string error;
  EXPECT_TRUE(validGeneratorOptions(GeneratorOptions{}, &error)) << error;
}

// The benchmark graph of the DP: one block of 10 chains of 3 has 4^10 + 2
// ideals, as the DP's own counter confirms.
TEST(Generator, MillionIdealSeriesParallelGraphIsSmall) {
  GeneratorOptions options = optionsFor(GraphShape::SeriesParallel, 1, 10, false);
  Workload w = generateWorkload(options);
  EXPECT_EQ(w.numNodes(), 32);
  const IdealCount ideals = countIdeals(w, 2'000'000);
  EXPECT_FALSE(ideals.exceeded);
  EXPECT_EQ(ideals.count, 1'048'578u);
  options.blocks = 3;
  options.width = 4;
  options.chainLength = 2;
  EXPECT_EQ(countIdeals(generateWorkload(options), 2'000'000).count, 2u + 3 * 81);
}

TEST(Generator, CliRejectsBadOptionsWithExitTwo) {
  for (const std::string& arguments :
       {std::string("generate pyramid"), std::string("generate chain --blocks 0"),
        std::string("generate series-parallel --blocks 100000 --width 1000")}) {
    auto result = testing::runCli(arguments);
    EXPECT_EQ(result.exitCode, 2) << arguments << "\n" << result.err;
    EXPECT_TRUE(result.out.empty());
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
  }
}

TEST(Generator, CliWritesTheSameWorkload) {
  auto path = testing::tempPath(".json");
  auto result = testing::runCli(
      "generate transformer --blocks 2 --width 2 --training --seed 5 "
      "--accelerators 3 --cpus 2 --memory 8e9 --out '" +
      path.string() + "'");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::string error;
  auto text = readFile(path.string(), &error);
  std::filesystem::remove(path);
  ASSERT_TRUE(text) << error;
  GeneratorOptions options = optionsFor(GraphShape::Transformer, 2, 2, true, 5);
  options.accelerators = 3;
  options.cpus = 2;
  options.memoryPerAccelerator = 8e9;
  EXPECT_EQ(*text, workloadToJson(generateWorkload(options)));
}

// examples/README.md lists the commands that wrote examples/*.json; re-running
// them must reproduce the files byte for byte.
TEST(Generator, BundledExamplesMatchTheirCommands) {
  const std::filesystem::path examples = std::filesystem::path(DNNPLACE_SOURCE_DIR) / "examples";
  std::string error;
  auto readme = readFile((examples / "README.md").string(), &error);
  ASSERT_TRUE(readme) << error;
  std::istringstream lines(*readme);
  int checked = 0;
  for (std::string line; std::getline(lines, line);) {
    const std::string prefix = "dnnplace generate ";
    if (line.rfind(prefix, 0) != 0) continue;
    const auto outAt = line.find(" --out examples/");
    ASSERT_NE(outAt, std::string::npos) << line;
    const std::string file = line.substr(outAt + std::string(" --out examples/").size());
    const auto path = testing::tempPath(".json");
    auto result = testing::runCli(line.substr(std::string("dnnplace ").size(), outAt - 9) + " --out '" +
                                  path.string() + "'");
    ASSERT_EQ(result.exitCode, 0) << line << "\n" << result.err;
    auto fresh = readFile(path.string(), &error);
    std::filesystem::remove(path);
    ASSERT_TRUE(fresh) << error;
    auto bundled = readFile((examples / file).string(), &error);
    ASSERT_TRUE(bundled) << error;
    EXPECT_TRUE(*fresh == *bundled)
        << "examples/" << file << " is stale: regenerate it with the command in examples/README.md";
    ++checked;
  }
  EXPECT_EQ(checked, 4) << "examples/README.md should list four generate commands";
}

}  // namespace
}  // namespace dnnplace
