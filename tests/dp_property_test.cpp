// The exact DP against an independent brute force over contiguous placements,
// on random small graphs (docs/model.md §3–4).
//
// The brute force shares no code with the DP: it assigns whole color classes to
// devices in every possible way, checks feasibility (docs/model.md §2) and
// contiguity, and computes the max-load from the original edges. Contiguity is
// checked on the class-level forward graph docs/model.md prescribes: forward
// edges between classes, plus, for a backward edge b1→b2 touching an orphan
// class (backward nodes only), the mirrored edge class(b2)→class(b1). A
// placement is contiguous when the graph of its blocks over these edges is
// acyclic (so splitting a cycle of classes is rejected without any fusing).
// The generated graphs give every class some work, so the zero-work-leaf rule
// (docs/model.md §4 step 4, tested in contraction_test) never fires here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dnnplace/compare.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "dp/dp.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- generator

struct RandomGraph {
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;
  Machine machine;
  std::string shape;
};

enum class Shape { Chain, SeriesParallel, RandomDag };

/// Forward edges among `count` forward nodes (indices 0..count-1).
std::vector<std::pair<int, int>> forwardEdges(Shape shape, int count, std::mt19937_64& rng) {
  std::vector<std::pair<int, int>> edges;
  std::uniform_real_distribution<double> unit(0, 1);
  switch (shape) {
    case Shape::Chain:
      for (int i = 0; i + 1 < count; ++i) edges.push_back({i, i + 1});
      for (int i = 0; i + 2 < count; ++i)
        if (unit(rng) < 0.2) edges.push_back({i, i + 2});  // residual
      break;
    case Shape::SeriesParallel: {
      // source -> parallel branches -> sink, like an attention or inception block.
      const int sink = count - 1;
      int next = 1;
      while (next < sink) {
        const int length = std::min(sink - next, 1 + static_cast<int>(rng() % 2));
        edges.push_back({0, next});
        for (int i = 0; i + 1 < length; ++i) edges.push_back({next + i, next + i + 1});
        edges.push_back({next + length - 1, sink});
        next += length;
      }
      if (count == 2) edges.push_back({0, 1});
      break;
    }
    case Shape::RandomDag:
      for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j)
          if (unit(rng) < 0.35) edges.push_back({i, j});
      break;
  }
  return edges;
}

