// The DP's preprocessing (docs/model.md §4 steps 1–4) and the ideal lattice.

#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dnnplace/generator.hpp"
#include "dnnplace/workload.hpp"
#include "dp/exact_sums.hpp"
#include "dp/ideal_lattice.hpp"
#include "preprocess/contraction.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

struct Spec {
  Spec(std::int64_t id, bool backward = false, std::optional<std::int64_t> cls = {}, double fpga = 1,
       double cpu = 10, double size = 0)
      : id(id), backward(backward), cls(cls), fpga(fpga), cpu(cpu), size(size) {}
  std::int64_t id;
  bool backward;
  std::optional<std::int64_t> cls;
  double fpga, cpu, size;
  bool supported = true;
};

Workload make(const std::vector<Spec>& specs, const std::vector<RawEdge>& edges,
              Machine machine = {100, 2, 1}) {
  std::vector<Node> nodes;
  for (const auto& s : specs) {
    Node node;
    node.id = s.id;
    node.isBackward = s.backward;
    node.colorClass = s.cls;
    node.fpgaLatency = s.fpga;
    node.cpuLatency = s.cpu;
    node.size = s.size;
    node.supportedOnFpga = s.supported;
    nodes.push_back(node);
  }
  std::string error;
  auto w = buildWorkload("test", machine, nodes, edges, &error);
  EXPECT_TRUE(w.has_value()) << error;
  return w ? std::move(*w) : Workload{};
}

int superOfId(const Workload& w, const ContractedGraph& g, std::int64_t id) {
  return g.superOf[*w.indexOf(id)];
}

bool hasEdge(const ContractedGraph& g, int a, int b) {
  for (int i = g.succStart[a]; i < g.succStart[a + 1]; ++i)
    if (g.succ[i] == b) return true;
  return false;
}

TEST(Contraction, ColorClassBecomesOneSuperNodeWithItsBackwardNodes) {
  // 1 -> 2 -> 3 forward; 1 and 2 share class 7; backward twins 11 (class 7), 13 (class 9).
  const Workload w = make({{1, false, 7}, {2, false, 7}, {3, false, 9}, {11, true, 7}, {13, true, 9}},
                          {{1, 2, 1}, {2, 3, 1}, {3, 13, 2}, {13, 11, 2}});
  const ContractedGraph g = contractWorkload(w, {});
  ASSERT_EQ(g.numSuperNodes, 2);
  EXPECT_EQ(superOfId(w, g, 1), superOfId(w, g, 2));
  EXPECT_EQ(superOfId(w, g, 1), superOfId(w, g, 11));
  EXPECT_EQ(superOfId(w, g, 3), superOfId(w, g, 13));
  const int a = superOfId(w, g, 1), b = superOfId(w, g, 3);
  EXPECT_TRUE(hasEdge(g, a, b));
  EXPECT_FALSE(hasEdge(g, b, a));  // backward edges add no forward edge
  EXPECT_DOUBLE_EQ(g.fpgaLatency[a], 3);
  EXPECT_DOUBLE_EQ(g.cpuLatency[a], 30);
  EXPECT_EQ(g.artificialTwins, 0);
  EXPECT_EQ(g.classesFusedByCycles, 0);
}

TEST(Contraction, OrphanBackwardNodeGetsMirroredForwardEdges) {
  // Forward 1 -> 2, twins 12 -> 11; orphan 20 (class 50) between them: 12 -> 20 -> 11.
  const Workload w = make({{1, false, 1}, {2, false, 2}, {11, true, 1}, {12, true, 2}, {20, true, 50}},
                          {{1, 2, 1}, {2, 12, 1}, {12, 20, 1}, {20, 11, 1}, {12, 11, 1}});
  const ContractedGraph g = contractWorkload(w, {});
  EXPECT_EQ(g.artificialTwins, 1);
  ASSERT_EQ(g.numSuperNodes, 3);
  const int one = superOfId(w, g, 1), two = superOfId(w, g, 2), orphan = superOfId(w, g, 20);
  // Mirror of 12 -> 20 is twin(20) -> twin(12) = orphan -> 2; of 20 -> 11: 1 -> orphan.
  EXPECT_TRUE(hasEdge(g, orphan, two));
  EXPECT_TRUE(hasEdge(g, one, orphan));
  // The edge 12 -> 11 touches no orphan: no mirror 1 -> 2 beyond the real one.
  EXPECT_TRUE(hasEdge(g, one, two));
  EXPECT_EQ(g.memberStart[orphan + 1] - g.memberStart[orphan], 1);
}

