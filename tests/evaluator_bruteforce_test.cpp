// The evaluator against independent recomputations written here straight from
// docs/model.md §2–§5, on thousands of random small workloads and placements.
// Nothing below reuses evaluator code or the Workload's derived arrays (outCost,
// classOf, CSR, topological order): the test keeps its own copy of the graph
// as generated, with raw (possibly duplicate) edges and per-source costs.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {
namespace {

/// The graph as the test generated it; node i is input node i (dense index).
struct Instance {
  Machine machine;
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;  ///< may repeat a pair
  Workload workload;

  int n() const { return static_cast<int>(nodes.size()); }
  int position(std::int64_t id) const {
    for (int i = 0; i < n(); ++i)
      if (nodes[i].id == id) return i;
    ADD_FAILURE() << "unknown id " << id;
    return -1;
  }
  /// Same class: docs/model.md §1, a node without colorClass is alone.
  bool sameClass(int a, int b) const {
    if (a == b) return true;
    return nodes[a].colorClass && nodes[b].colorClass && *nodes[a].colorClass == *nodes[b].colorClass;
  }
  double sourceCost(int u) const {
    for (const RawEdge& e : edges)
      if (e.sourceId == nodes[u].id) return e.cost;
    return 0;
  }
};

using Rng = std::mt19937_64;
int uniformInt(Rng& rng, int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(rng);
}
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
/// Quarter-multiples keep every sum exact, so "equal" can mean equal.
double amount(Rng& rng, int maxQuarters, double zeroProbability = 0.15) {
  return chance(rng, zeroProbability) ? 0 : uniformInt(rng, 1, maxQuarters) * 0.25;
}

/// A random DAG of `forward` nodes in a hidden order, optionally with a
/// backward twin for some nodes (reversed edges, a loss edge, random
/// forward→backward edges) and an orphan backward node; random classes,
/// unsupported nodes, sizes, costs (0 sometimes), duplicate edges, ids that
/// are neither dense nor sorted.
Instance randomInstance(Rng& rng, int maxForward, bool training) {
  Instance inst;
  const int forward = uniformInt(rng, 1, maxForward);
  std::vector<int> order(forward);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);  // order[k]: node at rank k

  std::vector<std::int64_t> ids;
  for (int i = 0; i < 3 * maxForward + 2; ++i) ids.push_back(1000 - 37 * i);
  std::shuffle(ids.begin(), ids.end(), rng);

  auto makeNode = [&](bool backward) {
    Node node;
    node.id = ids[inst.nodes.size()];
    node.isBackward = backward;
    node.supportedOnFpga = !chance(rng, 0.15);
    node.fpgaLatency = amount(rng, 40);
    node.cpuLatency = amount(rng, 200);
    node.size = chance(rng, 0.3) ? 0 : uniformInt(rng, 1, 10) * 100;
    if (chance(rng, 0.7)) node.colorClass = 5000 + static_cast<std::int64_t>(inst.nodes.size());
    inst.nodes.push_back(node);
    return static_cast<int>(inst.nodes.size()) - 1;
  };
  for (int i = 0; i < forward; ++i) makeNode(false);
  // A few forward nodes share a class.
  if (forward >= 2 && chance(rng, 0.4)) {
    int a = uniformInt(rng, 0, forward - 1), b = uniformInt(rng, 0, forward - 1);
    if (a != b) {
      if (!inst.nodes[a].colorClass) inst.nodes[a].colorClass = 7000 + a;
      inst.nodes[b].colorClass = inst.nodes[a].colorClass;
    }
  }
  std::vector<double> cost(3 * maxForward + 2);
  for (double& c : cost) c = amount(rng, 24, 0.2);
  auto addEdge = [&](int u, int v) {
    inst.edges.push_back({inst.nodes[u].id, inst.nodes[v].id, cost[u]});
    if (chance(rng, 0.05)) inst.edges.push_back(inst.edges.back());  // duplicate
  };
  const double density = std::uniform_real_distribution<double>(0.15, 0.6)(rng);
  std::vector<std::pair<int, int>> forwardEdges;
  for (int a = 0; a < forward; ++a)
    for (int b = a + 1; b < forward; ++b)
      if (chance(rng, density)) {
        forwardEdges.emplace_back(order[a], order[b]);
        addEdge(order[a], order[b]);
      }