RandomGraph randomGraph(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  RandomGraph g;
  const Shape shape = static_cast<Shape>(rng() % 3);
  g.shape = shape == Shape::Chain            ? "chain"
            : shape == Shape::SeriesParallel ? "series-parallel"
                                             : "dag";
  const bool training = unit(rng) < 0.45;
  const int forwardCount = 2 + static_cast<int>(rng() % (training ? 4 : 6));  // 2..5 or 2..7
  const bool multiNodeClasses = unit(rng) < 0.4;
  const int orphans = training && unit(rng) < 0.4 ? 1 + static_cast<int>(rng() % 2) : 0;

  // Color classes of forward nodes: some share a class.
  std::vector<int> classOf(forwardCount);
  for (int i = 0; i < forwardCount; ++i) classOf[i] = i;
  if (multiNodeClasses)
    for (int merges = 1 + static_cast<int>(rng() % 2); merges > 0; --merges) {
      const int a = static_cast<int>(rng() % forwardCount), b = static_cast<int>(rng() % forwardCount);
      classOf[b] = classOf[a];
    }

  // Half the graphs use multiples of 1/8 (exact sums, so ties are real ties),
  // half arbitrary decimals (sums in different orders differ by rounding).
  const bool dyadic = unit(rng) < 0.5;
  auto latency = [&](double scale) {
    const double r = unit(rng);
    if (r < 0.15) return 0.0;
    const double value = scale * (0.5 + 9.5 * unit(rng));
    return dyadic ? std::round(value * 8) / 8 : std::round(value * 1000) / 1000 + 0.1;
  };
  auto addNode = [&](bool backward, std::optional<std::int64_t> cls) {
    Node node;
    node.id = static_cast<std::int64_t>(g.nodes.size()) * 3 + 7;  // ids differ from indices
    node.isBackward = backward;
    node.colorClass = cls;
    node.fpgaLatency = latency(1);
    node.cpuLatency = latency(unit(rng) < 0.5 ? 1 : 4);
    node.size = std::round(unit(rng) * 10);
    node.supportedOnFpga = unit(rng) > 0.12;
    g.nodes.push_back(node);
    return static_cast<int>(g.nodes.size()) - 1;
  };
  for (int i = 0; i < forwardCount; ++i) {
    // Leave a lone node without a colorClass now and then (it is its own class).
    const bool bare = !multiNodeClasses && unit(rng) < 0.2;
    addNode(false, bare ? std::nullopt : std::optional<std::int64_t>(100 + classOf[i]));
  }
  std::vector<double> cost(1000, -1);  // -1: not drawn yet
  auto edgeCost = [&](int source) {
    if (cost[source] < 0)
      cost[source] = unit(rng) < 0.2 ? 0.0
                     : dyadic        ? std::round((0.25 + 3 * unit(rng)) * 8) / 8
                                     : std::round((0.25 + 3 * unit(rng)) * 1000) / 1000 + 0.01;
    return cost[source];
  };
  auto addEdge = [&](int a, int b) { g.edges.push_back({g.nodes[a].id, g.nodes[b].id, 0}); };
  for (auto [a, b] : forwardEdges(shape, forwardCount, rng)) addEdge(a, b);

  if (training) {
    // Backward twins in the forward node's class, mirrored edges, the loss edge
    // from the last forward node, and activations feeding the twins.
    std::vector<int> twin(forwardCount, -1);
    for (int i = 0; i < forwardCount; ++i)
      if (unit(rng) < 0.85)
        twin[i] = addNode(true, g.nodes[i].colorClass ? g.nodes[i].colorClass
                                                      : std::optional<std::int64_t>(100 + classOf[i]));
    // A node without colorClass cannot share its class with a twin: give it one.
    for (int i = 0; i < forwardCount; ++i)
      if (twin[i] >= 0 && !g.nodes[i].colorClass) g.nodes[i].colorClass = 100 + classOf[i];
    const auto forward = g.edges;
    for (const auto& e : forward) {
      const int a = static_cast<int>((e.sourceId - 7) / 3), b = static_cast<int>((e.destId - 7) / 3);
      if (twin[a] >= 0 && twin[b] >= 0) addEdge(twin[b], twin[a]);
    }
    // The loss: the last forward node feeds the last twin (backward order
    // runs from high forward index to low).
    int lastTwin = -1;
    for (int i = forwardCount - 1; i >= 0 && lastTwin < 0; --i) lastTwin = twin[i];
    if (lastTwin >= 0 && lastTwin != twin[forwardCount - 1]) addEdge(forwardCount - 1, lastTwin);
    for (int i = 0; i < forwardCount; ++i)
      if (twin[i] >= 0 && unit(rng) < 0.3) addEdge(i, twin[i]);
    // Orphan backward nodes (their own class, no forward node), tied to twins
    // along the backward order so the graph stays acyclic.
    std::vector<int> twinned;  // forward indices with a twin
    for (int i = 0; i < forwardCount; ++i)
      if (twin[i] >= 0) twinned.push_back(i);
    for (int o = 0; o < orphans && !twinned.empty(); ++o) {
      const int orphan = addNode(true, 500 + o);
      const int from = twinned[rng() % twinned.size()];
      addEdge(twin[from], orphan);
      if (unit(rng) < 0.6) {
        const int to = twinned[rng() % twinned.size()];
        if (to < from) addEdge(orphan, twin[to]);
      }
      if (unit(rng) < 0.3) addEdge(static_cast<int>(rng() % forwardCount), orphan);
    }
  }
  // Every class gets some work so that the zero-work-leaf rule never fires.
  std::set<std::int64_t> worked;
  for (auto& node : g.nodes) {
    const std::int64_t key = node.colorClass ? *node.colorClass : -node.id;
    if (node.cpuLatency + node.fpgaLatency > 0) worked.insert(key);
  }
  for (auto& node : g.nodes) {
    const std::int64_t key = node.colorClass ? *node.colorClass : -node.id;
    if (!worked.count(key)) {
      node.cpuLatency = 1;
      worked.insert(key);
    }
  }
  // One cost per source node.
  for (auto& e : g.edges) {
    const int a = static_cast<int>((e.sourceId - 7) / 3);
    e.cost = edgeCost(a);
  }

  // Machine: k in 0..3, ℓ in 0..2, memory from loose to infeasible.
  g.machine.maxFpgas = static_cast<int>(rng() % 4);
  g.machine.maxCpus = static_cast<int>(rng() % 3);
  if (g.machine.maxFpgas + g.machine.maxCpus == 0) g.machine.maxFpgas = 1;
  double total = 0, largest = 0;
  for (const auto& node : g.nodes) {
    total += node.size;
    largest = std::max(largest, node.size);
  }
  const double r = unit(rng);
  g.machine.maxSizePerFpga = r < 0.3   ? total
                             : r < 0.7 ? std::round(total * (0.2 + 0.5 * unit(rng)))
                                       : std::round(largest * unit(rng) * 1.5);
  return g;
}