TEST(Contraction, CyclesCreatedByClassesAreFused) {
  // a -> b -> c with a and c in one class: the classes {a,c} and {b} form a cycle.
  const Workload w = make({{1, false, 5}, {2, false, 6}, {3, false, 5}, {4, false, 8}},
                          {{1, 2, 1}, {2, 3, 1}, {3, 4, 1}});
  const ContractedGraph g = contractWorkload(w, {});
  EXPECT_EQ(g.classesFusedByCycles, 1);
  ASSERT_EQ(g.numSuperNodes, 2);
  EXPECT_EQ(superOfId(w, g, 1), superOfId(w, g, 2));
  EXPECT_EQ(superOfId(w, g, 1), superOfId(w, g, 3));
  EXPECT_NE(superOfId(w, g, 1), superOfId(w, g, 4));
}

TEST(Contraction, ZeroWorkLeavesMergeIntoTheirOnlyNeighbour) {
  // Weight 10 (no work, 8 bytes) feeds layer 2; layer 2 -> layer 3.
  // Input 11 (no work) feeds both 2 and 3: two neighbours, kept.
  const Workload w = make(
      {{10, false, {}, 0, 0, 8}, {11, false, {}, 0, 0}, {2, false, {}, 1, 10}, {3, false, {}, 1, 10}},
      {{10, 2, 1}, {11, 2, 1}, {11, 3, 1}, {2, 3, 1}});
  const ContractedGraph g = contractWorkload(w, {});
  EXPECT_EQ(g.zeroWorkLeavesMerged, 1);
  EXPECT_DOUBLE_EQ(g.zeroWorkLeafBytes, 8);
  EXPECT_EQ(superOfId(w, g, 10), superOfId(w, g, 2));
  EXPECT_NE(superOfId(w, g, 11), superOfId(w, g, 2));
  EXPECT_EQ(g.numSuperNodes, 3);

  ContractionOptions off;
  off.mergeZeroWorkLeaves = false;
  EXPECT_EQ(contractWorkload(w, off).numSuperNodes, 4);
}

TEST(Contraction, ZeroWorkLeafRuleRespectsBackwardWorkAndEdges) {
  // Leaf 10 has a backward twin with work: not a zero-work class.
  const Workload withWork =
      make({{10, false, 1, 0, 0}, {2, false, 2}, {20, true, 1, 1, 1}, {22, true, 2}},
           {{10, 2, 1}, {2, 22, 1}, {22, 20, 1}});
  EXPECT_EQ(contractWorkload(withWork, {}).zeroWorkLeavesMerged, 0);
  // Leaf 10 (no work anywhere) feeds a backward node directly: kept.
  const Workload feedsBackward =
      make({{10, false, 1, 0, 0}, {2, false, 2}, {22, true, 2}}, {{10, 2, 1}, {2, 22, 1}, {10, 22, 1}});
  EXPECT_EQ(contractWorkload(feedsBackward, {}).zeroWorkLeavesMerged, 0);
  // A chain of two zero-work nodes hanging off a layer collapses into it.
  const Workload chain =
      make({{10, false, {}, 0, 0}, {11, false, {}, 0, 0}, {2, false, {}}}, {{10, 11, 1}, {11, 2, 1}});
  const ContractedGraph g = contractWorkload(chain, {});
  EXPECT_EQ(g.zeroWorkLeavesMerged, 2);
  EXPECT_EQ(g.numSuperNodes, 1);
}

