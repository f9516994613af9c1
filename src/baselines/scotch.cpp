#include "baselines/scotch.hpp"
#include "dnnplace/solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include <scotch.h>
}

#include "baselines/common.hpp"
#include "objective/class_totals.hpp"
#include "objective/loads.hpp"

namespace dnnplace {
namespace {

using objective::ClassTotals;
using objective::fitsMemory;

/// The weighted, symmetric class graph handed to Scotch (CSR, 0-based).
struct ScotchInput {
  std::vector<int> classOfVertex;  ///< vertex → color class
  std::vector<SCOTCH_Num> vertexStart, vertexWeight, adjacency, edgeWeight;
  double scale = 0;  ///< integer weight per time unit
};

ScotchInput buildClassGraph(const Workload& workload, const ClassTotals& totals,
                            const std::vector<char>& partitioned) {
  ScotchInput input;
  std::vector<int> vertexOfClass(workload.graph().numClasses, -1);
  for (int c = 0; c < workload.graph().numClasses; ++c) {
    if (!partitioned[c]) continue;
    vertexOfClass[c] = static_cast<int>(input.classOfVertex.size());
    input.classOfVertex.push_back(c);
  }
  // (vertex, neighbour, weight) for both directions of every sender's cut.
  std::vector<std::tuple<int, int, double>> arcs;
  std::vector<int> lastClassSeen(workload.graph().numClasses, -1);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u) {
    const double cost = workload.graph().outCost[u];
    const int from = vertexOfClass[workload.graph().classOf[u]];
    if (cost == 0 || from < 0) continue;
    for (NodeIndex w : workload.successors(u)) {
      const int cw = workload.graph().classOf[w];
      const int to = vertexOfClass[cw];
      if (to < 0 || to == from || lastClassSeen[cw] == u) continue;
      lastClassSeen[cw] = u;  // u pays once per neighbouring class
      arcs.emplace_back(from, to, cost);
      arcs.emplace_back(to, from, cost);
    }
  }
  std::sort(arcs.begin(), arcs.end());
  std::vector<std::tuple<int, int, double>> merged;
  for (const auto& arc : arcs) {
    if (!merged.empty() && std::get<0>(merged.back()) == std::get<0>(arc) &&
        std::get<1>(merged.back()) == std::get<1>(arc))
      std::get<2>(merged.back()) += std::get<2>(arc);
    else
      merged.push_back(arc);
  }

  double totalVertex = 0, totalEdge = 0;
  for (int c : input.classOfVertex) totalVertex += totals.acceleratorLatency[c];
  for (const auto& arc : merged) totalEdge += std::get<2>(arc);
  const double limit = 1e9;
  input.scale = 1e6;
  if (totalVertex * input.scale > limit) input.scale = limit / totalVertex;
  if (totalEdge * input.scale > limit) input.scale = limit / totalEdge;
  auto scaled = [&](double x) { return static_cast<SCOTCH_Num>(std::llround(x * input.scale)); };

