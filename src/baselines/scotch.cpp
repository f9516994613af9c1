#include "baselines/scotch.hpp"
#include "dnnplace/solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <scotch.h>
}

#include "baselines/common.hpp"
#include "objective/class_totals.hpp"
#include "objective/loads.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {
namespace {

using objective::ClassTotals;
using objective::fitsMemory;

/// The weighted, symmetric class graph handed to Scotch (CSR, 0-based).
struct ScotchInput {
  std::vector<int> classOfVertex;  ///< vertex → color class
  std::vector<SCOTCH_Num> vertexStart, vertexWeight, adjacency, edgeWeight;
  double scale = 0;  ///< integer weight per time unit
  /// Σ degree²: SCOTCH_graphCheck looks for each arc's reverse in the
  /// neighbour's list, so it costs about that many steps.
  double checkCost = 0;
};

/// SCOTCH_graphCheck runs below this many steps (about 0.1 s); above, the
/// graph is symmetric by construction (both arcs of a pair carry the same
/// sum) and is not checked again.
constexpr double kCheckCostLimit = 1e8;

/// One arc of the class graph: both directions of every pair are listed.
struct ClassArc {
  int from, to;
  double weight;
  auto operator<=>(const ClassArc&) const = default;
};

/// The class graph's arcs, sorted by (from, to), parallel arcs merged
/// (their weights summed in increasing order, so both directions of a
/// pair get the same sum). Returns nullopt when `deadline` passes first.
std::optional<std::vector<ClassArc>> classArcs(const Workload& workload,
                                               const std::vector<int>& vertexOfClass,
                                               const Deadline& deadline) {
  std::vector<ClassArc> arcs;
  std::vector<int> lastClassSeen(workload.graph().numClasses, -1);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u) {
    if ((u & 4095) == 0 && deadline.reached()) return std::nullopt;
    const double cost = workload.graph().outCost[u];
    const int from = vertexOfClass[workload.graph().classOf[u]];
    if (cost == 0 || from < 0) continue;
    for (NodeIndex w : workload.successors(u)) {
      const int cw = workload.graph().classOf[w];
      const int to = vertexOfClass[cw];
      if (to < 0 || to == from || lastClassSeen[cw] == u) continue;
      lastClassSeen[cw] = u;  // u pays once per neighbouring class
      arcs.push_back({from, to, cost});
      arcs.push_back({to, from, cost});
    }
  }
  if (deadline.reached()) return std::nullopt;
  std::sort(arcs.begin(), arcs.end());
  std::size_t kept = 0;
  for (const ClassArc& arc : arcs) {
    if (kept > 0 && arcs[kept - 1].from == arc.from && arcs[kept - 1].to == arc.to)
      arcs[kept - 1].weight += arc.weight;
    else
      arcs[kept++] = arc;
  }
  arcs.resize(kept);
  arcs.shrink_to_fit();
  return arcs;
}

/// The pairs of heaviest weight, at most maxArcs arcs (both directions of
/// each pair kept; ties by position), in the order of `arcs`.
std::vector<ClassArc> heaviestArcs(const std::vector<ClassArc>& arcs, std::size_t maxArcs) {
  std::vector<double> weights;
  for (const ClassArc& arc : arcs)
    if (arc.from < arc.to) weights.push_back(arc.weight);
  const std::size_t pairs = maxArcs / 2;
  if (pairs >= weights.size()) return arcs;
  std::vector<ClassArc> kept;
  if (pairs == 0) return kept;
  std::nth_element(weights.begin(), weights.begin() + (weights.size() - pairs), weights.end());
  const double threshold = weights[weights.size() - pairs];
  std::size_t above = 0;
  for (const ClassArc& arc : arcs)
    if (arc.from < arc.to && arc.weight > threshold) ++above;
  std::size_t ties = pairs - above;  // pairs at the threshold, first come first kept
  std::vector<std::pair<int, int>> tied;
  for (const ClassArc& arc : arcs) {
    if (arc.from >= arc.to || arc.weight != threshold) continue;
    if (ties == 0) break;
    tied.emplace_back(arc.from, arc.to);
    --ties;
  }
  std::sort(tied.begin(), tied.end());
  for (const ClassArc& arc : arcs) {
    const std::pair<int, int> pair = std::minmax(arc.from, arc.to);
    if (arc.weight > threshold || std::binary_search(tied.begin(), tied.end(), pair))
      kept.push_back(arc);
  }
  return kept;
}