// -------------------------------------------------------------- brute force

struct BruteForce {
  bool feasible = false;
  double optimum = kInf;
};

/// Assigns classes to devices in every way (devices of one type are
/// interchangeable: each class joins a device already used or the next new
/// one), keeps feasible contiguous placements and returns the best max-load.
/// With `replicate` (docs/model.md §9), every way of giving the used
/// accelerators' blocks r ≥ 1 replicas each, k in all, is tried too.
BruteForce bruteForce(const Workload& w, bool replicate = false) {
  const int classes = w.graph().numClasses;
  const int k = w.machine.maxFpgas, l = w.machine.maxCpus;
  std::vector<char> hasForward(classes, 0), supported(classes, 1);
  std::vector<double> size(classes, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const int c = w.graph().classOf[v];
    if (!w.graph().nodes[v].isBackward) hasForward[c] = 1;
    if (!w.graph().nodes[v].supportedOnFpga) supported[c] = 0;
    size[c] += w.graph().nodes[v].size;
  }
  std::vector<std::pair<int, int>> classEdges;
  for (const Edge& e : w.graph().edges) {
    const bool sb = w.graph().nodes[e.source].isBackward, db = w.graph().nodes[e.dest].isBackward;
    const int a = w.graph().classOf[e.source], b = w.graph().classOf[e.dest];
    if (!sb && !db) classEdges.push_back({a, b});
    if (sb && db && (!hasForward[a] || !hasForward[b])) classEdges.push_back({b, a});
  }

  BruteForce result;
  std::vector<int> device(classes, -1);  // 0..k-1 accelerators, k..k+l-1 CPU cores
  auto evaluateAssignment = [&]() {
    const int devices = k + l;
    std::vector<double> memory(devices, 0);
    for (int c = 0; c < classes; ++c) {
      if (device[c] < k) {
        if (!supported[c]) return;
        memory[device[c]] += size[c];
      }
    }
    for (int d = 0; d < k; ++d)
      if (memory[d] > w.machine.maxSizePerFpga) return;
    // Contiguity: the block graph over class edges must be acyclic.
    std::vector<std::vector<char>> arc(devices, std::vector<char>(devices, 0));
    for (auto [a, b] : classEdges)
      if (device[a] != device[b]) arc[device[a]][device[b]] = 1;
    std::vector<int> state(devices, 0);  // 0 new, 1 on stack, 2 done
    bool cyclic = false;
    std::function<void(int)> dfs = [&](int d) {
      state[d] = 1;
      for (int e = 0; e < devices && !cyclic; ++e)
        if (arc[d][e]) {
          if (state[e] == 1)
            cyclic = true;
          else if (state[e] == 0)
            dfs(e);
        }
      state[d] = 2;
    };
    for (int d = 0; d < devices && !cyclic; ++d)
      if (state[d] == 0) dfs(d);
    if (cyclic) return;
    // Loads from the original graph.
    std::vector<double> load(devices, 0);
    for (NodeIndex v = 0; v < w.numNodes(); ++v) {
      const int d = device[w.graph().classOf[v]];
      load[d] += d < k ? w.graph().nodes[v].fpgaLatency : w.graph().nodes[v].cpuLatency;
    }
    for (NodeIndex u = 0; u < w.numNodes(); ++u) {
      std::set<int> paying;  // accelerators that pay u's cost once
      const int du = device[w.graph().classOf[u]];
      for (NodeIndex x : w.successors(u)) {
        const int dx = device[w.graph().classOf[x]];
        if (dx == du) continue;
        if (du < k) paying.insert(du);
        if (dx < k) paying.insert(dx);
      }
      for (int d : paying) load[d] += w.graph().outCost[u];
    }
    double worst = 0;
    for (int d = k; d < devices; ++d) worst = std::max(worst, load[d]);
    std::vector<int> used;
    std::vector<double> weights(k, 0);
    for (int c = 0; c < classes; ++c)
      if (device[c] < k && std::find(used.begin(), used.end(), device[c]) == used.end())
        used.push_back(device[c]);
    for (NodeIndex v = 0; v < w.numNodes(); ++v)
      if (device[w.graph().classOf[v]] < k)
        weights[device[w.graph().classOf[v]]] += w.graph().nodes[v].parameterSize;
    // The used accelerators' loads with r replicas each; spare: accelerators left.
    std::function<double(std::size_t, int)> best = [&](std::size_t i, int spare) {
      if (i == used.size()) return 0.0;
      const int d = used[i];
      double value = kInf;
      for (int r = 1; r <= 1 + (replicate ? spare : 0); ++r) {
        const double sync = r == 1 ? 0
                                   : 4.0 * (r - 1) / r * weights[d] / w.machine.syncBandwidth /
                                         w.machine.samplesPerSync;
        value = std::min(value, std::max((load[d] + sync) / r, best(i + 1, spare - (r - 1))));
      }
      return value;
    };
    worst = std::max(worst, best(0, k - static_cast<int>(used.size())));
    result.feasible = true;
    result.optimum = std::min(result.optimum, worst);
  };
  std::function<void(int, int, int)> assign = [&](int c, int usedAcc, int usedCpu) {
    if (c == classes) {
      evaluateAssignment();
      return;
    }
    for (int d = 0; d < std::min(k, usedAcc + 1); ++d) {
      device[c] = d;
      assign(c + 1, std::max(usedAcc, d + 1), usedCpu);
    }
    for (int d = 0; d < std::min(l, usedCpu + 1); ++d) {
      device[c] = k + d;
      assign(c + 1, usedAcc, std::max(usedCpu, d + 1));
    }
  };
  assign(0, 0, 0);
  return result;
}

