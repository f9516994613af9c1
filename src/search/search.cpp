// Method "search": a biased random-key genetic algorithm over topological
// orders, each order priced by the chain DP along it, then local search.

#include "search/search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "baselines/common.hpp"
#include "baselines/local_search.hpp"
#include "bounds/throughput_bound.hpp"
#include "dp/chain.hpp"
#include "dp/dp.hpp"
#include "dp/exact_sums.hpp"
#include "dp/messages.hpp"
#include "dp/seeds.hpp"
#include "objective/class_totals.hpp"
#include "search/order_chain.hpp"
#include "search/random_keys.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

using dp::kInfinity;
using search::Clock;
using search::KeyDecoder;
using search::OrderChainDp;

/// The genetic algorithm's constants (BRKGA's usual ones).
constexpr int kPopulation = 40;
constexpr int kElite = 8;      ///< kept from one generation to the next
constexpr int kMutants = 16;   ///< new each generation; an eighth of them fresh random keys
constexpr double kBias = 0.7;  ///< chance a child's key comes from its elite parent
/// Generations without a better order after which the search ends, and
/// generations in a row without an order not seen before (small graphs
/// have few orders).
constexpr int kStallGenerations = 500;
constexpr int kNothingNewGenerations = 50;
/// The share of the time the local search gets after the genetic algorithm.
constexpr double kLocalSearchShare = 0.2;

struct Chromosome {
  std::vector<float> keys;  ///< normalized: (position + 1/2) / n in its order
  std::vector<std::int32_t> order;
  double fitness = kInfinity;  ///< the DP's max-load along `order` (infinite: none below the cut)
  std::pair<int, int> bottleneck{0, 0};  ///< positions of its most loaded block
};

/// One thread's DP and the result of its last order.
struct Worker {
  explicit Worker(const Workload& workload, const ContractedGraph& graph) : dp(workload, graph) {}
  OrderChainDp dp;
};

/// What one evaluation produced beyond the fitness: the chain, when it beat
/// the incumbent known when the batch started.
struct Evaluated {
  OrderChainDp::Result result = OrderChainDp::Result::Stopped;  ///< Stopped: not solved
  double value = kInfinity;
  std::pair<int, int> bottleneck{0, 0};
  std::vector<dp::Block> blocks;
};

/// The best chain so far.
struct Incumbent {
  double value = kInfinity;  ///< in the graph's numbers
  std::vector<dp::Block> blocks;
  std::string origin;
};

std::string refusedOptions(const SolveOptions& options) {
  if (options.objective != Objective::Throughput)
    return "search optimizes the throughput (max-load) objective only";
  if (options.diffMaxima) return "search does not support --diffmaxima; use milp";
  if (options.replicate) return "search does not support --replicate; use dp-linear";
  if (options.threads < 1) return "search needs --threads of at least 1";
  return "";
}

/// What ended a search the deadline or the interrupt stopped (None: it ended by itself).
StopReason stopOf(bool stopped, const SolveOptions& options) {
  if (!stopped) return StopReason::None;
  return options.interrupt && options.interrupt->load() ? StopReason::Interrupt : StopReason::TimeLimit;
}

class GeneticSearch {
 public:
  GeneticSearch(const Workload& workload, const ContractedGraph& graph, const SolveOptions& options,
                Clock::time_point deadline, double lowerBound)
      : options_(options),
        deadline_(deadline),
        lowerBound_(lowerBound),
        n_(graph.numSuperNodes),
        decoder_(graph),
        rng_(options.seed) {
    const int threads = std::max(1, std::min(options.threads, kPopulation));
    for (int t = 0; t < threads; ++t) workers_.emplace_back(workload, graph);
  }

  /// A known chain (the greedy packing): the incumbent before any order is solved.
  void offer(double value, std::vector<dp::Block> blocks, std::string origin) {
    if (blocks.empty() || !(value < incumbent_.value)) return;
    incumbent_.value = value;
    incumbent_.blocks = std::move(blocks);
    incumbent_.origin = std::move(origin);
  }

