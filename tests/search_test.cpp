// Method "search" (src/search/): the DP along one order against a brute
// force over chains of intervals of random orders, the search against the
// exact contiguous DP and dp-linear on random small graphs, determinism,
// the time limit and the refusals.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "dp/chain.hpp"
#include "dp/device_states.hpp"
#include "dp/exact_sums.hpp"
#include "search/order_chain.hpp"
#include "search/random_keys.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A random small workload: a forward DAG of 2..8 nodes (some sharing a
/// class), backward twins a third of the time, dyadic latencies and costs
/// (exact sums), sizes under a memory that sometimes binds, a few nodes
/// CPU-only, 1..3 accelerators and 0..2 CPU cores.
Workload randomWorkload(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  const int count = 2 + static_cast<int>(rng() % 7);
  const bool training = unit(rng) < 0.33;
  auto dyadic = [&](double low, double high) {
    return std::round((low + (high - low) * unit(rng)) * 8) / 8;
  };
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;
  std::vector<double> cost(2 * count);
  for (int i = 0; i < count; ++i) {
    Node node;
    node.id = i;
    node.colorClass = unit(rng) < 0.15 && i > 0 ? static_cast<int>(rng() % i) : i;
    node.fpgaLatency = dyadic(0, 8);
    node.cpuLatency = dyadic(0, 30);
    node.size = std::round(unit(rng) * 10);
    node.supportedOnFpga = unit(rng) > 0.1;
    nodes.push_back(node);
    cost[i] = unit(rng) < 0.2 ? 0 : dyadic(0.25, 3);
  }
  for (int i = 0; i < count; ++i)
    for (int j = i + 1; j < count; ++j)
      if (j == i + 1 ? unit(rng) < 0.7 : unit(rng) < 0.25) edges.push_back({i, j, cost[i]});
  if (training) {
    for (int i = 0; i < count; ++i) {
      Node twin = nodes[i];
      twin.id = count + i;
      twin.isBackward = true;
      twin.fpgaLatency = dyadic(0, 8);
      twin.cpuLatency = dyadic(0, 30);
      twin.size = 0;
      nodes.push_back(twin);
      cost[count + i] = dyadic(0.25, 3);
    }
    const std::size_t forward = edges.size();
    for (std::size_t e = 0; e < forward; ++e) {
      const auto source = static_cast<int>(edges[e].destId), dest = static_cast<int>(edges[e].sourceId);
      edges.push_back({count + source, count + dest, cost[count + source]});
    }
  }
  Machine machine;
  machine.maxFpgas = 1 + static_cast<int>(rng() % 3);
  machine.maxCpus = static_cast<int>(rng() % 3);
  machine.maxSizePerFpga = unit(rng) < 0.5 ? 1e9 : 10 + std::round(unit(rng) * 20);
  std::string error;
  auto built = buildWorkload("random", machine, nodes, edges, &error);
  if (!built) throw std::runtime_error(error);
  return *built;
}

/// The best chain of intervals of `order` by brute force: every set of cuts,
/// every device type per interval, held to the machine's counts, to the
/// memory the DP uses and to CPU-only super-nodes; priced from scratch on
/// the original graph (dp::chainObjective). Infinite when none.
double bruteForceChain(const Workload& workload, const ContractedGraph& graph,
                       const std::vector<std::int32_t>& order) {
  const int n = graph.numSuperNodes;
  const double memory = dp::acceleratorMemory(graph, workload.machine);
  double best = kInf;
  for (unsigned cuts = 0; cuts < (1u << (n - 1)); ++cuts) {
    std::vector<std::vector<std::int32_t>> intervals(1);
    for (int p = 0; p < n; ++p) {
      intervals.back().push_back(order[p]);
      if (p + 1 < n && (cuts >> p & 1u)) intervals.emplace_back();
    }
    const int m = static_cast<int>(intervals.size());
    for (unsigned types = 0; types < (1u << m); ++types) {
      std::vector<dp::Block> blocks;
      int accelerators = 0, cpus = 0;
      bool fits = true;
      for (int b = 0; b < m && fits; ++b) {
        dp::Block block;
        block.accelerator = (types >> b & 1u) != 0;
        block.superNodes = intervals[b];
        if (block.accelerator) {
          ++accelerators;
          double size = 0;
          for (std::int32_t s : block.superNodes) {
            size += graph.size[s];
            fits = fits && graph.supportedOnFpga[s];
          }
          fits = fits && size <= memory;
        } else {
          ++cpus;
        }
        blocks.push_back(block);
      }
      if (!fits || accelerators > workload.machine.maxFpgas || cpus > workload.machine.maxCpus)
        continue;
      best = std::min(best, dp::chainObjective(workload, graph, blocks));
    }
  }
  return best;
}

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