std::string describe(const RandomGraph& g, const Workload& w) {
  std::string text = g.shape + ", " + std::to_string(w.numNodes()) + " nodes, " +
                     std::to_string(w.graph().numClasses) +
                     " classes, k=" + std::to_string(w.machine.maxFpgas) +
                     " l=" + std::to_string(w.machine.maxCpus) +
                     " mem=" + std::to_string(w.machine.maxSizePerFpga) + "\n";
  text += workloadToJson(w);
  return text;
}

TEST(DpProperty, MatchesBruteForceOnRandomGraphs) {
  std::mt19937_64 rng(20260429);
  int checked = 0, feasible = 0, infeasible = 0, withBackward = 0, withOrphans = 0, withCpus = 0,
      withUnsupported = 0, linearSeeds = 0;
  while (checked < 4000) {
    RandomGraph g = randomGraph(rng);
    std::string error;
    auto built = buildWorkload("random", g.machine, g.nodes, g.edges, &error);
    ASSERT_TRUE(built.has_value()) << error;
    const Workload& w = *built;
    if (w.graph().numClasses > 7) continue;  // keep the brute force small
    ++checked;
    bool backward = false, orphan = false, unsupported = false;
    for (const auto& node : w.graph().nodes) {
      backward = backward || node.isBackward;
      orphan = orphan || (node.colorClass && *node.colorClass >= 500);
      unsupported = unsupported || !node.supportedOnFpga;
    }
    withBackward += backward;
    withOrphans += orphan;
    withUnsupported += unsupported;
    withCpus += w.machine.maxCpus > 0;

    const BruteForce expected = bruteForce(w);
    SolveOptions options;
    const SolveOutcome outcome = solve(w, "dp", options);
    // The path of lattices that outgrow the cache: sub-ideal records read a
    // few blocks late, with limits that lag behind.
    SolveOptions fetchAhead;
    fetchAhead.dpAlwaysFetchAhead = true;
    const SolveOutcome late = solve(w, "dp", fetchAhead);
    if (!expected.feasible) {
      ++infeasible;
      EXPECT_EQ(outcome.status, SolveStatus::Infeasible) << describe(g, w) << "\n" << outcome.message;
      EXPECT_FALSE(outcome.message.empty());
      EXPECT_EQ(late.status, SolveStatus::Infeasible) << describe(g, w) << "\n" << late.message;
      continue;
    }
    ++feasible;
    ASSERT_EQ(outcome.status, SolveStatus::Optimal) << describe(g, w) << "\n" << outcome.message;
    EXPECT_NEAR(outcome.objective, expected.optimum, 1e-9 * std::max(1.0, expected.optimum))
        << describe(g, w);
    EXPECT_DOUBLE_EQ(outcome.lowerBound, outcome.objective);
    EvaluateOptions contiguous;
    contiguous.requireContiguous = true;
    const Evaluation evaluation = evaluate(w, *outcome.placement, contiguous);
    EXPECT_TRUE(evaluation.feasible) << describe(g, w);
    EXPECT_TRUE(evaluation.contiguous) << describe(g, w);
    ASSERT_EQ(late.status, SolveStatus::Optimal) << describe(g, w) << "\n" << late.message;
    EXPECT_NEAR(late.objective, expected.optimum, 1e-9 * std::max(1.0, expected.optimum))
        << describe(g, w);
    EXPECT_DOUBLE_EQ(late.lowerBound, late.objective);
    const Evaluation lateEvaluation = evaluate(w, *late.placement, contiguous);
    EXPECT_TRUE(lateEvaluation.feasible && lateEvaluation.contiguous) << describe(g, w);

    // The restricted variants never beat the optimum and stay contiguous.
    for (const char* method : {"dp-linear", "pipedream"}) {
      const SolveOutcome restricted = solve(w, method, options);
      if (method == std::string("dp-linear")) {
        // The lattice-free seed computes the same optimum over that order.
        const double seed = detail::linearOrderBound(w);
        if (restricted.status == SolveStatus::Feasible) {
          ++linearSeeds;
          EXPECT_NEAR(seed, restricted.objective, 1e-8 * std::max(1.0, restricted.objective))
              << describe(g, w);
        } else {
          EXPECT_FALSE(std::isfinite(seed)) << seed << "\n" << describe(g, w);
        }
      }
      if (restricted.status == SolveStatus::Feasible) {
        EXPECT_GE(restricted.objective, outcome.objective * (1 - 1e-9)) << method << "\n"
                                                                        << describe(g, w);
        EXPECT_TRUE(evaluate(w, *restricted.placement, contiguous).contiguous) << method;
      } else {
        EXPECT_TRUE(restricted.status == SolveStatus::NoPlan ||
                    restricted.status == SolveStatus::Infeasible)
            << method << ": " << resultName(restricted) << " " << restricted.message;
      }
    }
    if (::testing::Test::HasFailure()) break;  // one reproducible failure is enough
  }
  std::printf(
      "checked %d: feasible %d, infeasible %d, training %d, orphans %d, cpus %d, unsupported %d, "
      "linear seeds %d\n",
      checked, feasible, infeasible, withBackward, withOrphans, withCpus, withUnsupported, linearSeeds);
  // The generator must actually cover the cases the DP handles.
  EXPECT_GE(feasible, 2000);
  EXPECT_GE(infeasible, 100);
  EXPECT_GE(withBackward, 1000);
  EXPECT_GE(withOrphans, 200);
  EXPECT_GE(withCpus, 1600);
  EXPECT_GE(withUnsupported, 1000);
  EXPECT_GE(linearSeeds, 1600);
}