  /// Runs until the deadline, the interrupt, a plan at the lower bound or
  /// kStallGenerations without progress. `seeds`: orders with their names.
  void run(const std::vector<std::pair<std::vector<std::int32_t>, std::string>>& seeds) {
    std::vector<Chromosome> population;
    std::vector<std::string> names;
    for (const auto& [order, name] : seeds) {
      Chromosome c;
      search::keysOf(order, &c.keys);
      seedKeys_.push_back(c.keys);
      population.push_back(std::move(c));
      names.push_back(name);
    }
    // The rest of the first population: windows of the seeds shuffled, and
    // a few fresh random key vectors.
    const int seeded = static_cast<int>(population.size());
    if (seedKeys_.empty()) {
      seedKeys_.emplace_back();
      randomKeys(&seedKeys_.back());
    }
    while (static_cast<int>(population.size()) < kPopulation) {
      const int i = static_cast<int>(population.size());
      Chromosome c;
      if (seeded > 0 && i % 4 != 3) {
        c.keys = population[i % seeded].keys;
        shuffleWindow(&c.keys, uniformPosition());
      } else {
        randomKeys(&c.keys);
      }
      population.push_back(std::move(c));
      names.push_back("a perturbed seed");
    }
    const bool first = evaluate(&population, 0, names);
    for (int i = 0; i < seeded; ++i) seedValues_.push_back(population[i].fitness);
    if (!first) return;
    int stall = 0, nothingNew = 0;
    for (generation_ = 1;; ++generation_) {
      sortByFitness(&population);
      report();
      if (pastLimit(deadline_, options_.interrupt)) stopped_ = true;
      if (stopped_ || incumbent_.value <= lowerBound_ || stall >= kStallGenerations ||
          nothingNew >= kNothingNewGenerations)
        break;
      const double before = incumbent_.value;
      std::vector<Chromosome> next(population.begin(), population.begin() + kElite);
      std::vector<std::string> origins(kElite, "");
      for (int m = 0; m < kMutants; ++m) {
        Chromosome c;
        if (m % 8 == 7) {
          randomKeys(&c.keys);
        } else {
          const Chromosome& parent = population[rng_() % kElite];
          c.keys = parent.keys;
          // Half of the time about a boundary of the bottleneck block.
          int center = uniformPosition();
          if (rng_() % 2 == 0 && std::isfinite(parent.fitness))
            center = rng_() % 2 == 0 ? parent.bottleneck.first : parent.bottleneck.second;
          if (m % 2 == 0) {
            shuffleWindow(&c.keys, center);
          } else {
            // The window in the order of a seed or of another member.
            const std::vector<float>& donor = rng_() % 2 == 0 ? seedKeys_[rng_() % seedKeys_.size()]
                                                              : population[rng_() % kPopulation].keys;
            adoptWindow(&c.keys, donor, center);
          }
        }
        next.push_back(std::move(c));
        origins.push_back(m % 8 == 7   ? "random keys"
                          : m % 2 == 0 ? "a shuffled window"
                                       : "a window of another order");
      }
      while (static_cast<int>(next.size()) < kPopulation) {
        const Chromosome& elite = population[rng_() % kElite];
        const Chromosome& other = population[kElite + rng_() % (kPopulation - kElite)];
        Chromosome c;
        c.keys.resize(n_);
        std::uniform_real_distribution<double> coin(0, 1);
        for (int v = 0; v < n_; ++v) c.keys[v] = coin(rng_) < kBias ? elite.keys[v] : other.keys[v];
        next.push_back(std::move(c));
        origins.push_back("a crossover");
      }
      population = std::move(next);
      if (!evaluate(&population, kElite, origins)) break;
      stall = incumbent_.value < before ? 0 : stall + 1;
      nothingNew = lastSolved_ > 0 ? 0 : nothingNew + 1;
    }
  }

  const Incumbent& incumbent() const { return incumbent_; }
  /// The DP's max-load along each seed (infinite: none below the first cut, or not solved).
  const std::vector<double>& seedValues() const { return seedValues_; }
  double firstCut() const { return firstCut_; }
  std::uint64_t ordersSolved() const { return solved_; }
  std::uint64_t ordersSeen() const { return seen_; }
  int generations() const { return generation_; }
  bool stopped() const { return stopped_; }
  std::uint64_t steps() const {
    std::uint64_t total = 0;
    for (const Worker& w : workers_) total += w.dp.steps();
    return total;
  }

 private:
  int uniformPosition() {
    return static_cast<int>(rng_() % static_cast<std::uint64_t>(std::max(1, n_)));
  }