TEST(Contraction, NumberingIsTopologicalAndHyperedgesCountCommunication) {
  // Diamond 1 -> {2, 3} -> 4 with costs 1, 2, 4.
  const Workload w = make({{1, false}, {2, false}, {3, false}, {4, false}},
                          {{1, 2, 1}, {1, 3, 1}, {2, 4, 2}, {3, 4, 4}});
  const ContractedGraph g = contractWorkload(w, {});
  ASSERT_EQ(g.numSuperNodes, 4);
  for (int s = 0; s < g.numSuperNodes; ++s)
    for (int i = g.succStart[s]; i < g.succStart[s + 1]; ++i) EXPECT_LT(s, g.succ[i]);
  // Block {1, 2}: node 1 sends to 3 (outside) -> pays 1; node 2 sends to 4 -> pays 2.
  const BlockTotals totals = blockTotals(w, g, {superOfId(w, g, 1), superOfId(w, g, 2)});
  EXPECT_DOUBLE_EQ(totals.communication, 3);
  EXPECT_DOUBLE_EQ(totals.fpgaLatency, 2);
  // Same number from the hypergraph.
  std::vector<char> in(g.numSuperNodes, 0);
  in[superOfId(w, g, 1)] = in[superOfId(w, g, 2)] = 1;
  double hyper = 0;
  for (std::size_t h = 0; h + 1 < g.hyperStart.size(); ++h) {
    int inside = 0;
    for (int i = g.hyperStart[h]; i < g.hyperStart[h + 1]; ++i) inside += in[g.hyperNodes[i]];
    if (inside > 0 && inside < g.hyperStart[h + 1] - g.hyperStart[h]) hyper += g.hyperWeight[h];
  }
  EXPECT_DOUBLE_EQ(hyper, 3);
}