  const int n = static_cast<int>(input.classOfVertex.size());
  input.vertexStart.assign(n + 1, 0);
  for (int v = 0; v < n; ++v)
    input.vertexWeight.push_back(scaled(totals.acceleratorLatency[input.classOfVertex[v]]));
  for (const auto& [from, to, weight] : merged) {
    ++input.vertexStart[from + 1];
    input.adjacency.push_back(to);
    input.edgeWeight.push_back(scaled(weight));
  }
  for (int v = 0; v < n; ++v) input.vertexStart[v + 1] += input.vertexStart[v];
  return input;
}

/// Runs SCOTCH_graphPart in a private, seeded, deterministic context.
/// Returns "" on success, else what failed.
std::string partition(ScotchInput& input, int parts, std::uint64_t seed,
                      std::vector<SCOTCH_Num>* partOfVertex) {
  const SCOTCH_Num n = static_cast<SCOTCH_Num>(input.classOfVertex.size());
  partOfVertex->assign(n, 0);
  SCOTCH_Context context;
  SCOTCH_Graph graph, boundGraph;
  SCOTCH_Strat strategy;
  if (SCOTCH_contextInit(&context) != 0) return "cannot create a Scotch context";
  SCOTCH_graphInit(&graph);
  SCOTCH_graphInit(&boundGraph);
  SCOTCH_stratInit(&strategy);
  std::string error;
  // Scotch's seed is a SCOTCH_Num: fold the 64-bit seed into 31 bits.
  const auto scotchSeed = static_cast<SCOTCH_Num>((seed ^ (seed >> 31) ^ (seed >> 62)) & 0x7fffffff);
  // One thread: Scotch's own thread pool intermittently deadlocked or crashed
  // here (seen under parallel ctest); the class graphs are small anyway.
  if (SCOTCH_contextThreadSpawn(&context, 1, nullptr) != 0)
    error = "cannot start the Scotch context's thread";
  else if (SCOTCH_contextRandomClone(&context) != 0)
    error = "cannot give the Scotch context its own random generator";
  else if (SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0)
    error = "cannot make Scotch deterministic";
  if (error.empty()) {
    SCOTCH_contextRandomSeed(&context, scotchSeed);
    const SCOTCH_Num arcs = static_cast<SCOTCH_Num>(input.adjacency.size());
    // Empty arrays: Scotch accepts any non-null pointer for zero-length tables.
    static SCOTCH_Num dummy = 0;
    SCOTCH_Num* adjacency = arcs > 0 ? input.adjacency.data() : &dummy;
    SCOTCH_Num* edgeWeight = arcs > 0 ? input.edgeWeight.data() : &dummy;
    if (SCOTCH_graphBuild(&graph, 0, n, input.vertexStart.data(), input.vertexStart.data() + 1,
                          input.vertexWeight.data(), nullptr, arcs, adjacency, edgeWeight) != 0)
      error = "SCOTCH_graphBuild rejected the class graph";
    else if (SCOTCH_graphCheck(&graph) != 0)
      error = "SCOTCH_graphCheck rejected the class graph";
    else if (SCOTCH_contextBindGraph(&context, &graph, &boundGraph) != 0)
      error = "cannot bind the graph to the Scotch context";
    else if (SCOTCH_stratGraphMapBuild(&strategy, SCOTCH_STRATDEFAULT, parts, 0.01) != 0)
      error = "cannot build the Scotch partitioning strategy";
    else if (SCOTCH_graphPart(&boundGraph, parts, &strategy, partOfVertex->data()) != 0)
      error = "SCOTCH_graphPart failed";
  }
  SCOTCH_stratExit(&strategy);
  SCOTCH_graphExit(&boundGraph);
  SCOTCH_graphExit(&graph);
  SCOTCH_contextExit(&context);
  return error;
}

/// Moves classes off accelerators over memory (see scotch.hpp).
/// Returns the number of classes moved, or -1 when some class fits nowhere.
int repairMemory(const Workload& workload, const ClassTotals& totals, std::vector<int>* deviceOfClass,
                 std::string* failure) {
  const Machine& machine = workload.machine;
  const int k = machine.maxFpgas;
  std::vector<double> memory(k, 0), cpuLoad(machine.maxCpus, 0);
  std::vector<std::vector<int>> classesOn(k);
  for (int c = 0; c < workload.graph().numClasses; ++c) {
    const int d = (*deviceOfClass)[c];
    if (d < k) {
      memory[d] += totals.size[c];
      classesOn[d].push_back(c);
    } else {
      cpuLoad[d - k] += totals.cpuLatency[c];
    }
  }
  int moved = 0;
  for (int d = 0; d < k; ++d) {
    if (fitsMemory(memory[d], machine)) continue;
    auto& classes = classesOn[d];
    std::stable_sort(classes.begin(), classes.end(),
                     [&](int a, int b) { return totals.size[a] > totals.size[b]; });
    for (int c : classes) {
      if (fitsMemory(memory[d], machine)) break;
      if (totals.size[c] == 0) break;  // sorted: nothing left that frees memory
      int target = -1;
      for (int other = 0; other < k; ++other) {
        if (other == d || !fitsMemory(memory[other] + totals.size[c], machine)) continue;
        if (target < 0 || memory[other] < memory[target]) target = other;
      }
      if (target >= 0) {
        memory[target] += totals.size[c];
      } else if (machine.maxCpus > 0) {
        const int core =
            static_cast<int>(std::min_element(cpuLoad.begin(), cpuLoad.end()) - cpuLoad.begin());
        cpuLoad[core] += totals.cpuLatency[c];
        target = k + core;
      } else {
        *failure = "scotch's partition violates accelerator memory: accelerator " + std::to_string(d) +
                   " needs " + std::to_string(memory[d]) + " bytes, holds " +
                   std::to_string(machine.maxSizePerFpga) + ", and no other device has room for " +
                   objective::describeClass(workload, c);
        return -1;
      }
      memory[d] -= totals.size[c];
      (*deviceOfClass)[c] = target;
      ++moved;
    }
  }
  return moved;
}

}  // namespace

