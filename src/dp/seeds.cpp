#include "dp/seeds.hpp"
#include "dp/exact_sums.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace dnnplace::dp {

namespace {

/// The sums of an interval of a contracted graph's numbering, grown one
/// super-node at a time: compute, memory, communication (the hyperedges it
/// holds some but not all of) and the part of that it can no longer shed by
/// growing (hyperedges with an element before its start).
class IntervalSums {
 public:
  explicit IntervalSums(const ContractedGraph& graph)
      : graph_(graph), inside_(graph.hyperWeight.size(), 0), firstMember_(graph.hyperWeight.size()) {
    for (std::size_t h = 0; h < firstMember_.size(); ++h)
      firstMember_[h] = *std::min_element(graph.hyperNodes.begin() + graph.hyperStart[h],
                                          graph.hyperNodes.begin() + graph.hyperStart[h + 1]);
  }

  void restart(int start) {
    for (std::int32_t h : touched_) inside_[h] = 0;
    touched_.clear();
    start_ = start;
    compute = size = communication = committed = 0;
  }
  void add(int v) {
    compute += graph_.fpgaLatency[v];
    size += graph_.size[v];
    for (std::int32_t i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const std::int32_t h = graph_.incidence[i];
      if (inside_[h]++ == 0) {
        touched_.push_back(h);
        communication += graph_.hyperWeight[h];
        if (firstMember_[h] < start_) committed += graph_.hyperWeight[h];
      }
      if (inside_[h] == graph_.hyperStart[h + 1] - graph_.hyperStart[h])
        communication -= graph_.hyperWeight[h];
    }
  }
  double load() const { return compute + communication; }

  double compute = 0, size = 0, communication = 0, committed = 0;

 private:
  const ContractedGraph& graph_;
  std::vector<std::int32_t> inside_, firstMember_, touched_;
  int start_ = 0;
};

/// A chain found along `linear`'s order, with its exact max-load.
LinearSeed priced(const Workload& workload, const ContractedGraph& linear, std::vector<Block> blocks) {
  LinearSeed seed;
  seed.objective = chainObjective(workload, linear, blocks);
  seed.blocks = std::move(blocks);
  return seed;
}

/// The device counts a seed's table may hold: the ones given, the larger
/// count shrunk first while
/// `rows` × the state count × `bytesPerState` exceeds `budget` (fewer
/// devices still give a plan). None (0, 0) when not even one device fits.
struct SeedDevices {
  int accelerators = 0, cpus = 0;
  std::uint64_t states() const {
    return static_cast<std::uint64_t>(accelerators + 1) * static_cast<std::uint64_t>(cpus + 1);
  }
};
SeedDevices seedDevices(int accelerators, int cpus, std::uint64_t rows, std::uint64_t bytesPerState,
                        std::uint64_t budget) {
  SeedDevices devices{accelerators, cpus};
  const std::uint64_t perState = std::max<std::uint64_t>(1, rows * bytesPerState);
  const std::uint64_t maxStates =
      std::min<std::uint64_t>(budget / perState, std::numeric_limits<std::int32_t>::max());
  if (devices.states() <= maxStates) return devices;
  // The larger count first: the most devices m of either kind that fit.
  auto statesWith = [&](int m) {
    return static_cast<std::uint64_t>(std::min(devices.accelerators, m) + 1) *
           static_cast<std::uint64_t>(std::min(devices.cpus, m) + 1);
  };
  int fitting = 0, above = std::max(devices.accelerators, devices.cpus);
  if (statesWith(0) > maxStates) return {};
  while (above - fitting > 1) {
    const int middle = fitting + (above - fitting) / 2;
    (statesWith(middle) <= maxStates ? fitting : above) = middle;
  }
  return {std::min(devices.accelerators, fitting), std::min(devices.cpus, fitting)};
}

/// A seed table's bytes: half the memory limit (the graph, the lattice
/// enumerated so far and the best plans live beside it), at most a
/// gigabyte, and with a deadline at most what can be written in an eighth
/// of the time left at a gigabyte a second (filling a table is not
/// interruptible, and a larger one only gives the seed more devices than
/// its chain can use well).
std::uint64_t seedBudget(std::uint64_t memoryLimitBytes, Clock::time_point deadline) {
  constexpr std::uint64_t kMostBytes = std::uint64_t{1} << 30;
  std::uint64_t budget = memoryLimitBytes ? std::min(memoryLimitBytes / 2, kMostBytes) : kMostBytes;
  if (deadline != Clock::time_point::max()) {
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    budget = std::min<std::uint64_t>(budget, static_cast<std::uint64_t>(std::max(0.0, left) / 8 * 1e9));
  }
  return budget;
}

}  // namespace