// The same graphs with latencies, costs and sizes spread over 1e-12 .. 1e30,
// a few magnitudes mixed within each graph (zeros kept): the DP's sums are
// exact on their grids (dp/exact_sums.hpp), so no method ever fails to
// recover its plan, every plan passes the evaluator, and a plan called
// optimal is the brute force's optimum.
TEST(DpProperty, AnyMagnitudesGiveValidPlansAndTrueOptima) {
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> unit(0, 1);
  int checked = 0, optimal = 0, feasibleOnly = 0, infeasible = 0;
  while (checked < 6000) {
    RandomGraph g = randomGraph(rng);
    // Up to three magnitudes per graph; each amount takes one of them.
    std::vector<double> scales(1 + rng() % 3);
    for (double& scale : scales) scale = std::pow(10.0, -12 + static_cast<int>(rng() % 43));
    auto rescaled = [&](double x) { return std::min(1e30, x * scales[rng() % scales.size()]); };
    double total = 0, largest = 0;
    for (Node& node : g.nodes) {
      node.fpgaLatency = rescaled(node.fpgaLatency);
      node.cpuLatency = rescaled(node.cpuLatency);
      node.size = std::min(1e29, rescaled(node.size));  // so the capacities below stay under 1e30
      total += node.size;
      largest = std::max(largest, node.size);
    }
    std::map<std::int64_t, double> costOf;  // one cost per source node
    for (RawEdge& e : g.edges) {
      auto [it, fresh] = costOf.try_emplace(e.sourceId, 0.0);
      if (fresh) it->second = rescaled(e.cost);
      e.cost = it->second;
    }
    // Capacities off any block's exact total (sizes of mixed magnitudes
    // sum differently in different orders, and the DP, like the evaluator,
    // allows a tolerance that the brute force does not).
    const double r = unit(rng);
    g.machine.maxSizePerFpga = std::min(1e30, (r < 0.3   ? total
                                               : r < 0.7 ? total * (0.2 + 0.5 * unit(rng))
                                                         : largest * unit(rng) * 1.5) *
                                                  (1 + 1e-6));
    std::string error;
    auto built = buildWorkload("magnitudes", g.machine, g.nodes, g.edges, &error);
    ASSERT_TRUE(built.has_value()) << error;
    const Workload& w = *built;
    if (w.graph().numClasses > 7) continue;  // keep the brute force small
    ++checked;
    const BruteForce expected = bruteForce(w);
    EvaluateOptions contiguous;
    contiguous.requireContiguous = true;
    for (const char* method : {"dp", "dp-linear", "pipedream"}) {
      const SolveOutcome outcome = solve(w, method, SolveOptions{});
      ASSERT_TRUE(outcome.ok()) << method << ": " << outcome.message << "\n" << describe(g, w);
      if (!outcome.placement) {
        if (method == std::string("dp")) {
          EXPECT_FALSE(expected.feasible) << outcome.message << "\n" << describe(g, w);
          EXPECT_EQ(outcome.status, SolveStatus::Infeasible) << outcome.message;
        }
        continue;
      }
      ASSERT_TRUE(expected.feasible) << method << "\n" << describe(g, w);
      const Evaluation evaluation = evaluate(w, *outcome.placement, contiguous);
      EXPECT_TRUE(evaluation.feasible && evaluation.contiguous) << method << "\n" << describe(g, w);
      EXPECT_NEAR(evaluation.objective, outcome.objective, 1e-9 * outcome.objective) << method;
      EXPECT_GE(outcome.objective, expected.optimum * (1 - 1e-9)) << method << "\n" << describe(g, w);
      EXPECT_LE(outcome.lowerBound, expected.optimum * (1 + 1e-9)) << method << "\n" << describe(g, w);
      if (method != std::string("dp")) continue;
      if (outcome.status == SolveStatus::Optimal) {
        ++optimal;
        EXPECT_NEAR(outcome.objective, expected.optimum, 1e-9 * expected.optimum)
            << outcome.message << "\n"
            << describe(g, w);
      } else {
        ++feasibleOnly;
        EXPECT_EQ(outcome.status, SolveStatus::Feasible) << outcome.message;
      }
    }
    if (!expected.feasible) ++infeasible;
    if (::testing::Test::HasFailure()) break;  // one reproducible failure is enough
  }
  std::printf("checked %d: optimal %d, feasible only %d, infeasible %d\n", checked, optimal,
              feasibleOnly, infeasible);
  EXPECT_GE(optimal, 3000);
  EXPECT_GE(infeasible, 200);
}