TEST(OrderChainDp, MatchesBruteForceAlongRandomOrders) {
  std::mt19937_64 rng(26);
  int found = 0, none = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Workload workload = randomWorkload(rng);
    ContractedGraph graph = dp::contractForDp(workload, ContractionOptions{}, kInf);
    if (graph.numSuperNodes == 0) continue;
    search::KeyDecoder decoder(graph);
    search::OrderChainDp chain(workload, graph);
    for (int o = 0; o < 3; ++o) {
      std::vector<float> keys(graph.numSuperNodes);
      std::uniform_real_distribution<float> unit(0, 1);
      for (float& key : keys) key = unit(rng);
      std::vector<std::int32_t> order;
      decoder.decode(keys, &order);
      ASSERT_EQ(static_cast<int>(order.size()), graph.numSuperNodes);
      // Topological: every edge forward in the order.
      std::vector<int> position(graph.numSuperNodes);
      for (int p = 0; p < graph.numSuperNodes; ++p) position[order[p]] = p;
      for (int s = 0; s < graph.numSuperNodes; ++s)
        for (int i = graph.succStart[s]; i < graph.succStart[s + 1]; ++i)
          ASSERT_LT(position[s], position[graph.succ[i]]);
      const double expected = bruteForceChain(workload, graph, order);
      const auto result = chain.solve(order, kInf, search::Clock::time_point::max(), nullptr);
      SCOPED_TRACE("trial " + std::to_string(trial) + ", order " + std::to_string(o));
      if (!std::isfinite(expected)) {
        EXPECT_EQ(result, search::OrderChainDp::Result::NoChain);
        ++none;
        continue;
      }
      ASSERT_EQ(result, search::OrderChainDp::Result::Found);
      ++found;
      const auto blocks = chain.blocks();
      EXPECT_TRUE(close(dp::chainObjective(workload, graph, blocks), expected));
      EXPECT_TRUE(close(chain.value(), expected));
      // The chain is an interval partition of the order: each super-node once.
      std::vector<int> seen(graph.numSuperNodes, 0);
      for (const auto& block : blocks)
        for (std::int32_t s : block.superNodes) ++seen[s];
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int x) { return x == 1; }));
      // Below the optimum there is nothing; its bottleneck block has its max-load.
      EXPECT_EQ(chain.solve(order, expected * 0.999, search::Clock::time_point::max(), nullptr),
                search::OrderChainDp::Result::NoChain);
    }
  }
  EXPECT_GT(found, 500);
  EXPECT_GT(none, 0);
}

TEST(OrderChainDp, KeepsTheRowsOfASharedPrefixExactly) {
  // Orders with a window shuffled (as the search's mutants) solved one after
  // another by one instance, each against a fresh instance.
  GeneratorOptions generator;
  generator.shape = GraphShape::Transformer;
  generator.blocks = 4;
  generator.width = 4;
  generator.accelerators = 5;
  generator.cpus = 2;
  const Workload workload = generateWorkload(generator);
  const ContractedGraph graph = dp::contractForDp(workload, ContractionOptions{}, kInf);
  const int n = graph.numSuperNodes;
  std::vector<std::int32_t> order(n);
  for (int s = 0; s < n; ++s) order[s] = s;
  search::OrderChainDp reused(workload, graph);
  ASSERT_EQ(reused.solve(order, kInf, search::Clock::time_point::max(), nullptr),
            search::OrderChainDp::Result::Found);
  const double cut = dp::aboveRounding(reused.value() * 1.02);
  search::KeyDecoder decoder(graph);
  std::mt19937_64 rng(3);
  int found = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> keys;
    search::keysOf(order, &keys);
    const int lo = static_cast<int>(rng() % n);
    search::shuffleKeys(&keys, lo, std::min(n, lo + (2 << (rng() % 6))), rng);
    std::vector<std::int32_t> next;
    decoder.decode(keys, &next);
    search::OrderChainDp fresh(workload, graph);
    const auto a = reused.solve(next, cut, search::Clock::time_point::max(), nullptr);
    const auto b = fresh.solve(next, cut, search::Clock::time_point::max(), nullptr);
    ASSERT_EQ(a, b) << "trial " << trial;
    if (a != search::OrderChainDp::Result::Found) continue;
    ++found;
    EXPECT_EQ(reused.value(), fresh.value()) << "trial " << trial;
    const auto x = reused.blocks(), y = fresh.blocks();
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].superNodes, y[i].superNodes);
      EXPECT_EQ(x[i].accelerator, y[i].accelerator);
    }
    EXPECT_EQ(reused.bottleneck(), fresh.bottleneck());
    // Every other order follows this one, sharing its prefix.
    if (trial % 2 == 0) order = next;
  }
  EXPECT_GT(found, 50);
}