  if (training) {
    std::vector<int> twin(forward, -1);
    for (int v = 0; v < forward; ++v)
      if (chance(rng, 0.8)) {
        twin[v] = makeNode(true);
        inst.nodes[twin[v]].supportedOnFpga = inst.nodes[v].supportedOnFpga;
        if (!inst.nodes[v].colorClass) inst.nodes[v].colorClass = 8000 + v;
        inst.nodes[twin[v]].colorClass = inst.nodes[v].colorClass;
      }
    for (auto [u, v] : forwardEdges)
      if (twin[u] >= 0 && twin[v] >= 0 && chance(rng, 0.9)) addEdge(twin[v], twin[u]);
    const int last = order[forward - 1];
    if (twin[last] >= 0) addEdge(last, twin[last]);
    for (int v = 0; v < forward; ++v)  // stashed activations
      for (int t = 0; t < forward; ++t)
        if (twin[t] >= 0 && t != last && chance(rng, 0.08)) addEdge(v, twin[t]);
    if (chance(rng, 0.3)) {  // an orphan backward node fed by some twin
      int orphan = makeNode(true);
      std::vector<int> twins;
      for (int t : twin)
        if (t >= 0) twins.push_back(t);
      if (!twins.empty())
        addEdge(twins[uniformInt(rng, 0, static_cast<int>(twins.size()) - 1)], orphan);
    }
  }
  inst.machine.maxFpgas = uniformInt(rng, 1, 3);
  inst.machine.maxCpus = uniformInt(rng, 0, 2);
  double totalSize = 0;
  for (const Node& node : inst.nodes) totalSize += node.size;
  inst.machine.maxSizePerFpga =
      chance(rng, 0.3) ? 1e12
                       : std::round(totalSize * std::uniform_real_distribution<double>(0.2, 0.9)(rng));

  std::string error;
  auto built = buildWorkload("random", inst.machine, inst.nodes, inst.edges, &error);
  if (!built)
    ADD_FAILURE() << "generated an invalid workload: " << error;
  else
    inst.workload = std::move(*built);
  return inst;
}

/// Random placement on numAccelerators + numCpus devices; classes are kept
/// together most of the time so that both feasible and infeasible ones occur.
Placement randomPlacement(Rng& rng, const Instance& inst, int numAccelerators, int numCpus,
                          bool allowUnplaced) {
  Placement p;
  p.numAccelerators = numAccelerators;
  p.numCpus = numCpus;
  const int devices = numAccelerators + numCpus;
  p.deviceOf.assign(inst.n(), 0);
  const bool keepClasses = chance(rng, 0.8);
  const bool respectSupport = chance(rng, 0.7);
  for (int v = 0; v < inst.n(); ++v) {
    int device = uniformInt(rng, 0, devices - 1);
    if (respectSupport && !inst.nodes[v].supportedOnFpga && numCpus > 0)
      device = numAccelerators + uniformInt(rng, 0, numCpus - 1);
    for (int u = 0; u < v && keepClasses; ++u)
      if (inst.sameClass(u, v)) device = p.deviceOf[u];
    p.deviceOf[v] = device;
  }
  if (allowUnplaced && chance(rng, 0.03))
    p.deviceOf[uniformInt(rng, 0, inst.n() - 1)] = Placement::kUnplaced;
  return p;
}

// ---------------------------------------------------------------------------
// docs/model.md §2: feasibility.

struct Verdict {
  bool feasible = true;
  bool unplaced = false;
};