  void randomKeys(std::vector<float>* keys) {
    keys->resize(n_);
    std::uniform_real_distribution<float> unit(0, 1);
    for (float& key : *keys) key = unit(rng_);
  }

  /// Positions [lo, hi) of a window about `center`, its width a power of
  /// two drawn up to half the order.
  std::pair<int, int> window(int center) {
    const int widest = std::max(1, static_cast<int>(std::log2(std::max(2, n_ / 2))));
    const int width = 1 << (1 + rng_() % widest);
    const int lo = std::clamp(center - width / 2, 0, n_ - 1);
    return {lo, std::clamp(lo + width, lo + 1, n_)};
  }

  /// New random keys, within their range, for the super-nodes at the
  /// positions of a window about `center` (its width a power of two drawn
  /// up to half the order): the order is shuffled there, as far as its
  /// edges allow. `keys` are normalized, so position = ⌊key · n⌋.
  void shuffleWindow(std::vector<float>* keys, int center) {
    if (n_ < 2) return;
    const auto [lo, hi] = window(center);
    search::shuffleKeys(keys, lo, hi, rng_);
  }

  /// The super-nodes at the positions of a window about `center` (as
  /// shuffleWindow's) put in the order `donor`'s keys give them.
  void adoptWindow(std::vector<float>* keys, const std::vector<float>& donor, int center) {
    if (n_ < 2) return;
    const auto [lo, hi] = window(center);
    std::vector<std::pair<float, int>> inside;
    for (int v = 0; v < n_; ++v) {
      const int position = static_cast<int>((*keys)[v] * static_cast<float>(n_));
      if (position >= lo && position < hi) inside.push_back({donor[v], v});
    }
    std::sort(inside.begin(), inside.end());
    for (std::size_t r = 0; r < inside.size(); ++r)
      (*keys)[inside[r].second] =
          static_cast<float>((lo + static_cast<double>(r) + 0.5) / static_cast<double>(n_));
  }

  static void sortByFitness(std::vector<Chromosome>* population) {
    std::stable_sort(population->begin(), population->end(),
                     [](const Chromosome& a, const Chromosome& b) { return a.fitness < b.fitness; });
  }

  /// The cut of a generation: only orders that may join the elite are
  /// solved exactly; with too few finite ones yet, 5% above the incumbent.
  double cutFor(const std::vector<Chromosome>& population, int from) const {
    std::vector<double> known;
    for (int i = 0; i < from; ++i) known.push_back(population[i].fitness);
    std::sort(known.begin(), known.end());
    if (static_cast<int>(known.size()) >= kElite && std::isfinite(known[kElite - 1]))
      return dp::aboveRounding(known[kElite - 1]);
    // (The first population's cut is wider: the seeds' values are reported.)
    const double above = from == 0 ? 1.25 : 1.05;
    return std::isfinite(incumbent_.value) ? dp::aboveRounding(incumbent_.value * above) : kInfinity;
  }