TEST(DpProperty, DpLinearIsOptimalOnChains) {
  // On a chain every ideal is a prefix, so dp-linear must equal dp exactly.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    RandomGraph g;
    const int count = 2 + static_cast<int>(rng() % 8);
    for (int i = 0; i < count; ++i) {
      Node node;
      node.id = i;
      node.fpgaLatency = 1 + static_cast<double>(rng() % 10);
      node.cpuLatency = 1 + static_cast<double>(rng() % 40);
      node.size = static_cast<double>(rng() % 5);
      g.nodes.push_back(node);
      if (i) g.edges.push_back({i - 1, i, static_cast<double>(rng() % 3)});
    }
    g.machine = {8, 1 + static_cast<int>(rng() % 3), static_cast<int>(rng() % 2)};
    std::string error;
    auto w = buildWorkload("chain", g.machine, g.nodes, g.edges, &error);
    ASSERT_TRUE(w) << error;
    const auto exact = solve(*w, "dp", SolveOptions{});
    const auto linear = solve(*w, "dp-linear", SolveOptions{});
    if (exact.status != SolveStatus::Optimal) {
      EXPECT_NE(linear.status, SolveStatus::Feasible);
      continue;
    }
    ASSERT_EQ(linear.status, SolveStatus::Feasible) << linear.message;
    EXPECT_DOUBLE_EQ(linear.objective, exact.objective);
  }
}