LinearSeed greedyChain(const Workload& workload, const ContractedGraph& linear,
                       Clock::time_point deadline, const std::atomic<bool>* interrupt,
                       std::uint64_t memoryLimitBytes) {
  const int n = linear.numSuperNodes;
  // reach (4 bytes) and lastOnCpu (1) per state; each search step packs the
  // whole table, so it stays within kGreedyCells cells whatever the memory.
  constexpr std::uint64_t kGreedyCells = std::uint64_t{1} << 24;
  // More devices than super-nodes never help.
  const int allAccelerators = std::min(workload.machine.maxFpgas, n);
  const int allCpus = std::min(workload.machine.maxCpus, n);
  const SeedDevices devices =
      seedDevices(allAccelerators, allCpus, 1, sizeof(int) + 1,
                  std::min(seedBudget(memoryLimitBytes, deadline), kGreedyCells * 5));
  const int accelerators = devices.accelerators, cpus = devices.cpus;
  const double memory = acceleratorMemory(linear, workload.machine);
  if (n == 0 || accelerators + cpus <= 0) return {};
  // Every super-node needs a device: T is at least its smaller latency.
  double low = 0, high = 0;
  for (int v = 0; v < n; ++v) {
    high += linear.fpgaLatency[v] + linear.cpuLatency[v];
    low = std::max(low, std::min(cpus > 0 ? linear.cpuLatency[v] : kInfinity,
                                 accelerators > 0 ? linear.fpgaLatency[v] : kInfinity));
  }
  for (double w : linear.hyperWeight) high += w;

  IntervalSums interval(linear);
  // The furthest end of an accelerator interval starting at `start` with a
  // load under `limit`. An interval's communication falls when it takes a
  // hyperedge whole, so it grows on past a load above the limit until the
  // part it can no longer shed reaches it (on operator graphs stopping at the
  // first excess left the bound 1.3 to 7 times the optimum).
  auto acceleratorReach = [&](int start, double limit) {
    interval.restart(start);
    int reach = start;
    for (int v = start; v < n; ++v) {
      if (!linear.supportedOnFpga[v] || interval.size + linear.size[v] > memory) break;
      interval.add(v);
      if (interval.compute + interval.committed > limit) break;
      if (interval.load() <= limit) reach = v + 1;
    }
    return reach;
  };
  auto cpuReach = [&](int start, double limit) {
    double time = 0;
    int v = start;
    while (v < n && time + linear.cpuLatency[v] <= limit) time += linear.cpuLatency[v++];
    return v;
  };
  // reach[a][c] and whether its last interval is on a CPU core.
  const std::ptrdiff_t columns = cpus + 1;
  std::vector<int> reach(devices.states());
  std::vector<char> lastOnCpu(reach.size());
  // Cells often start an accelerator interval at the same super-node.
  std::vector<int> acceleratorReachFrom(n + 1);
  // A cell reaching the end, or -1; -2 when the deadline or the interrupt
  // stopped the packing (checked every few thousand cells: a table of
  // millions of cells takes a while).
  constexpr std::ptrdiff_t kNoPacking = -1, kStopped = -2;
  Clock::time_point packDeadline = deadline;
  const std::atomic<bool>* packInterrupt = interrupt;
  auto pack = [&](double limit) -> std::ptrdiff_t {
    std::fill(acceleratorReachFrom.begin(), acceleratorReachFrom.end(), -1);
    for (std::ptrdiff_t a = 0; a <= accelerators; ++a)
      for (std::ptrdiff_t c = 0; c <= cpus; ++c) {
        const std::ptrdiff_t cell = a * columns + c;
        if (cell == 0) {
          reach[0] = 0;
          continue;
        }
        if ((cell & 4095) == 0 && pastLimit(packDeadline, packInterrupt)) return kStopped;
        int byAccelerator = -1;
        if (a > 0) {
          int& known = acceleratorReachFrom[reach[cell - columns]];
          if (known < 0) known = acceleratorReach(reach[cell - columns], limit);
          byAccelerator = known;
        }
        const int byCpu = c > 0 ? cpuReach(reach[cell - 1], limit) : -1;
        lastOnCpu[cell] = byCpu > byAccelerator;
        reach[cell] = std::max(byAccelerator, byCpu);
        if (reach[cell] == n) return cell;
      }
    return kNoPacking;
  };
  // The table holds fewer devices than the machine has: packings on one
  // device type, which need no table, may use them all.
  const bool shrunk = accelerators < allAccelerators || cpus < allCpus;
  const double highest = high;
  auto oneKind = [&](bool onAccelerator, int count) -> LinearSeed {
    std::vector<int> ends;
    auto fits = [&](double limit) {  // intervals under `limit` on at most `count` devices
      ends.clear();
      for (int start = 0; start < n;) {
        const int end = onAccelerator ? acceleratorReach(start, limit) : cpuReach(start, limit);
        if (end == start || static_cast<int>(ends.size()) == count) return false;
        ends.push_back(end);
        start = end;
      }
      return true;
    };
    double fitting = highest, failing = low;
    if (count == 0 || !fits(fitting)) return {};
    for (int iteration = 0; iteration < 40 && fitting - failing > 1e-3 * fitting; ++iteration) {
      if (pastLimit(deadline, interrupt)) break;
      const double middle = (fitting + failing) / 2;
      (fits(middle) ? fitting : failing) = middle;
    }
    fits(fitting);
    std::vector<Block> blocks;
    for (std::size_t i = ends.size(); i-- > 0;) {
      Block block;
      block.accelerator = onAccelerator;
      for (int v = i > 0 ? ends[i - 1] : 0; v < ends[i]; ++v) block.superNodes.push_back(v);
      blocks.push_back(std::move(block));
    }
    return priced(workload, linear, std::move(blocks));
  };
  auto withOneKind = [&](LinearSeed seed) {
    if (!shrunk) return seed;
    for (bool onAccelerator : {true, false}) {
      LinearSeed one = oneKind(onAccelerator, onAccelerator ? allAccelerators : allCpus);
      if (!one.blocks.empty() && one.objective < seed.objective) seed = std::move(one);
    }
    return seed;
  };
  if (pack(high) < 0) return withOneKind({});
  // Only a cut for linearChainSeed: a per mille is close enough. Past the
  // deadline the last limit packed serves (a packing takes linear time: on
  // a chain of a million nodes the search alone took seconds).
  // The chain is packed once more at the end: a search step that would
  // leave less time than the longest packing so far is not started.
  Clock::duration longest{0};
  for (int iteration = 0; iteration < 40 && high - low > 1e-3 * high; ++iteration) {
    const auto start = Clock::now();
    if (pastLimit(deadline, interrupt) ||
        (deadline != Clock::time_point::max() && start + 2 * longest > deadline))
      break;
    const double middle = (low + high) / 2;
    const std::ptrdiff_t packed = pack(middle);
    if (packed == kStopped) break;
    longest = std::max(longest, Clock::now() - start);
    (packed >= 0 ? high : low) = middle;
  }
  // Packed before, so it stops at the same cell again: no deadline to heed.
  packDeadline = Clock::time_point::max();
  packInterrupt = nullptr;
  std::ptrdiff_t cell = pack(high);
  std::vector<Block> blocks;
  while (cell > 0) {
    const std::ptrdiff_t previous = lastOnCpu[cell] ? cell - 1 : cell - columns;
    Block block;
    block.accelerator = !lastOnCpu[cell];
    for (int v = reach[previous]; v < reach[cell]; ++v) block.superNodes.push_back(v);
    if (!block.superNodes.empty()) blocks.push_back(std::move(block));
    cell = previous;
  }
  return withOneKind(priced(workload, linear, std::move(blocks)));
}