TEST(Contraction, TheThreeOrdersAreTopologicalAndBreakTiesAsDocumented) {
  // Two parallel chains 1 -> 2 -> 3 and 4 -> 5 -> 6 from source 0 into sink 7.
  const Workload w =
      make({{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}},
           {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {0, 4, 1}, {4, 5, 1}, {5, 6, 1}, {3, 7, 1}, {6, 7, 1}});
  auto orderOf = [&](ContractionOptions::Order order) {
    ContractionOptions options;
    options.order = order;
    options.mergeZeroWorkLeaves = false;
    const ContractedGraph g = contractWorkload(w, options);
    EXPECT_EQ(g.numSuperNodes, 8);
    for (int s = 0; s < g.numSuperNodes; ++s)
      for (int i = g.succStart[s]; i < g.succStart[s + 1]; ++i) EXPECT_LT(s, g.succ[i]);
    std::vector<std::int64_t> ids(g.numSuperNodes);
    for (std::int64_t id = 0; id < 8; ++id) ids[superOfId(w, g, id)] = id;
    return ids;
  };
  // Smallest first and depth-first both finish the first chain first here;
  // breadth-first advances the chains together.
  EXPECT_EQ(orderOf(ContractionOptions::Order::SmallestFirst),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(orderOf(ContractionOptions::Order::DepthFirst),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(orderOf(ContractionOptions::Order::BreadthFirst),
            (std::vector<std::int64_t>{0, 1, 4, 2, 5, 3, 6, 7}));
}

void expectSameGraph(const ContractedGraph& a, const ContractedGraph& b, const std::string& what) {
  EXPECT_EQ(a.numSuperNodes, b.numSuperNodes) << what;
  EXPECT_EQ(a.superOf, b.superOf) << what;
  EXPECT_EQ(a.memberStart, b.memberStart) << what;
  EXPECT_EQ(a.members, b.members) << what;
  EXPECT_EQ(a.fpgaLatency, b.fpgaLatency) << what;
  EXPECT_EQ(a.cpuLatency, b.cpuLatency) << what;
  EXPECT_EQ(a.size, b.size) << what;
  EXPECT_EQ(a.supportedOnFpga, b.supportedOnFpga) << what;
  EXPECT_EQ(a.succStart, b.succStart) << what;
  EXPECT_EQ(a.succ, b.succ) << what;
  EXPECT_EQ(a.predStart, b.predStart) << what;
  EXPECT_EQ(a.pred, b.pred) << what;
  EXPECT_EQ(a.hyperStart, b.hyperStart) << what;
  EXPECT_EQ(a.hyperNodes, b.hyperNodes) << what;
  EXPECT_EQ(a.hyperWeight, b.hyperWeight) << what;
  EXPECT_EQ(a.incidenceStart, b.incidenceStart) << what;
  EXPECT_EQ(a.incidence, b.incidence) << what;
  EXPECT_EQ(a.artificialTwins, b.artificialTwins) << what;
  EXPECT_EQ(a.classesFusedByCycles, b.classesFusedByCycles) << what;
  EXPECT_EQ(a.zeroWorkLeavesMerged, b.zeroWorkLeavesMerged) << what;
  EXPECT_EQ(a.zeroWorkLeafBytes, b.zeroWorkLeafBytes) << what;
}

TEST(Contraction, RenumberingEqualsContractingInThatOrder) {
  std::vector<Workload> workloads = testing::generatedShapes(GeneratorOptions{});
  std::string why;
  if (const auto shared = testing::sharedDir(&why))
    for (const char* name :
         {"inceptionv3_training.json", "gnmt_training.json", "resnet50_inference.json"}) {
      std::string error;
      auto w = loadWorkload((*shared / "workloads/throughput/LayerGraphs" / name).string(), &error);
      ASSERT_TRUE(w.has_value()) << error;
      workloads.push_back(std::move(*w));
    }
  ASSERT_FALSE(workloads.empty());
  for (const Workload& w : workloads) {
    const ContractedGraph smallestFirst = contractWorkload(w, ContractionOptions{});
    for (auto order : {ContractionOptions::Order::SmallestFirst, ContractionOptions::Order::DepthFirst,
                       ContractionOptions::Order::BreadthFirst}) {
      ContractionOptions options;
      options.order = order;
      expectSameGraph(renumberContracted(smallestFirst, order), contractWorkload(w, options),
                      w.name + " order " + std::to_string(static_cast<int>(order)));
    }
  }
}

TEST(Contraction, BiconnectedMergeForPipedream) {
  // Diamond 1 -> {2, 3} -> 4 then 4 -> 5: the diamond is one biconnected
  // component whose edge sources are 1, 2, 3; the bridge 4 -> 5 has source 4.
  const Workload w = make({{1, false}, {2, false}, {3, false}, {4, false}, {5, false}},
                          {{1, 2, 1}, {1, 3, 1}, {2, 4, 1}, {3, 4, 1}, {4, 5, 1}});
  ContractionOptions options;
  options.mergeBiconnected = true;
  const ContractedGraph g = contractWorkload(w, options);
  EXPECT_EQ(superOfId(w, g, 1), superOfId(w, g, 2));
  EXPECT_EQ(superOfId(w, g, 1), superOfId(w, g, 3));
  EXPECT_NE(superOfId(w, g, 1), superOfId(w, g, 4));
  EXPECT_NE(superOfId(w, g, 4), superOfId(w, g, 5));
  EXPECT_EQ(g.numSuperNodes, 3);
}

TEST(IdealLattice, CountsMatchSubsetEnumerationAndLinksAreConsistent) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 11);
    std::vector<Spec> specs;
    std::vector<RawEdge> edges;
    for (int i = 0; i < n; ++i) specs.push_back({i});
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng() % 4 == 0) edges.push_back({i, j, 1});
    const Workload w = make(specs, edges);
    const ContractedGraph g = contractWorkload(w, {});
    ASSERT_EQ(g.numSuperNodes, n);
    // Brute force: every subset closed under predecessors.
    std::uint64_t expected = 0;
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      bool closed = true;
      for (const Edge& e : w.graph().edges)
        if ((mask >> g.superOf[e.dest] & 1) && !(mask >> g.superOf[e.source] & 1)) closed = false;
      expected += closed;
    }
    EXPECT_EQ(countIdeals(g, 0).count, expected);
    EXPECT_EQ(countIdeals(w, 0).count, expected);
    IdealLattice lattice;
    ASSERT_EQ(lattice.build(g, {}), IdealLattice::Status::Complete);
    ASSERT_EQ(static_cast<std::uint64_t>(lattice.numIdeals()), expected);
    // Rebuild each ideal's set from its canonical parent (the last link) and
    // check that every link removes one maximal element.
    std::vector<std::uint32_t> set(lattice.numIdeals(), 0);
    std::set<std::uint32_t> distinct{0};
    for (std::int32_t id = 1; id < lattice.numIdeals(); ++id) {
      const auto links = lattice.links(id);
      ASSERT_FALSE(links.empty());
      set[id] = set[links.back().target] | (1u << links.back().element);
      distinct.insert(set[id]);
      EXPECT_LT(links.back().target, id);
    }
    EXPECT_EQ(distinct.size(), expected);
    EXPECT_EQ(set[lattice.fullIdeal()], (1u << n) - 1);
    for (std::int32_t id = 1; id < lattice.numIdeals(); ++id) {
      int maximal = 0;
      for (int v = 0; v < n; ++v) {
        if (!(set[id] >> v & 1)) continue;
        bool isMax = true;
        for (int i = g.succStart[v]; i < g.succStart[v + 1]; ++i)
          if (set[id] >> g.succ[i] & 1) isMax = false;
        maximal += isMax;
      }
      EXPECT_EQ(static_cast<int>(lattice.links(id).size()), maximal);
      for (const auto& link : lattice.links(id))
        EXPECT_EQ(set[link.target], set[id] & ~(1u << link.element));
    }
  }
}