ScotchInput toScotchInput(const std::vector<int>& classOfVertex, const ClassTotals& totals,
                          const std::vector<ClassArc>& merged) {
  ScotchInput input;
  input.classOfVertex = classOfVertex;
  double totalVertex = 0, totalEdge = 0;
  for (int c : input.classOfVertex) totalVertex += totals.acceleratorLatency[c];
  for (const ClassArc& arc : merged) totalEdge += arc.weight;
  const double limit = 1e9;
  input.scale = 1e6;
  if (totalVertex * input.scale > limit) input.scale = limit / totalVertex;
  if (totalEdge * input.scale > limit) input.scale = limit / totalEdge;
  auto scaled = [&](double x) { return static_cast<SCOTCH_Num>(std::llround(x * input.scale)); };

  const int n = static_cast<int>(input.classOfVertex.size());
  input.vertexStart.assign(n + 1, 0);
  for (int v = 0; v < n; ++v)
    input.vertexWeight.push_back(scaled(totals.acceleratorLatency[input.classOfVertex[v]]));
  input.adjacency.reserve(merged.size());
  input.edgeWeight.reserve(merged.size());
  for (const ClassArc& arc : merged) {
    ++input.vertexStart[arc.from + 1];
    input.adjacency.push_back(arc.to);
    input.edgeWeight.push_back(scaled(arc.weight));
  }
  for (int v = 0; v < n; ++v) input.vertexStart[v + 1] += input.vertexStart[v];
  for (int v = 0; v < n; ++v) {
    const double degree = static_cast<double>(input.vertexStart[v + 1] - input.vertexStart[v]);
    input.checkCost += degree * degree;
  }
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
    else if (input.checkCost <= kCheckCostLimit && SCOTCH_graphCheck(&graph) != 0)
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

/// Seconds one SCOTCH_graphPart call may take, per arc and per vertex:
/// about what random graphs (the hardest for it) take here, rounded up.
/// Scotch cannot be stopped inside a call, so a call is only made on a
/// graph this estimate lets finish before the deadline.
double scotchSeconds(double arcs, double vertices) { return 4.5e-6 * arcs + 8e-6 * vertices; }
/// Bytes per arc held while Scotch runs: ours (an arc, its CSR entry) and Scotch's copy.
constexpr double kBytesPerArc = 64;
/// Seconds per arc of building and sorting the class graph, rounded up.
constexpr double kBuildSecondsPerArc = 2e-7;

/// One partition of the class graph, kept within the time and memory limits.
struct ScotchRun {
  const Workload& workload;
  const ClassTotals& totals;
  const std::vector<int>& classOfVertex;
  const std::vector<int>& vertexOfClass;
  const SolveOptions& options;
  const Deadline& deadline;

  /// The part of each vertex, and what was done in *notes. Within the
  /// limits: the whole class graph when Scotch's estimate fits the time
  /// left; else a call on its heaviest edges that surely fits, timed, then
  /// one on as many as that timing allows; else (not even the vertices fit,
  /// or the graph cannot be built in time or memory) no Scotch at all.
  std::string partition(std::vector<SCOTCH_Num>* part, std::string* notes) const {
    const int k = workload.machine.maxFpgas;
    const double n = static_cast<double>(classOfVertex.size());
    const double edges = static_cast<double>(workload.graph().edges.size());
    const double memory = baseline::memoryLeft(workload, options);
    const double buildBytes = 2 * edges * sizeof(ClassArc);
    if (buildBytes > memory)
      return skip(part, notes,
                  "the class graph of " + std::to_string(workload.graph().edges.size()) +
                      " edges needs about " + formatBytes(buildBytes) +
                      ", more than the memory limit leaves");
    if (k > 1 && 2 * edges * kBuildSecondsPerArc + scotchSeconds(0, n) > secondsLeft())
      return skip(part, notes,
                  "building the class graph and partitioning it would pass the time limit");
    const auto arcs = classArcs(workload, vertexOfClass, deadline);
    if (!arcs) return skip(part, notes, "the time limit passed while the class graph was built");
    const double full = static_cast<double>(arcs->size());
    *notes = "Scotch on " + std::to_string(classOfVertex.size()) + " classes, " +
             std::to_string(arcs->size() / 2) + " class edges";
    if (k == 1) {
      *notes += ", weight scale " + std::to_string(toScotchInput(classOfVertex, totals, *arcs).scale) +
                " per time unit";
      part->assign(classOfVertex.size(), 0);  // nothing to partition
      return "";
    }
    const double arcMemory = (memory - full * sizeof(ClassArc)) / kBytesPerArc;
    const double arcLimit = std::min<double>(arcMemory, std::numeric_limits<SCOTCH_Num>::max() / 2);
    if (full <= arcLimit && scotchSeconds(full, n) <= secondsLeft()) return call(*arcs, part, notes);

    // Too large for what is left: a first call that surely fits, timed.
    const std::string why = full > arcLimit ? "the memory limit" : "the time limit";
    const double probe = std::min(arcLimit, (secondsLeft() / 3 - scotchSeconds(0, n)) / 4.5e-6);
    if (probe < 0) return skip(part, notes, "Scotch's estimate for the classes alone passes " + why);
    const auto start = std::chrono::steady_clock::now();
    std::size_t used = static_cast<std::size_t>(probe);
    if (std::string error = call(heaviestArcs(*arcs, used), part, notes); !error.empty()) return error;
    const double ratio =
        std::max(0.05, secondsSince(start) / scotchSeconds(static_cast<double>(used), n));
    // Then as many arcs as that pace allows in what is left.
    const double more = std::min({arcLimit, full, (0.8 * secondsLeft() / ratio - 8e-6 * n) / 4.5e-6});
    if (more >= 2 * probe && !deadline.reached()) {
      std::vector<SCOTCH_Num> second;
      std::string secondNotes;
      const std::size_t wider = static_cast<std::size_t>(more);
      if (std::string error = call(heaviestArcs(*arcs, wider), &second, &secondNotes); !error.empty())
        return error;
      if (maxLoad(second) <= maxLoad(*part)) {
        *part = std::move(second);
        *notes = secondNotes;
        used = wider;
      }
    }
    if (used < arcs->size())
      *notes += " (the " + std::to_string(used / 2) + " heaviest of " +
                std::to_string(arcs->size() / 2) + ": all of them would pass " + why + ")";
    return "";
  }

 private:
  double secondsLeft() const {
    if (deadline.at() == Deadline::Clock::time_point::max())
      return std::numeric_limits<double>::infinity();
    return std::chrono::duration<double>(deadline.at() - Deadline::Clock::now()).count();
  }

  std::string call(const std::vector<ClassArc>& arcs, std::vector<SCOTCH_Num>* part,
                   std::string* notes) const {
    ScotchInput input = toScotchInput(classOfVertex, totals, arcs);
    *notes = "Scotch on " + std::to_string(classOfVertex.size()) + " classes, " +
             std::to_string(arcs.size() / 2) + " class edges, weight scale " +
             std::to_string(input.scale) + " per time unit";
    return dnnplace::partition(input, workload.machine.maxFpgas, options.seed, part);
  }

  /// Without Scotch: the classes in the order of their first node in a
  /// topological order, cut into k runs of about equal accelerator latency.
  std::string skip(std::vector<SCOTCH_Num>* part, std::string* notes, const std::string& why) const {
    const int k = workload.machine.maxFpgas;
    std::vector<int> order;
    std::vector<char> seen(classOfVertex.size(), 0);
    double total = 0;
    for (NodeIndex v : workload.graph().topologicalOrder) {
      const int vertex = vertexOfClass[workload.graph().classOf[v]];
      if (vertex < 0 || seen[vertex]) continue;
      seen[vertex] = 1;
      order.push_back(vertex);
      total += totals.acceleratorLatency[classOfVertex[vertex]];
    }
    part->assign(classOfVertex.size(), 0);
    double before = 0;
    for (int vertex : order) {
      const double weight = totals.acceleratorLatency[classOfVertex[vertex]];
      const double middle = total > 0 ? (before + weight / 2) / total : 0;
      (*part)[vertex] = static_cast<SCOTCH_Num>(std::min<double>(k - 1, std::floor(middle * k)));
      before += weight;
    }
    *notes = "Scotch skipped (" + why + "): the " + std::to_string(classOfVertex.size()) +
             " classes cut into " + std::to_string(k) +
             " runs of equal accelerator latency along a topological order";
    return "";
  }

  double maxLoad(const std::vector<SCOTCH_Num>& part) const {
    Placement placement;
    placement.numAccelerators = workload.machine.maxFpgas;
    placement.numCpus = workload.machine.maxCpus;
    placement.deviceOf.assign(workload.numNodes(), workload.machine.maxFpgas);  // CPU core 0
    for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
      const int vertex = vertexOfClass[workload.graph().classOf[v]];
      if (vertex >= 0) placement.deviceOf[v] = static_cast<std::int32_t>(part[vertex]);
    }
    return objective::maxOf(objective::deviceLoads(workload, placement));
  }
};

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
  // The accelerators by (memory used, index): the first other than d that
  // has room is the one with the most free memory, and if it has none, none has.
  std::set<std::pair<double, int>> byMemory;
  for (int d = 0; d < k; ++d) byMemory.emplace(memory[d], d);
  auto setMemory = [&](int d, double bytes) {
    byMemory.erase({memory[d], d});
    memory[d] = bytes;
    byMemory.emplace(bytes, d);
  };
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
      for (const auto& [used, other] : byMemory) {
        if (other == d) continue;
        if (fitsMemory(used + totals.size[c], machine)) target = other;
        break;
      }
      if (target >= 0) {
        setMemory(target, memory[target] + totals.size[c]);
      } else if (machine.maxCpus > 0) {
        const int core =
            static_cast<int>(std::min_element(cpuLoad.begin(), cpuLoad.end()) - cpuLoad.begin());
        cpuLoad[core] += totals.cpuLatency[c];
        target = k + core;
      } else {
        *failure = "scotch's partition violates accelerator memory: accelerator " + std::to_string(d) +
                   " needs " + formatBytes(memory[d]) + ", holds " +
                   formatBytes(machine.maxSizePerFpga) + ", and no other device has room for " +
                   objective::describeClass(workload, c);
        return -1;
      }
      setMemory(d, memory[d] - totals.size[c]);
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

  const Deadline deadline(options.timeLimitSeconds, options.interrupt);
  std::vector<int> classOfVertex, vertexOfClass(workload.graph().numClasses, -1);
  for (int c = 0; c < workload.graph().numClasses; ++c)
    if (partitioned[c]) {
      vertexOfClass[c] = static_cast<int>(classOfVertex.size());
      classOfVertex.push_back(c);
    }
  std::string notes = "no class fits an accelerator: nothing to partition";
  if (!classOfVertex.empty()) {
    std::vector<SCOTCH_Num> partOfVertex;
    const ScotchRun run{workload, totals, classOfVertex, vertexOfClass, options, deadline};
    if (std::string error = run.partition(&partOfVertex, &notes); !error.empty())
      return failedCall(CallStatus::InternalError, "scotch: " + error);
    for (std::size_t v = 0; v < partOfVertex.size(); ++v) {
      if (partOfVertex[v] < 0 || partOfVertex[v] >= k)
        return failedCall(CallStatus::InternalError, "scotch returned part " +
                                                         std::to_string(partOfVertex[v]) +
                                                         " outside 0.." + std::to_string(k - 1));
      deviceOfClass[classOfVertex[v]] = static_cast<int>(partOfVertex[v]);
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