SolveOutcome solveScotch(const Workload& workload, const SolveOptions& options) {
  SolveOutcome outcome;
  if (options.objective != Objective::Throughput || options.diffMaxima)
    return failedCall(CallStatus::InvalidInput,
                      "scotch reports the throughput max-load only (no --diffmaxima)");
  const ClassTotals totals(workload);
  if (auto refused = baseline::unplaceableOutcome(workload, totals)) return *refused;
  PhaseTimes phases(&outcome.phases);
  const Machine& machine = workload.machine;
  const int k = machine.maxFpgas;
  std::vector<int> deviceOfClass(workload.graph().numClasses, -1);
  std::vector<char> partitioned(workload.graph().numClasses, 0);
  int onCpuFirst = 0;
  for (int c = 0; c < workload.graph().numClasses; ++c) {
    if (totals.fitsAccelerator(c, machine)) {
      partitioned[c] = 1;
    } else {
      deviceOfClass[c] = k;  // CPU core 0; whyUnplaceable guarantees maxCpus > 0
      ++onCpuFirst;
    }
  }

  ScotchInput input = buildClassGraph(workload, totals, partitioned);
  std::string notes = input.classOfVertex.empty()
                          ? std::string("no class fits an accelerator: nothing to partition")
                          : "Scotch on " + std::to_string(input.classOfVertex.size()) + " classes, " +
                                std::to_string(input.adjacency.size() / 2) +
                                " class edges, weight scale " + std::to_string(input.scale) +
                                " per time unit";
  if (!input.classOfVertex.empty()) {
    std::vector<SCOTCH_Num> partOfVertex;
    if (k == 1) {
      partOfVertex.assign(input.classOfVertex.size(), 0);  // nothing to partition
    } else if (std::string error = partition(input, k, options.seed, &partOfVertex); !error.empty())
      return failedCall(CallStatus::InternalError, "scotch: " + error);
    for (std::size_t v = 0; v < partOfVertex.size(); ++v) {
      if (partOfVertex[v] < 0 || partOfVertex[v] >= k)
        return failedCall(CallStatus::InternalError, "scotch returned part " +
                                                         std::to_string(partOfVertex[v]) +
                                                         " outside 0.." + std::to_string(k - 1));
      deviceOfClass[input.classOfVertex[v]] = static_cast<int>(partOfVertex[v]);
    }
  }
  phases.end("partition");
  if (onCpuFirst > 0)
    notes += "; " + std::to_string(onCpuFirst) +
             " classes that fit no accelerator placed on CPU core 0";

  std::string failure;
  const int moved = repairMemory(workload, totals, &deviceOfClass, &failure);
  if (moved < 0) return baseline::refusal(SolveStatus::NoPlan, failure);
  phases.end("memory repair");
  if (moved > 0)
    notes += "; memory repair moved " + std::to_string(moved) + " classes off over-full accelerators";

  Placement placement;
  placement.numAccelerators = k;
  placement.numCpus = machine.maxCpus;
  placement.deviceOf.resize(workload.numNodes());
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    placement.deviceOf[v] = deviceOfClass[workload.graph().classOf[v]];
  outcome.objective = objective::maxOf(objective::deviceLoads(workload, placement));
  outcome.placement = std::move(placement);
  outcome.lowerBound = objective::throughputLowerBound(workload, totals);
  outcome.status = SolveStatus::Feasible;
  outcome.message = notes;
  return outcome;
}

}  // namespace dnnplace