  /// Decodes and solves population[from..]: orders already solved take
  /// their known fitness. False when the deadline or the interrupt stopped it.
  bool evaluate(std::vector<Chromosome>* population, int from, const std::vector<std::string>& names) {
    const double cut = cutFor(*population, from);
    if (from == 0) firstCut_ = cut;
    std::vector<int> pending;
    std::unordered_map<std::uint64_t, int> firstOf;  // this batch's orders
    std::vector<int> sameAs(population->size(), -1);
    for (int i = from; i < static_cast<int>(population->size()); ++i) {
      Chromosome& c = (*population)[i];
      decoder_.decode(c.keys, &c.order);
      search::keysOf(c.order, &c.keys);
      ++seen_;
      const std::uint64_t hash = search::hashOrder(c.order);
      if (auto known = solvedOrders_.find(hash); known != solvedOrders_.end()) {
        c.fitness = known->second.first;
        c.bottleneck = known->second.second;
        continue;
      }
      if (auto twin = firstOf.find(hash); twin != firstOf.end()) {
        sameAs[i] = twin->second;
        continue;
      }
      firstOf[hash] = i;
      pending.push_back(i);
    }
    // In lexicographic order, each thread a run of consecutive ones: a
    // worker's DP keeps the rows of the prefix an order shares with the one
    // before (mutants of one parent share all before their window).
    std::stable_sort(pending.begin(), pending.end(), [&](int a, int b) {
      const auto& x = (*population)[a].order;
      const auto& y = (*population)[b].order;
      return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
    });
    lastSolved_ = pending.size();
    std::vector<Evaluated> results(pending.size());
    const double beat = incumbent_.value;
    std::atomic<bool> halted{false};
    // A thread's exception (an allocation that failed) stops the others and
    // is thrown again here once all have been joined.
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto fail = [&] {
      const std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure) failure = std::current_exception();
      halted = true;
    };
    const int threads =
        std::min<int>(static_cast<int>(workers_.size()), static_cast<int>(pending.size()));
    auto work = [&](int thread) {
      Worker& worker = workers_[thread];
      const std::size_t begin = pending.size() * thread / threads,
                        end = pending.size() * (thread + 1) / threads;
      for (std::size_t slot = begin; !halted && slot < end; ++slot) {
        const Chromosome& c = (*population)[pending[slot]];
        Evaluated& r = results[slot];
        r.result = worker.dp.solve(c.order, cut, deadline_, options_.interrupt);
        if (r.result == OrderChainDp::Result::Stopped) {
          halted = true;
          return;
        }
        if (r.result == OrderChainDp::Result::Found) {
          r.value = worker.dp.value();
          r.bottleneck = worker.dp.bottleneck();
          if (r.value < beat) r.blocks = worker.dp.blocks();
        }
      }
    };
    auto guarded = [&](int thread) {
      try {
        work(thread);
      } catch (...) {
        fail();
      }
    };
    std::vector<std::thread> helpers;
    try {
      helpers.reserve(threads);
      for (int t = 1; t < threads; ++t) helpers.emplace_back(guarded, t);
    } catch (...) {
      fail();
    }
    if (threads > 0) guarded(0);
    for (std::thread& helper : helpers) helper.join();
    if (failure) std::rethrow_exception(failure);
    // Results in the population's order, whatever thread solved them.
    for (std::size_t slot = 0; slot < pending.size(); ++slot) {
      const Evaluated& r = results[slot];
      if (r.result == OrderChainDp::Result::Stopped) continue;
      Chromosome& c = (*population)[pending[slot]];
      c.fitness = r.value;
      c.bottleneck = r.bottleneck;
      ++solved_;
      if (solvedOrders_.size() > (1u << 20)) solvedOrders_.clear();
      solvedOrders_[search::hashOrder(c.order)] = {c.fitness, c.bottleneck};
      if (!r.blocks.empty()) offer(r.value, r.blocks, names[pending[slot]]);
    }
    for (int i = from; i < static_cast<int>(population->size()); ++i)
      if (sameAs[i] >= 0) {
        (*population)[i].fitness = (*population)[sameAs[i]].fitness;
        (*population)[i].bottleneck = (*population)[sameAs[i]].bottleneck;
      }
    if (halted) stopped_ = true;
    return !halted;
  }

  void report() {
    if (!options_.progress) return;
    const double now = secondsSince(start_);
    if (now - lastReport_ < 0.5) return;
    lastReport_ = now;
    std::string line = "search: generation " + std::to_string(generation_) + ", " +
                       std::to_string(solved_) + " orders solved, best max-load " +
                       formatTenDigits(incumbent_.value);
    if (lowerBound_ > 0 && std::isfinite(incumbent_.value)) {
      char gap[32];
      std::snprintf(gap, sizeof gap, "%.2f", 100 * (1 - lowerBound_ / incumbent_.value));
      line += std::string(", gap to the bound ") + gap + "%";
    }
    options_.progress(line);
  }

  const SolveOptions& options_;
  Clock::time_point deadline_;
  double lowerBound_;
  int n_;
  KeyDecoder decoder_;
  std::mt19937_64 rng_;
  std::vector<Worker> workers_;
  std::vector<std::vector<float>> seedKeys_;  ///< the seeds' keys: donors of windows
  std::vector<double> seedValues_;
  double firstCut_ = kInfinity;
  Incumbent incumbent_;
  std::unordered_map<std::uint64_t, std::pair<double, std::pair<int, int>>> solvedOrders_;
  std::uint64_t solved_ = 0, seen_ = 0;
  std::size_t lastSolved_ = 0;  ///< orders the last generation solved (not seen before)
  int generation_ = 0;
  bool stopped_ = false;
  Clock::time_point start_ = Clock::now();
  double lastReport_ = -1;
};

}  // namespace