TEST(RandomKeys, KeysOfAnOrderDecodeToIt) {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 100; ++trial) {
    const Workload workload = randomWorkload(rng);
    const ContractedGraph graph = contractWorkload(workload, ContractionOptions{});
    search::KeyDecoder decoder(graph);
    for (auto numbering :
         {ContractionOptions::Order::SmallestFirst, ContractionOptions::Order::DepthFirst,
          ContractionOptions::Order::BreadthFirst}) {
      const std::vector<std::int32_t> order = search::numberingOrder(graph, numbering);
      std::vector<float> keys;
      search::keysOf(order, &keys);
      std::vector<std::int32_t> decoded;
      decoder.decode(keys, &decoded);
      EXPECT_EQ(decoded, order);
    }
  }
}

SolveOptions searchOptions(double seconds, int threads = 1) {
  SolveOptions options;
  options.timeLimitSeconds = seconds;
  options.threads = threads;
  options.seed = 7;
  return options;
}

TEST(Search, ContiguousPlansBetweenTheDpOptimumAndDpLinear) {
  std::mt19937_64 rng(2026);
  int compared = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const Workload workload = randomWorkload(rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    SolveOptions options = searchOptions(30);
    options.contiguity = Contiguity::Convex;  // chains only: no local search
    const SolveOutcome dp = solve(workload, "dp", options);
    const SolveOutcome linear = solve(workload, "dp-linear", options);
    const SolveOutcome found = solve(workload, "search", options);
    ASSERT_TRUE(found.ok()) << found.message;
    ASSERT_TRUE(dp.ok()) << dp.message;
    if (dp.status == SolveStatus::Infeasible || !dp.found()) {
      // No contiguous plan: no chain along any order either.
      EXPECT_FALSE(found.found());
      continue;
    }
    ASSERT_TRUE(found.found()) << found.message;
    ++compared;
    // Contiguous, so never below the exact contiguous optimum.
    EvaluateOptions contiguous;
    contiguous.requireContiguous = true;
    const Evaluation check = evaluate(workload, *found.placement, contiguous);
    EXPECT_TRUE(check.feasible) << (check.violations.empty() ? "" : check.violations.front());
    EXPECT_TRUE(close(check.objective, found.objective));
    EXPECT_GE(found.objective, dp.objective * (1 - 1e-9));
    if (linear.found()) {
      EXPECT_LE(found.objective, linear.objective * (1 + 1e-9));
    }
    // The bound holds for every placement, so it is at most the DP's optimum
    // too, and at least the trivial one.
    EXPECT_LE(found.lowerBound, dp.objective * (1 + 1e-9));
    EXPECT_GE(found.lowerBound, trivialThroughputLowerBound(workload) * (1 - 1e-9));
    // With the local search: never worse than the chain it starts from.
    const SolveOutcome polished = solve(workload, "search", searchOptions(30));
    ASSERT_TRUE(polished.found()) << polished.message;
    EXPECT_LE(polished.objective, found.objective * (1 + 1e-9));
    EXPECT_TRUE(close(evaluate(workload, *polished.placement, EvaluateOptions{}).objective,
                      polished.objective));
  }
  EXPECT_GT(compared, 80);
}

Workload transformer(int blocks, int width, bool training) {
  GeneratorOptions generator;
  generator.shape = GraphShape::Transformer;
  generator.blocks = blocks;
  generator.width = width;
  generator.training = training;
  generator.accelerators = 4;
  return generateWorkload(generator);
}