TEST(IdealLattice, BuildsGraphsSpanningSeveralWords) {
  // Two interleaved chains of 70 nodes (even and odd ids) and a few forward
  // edges between them: ideals whose ready nodes lie in different 64-bit
  // words of the build's bitsets. Checked against the independent count and
  // by rebuilding every ideal's set from its canonical parent.
  constexpr int n = 140;
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Spec> specs;
    std::vector<RawEdge> edges;
    for (int i = 0; i < n; ++i) specs.push_back({i});
    for (int i = 0; i + 2 < n; ++i) edges.push_back({i, i + 2, 1});
    for (int extra = 0; extra < 3 * trial; ++extra) {
      const int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
      if (a != b) edges.push_back({std::min(a, b), std::max(a, b), 1});
    }
    const ContractedGraph g = contractWorkload(make(specs, edges), {});
    ASSERT_EQ(g.numSuperNodes, n);
    IdealLattice lattice;
    ASSERT_EQ(lattice.build(g, {}), IdealLattice::Status::Complete);
    ASSERT_EQ(static_cast<std::uint64_t>(lattice.numIdeals()), countIdeals(g, 0).count);
    if (trial == 0) {
      EXPECT_EQ(lattice.numIdeals(), 71 * 71);
    }
    using Set = std::bitset<n>;
    std::vector<Set> set(lattice.numIdeals());
    std::set<std::string> distinct{Set().to_string()};
    for (std::int32_t id = 1; id < lattice.numIdeals(); ++id) {
      const auto links = lattice.links(id);
      ASSERT_FALSE(links.empty());
      ASSERT_LT(links.back().target, id);
      set[id] = set[links.back().target];
      set[id].set(links.back().element);
      distinct.insert(set[id].to_string());
      for (int v = 0; v < n; ++v) {
        for (int i = g.predStart[v]; set[id][v] && i < g.predStart[v + 1]; ++i) {
          ASSERT_TRUE(set[id][g.pred[i]])
              << "ideal " << id << " holds " << v << " without its predecessor";
        }
      }
    }
    EXPECT_EQ(distinct.size(), static_cast<std::size_t>(lattice.numIdeals()));
    EXPECT_TRUE(set[lattice.fullIdeal()].all());
    for (std::int32_t id = 1; id < lattice.numIdeals(); ++id) {
      int maximal = 0;
      for (int v = 0; v < n; ++v) {
        bool isMax = set[id][v];
        for (int i = g.succStart[v]; isMax && i < g.succStart[v + 1]; ++i) isMax = !set[id][g.succ[i]];
        maximal += isMax;
      }
      ASSERT_EQ(static_cast<int>(lattice.links(id).size()), maximal) << "ideal " << id;
      for (const auto& link : lattice.links(id)) {
        Set without = set[id];
        without.reset(link.element);
        ASSERT_EQ(set[link.target], without) << "ideal " << id;
      }
    }
  }
}