SolveOutcome solveSearch(const Workload& workload, const SolveOptions& options) {
  if (const std::string why = refusedOptions(options); !why.empty())
    return failedCall(CallStatus::InvalidInput, why);
  if (workload.numNodes() == 0) return dp::emptyWorkloadOutcome(workload);
  const objective::ClassTotals totals(workload);
  if (auto refused = baseline::unplaceableOutcome(workload, totals)) return *refused;
  SolveOutcome outcome;
  PhaseTimes phases(&outcome.phases);
  const auto start = Clock::now();
  const auto deadline = deadlineOf(options);
  // The work bound now (the GA stops at it); the representatives LP below
  // the best chain, once there is one (bounds/throughput_bound.hpp).
  double lowerBound =
      std::max(objective::throughputLowerBound(workload, totals), bounds::workBound(workload, totals));

  ContractedGraph graph = contractWorkload(workload, ContractionOptions{});
  if (const std::string why = dp::obviousInfeasibility(workload, graph); !why.empty()) {
    outcome.status = SolveStatus::NoPlan;
    outcome.message = "no chain along any order: " + why;
    return outcome;
  }
  const int threads = std::max(1, std::min(options.threads, kPopulation));
  const double tables = static_cast<double>(OrderChainDp::tableBytes(workload, graph)) * threads;
  if (tables > 0.5 * baseline::memoryLeft(workload, options)) {
    outcome.status = SolveStatus::NoPlan;
    outcome.stop = StopReason::MemoryLimit;
    outcome.message = "search: the chain tables of " + std::to_string(threads) + " threads need " +
                      formatBytes(tables) + ", more than half of what the memory limit leaves";
    return outcome;
  }
  // The greedy packing of the first order: the incumbent a limit returns,
  // and the grid of the DP's exact sums (as dp-linear does).
  // (An eighth of the time, but never under 50 ms: a plan even when the
  // limit is tiny. Its table gets a byte per nanosecond of it: seeds.cpp.)
  const auto now = Clock::now();
  const auto greedyDeadline =
      deadline == Clock::time_point::max()
          ? deadline
          : now + std::max<Clock::duration>(std::chrono::milliseconds(50), (deadline - now) / 8);
  const dp::LinearSeed greedy =
      dp::greedyChain(workload, graph, greedyDeadline, options.interrupt, options.memoryLimitBytes);
  dp::snapToExactGrid(&graph, workload.machine.maxSizePerFpga, greedy.objective);
  phases.end("contract");

  // The GA's share of the time: all of it without the local search.
  const bool polish = options.contiguity == Contiguity::None;
  auto gaDeadline = deadline;
  if (polish && deadline != Clock::time_point::max())
    gaDeadline = start + std::chrono::duration_cast<Clock::duration>((deadline - start) *
                                                                     (1 - kLocalSearchShare));

  std::vector<std::pair<std::vector<std::int32_t>, std::string>> seeds;
  {
    std::vector<std::int32_t> identity(graph.numSuperNodes);
    for (int s = 0; s < graph.numSuperNodes; ++s) identity[s] = s;
    seeds.push_back({identity, "smallest-first (dp-linear's)"});
    seeds.push_back(
        {search::numberingOrder(graph, ContractionOptions::Order::DepthFirst), "depth-first"});
    seeds.push_back(
        {search::numberingOrder(graph, ContractionOptions::Order::BreadthFirst), "breadth-first"});
    SolveOptions inner = options;
    inner.progress = nullptr;
    inner.timeLimitSeconds =
        std::max(1e-3, std::chrono::duration<double>(gaDeadline - Clock::now()).count() / 8);
    const SolveOutcome pipedream = solvePipedream(workload, inner);
    if (pipedream.found() && pipedream.placement)
      seeds.push_back({search::orderOfPlan(graph, *pipedream.placement), "pipedream's blocks"});
  }
  phases.end("seed");

  GeneticSearch ga(workload, graph, options, gaDeadline, lowerBound);
  // (greedy's blocks are intervals of the first order: in the graph's numbers
  // its max-load is its chain's grid max-load, at most its true one.)
  if (!greedy.blocks.empty())
    ga.offer(dp::chainObjective(workload, graph, greedy.blocks), greedy.blocks,
             "the greedy packing of smallest-first");
  ga.run(seeds);
  phases.end("genetic");

  const Incumbent& best = ga.incumbent();
  if (best.blocks.empty()) {
    outcome.status = SolveStatus::NoPlan;
    outcome.stop = stopOf(ga.stopped(), options);
    outcome.message = "search: no chain of intervals along the " + std::to_string(ga.ordersSolved()) +
                      " orders solved fits the devices";
    return outcome;
  }
  std::string seedNote;
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const double value = i < ga.seedValues().size() ? ga.seedValues()[i] : kInfinity;
    seedNote += (i ? ", " : "") + seeds[i].second + " " +
                (std::isfinite(value) ? formatTenDigits(value)
                 : i < ga.seedValues().size() && !ga.stopped()
                     ? "above " + formatTenDigits(ga.firstCut())
                     : "not solved");
  }
  Placement placement = dp::placementOf(workload, graph, best.blocks);
  double objective = dp::chainObjective(workload, graph, best.blocks);
  std::string note = std::to_string(ga.ordersSolved()) + " orders solved (" +
                     std::to_string(ga.ordersSeen()) + " decoded) in " +
                     std::to_string(ga.generations()) + " generations; best chain: " + best.origin +
                     ", " + std::to_string(graph.numSuperNodes) + " super-nodes, max-load " +
                     formatTenDigits(objective) + "; the DP along the seeds: " + seedNote;
  bool boundCut = false;  // a limit stopped the bound's search
  if (objective > lowerBound && !sameObjective(objective, lowerBound) &&
      !pastLimit(deadline, options.interrupt)) {
    // The representatives LP gets half of the time the GA left (it skips
    // itself on graphs past 1,500 classes or the memory it may use).
    const auto boundDeadline = deadline == Clock::time_point::max()
                                   ? Clock::now() + std::chrono::seconds(60)
                                   : Clock::now() + (deadline - Clock::now()) / 2;
    const bounds::ThroughputBound proven =
        bounds::throughputBound(workload, totals, objective, boundDeadline, options.interrupt,
                                /*withMilp=*/false, baseline::memoryLeft(workload, options));
    lowerBound = std::max(lowerBound, proven.value());
    boundCut = proven.stopped;
    note += "; " + proven.describe();
    phases.end("bound");
  }
  if (polish && !sameObjective(objective, lowerBound) && !pastLimit(deadline, options.interrupt)) {
    // From the best chain first; then, with the time left, the local-search
    // method's own random restarts (on graphs where the best plans are far
    // from any chain they find what a chain's neighbourhood does not).
    auto inner = [&] {
      SolveOptions o = optionsUntil(options, deadline);
      o.progress = nullptr;
      return o;
    };
    auto keep = [&](const SolveOutcome& polished, const char* what) {
      if (!polished.found() || !polished.placement || !(polished.objective < objective) ||
          sameObjective(polished.objective, objective))
        return;
      note += std::string("; ") + what + ": " + formatTenDigits(polished.objective) + " (" +
              polished.message + ")";
      placement = *polished.placement;
      objective = polished.objective;
    };
    const std::string before = note;
    if (options.progress)
      options.progress("search: local search from the best chain (max-load " +
                       formatTenDigits(objective) + ")");
    keep(localSearchFrom(workload, placement, inner()), "local search from it");
    if (!pastLimit(deadline, options.interrupt))
      keep(solveLocalSearch(workload, inner()), "local-search restarts");
    if (note == before) note += "; local search found nothing better";
    phases.end("local-search");
  }
  outcome.placement = std::move(placement);
  outcome.objective = objective;
  outcome.lowerBound = lowerBound;
  outcome.status = sameObjective(objective, lowerBound) ? SolveStatus::Optimal : SolveStatus::Feasible;
  // A limit that cut the genetic algorithm, the bound or the local search
  // short (the last runs its restarts until the deadline).
  outcome.stop = stopOf(ga.stopped() || boundCut || pastLimit(deadline, options.interrupt), options);
  outcome.message = note;
  return outcome;
}

}  // namespace dnnplace