/// The random graph as a workload, or none when it has more than 6 classes
/// (the brute force stays small); a graph that does not build is a failure.
std::optional<Workload> smallWorkload(const RandomGraph& g) {
  std::string error;
  std::optional<Workload> built = buildWorkload("random", g.machine, g.nodes, g.edges, &error);
  if (!built) ADD_FAILURE() << error;
  if (built && built->graph().numClasses > 6) built.reset();
  return built;
}

/// dp --replicate's outcome on one random workload against the brute force
/// with replicas: both infeasible, or Optimal with the brute force's
/// max-load, a lower bound equal to it and a contiguous plan the evaluator
/// accepts at that max-load. Whether there is a plan to look at further.
bool expectReplicatedOptimum(const RandomGraph& g, const Workload& w, const BruteForce& expected,
                             const SolveOutcome& outcome) {
  if (!expected.feasible) {
    EXPECT_EQ(outcome.status, SolveStatus::Infeasible) << describe(g, w) << "\n" << outcome.message;
    return false;
  }
  EXPECT_EQ(outcome.status, SolveStatus::Optimal) << describe(g, w) << "\n" << outcome.message;
  if (outcome.status != SolveStatus::Optimal || !outcome.placement) return false;
  const double tolerance = 1e-9 * std::max(1.0, expected.optimum);
  EXPECT_NEAR(outcome.objective, expected.optimum, tolerance) << describe(g, w);
  EXPECT_LE(outcome.lowerBound, outcome.objective);
  EXPECT_NEAR(outcome.lowerBound, outcome.objective, tolerance);
  EvaluateOptions contiguous;
  contiguous.requireContiguous = true;
  const Evaluation evaluation = evaluate(w, *outcome.placement, contiguous);
  EXPECT_TRUE(evaluation.feasible && evaluation.contiguous) << describe(g, w);
  EXPECT_NEAR(evaluation.objective, outcome.objective, tolerance) << describe(g, w);
  return true;
}

// docs/model.md §9: dp --replicate against the brute force over placements
// and replica counts; never above the pure optimum, and equal to it when the
// all-reduce makes replication useless; dp-linear and pipedream --replicate
// never below dp --replicate and never above their own pure plans.
TEST(DpProperty, ReplicatedMatchesBruteForceOnRandomGraphs) {
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> unit(0, 1);
  int checked = 0, feasible = 0, infeasible = 0, replicationWins = 0, useless = 0, withCpus = 0;
  SolveOptions replicate;
  replicate.replicate = true;
  EvaluateOptions contiguous;
  contiguous.requireContiguous = true;
  while (checked < 5000) {
    RandomGraph g = randomGraph(rng);
    g.machine.maxFpgas = 1 + static_cast<int>(rng() % 5);
    // Weights (every node has some when the all-reduce is to make replication
    // useless: a block without weights replicates for free); a bandwidth from
    // "replication pays" to "it never does".
    const bool uselessSync = unit(rng) < 0.2;
    for (auto& node : g.nodes)
      node.parameterSize =
          uselessSync || (!node.isBackward && unit(rng) < 0.7) ? 1 + std::round(unit(rng) * 16) : 0;
    g.machine.syncBandwidth = uselessSync ? 1e-9 : std::pow(10.0, -1 + 2.5 * unit(rng));
    g.machine.samplesPerSync = unit(rng) < 0.3 ? 4 : 1;
    const std::optional<Workload> built = smallWorkload(g);
    if (::testing::Test::HasFailure()) break;
    if (!built) continue;
    const Workload& w = *built;
    ++checked;
    withCpus += w.machine.maxCpus > 0;
    const BruteForce pure = bruteForce(w), expected = bruteForce(w, true);
    const SolveOutcome outcome = solve(w, "dp", replicate);
    const bool planned = expectReplicatedOptimum(g, w, expected, outcome);
    if (::testing::Test::HasFailure()) break;
    if (!planned) {
      ++infeasible;
      continue;
    }
    ++feasible;
    const double tolerance = 1e-9 * std::max(1.0, expected.optimum);
    EXPECT_LE(expected.optimum, pure.optimum + tolerance);
    if (uselessSync) {
      ++useless;
      EXPECT_NEAR(outcome.objective, pure.optimum, tolerance) << describe(g, w);
    }
    if (expected.optimum < pure.optimum - tolerance) ++replicationWins;
    for (const char* method : {"dp-linear", "pipedream"}) {
      const SolveOutcome alone = solve(w, method, SolveOptions{});
      const SolveOutcome restricted = solve(w, method, replicate);
      if (!hasPlan(restricted)) {
        EXPECT_FALSE(hasPlan(alone)) << method << ": " << restricted.message;
        continue;
      }
      EXPECT_GE(restricted.objective, outcome.objective - tolerance) << method << "\n"
                                                                     << describe(g, w);
      EXPECT_LE(restricted.objective, alone.objective + tolerance) << method << "\n" << describe(g, w);
      const Evaluation e = evaluate(w, *restricted.placement, contiguous);
      EXPECT_TRUE(e.feasible && e.contiguous) << method;
    }
    if (::testing::Test::HasFailure()) break;  // one reproducible failure is enough
  }
  std::printf("checked %d: feasible %d, infeasible %d, replication wins %d, useless sync %d, cpus %d\n",
              checked, feasible, infeasible, replicationWins, useless, withCpus);
  EXPECT_GE(feasible, 3000);
  EXPECT_GE(infeasible, 500);
  EXPECT_GE(replicationWins, 600);
  EXPECT_GE(useless, 600);
  EXPECT_GE(withCpus, 3000);
}