TEST(IdealLattice, CountsLongChainsAcrossManyWords) {
  // Two chains, of 4,500 and 100 nodes: (4,500 + 1) · (100 + 1) ideals. The
  // ready nodes of the count lie thousands of positions apart, in different
  // words and summary words of its bitset.
  std::vector<Spec> specs;
  std::vector<RawEdge> edges;
  for (int i = 0; i < 4600; ++i) specs.push_back({i});
  for (int i = 0; i + 1 < 4500; ++i) edges.push_back({i, i + 1, 1});
  for (int i = 4500; i + 1 < 4600; ++i) edges.push_back({i, i + 1, 1});
  const Workload w = make(specs, edges);
  const ContractedGraph g = contractWorkload(w, {});
  ASSERT_EQ(g.numSuperNodes, 4600);
  EXPECT_EQ(countIdeals(g, 0).count, 4501u * 101u);
  const IdealCount capped = countIdeals(g, 300'000);
  EXPECT_TRUE(capped.exceeded);
  EXPECT_EQ(capped.count, 300'000u);

  // A count that has passed its deadline, or is interrupted, stops within a
  // few thousand ideals and says so.
  CountLimits late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const IdealCount stopped = countIdeals(g, 0, late);
  EXPECT_TRUE(stopped.stopped);
  EXPECT_FALSE(stopped.exceeded);
  EXPECT_LT(stopped.count, 10'000u);
  std::atomic<bool> interrupt{true};
  CountLimits interrupted;
  interrupted.interrupt = &interrupt;
  EXPECT_TRUE(countIdeals(g, 0, interrupted).stopped);
}

TEST(IdealLattice, CapAndLimitStopEnumeration) {
  // 12 independent nodes: 4096 ideals.
  std::vector<Spec> specs;
  for (int i = 0; i < 12; ++i) specs.push_back({i});
  const Workload w = make(specs, {});
  EXPECT_EQ(countIdeals(w, 0).count, 4096u);
  const IdealCount capped = countIdeals(w, 100);
  EXPECT_TRUE(capped.exceeded);
  EXPECT_EQ(capped.count, 100u);
  EXPECT_FALSE(countIdeals(w, 4096).exceeded);
  IdealLattice lattice;
  IdealLattice::Limits limits;
  limits.maxIdeals = 1000;
  EXPECT_EQ(lattice.build(contractWorkload(w, {}), limits), IdealLattice::Status::IdealLimit);
}

TEST(IdealLattice, ADeadlineLeavesTheLatticeUnchangedOrStopsIt) {
  // 16 independent nodes: 65,536 ideals and 524,288 links (8 MB), so the
  // build grows its arrays past 1 MB several times and, with a deadline,
  // times those copies. A deadline far off changes nothing; one already
  // passed stops the build.
  std::vector<Spec> specs;
  for (int i = 0; i < 16; ++i) specs.push_back({i});
  const ContractedGraph graph = contractWorkload(make(specs, {}), {});
  IdealLattice untimed, timed;
  ASSERT_EQ(untimed.build(graph, {}), IdealLattice::Status::Complete);
  IdealLattice::Limits farOff;
  farOff.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  ASSERT_EQ(timed.build(graph, farOff), IdealLattice::Status::Complete);
  ASSERT_EQ(untimed.numIdeals(), 65536);
  ASSERT_EQ(timed.numIdeals(), untimed.numIdeals());
  for (std::int32_t id = 0; id < untimed.numIdeals(); ++id) {
    ASSERT_EQ(timed.addedElement(id), untimed.addedElement(id));
    ASSERT_EQ(timed.childBegin(id), untimed.childBegin(id));
    const auto a = timed.links(id), b = untimed.links(id);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].element, b[i].element);
      ASSERT_EQ(a[i].target, b[i].target);
      ASSERT_EQ(a[i].targetLinks, b[i].targetLinks);
    }
  }
  IdealLattice late;
  IdealLattice::Limits passed;
  passed.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(late.build(graph, passed), IdealLattice::Status::TimeLimit);
}