Verdict placementConstraints(const Instance& inst, const Placement& p, bool countCpus) {
  Verdict verdict;
  std::set<int> accelerators, cpus;
  std::map<int, double> memory;
  for (int v = 0; v < inst.n(); ++v) {
    const int d = p.deviceOf[v];
    if (d == Placement::kUnplaced) {
      verdict.unplaced = true;
      continue;
    }
    for (int u = 0; u < v; ++u)
      if (inst.sameClass(u, v) && p.deviceOf[u] != Placement::kUnplaced && p.deviceOf[u] != d)
        verdict.feasible = false;
    if (d < p.numAccelerators) {
      accelerators.insert(d);
      memory[d] += inst.nodes[v].size;
      if (!inst.nodes[v].supportedOnFpga) verdict.feasible = false;
    } else {
      cpus.insert(d);
    }
  }
  for (auto [device, bytes] : memory)
    if (bytes > inst.machine.maxSizePerFpga) verdict.feasible = false;
  if (static_cast<int>(accelerators.size()) > inst.machine.maxFpgas) verdict.feasible = false;
  if (countCpus && static_cast<int>(cpus.size()) > inst.machine.maxCpus) verdict.feasible = false;
  if (verdict.unplaced) verdict.feasible = false;
  return verdict;
}

// ---------------------------------------------------------------------------
// docs/model.md §3: per-device loads, by set membership and a scan of all raw edges.

struct Loads {
  double total = 0, forward = 0, backward = 0, memory = 0;
  int nodes = 0;
};

std::map<int, Loads> throughputLoads(const Instance& inst, const Placement& p) {
  std::map<int, Loads> loads;
  for (int d = 0; d < p.numDevices(); ++d) {
    std::set<std::int64_t> members;
    for (int v = 0; v < inst.n(); ++v)
      if (p.deviceOf[v] == d) members.insert(inst.nodes[v].id);
    if (members.empty()) continue;
    Loads& l = loads[d];
    const bool accelerator = d < p.numAccelerators;
    for (int v = 0; v < inst.n(); ++v) {
      if (!members.count(inst.nodes[v].id)) continue;
      ++l.nodes;
      const double work = accelerator ? inst.nodes[v].fpgaLatency : inst.nodes[v].cpuLatency;
      (inst.nodes[v].isBackward ? l.backward : l.forward) += work;
      if (accelerator) l.memory += inst.nodes[v].size;
    }
    if (accelerator) {
      // X(A): sources with an edge having exactly one endpoint in A, paid once.
      std::set<std::int64_t> crossingSources;
      for (const RawEdge& e : inst.edges)
        if (members.count(e.sourceId) != members.count(e.destId)) crossingSources.insert(e.sourceId);
      for (std::int64_t id : crossingSources) {
        const int u = inst.position(id);
        (inst.nodes[u].isBackward ? l.backward : l.forward) += inst.sourceCost(u);
      }
    }
    l.total = l.forward + l.backward;
  }
  return loads;
}

// ---------------------------------------------------------------------------
// docs/model.md §4: contiguity by trying every order of the non-empty blocks.

bool contiguousByPermutations(const Instance& inst, const Placement& p) {
  std::vector<int> blocks;
  for (int d = 0; d < p.numDevices(); ++d)
    if (std::count(p.deviceOf.begin(), p.deviceOf.end(), d)) blocks.push_back(d);
  std::sort(blocks.begin(), blocks.end());
  do {
    std::map<int, int> rank;
    for (int i = 0; i < static_cast<int>(blocks.size()); ++i) rank[blocks[i]] = i;
    bool ok = true;
    for (const RawEdge& e : inst.edges) {
      const int u = inst.position(e.sourceId), v = inst.position(e.destId);
      if (inst.nodes[u].isBackward || inst.nodes[v].isBackward) continue;
      if (p.deviceOf[u] == Placement::kUnplaced || p.deviceOf[v] == Placement::kUnplaced) continue;
      if (rank[p.deviceOf[u]] > rank[p.deviceOf[v]]) ok = false;
    }
    if (ok) return true;
  } while (std::next_permutation(blocks.begin(), blocks.end()));
  return false;
}

// ---------------------------------------------------------------------------
// docs/model.md §5: latency by enumerating every path for the piece indices, then a
// fixed-point schedule of pieces and CPU nodes.

struct LatencyResult {
  bool cyclic = false;
  double latency = 0;
  std::map<int, int> pieces;     ///< per accelerator holding nodes
  std::map<int, double> finish;  ///< per non-empty device
};

