// The search's per-order DP (src/search/order_chain.hpp) on the scale probe:
// a generated operator-level transformer of 48 blocks and 32 heads (11,431
// nodes, 16 accelerators and a CPU core), along its smallest-first order and
// along orders with a window shuffled (the search's mutants), cut 5% above
// the first order's optimum (an order that may join the elite) and at it
// (one that may not). Orders per second are what bound the search.
//
// Usage: order_chain_bench [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "dnnplace/generator.hpp"
#include "dp/device_states.hpp"
#include "dp/exact_sums.hpp"
#include "search/order_chain.hpp"
#include "search/random_keys.hpp"

namespace {

using namespace dnnplace;

struct Probe {
  Workload workload;
  ContractedGraph graph;
  std::vector<std::vector<std::int32_t>> orders;
  double optimum = 0;
};

const Probe& probe() {
  static const Probe instance = [] {
    GeneratorOptions options;
    options.shape = GraphShape::Transformer;
    options.blocks = 48;
    options.width = 32;
    options.accelerators = 16;
    Probe p{generateWorkload(options), {}, {}, 0};
    p.graph = dp::contractForDp(p.workload, ContractionOptions{}, dp::kInfinity);
    std::vector<std::int32_t> identity(p.graph.numSuperNodes);
    for (int s = 0; s < p.graph.numSuperNodes; ++s) identity[s] = s;
    search::OrderChainDp chain(p.workload, p.graph);
    chain.solve(identity, 1e9, search::Clock::time_point::max(), nullptr);
    p.optimum = chain.value();
    // Orders with a window of up to 512 positions shuffled, as the mutants.
    std::mt19937_64 rng(1);
    search::KeyDecoder decoder(p.graph);
    std::vector<float> keys;
    for (int i = 0; i < 16; ++i) {
      search::keysOf(identity, &keys);
      const int n = p.graph.numSuperNodes, lo = static_cast<int>(rng() % n);
      search::shuffleKeys(&keys, lo, std::min(n, lo + (2 << (rng() % 9))), rng);
      std::vector<std::int32_t> order;
      decoder.decode(keys, &order);
      p.orders.push_back(order);
    }
    return p;
  }();
  return instance;
}

void solveOrders(benchmark::State& state, double above) {
  const Probe& p = probe();
  search::OrderChainDp chain(p.workload, p.graph);
  const double cut = dp::aboveRounding(p.optimum * above);
  std::size_t next = 0, found = 0;
  for (auto _ : state) {
    const auto result =
        chain.solve(p.orders[next++ % p.orders.size()], cut, search::Clock::time_point::max(), nullptr);
    found += result == search::OrderChainDp::Result::Found;
  }
  state.counters["orders_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["found"] = static_cast<double>(found) / static_cast<double>(state.iterations());
  state.counters["steps"] = static_cast<double>(chain.steps()) /
                            static_cast<double>(state.iterations());
  state.counters["super_nodes"] = p.graph.numSuperNodes;
}

BENCHMARK_CAPTURE(solveOrders, cut_5_percent_above, 1.05)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solveOrders, cut_at_optimum, 1.0)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