TEST(Search, NoWorseThanDpLinearOnATrainingTransformer) {
  const Workload workload = transformer(3, 4, true);
  const SolveOutcome linear = solve(workload, "dp-linear", searchOptions(30));
  SolveOptions options = searchOptions(30);
  options.contiguity = Contiguity::Convex;
  const SolveOutcome found = solve(workload, "search", options);
  ASSERT_TRUE(linear.found()) << linear.message;
  ASSERT_TRUE(found.found()) << found.message;
  EXPECT_LE(found.objective, linear.objective * (1 + 1e-9));
}

TEST(Search, DeterministicForASeed) {
  const Workload workload = transformer(2, 4, false);
  const SolveOutcome first = solve(workload, "search", searchOptions(60));
  const SolveOutcome second = solve(workload, "search", searchOptions(60));
  ASSERT_TRUE(first.found()) << first.message;
  ASSERT_TRUE(second.found()) << second.message;
  // Ended by itself (stalled), not by the time limit.
  ASSERT_EQ(first.stop, StopReason::None) << first.message;
  EXPECT_EQ(first.placement->deviceOf, second.placement->deviceOf);
  EXPECT_EQ(first.objective, second.objective);
  EXPECT_EQ(first.message, second.message);
  // Two threads evaluate the same generations with the same cuts.
  const SolveOutcome threaded = solve(workload, "search", searchOptions(60, 2));
  ASSERT_TRUE(threaded.found()) << threaded.message;
  EXPECT_EQ(threaded.placement->deviceOf, first.placement->deviceOf);
}

TEST(Search, ATinyTimeLimitStillGivesAPlan) {
  const Workload workload = transformer(8, 8, false);
  for (double seconds : {1e-6, 1e-3}) {
    const SolveOutcome found = solve(workload, "search", searchOptions(seconds, 2));
    ASSERT_TRUE(found.found()) << found.message;
    EXPECT_EQ(found.stop, StopReason::TimeLimit);
    EXPECT_TRUE(evaluate(workload, *found.placement, EvaluateOptions{}).feasible);
  }
}

TEST(Search, RefusesWhatItCannotDoInOneLine) {
  const Workload workload = transformer(1, 2, true);
  auto refusal = [&](SolveOptions options) {
    const SolveOutcome outcome = solve(workload, "search", options);
    EXPECT_EQ(outcome.call, CallStatus::InvalidInput);
    EXPECT_EQ(outcome.message.find('\n'), std::string::npos);
    return outcome.message;
  };
  SolveOptions latency = searchOptions(1);
  latency.objective = Objective::Latency;
  EXPECT_EQ(refusal(latency), "method 'search' does not support the latency objective");
  SolveOptions diff = searchOptions(1);
  diff.diffMaxima = true;
  EXPECT_EQ(refusal(diff), "search does not support --diffmaxima; use milp");
  SolveOptions replicate = searchOptions(1);
  replicate.replicate = true;
  EXPECT_EQ(refusal(replicate), "search does not support --replicate; use dp-linear");
  SolveOptions threads = searchOptions(1, 0);
  EXPECT_EQ(refusal(threads), "search needs --threads of at least 1");
}

TEST(Search, CliRefusesOptionsItIgnores) {
  const auto path = testing::writeTemp(R"({"maxSizePerFPGA": 10, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [{"id": 1, "supportedOnFpga": true, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": false},
              {"id": 2, "supportedOnFpga": true, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": false}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]})");
  const auto gap = testing::runCli("solve " + path.string() + " --method search --gap 0.1");
  EXPECT_EQ(gap.exitCode, 2);
  EXPECT_NE(gap.err.find("--gap applies to --method milp only"), std::string::npos) << gap.err;
  const auto latency =
      testing::runCli("solve " + path.string() + " --method search --objective latency");
  EXPECT_EQ(latency.exitCode, 2);
  EXPECT_NE(latency.err.find("does not support the latency objective"), std::string::npos)
      << latency.err;
  const auto ok = testing::runCli("solve " + path.string() +
                                  " --method search --time-limit 5 --contiguity convex --quiet");
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"maxLoad\""), std::string::npos);
}

}  // namespace
}  // namespace dnnplace