// dp --replicate's bounds (src/dp/replicated.cpp: the all-reduce per replica
// count, live states, values inherited from I ∖ v, the search below the known
// plan) against the brute force with many accelerators, so that blocks run
// on up to 10 replicas, weights often zero (replication for free: the
// largest replica counts win) and 1 or 2 threads; both endings are met: the
// known plan shown optimal (no chain below it) and a better chain found.
TEST(DpProperty, ReplicatedBoundsMatchBruteForceWithManyAccelerators) {
  std::mt19937_64 rng(20261204);
  std::uniform_real_distribution<double> unit(0, 1);
  int checked = 0, feasible = 0, knownPlanOptimal = 0, chainFound = 0, laterRounds = 0,
      manyReplicas = 0;
  while (checked < 10000) {
    RandomGraph g = randomGraph(rng);
    g.machine.maxFpgas = 4 + static_cast<int>(rng() % 7);  // 4..10
    const bool free = unit(rng) < 0.3;
    for (auto& node : g.nodes)
      node.parameterSize = !free && unit(rng) < 0.6 ? std::round(unit(rng) * 40) : 0;
    g.machine.syncBandwidth = std::pow(10.0, -0.5 + 2 * unit(rng));
    g.machine.samplesPerSync = unit(rng) < 0.3 ? 2 : 1;
    const std::optional<Workload> built = smallWorkload(g);
    if (::testing::Test::HasFailure()) break;
    if (!built) continue;
    const Workload& w = *built;
    ++checked;
    const BruteForce expected = bruteForce(w, true);
    SolveOptions replicate;
    replicate.replicate = true;
    replicate.threads = 1 + checked % 2;
    const SolveOutcome outcome = solve(w, "dp", replicate);
    const bool planned = expectReplicatedOptimum(g, w, expected, outcome);
    if (::testing::Test::HasFailure()) break;
    if (!planned) continue;
    ++feasible;
    // The DP's own chain, or a plan it did not improve on (the incumbent
    // it started from: dp-linear's or the pure pipeline's).
    if (outcome.message.find("as no chain is below it") != std::string::npos &&
        outcome.message.find("the best plan with replicas found") == std::string::npos)
      ++knownPlanOptimal;
    else
      ++chainFound;
    // A later round: the first found a plan within its 1% and stopped states
    // there (inexact values, src/dp/replicated.cpp).
    if (outcome.message.find(" rounds;") != std::string::npos) ++laterRounds;
    for (int d = 0; d < outcome.placement->numAccelerators; ++d)
      if (outcome.placement->replicasOf(d) >= 4) {
        ++manyReplicas;
        break;
      }
    if (::testing::Test::HasFailure()) break;  // one reproducible failure is enough
  }
  std::printf(
      "checked %d: feasible %d, known plan optimal %d, chain found %d (%d in a later round), 4+ "
      "replicas %d\n",
      checked, feasible, knownPlanOptimal, chainFound, laterRounds, manyReplicas);
  EXPECT_GE(feasible, 7000);
  EXPECT_GE(knownPlanOptimal, 1000);
  EXPECT_GE(chainFound, 250);
  EXPECT_GE(laterRounds, 100);
  EXPECT_GE(manyReplicas, 700);
}

}  // namespace
}  // namespace dnnplace