namespace {

/// The bytes of one state's column of linearChainSeed's tables (value and how, n + 1 rows).
std::uint64_t columnBytes(int n) {
  return (static_cast<std::uint64_t>(n) + 1) * (sizeof(double) + sizeof(std::int32_t));
}

/// linearChainSeed within `budget` bytes of tables; a type marked unlimited
/// leaves the state (a device of it takes a state to itself).
LinearSeed chainAlongOrder(const Workload& workload, const ContractedGraph& linear, double cut,
                           Clock::time_point deadline, const std::atomic<bool>* interrupt,
                           std::uint64_t budget, bool unlimitedAccelerators, bool unlimitedCpus) {
  const int n = linear.numSuperNodes;
  // value and how per row and state: within the budget with fewer devices
  // if need be (the chain is still a plan; the greedy packing's cut keeps it no worse).
  const std::uint64_t rowBytes = columnBytes(n);
  const SeedDevices devices =
      seedDevices(unlimitedAccelerators ? 0 : workload.machine.maxFpgas,
                  unlimitedCpus ? 0 : workload.machine.maxCpus, 1, rowBytes, budget);
  if (devices.states() * rowBytes > budget) return {};  // not even one state
  const bool anyAccelerator = unlimitedAccelerators || devices.accelerators > 0;
  const bool anyCpu = unlimitedCpus || devices.cpus > 0;
  const double memory = acceleratorMemory(linear, workload.machine);
  if (!anyAccelerator && !anyCpu) return {};
  const int columns = devices.cpus + 1, numStates = static_cast<int>(devices.states());
  // The state an interval on an accelerator or a CPU core comes from.
  const int acceleratorStep = unlimitedAccelerators ? 0 : columns, cpuStep = unlimitedCpus ? 0 : 1;
  auto acceleratorLeft = [&](int s) { return unlimitedAccelerators || s >= columns; };
  auto cpuLeft = [&](int s) { return unlimitedCpus || s % columns != 0; };
  // value[j · numStates + s]: best max-load of the first j super-nodes on
  // state s's devices; how[...]: the last interval's start, negated − 1 on a CPU core.
  std::vector<double> value(static_cast<std::size_t>(n + 1) * numStates, cut);
  std::vector<std::int32_t> how(value.size(), 0);
  value[0] = 0;
  IntervalSums interval(linear);
  std::vector<int> viaAccelerator, viaCpu;  // states s whose s − device is reached at i
  // Quadratic on long chains: a limit gives up the seed. Counted in steps of
  // the inner loops, states included (one interval start may grow across
  // most of the chain, each step over many states).
  std::uint64_t steps = 0, nextCheck = 0;
  auto outOfTime = [&] {
    if (steps < nextCheck) return false;
    nextCheck = steps + 16384;
    return pastLimit(deadline, interrupt);
  };
  for (int i = 0; i < n; ++i) {
    steps += static_cast<std::uint64_t>(numStates);
    if (outOfTime()) return {};
    const double* from = &value[static_cast<std::size_t>(i) * numStates];
    viaAccelerator.clear();
    viaCpu.clear();
    // A state that one with a device fewer reaches i as well is left out:
    // whatever follows it, follows that one too.
    auto pushes = [&](int t) {
      return from[t] < cut &&
             !(!unlimitedAccelerators && t >= columns && from[t - columns] <= from[t]) &&
             !(!unlimitedCpus && t % columns != 0 && from[t - 1] <= from[t]);
    };
    for (int s = 0; s < numStates; ++s) {
      if (anyAccelerator && acceleratorLeft(s) && pushes(s - acceleratorStep)) viaAccelerator.push_back(s);
      if (anyCpu && cpuLeft(s) && pushes(s - cpuStep)) viaCpu.push_back(s);
    }
    if (viaAccelerator.empty() && viaCpu.empty()) continue;
    interval.restart(i);
    for (int j = i; j < n && !viaAccelerator.empty(); ++j) {
      steps += 1 + viaAccelerator.size();
      if (steps >= nextCheck && outOfTime()) return {};
      if (!linear.supportedOnFpga[j] || interval.size + linear.size[j] > memory) break;
      interval.add(j);
      if (interval.compute + interval.committed >= cut) break;
      const double load = interval.load();
      if (load >= cut) continue;
      double* to = &value[static_cast<std::size_t>(j + 1) * numStates];
      for (int s : viaAccelerator) {
        const double candidate = std::max(from[s - acceleratorStep], load);
        if (candidate < to[s]) {
          to[s] = candidate;
          how[static_cast<std::size_t>(j + 1) * numStates + s] = i;
        }
      }
    }
    double time = 0;
    for (int j = i; j < n && !viaCpu.empty(); ++j) {
      steps += 1 + viaCpu.size();
      if (steps >= nextCheck && outOfTime()) return {};
      time += linear.cpuLatency[j];
      if (time >= cut) break;
      double* to = &value[static_cast<std::size_t>(j + 1) * numStates];
      for (int s : viaCpu) {
        const double candidate = std::max(from[s - cpuStep], time);
        if (candidate < to[s]) {
          to[s] = candidate;
          how[static_cast<std::size_t>(j + 1) * numStates + s] = -i - 1;
        }
      }
    }
  }
  const double* last = &value[static_cast<std::size_t>(n) * numStates];
  int state = static_cast<int>(std::min_element(last, last + numStates) - last);
  if (!(last[state] < cut)) return {};
  std::vector<Block> blocks;
  for (int end = n; end > 0;) {
    const std::int32_t code = how[static_cast<std::size_t>(end) * numStates + state];
    Block block;
    block.accelerator = code >= 0;
    const int start = code >= 0 ? code : -code - 1;
    for (int v = start; v < end; ++v) block.superNodes.push_back(v);
    blocks.push_back(std::move(block));
    state -= code >= 0 ? acceleratorStep : cpuStep;
    end = start;
  }
  return priced(workload, linear, std::move(blocks));
}

}  // namespace