LatencyResult simulateLatency(const Instance& inst, const Placement& p) {
  const int n = inst.n();
  std::vector<std::set<int>> succ(n);
  for (const RawEdge& e : inst.edges) succ[inst.position(e.sourceId)].insert(inst.position(e.destId));
  auto onAccelerator = [&](int v) {
    return p.deviceOf[v] != Placement::kUnplaced && p.deviceOf[v] < p.numAccelerators;
  };

  // Piece index of v = 1 + max re-entries into v's device set over all paths ending at v.
  std::vector<int> piece(n, 0);
  std::vector<int> path;
  std::function<void(int)> walk = [&](int v) {
    path.push_back(v);
    if (onAccelerator(v)) {
      const int d = p.deviceOf[v];
      int reentries = 0;
      bool inside = false, left = false;
      for (int x : path) {
        const bool in = p.deviceOf[x] == d;
        if (in && left && !inside) ++reentries;
        if (in) {
          inside = true;
          left = false;
        } else if (inside || left) {
          inside = false;
          left = true;
        }
      }
      piece[v] = std::max(piece[v], 1 + reentries);
    }
    for (int x : succ[v]) walk(x);
    path.pop_back();
  };
  for (int v = 0; v < n; ++v) walk(v);

  // Tasks: (device, piece) for accelerators, (device, -1 - v) for others.
  auto taskOf = [&](int v) {
    return onAccelerator(v) ? std::pair{p.deviceOf[v], piece[v]} : std::pair{p.deviceOf[v], -1 - v};
  };
  std::map<std::pair<int, int>, std::set<int>> members;
  for (int v = 0; v < n; ++v) members[taskOf(v)].insert(v);
  LatencyResult result;
  for (int v = 0; v < n; ++v)
    if (onAccelerator(v))
      result.pieces[p.deviceOf[v]] = std::max(result.pieces[p.deviceOf[v]], piece[v]);

  std::map<std::pair<int, int>, double> duration;
  std::map<std::pair<int, int>, std::set<std::pair<int, int>>> waitsFor;
  for (const auto& [task, nodes] : members) {
    const bool isPiece = task.second > 0;
    double time = 0;
    std::set<int> feeders, senders;
    for (int v = 0; v < n; ++v)
      for (int x : succ[v]) {
        if (!nodes.count(v) && nodes.count(x)) {
          feeders.insert(v);
          waitsFor[task].insert(taskOf(v));
        }
        if (nodes.count(v) && !nodes.count(x)) senders.insert(v);
      }
    for (int v : nodes)
      time += isPiece ? inst.nodes[v].fpgaLatency
                      : (p.deviceOf[v] == Placement::kUnplaced ? 0 : inst.nodes[v].cpuLatency);
    if (isPiece) {
      for (int u : feeders) time += inst.sourceCost(u);
      for (int u : senders) time += inst.sourceCost(u);
      if (task.second > 1) waitsFor[task].insert({task.first, task.second - 1});
    }
    duration[task] = time;
  }
  // Finish times in an order where every task comes after what it waits for;
  // no such order means the waits form a cycle.
  std::map<std::pair<int, int>, double> finish;
  std::set<std::pair<int, int>> done;
  while (done.size() < duration.size()) {
    bool progress = false;
    for (const auto& [task, time] : duration) {
      if (done.count(task)) continue;
      double start = 0;
      bool ready = true;
      for (const auto& other : waitsFor[task]) {
        ready = ready && done.count(other);
        if (ready) start = std::max(start, finish[other]);
      }
      if (!ready) continue;
      finish[task] = start + time;
      done.insert(task);
      progress = true;
    }
    if (!progress) {
      result.cyclic = true;
      return result;
    }
  }
  for (int v = 0; v < n; ++v) {
    const double f = finish[taskOf(v)];
    result.latency = std::max(result.latency, f);
    if (p.deviceOf[v] != Placement::kUnplaced)
      result.finish[p.deviceOf[v]] = std::max(result.finish[p.deviceOf[v]], f);
  }
  return result;
}

const DeviceReport* reportFor(const Evaluation& evaluation, const Placement& p, int device) {
  for (const DeviceReport& r : evaluation.devices) {
    const int d = r.accelerator ? r.index : p.numAccelerators + r.index;
    if (d == device) return &r;
  }
  return nullptr;
}

