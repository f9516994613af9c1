#include "search/order_chain.hpp"

#include <algorithm>
#include <stdexcept>

#include "dp/device_states.hpp"
#include "dp/exact_sums.hpp"

namespace dnnplace::search {

namespace {

/// A type with at least as many devices as super-nodes never runs out: it
/// takes no dimension of the states (as in dp/seeds.cpp).
bool unlimited(int devices, int n) { return devices >= n; }

}  // namespace

OrderChainDp::OrderChainDp(const Workload& workload, const ContractedGraph& graph)
    : graph_(graph), memory_(dp::acceleratorMemory(graph, workload.machine)), n_(graph.numSuperNodes) {
  const int k = workload.machine.maxFpgas, l = workload.machine.maxCpus;
  unlimitedAccelerators_ = unlimited(k, n_);
  unlimitedCpus_ = unlimited(l, n_);
  anyAccelerator_ = k > 0;
  anyCpu_ = l > 0;
  const int accelerators = unlimitedAccelerators_ ? 0 : k, cpus = unlimitedCpus_ ? 0 : l;
  columns_ = cpus + 1;
  numStates_ = (accelerators + 1) * columns_;
  acceleratorStep_ = unlimitedAccelerators_ ? 0 : columns_;
  cpuStep_ = unlimitedCpus_ ? 0 : 1;
  devicesInState_ = accelerators + cpus;
  devicesLeft_.resize(numStates_);
  for (int s = 0; s < numStates_; ++s) devicesLeft_[s] = devicesInState_ - s / columns_ - s % columns_;

  // The hyperedges' sizes, and the arrays every order fills, sized once.
  const std::size_t hyperedges = graph.hyperWeight.size();
  hyperSize_.resize(hyperedges);
  for (std::size_t h = 0; h < hyperedges; ++h)
    hyperSize_[h] = graph.hyperStart[h + 1] - graph.hyperStart[h];
  inside_.assign(hyperedges, 0);
  firstPos_.resize(hyperedges);
  order_.resize(n_);
  fpga_.resize(n_);
  cpu_.resize(n_);
  size_.resize(n_);
  rest_.resize(n_ + 1);
  computeBefore_.resize(n_ + 1);
  cpuBefore_.resize(n_ + 1);
  supported_.resize(n_);
  incidenceStart_.resize(n_ + 1);
  incidence_.resize(graph.incidence.size());
  const std::size_t cells = static_cast<std::size_t>(n_ + 1) * numStates_;
  table_.resize(cells);
  how_.resize(cells);
}

std::uint64_t OrderChainDp::tableBytes(const Workload& workload, const ContractedGraph& graph) {
  const int n = graph.numSuperNodes;
  const int k = workload.machine.maxFpgas, l = workload.machine.maxCpus;
  const std::uint64_t states = static_cast<std::uint64_t>(unlimited(k, n) ? 1 : k + 1) *
                               static_cast<std::uint64_t>(unlimited(l, n) ? 1 : l + 1);
  return (static_cast<std::uint64_t>(n) + 1) * states * (sizeof(double) + sizeof(std::int32_t));
}

void OrderChainDp::layOut(std::span<const std::int32_t> order) {
  if (static_cast<int>(order.size()) != n_)
    throw std::invalid_argument("OrderChainDp: the order does not hold every super-node");
  std::copy(order.begin(), order.end(), order_.begin());
  std::fill(firstPos_.begin(), firstPos_.end(), n_);
  incidenceStart_[0] = 0;
  for (int p = 0; p < n_; ++p) {
    const int v = order_[p];
    fpga_[p] = graph_.fpgaLatency[v];
    cpu_[p] = graph_.cpuLatency[v];
    size_[p] = graph_.size[v];
    supported_[p] = graph_.supportedOnFpga[v];
    std::int32_t at = incidenceStart_[p];
    for (std::int32_t i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const std::int32_t h = graph_.incidence[i];
      incidence_[at++] = h;
      firstPos_[h] = std::min(firstPos_[h], p);
    }
    incidenceStart_[p + 1] = at;
  }
  // The least time any device needs for the positions from p on: a chain
  // whose devices left cannot hold it under the cut is given up early.
  computeBefore_[0] = cpuBefore_[0] = 0;
  for (int p = 0; p < n_; ++p) {
    computeBefore_[p + 1] = computeBefore_[p] + fpga_[p];
    cpuBefore_[p + 1] = cpuBefore_[p] + cpu_[p];
  }
  rest_[n_] = 0;
  for (int p = n_; p-- > 0;) {
    double least = dp::kInfinity;
    if (anyAccelerator_ && supported_[p]) least = fpga_[p];
    if (anyCpu_) least = std::min(least, cpu_[p]);
    rest_[p] = rest_[p + 1] + least;
  }
}

OrderChainDp::Result OrderChainDp::solve(std::span<const std::int32_t> order, double cut,
                                         Clock::time_point deadline,
                                         const std::atomic<bool>* interrupt) {
  // The rows of prefixes the last order shares with this one, under the
  // same cut, are the same (an interval inside a common prefix has the same
  // sums, and whether a hyperedge has a member before its start is decided
  // there too): only the rows after it are reset, and only the starts whose
  // interval can reach past it (their compute there under the cut) grow again.
  int shared = 0;
  if (complete_ && cut == lastCut_ && static_cast<int>(order.size()) == n_)
    while (shared < n_ && order[shared] == order_[shared]) ++shared;
  layOut(order);
  finalState_ = -1;
  complete_ = false;
  lastCut_ = cut;
  const int S = numStates_;
  std::fill(table_.begin() + static_cast<std::ptrdiff_t>(shared + 1) * S, table_.end(), cut);
  int first = 0;
  if (shared == 0) {
    std::fill(table_.begin(), table_.begin() + S, cut);
    table_[0] = 0;
  } else {
    // (The sums from prefix sums carry rounding the DP's running sums do
    // not: a margin keeps every start that might reach past the prefix.)
    const double reach = cut * (1 + 1e-9);
    first = shared;
    while (first > 0 && (computeBefore_[shared] - computeBefore_[first - 1] < reach ||
                         cpuBefore_[shared] - cpuBefore_[first - 1] < reach))
      --first;
  }
  // Counted in steps of the inner loops, states included; the deadline is
  // looked at every few thousand.
  std::uint64_t steps = 0, nextCheck = 16384;
  auto stopped = [&] {
    if (steps < nextCheck) return false;
    nextCheck = steps + 16384;
    return pastLimit(deadline, interrupt);
  };
  const bool prunes = !unlimitedAccelerators_ && !unlimitedCpus_;
  // A little above the cut, so rounding never gives up a chain that is under it.
  const double pruneCut = cut * (1 + 1e-9);
  for (int i = first; i < n_; ++i) {
    steps += static_cast<std::uint64_t>(S);
    if (stopped()) {
      steps_ += steps;
      return Result::Stopped;
    }
    const double* from = &table_[static_cast<std::size_t>(i) * S];
    // The prefix `end` reached from i by an interval of load `load` on the
    // device type of `step`, for each state of `via`; `code`: how_'s entry.
    auto relax = [&](int end, double load, const std::vector<int>& via, int step, std::int32_t code) {
      double* to = &table_[static_cast<std::size_t>(end) * S];
      std::int32_t* how = &how_[static_cast<std::size_t>(end) * S];
      for (int s : via) {
        const double candidate = std::max(from[s - step], load);
        if (candidate < to[s]) {
          to[s] = candidate;
          how[s] = code;
        }
      }
    };
    viaAccelerator_.clear();
    viaCpu_.clear();
    // A state t at i starts the next interval when it is under the cut, its
    // devices left may hold the rest, and no state with a device fewer
    // reaches i as well (whatever follows t, follows that one too).
    auto pushes = [&](int t) {
      return from[t] < cut && !(prunes && rest_[i] >= devicesLeft_[t] * pruneCut) &&
             !(!unlimitedAccelerators_ && t >= columns_ && from[t - columns_] <= from[t]) &&
             !(!unlimitedCpus_ && t % columns_ != 0 && from[t - 1] <= from[t]);
    };
    for (int s = 0; s < S; ++s) {
      if (anyAccelerator_ && (unlimitedAccelerators_ || s >= columns_) && pushes(s - acceleratorStep_))
        viaAccelerator_.push_back(s);
      if (anyCpu_ && (unlimitedCpus_ || s % columns_ != 0) && pushes(s - cpuStep_))
        viaCpu_.push_back(s);
    }
    if (!viaAccelerator_.empty()) {
      // The interval [i, j] grown one position at a time: its compute, memory,
      // communication (hyperedges it holds some but not all of) and the part
      // of that no growth can shed (hyperedges with a member before i).
      double compute = 0, size = 0, communication = 0, committed = 0;
      for (std::int32_t h : touched_) inside_[h] = 0;
      touched_.clear();
      for (int j = i; j < n_; ++j) {
        steps += 1 + viaAccelerator_.size();
        if (stopped()) {
          steps_ += steps;
          return Result::Stopped;
        }
        if (!supported_[j] || size + size_[j] > memory_) break;
        compute += fpga_[j];
        size += size_[j];
        for (std::int32_t e = incidenceStart_[j]; e < incidenceStart_[j + 1]; ++e) {
          const std::int32_t h = incidence_[e];
          if (inside_[h]++ == 0) {
            touched_.push_back(h);
            communication += graph_.hyperWeight[h];
            if (firstPos_[h] < i) committed += graph_.hyperWeight[h];
          }
          if (inside_[h] == hyperSize_[h]) communication -= graph_.hyperWeight[h];
        }
        if (compute + committed >= cut) break;
        const double load = compute + communication;
        if (load >= cut) continue;
        relax(j + 1, load, viaAccelerator_, acceleratorStep_, i);
      }
    }
    double time = 0;
    for (int j = i; j < n_ && !viaCpu_.empty(); ++j) {
      steps += 1 + viaCpu_.size();
      if (stopped()) {
        steps_ += steps;
        return Result::Stopped;
      }
      time += cpu_[j];
      if (time >= cut) break;
      relax(j + 1, time, viaCpu_, cpuStep_, -i - 1);
    }
  }
  steps_ += steps;
  complete_ = true;
  const double* last = &table_[static_cast<std::size_t>(n_) * S];
  const int state = static_cast<int>(std::min_element(last, last + S) - last);
  if (!(last[state] < cut)) return Result::NoChain;
  value_ = last[state];
  finalState_ = state;
  return Result::Found;
}

std::vector<dp::Block> OrderChainDp::blocks() const {
  std::vector<dp::Block> blocks;
  if (finalState_ < 0) return blocks;
  int state = finalState_;
  for (int end = n_; end > 0;) {
    const std::int32_t code = how_[static_cast<std::size_t>(end) * numStates_ + state];
    dp::Block block;
    block.accelerator = code >= 0;
    const int start = code >= 0 ? code : -code - 1;
    for (int p = start; p < end; ++p) block.superNodes.push_back(order_[p]);
    blocks.push_back(std::move(block));
    state -= code >= 0 ? acceleratorStep_ : cpuStep_;
    end = start;
  }
  return blocks;
}

std::pair<int, int> OrderChainDp::bottleneck() const {
  if (finalState_ < 0) return {0, 0};
  // Walking back, the value drops below the chain's max-load at the start
  // of the last block that has it.
  const double worst = value_;
  int state = finalState_;
  for (int end = n_; end > 0;) {
    const std::int32_t code = how_[static_cast<std::size_t>(end) * numStates_ + state];
    const int start = code >= 0 ? code : -code - 1;
    state -= code >= 0 ? acceleratorStep_ : cpuStep_;
    if (table_[static_cast<std::size_t>(start) * numStates_ + state] < worst) return {start, end};
    end = start;
  }
  return {0, n_};
}

}  // namespace dnnplace::search