LinearSeed linearChainSeed(const Workload& workload, const ContractedGraph& linear, double cut,
                           Clock::time_point deadline, const std::atomic<bool>* interrupt,
                           std::uint64_t memoryLimitBytes) {
  const int n = linear.numSuperNodes;
  // Without a cut every interval is tried: quadratic, so only for small graphs.
  constexpr int kUncutLimit = 2000;
  if (n == 0 || (!std::isfinite(cut) && n > kUncutLimit)) return {};
  const int accelerators = workload.machine.maxFpgas, cpus = workload.machine.maxCpus;
  // A chain of n intervals never needs more than n devices of a type: with
  // that many, the type is unlimited.
  const bool manyAccelerators = accelerators >= n, manyCpus = cpus >= n;
  const std::uint64_t budget = seedBudget(memoryLimitBytes, deadline);
  const SeedDevices fitting = seedDevices(manyAccelerators ? 0 : accelerators, manyCpus ? 0 : cpus, 1,
                                          columnBytes(n), budget);
  const bool fewerAccelerators = !manyAccelerators && fitting.accelerators < accelerators;
  const bool fewerCpus = !manyCpus && fitting.cpus < cpus;
  if (fewerAccelerators || fewerCpus) {
    // The table would hold fewer devices than the machine has. With those
    // types unlimited instead (a relaxation, few states), a chain that keeps
    // the machine's counts is the best there is.
    LinearSeed relaxed = chainAlongOrder(workload, linear, cut, deadline, interrupt, budget,
                                         manyAccelerators || fewerAccelerators, manyCpus || fewerCpus);
    int onAccelerators = 0;
    for (const Block& block : relaxed.blocks) onAccelerators += block.accelerator ? 1 : 0;
    const int onCpus = static_cast<int>(relaxed.blocks.size()) - onAccelerators;
    if (!relaxed.blocks.empty() && onAccelerators <= accelerators && onCpus <= cpus) return relaxed;
  }
  return chainAlongOrder(workload, linear, cut, deadline, interrupt, budget, manyAccelerators, manyCpus);
}

LinearSeed orderSeed(const Workload& workload, const ContractedGraph& ordered, double best,
                     Clock::time_point deadline, const std::atomic<bool>* interrupt,
                     std::uint64_t memoryLimitBytes) {
  LinearSeed greedy;
  // The greedy packing only cuts the exact chain: a quarter of the time left.
  const auto now = Clock::now();
  const auto greedyDeadline = deadline == Clock::time_point::max() || deadline < now
                                  ? deadline
                                  : now + (deadline - now) / 4;
  if (!std::isfinite(best))
    greedy = greedyChain(workload, ordered, greedyDeadline, interrupt, memoryLimitBytes);
  const double cut = std::isfinite(best) ? best : greedy.objective;
  LinearSeed exact =
      linearChainSeed(workload, ordered, aboveRounding(cut), deadline, interrupt, memoryLimitBytes);
  // A limit may stop the exact chain: the greedy one is still a plan.
  return exact.blocks.empty() ? greedy : exact;
}

}  // namespace dnnplace::dp