double relative(double a, double b) { return std::fabs(a - b) / std::max(1.0, std::fabs(b)); }

// ---------------------------------------------------------------------------

TEST(EvaluatorBruteForce, ThroughputLoadsMemoryFeasibilityAndContiguity) {
  Rng rng(20260129);
  int placements = 0, feasible = 0, infeasible = 0, nonContiguous = 0;
  for (int instance = 0; instance < 1000; ++instance) {
    const Instance inst = randomInstance(rng, 7, chance(rng, 0.6));
    if (inst.workload.numNodes() != inst.n()) continue;
    for (int trial = 0; trial < 8; ++trial, ++placements) {
      // Sometimes more accelerators than maxFPGAs, so "too many" can happen.
      const int accelerators = inst.machine.maxFpgas + (chance(rng, 0.25) ? 1 : 0);
      const int cpus = std::max(inst.machine.maxCpus, chance(rng, 0.2) ? 2 : 0);
      if (accelerators + cpus == 0) continue;
      const Placement p = randomPlacement(rng, inst, accelerators, cpus, true);
      SCOPED_TRACE("instance " + std::to_string(instance) + " trial " + std::to_string(trial));

      const Verdict verdict = placementConstraints(inst, p, /*countCpus=*/true);
      EvaluateOptions options;
      const Evaluation e = evaluate(inst.workload, p, options);
      EXPECT_EQ(e.feasible, verdict.feasible) << (e.violations.empty() ? "" : e.violations[0]);
      EXPECT_EQ(e.feasible, e.violations.empty());
      (verdict.feasible ? feasible : infeasible)++;

      const bool contiguous = contiguousByPermutations(inst, p);
      EXPECT_EQ(isContiguous(inst.workload, p), contiguous);
      EXPECT_EQ(e.contiguous, contiguous);
      nonContiguous += !contiguous;
      EvaluateOptions strict;
      strict.requireContiguous = true;
      EXPECT_EQ(evaluate(inst.workload, p, strict).feasible, verdict.feasible && contiguous);

      if (verdict.unplaced) continue;  // loads of a partial placement are not specified
      const auto loads = throughputLoads(inst, p);
      double maxLoad = 0, maxForward = 0, maxBackward = 0;
      for (const auto& [device, l] : loads) {
        maxLoad = std::max(maxLoad, l.total);
        maxForward = std::max(maxForward, l.forward);
        maxBackward = std::max(maxBackward, l.backward);
        const DeviceReport* r = reportFor(e, p, device);
        ASSERT_NE(r, nullptr) << "no report for device " << device;
        EXPECT_EQ(r->accelerator, device < p.numAccelerators);
        EXPECT_EQ(r->numNodes, l.nodes);
        EXPECT_LT(relative(r->load, l.total), 1e-9) << r->load << " vs " << l.total;
        EXPECT_LT(relative(r->forwardLoad, l.forward), 1e-9);
        EXPECT_LT(relative(r->backwardLoad, l.backward), 1e-9);
        EXPECT_LT(relative(r->memory, l.memory), 1e-9);
      }
      EXPECT_EQ(e.devices.size(), loads.size()) << "one report per non-empty device";
      EXPECT_LT(relative(e.objective, maxLoad), 1e-9) << e.objective << " vs " << maxLoad;

      EvaluateOptions diff;
      diff.diffMaxima = true;
      const Evaluation d = evaluate(inst.workload, p, diff);
      EXPECT_LT(relative(d.objective, maxForward + maxBackward), 1e-9);
      EXPECT_EQ(d.feasible, verdict.feasible);
    }
  }
  // The random mix must exercise both verdicts and both contiguity answers.
  EXPECT_GT(placements, 7000);
  EXPECT_GT(feasible, 300);
  EXPECT_GT(infeasible, 300);
  EXPECT_GT(nonContiguous, 100);
}