TEST(IdealLattice, MemoryLimitHoldsBeforeEachAllocation) {
  // 12 independent nodes: 4096 ideals and 24,576 links (about 0.5 MB with
  // 64 bytes of DP table per ideal). Whatever the limit, the arrays never
  // grew past it: stopped early or complete, they hold at most the limit.
  std::vector<Spec> specs;
  for (int i = 0; i < 12; ++i) specs.push_back({i});
  const ContractedGraph graph = contractWorkload(make(specs, {}), {});
  constexpr std::uint64_t kPerIdeal = 64;
  int stopped = 0, complete = 0;
  for (double limit = 1000; limit < 2e6; limit *= 1.07) {
    IdealLattice lattice;
    IdealLattice::Limits limits;
    limits.memoryLimitBytes = static_cast<std::uint64_t>(limit);
    limits.extraBytesPerIdeal = kPerIdeal;
    const IdealLattice::Status status = lattice.build(graph, limits);
    if (status == IdealLattice::Status::MemoryLimit) {
      ++stopped;
      EXPECT_LE(lattice.bytes(), limits.memoryLimitBytes);
    } else {
      ASSERT_EQ(status, IdealLattice::Status::Complete);
      ++complete;
      EXPECT_EQ(lattice.numIdeals(), 4096);
      EXPECT_LE(lattice.bytes() + kPerIdeal * 4096, limits.memoryLimitBytes);
    }
  }
  EXPECT_GT(stopped, 10);
  EXPECT_GT(complete, 10);
}

// The DP's copy on exact grids: latencies and weights no larger, sizes no
// smaller, every sum the same in any order, and renumbering keeps it so
// (it moves the numbers, it does not recompute them).
TEST(Contraction, TheDpsGridsAreExactAndSurviveRenumbering) {
  GeneratorOptions base;
  base.blocks = 3;
  for (const Workload& w : testing::generatedShapes(base)) {
    const ContractedGraph exact = contractWorkload(w, {});
    ContractedGraph snapped = exact;
    dp::snapToExactGrid(&snapped, w.machine.maxSizePerFpga, std::numeric_limits<double>::infinity());
    ASSERT_EQ(snapped.numSuperNodes, exact.numSuperNodes);
    for (int s = 0; s < exact.numSuperNodes; ++s) {
      EXPECT_LE(snapped.fpgaLatency[s], exact.fpgaLatency[s]) << w.name;
      EXPECT_LE(snapped.cpuLatency[s], exact.cpuLatency[s]) << w.name;
      EXPECT_GE(snapped.size[s], std::min(exact.size[s], 2 * w.machine.maxSizePerFpga)) << w.name;
      EXPECT_NEAR(snapped.fpgaLatency[s], exact.fpgaLatency[s], 1e-9 * (1 + exact.fpgaLatency[s]));
    }
    std::vector<double> terms = snapped.fpgaLatency;
    terms.insert(terms.end(), snapped.cpuLatency.begin(), snapped.cpuLatency.end());
    terms.insert(terms.end(), snapped.hyperWeight.begin(), snapped.hyperWeight.end());
    double forward = 0, backward = 0;
    for (double x : terms) forward += x;
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward += *it;
    EXPECT_EQ(forward, backward) << w.name;
    // Adding and taking away leaves nothing behind.
    double running = 0;
    for (double x : terms) running += x;
    for (double x : terms) running -= x;
    EXPECT_EQ(running, 0) << w.name;

    const ContractedGraph renumbered =
        renumberContracted(snapped, ContractionOptions::Order::DepthFirst);
    EXPECT_EQ(renumbered.dpMemoryBound, snapped.dpMemoryBound);
    EXPECT_EQ(renumbered.hyperWeight, snapped.hyperWeight);
    for (int s = 0; s < snapped.numSuperNodes; ++s) {
      const int t = renumbered.superOf[snapped.members[snapped.memberStart[s]]];
      EXPECT_EQ(renumbered.fpgaLatency[t], snapped.fpgaLatency[s]);
      EXPECT_EQ(renumbered.cpuLatency[t], snapped.cpuLatency[s]);
      EXPECT_EQ(renumbered.size[t], snapped.size[s]);
    }
  }
}

}  // namespace
}  // namespace dnnplace