TEST(EvaluatorBruteForce, LatencyPiecesScheduleAndCycles) {
  Rng rng(777);
  int placements = 0, cyclic = 0, multiPiece = 0, feasible = 0;
  for (int instance = 0; instance < 800; ++instance) {
    const Instance inst = randomInstance(rng, 6, chance(rng, 0.4));
    if (inst.workload.numNodes() != inst.n()) continue;
    for (int trial = 0; trial < 8; ++trial, ++placements) {
      const int accelerators = inst.machine.maxFpgas;
      const int cpus = std::max(1, inst.machine.maxCpus);
      const Placement p = randomPlacement(rng, inst, accelerators, cpus, false);
      SCOPED_TRACE("instance " + std::to_string(instance) + " trial " + std::to_string(trial));
      EvaluateOptions options;
      options.objective = Objective::Latency;
      options.q = uniformInt(rng, 1, 3);
      const Evaluation e = evaluate(inst.workload, p, options);

      const LatencyResult sim = simulateLatency(inst, p);
      bool ok = placementConstraints(inst, p, /*countCpus=*/false).feasible && !sim.cyclic;
      for (auto [device, pieces] : sim.pieces) {
        ok = ok && pieces <= options.q;
        multiPiece += pieces > 1;
      }
      EXPECT_EQ(e.feasible, ok) << (e.violations.empty() ? "" : e.violations[0]);
      cyclic += sim.cyclic;
      feasible += ok;
      if (sim.cyclic) {
        bool named = false;
        for (const auto& v : e.violations) named |= v.find("cycle") != std::string::npos;
        EXPECT_TRUE(named) << "cyclic waits not reported";
        continue;
      }
      EXPECT_LT(relative(e.objective, sim.latency), 1e-9) << e.objective << " vs " << sim.latency;
      for (const auto& [device, finish] : sim.finish) {
        const DeviceReport* r = reportFor(e, p, device);
        ASSERT_NE(r, nullptr);
        EXPECT_LT(relative(r->finish, finish), 1e-9) << "device " << device;
        if (device < p.numAccelerators) {
          EXPECT_EQ(r->pieces, sim.pieces.at(device));
        }
      }
    }
  }
  EXPECT_GT(placements, 6000);
  EXPECT_GT(cyclic, 20);
  EXPECT_GT(multiPiece, 200);
  EXPECT_GT(feasible, 300);
}

// Generated (larger, realistic) workloads: loads and objective on random
// placements that follow the color classes.
TEST(EvaluatorBruteForce, GeneratedWorkloads) {
  Rng rng(99);
  for (GraphShape shape : {GraphShape::Transformer, GraphShape::Cnn, GraphShape::SeriesParallel}) {
    GeneratorOptions g;
    g.shape = shape;
    g.blocks = 2;
    g.width = 2;
    g.training = true;
    g.accelerators = 3;
    g.cpus = 2;
    Instance inst;
    inst.workload = generateWorkload(g);
    inst.machine = inst.workload.machine;
    inst.nodes = inst.workload.graph().nodes;
    // Rebuild the raw edge list from the JSON the generator writes, so the
    // costs come from the file format, not from Workload::outCost.
    std::string error;
    auto reparsed = parseWorkload(workloadToJson(inst.workload), "gen.json", &error);
    ASSERT_TRUE(reparsed) << error;
    for (const Edge& e : reparsed->graph().edges)
      inst.edges.push_back({reparsed->graph().nodes[e.source].id, reparsed->graph().nodes[e.dest].id,
                            reparsed->graph().outCost[e.source]});
    for (int trial = 0; trial < 40; ++trial) {
      const Placement p = randomPlacement(rng, inst, 3, 2, false);
      const auto loads = throughputLoads(inst, p);
      const Evaluation e = evaluate(inst.workload, p, {});
      double maxLoad = 0;
      for (const auto& [device, l] : loads) {
        maxLoad = std::max(maxLoad, l.total);
        const DeviceReport* r = reportFor(e, p, device);
        ASSERT_NE(r, nullptr);
        EXPECT_LT(relative(r->load, l.total), 1e-9);
        EXPECT_LT(relative(r->memory, l.memory), 1e-9);
      }
      EXPECT_LT(relative(e.objective, maxLoad), 1e-9);
      EXPECT_EQ(e.feasible, placementConstraints(inst, p, true).feasible);
    }
  }
}

}  // namespace
}  // namespace dnnplace
