// The analytic cost model of docs/model.md §8, once: the ONNX importer
// (src/import/onnx.cpp) and the PyTorch profiler (python/dnnplace/torch.py,
// through python/src/cost_model.cpp) both call it.

#include "dnnplace/cost_model.hpp"

#include <algorithm>
#include <map>

namespace dnnplace {

double operatorLatencyMs(double flops, double bytes, const DeviceSpec& device) {
  return 1000 *
         (std::max(flops / device.peakFlops, bytes / device.memoryBandwidth) + device.opOverhead);
}

double transferMs(double bytes, const DeviceSpec& accelerator) {
  return 1000 * bytes / accelerator.linkBandwidth;
}

double parameterMemory(double parameterBytes, const MemoryRules& rules) {
  return rules.training ? parameterBytes * (2 + rules.optimizerStates) : parameterBytes;
}

double operatorMemory(double parameterBytes, double constantBytes, double outputBytes,
                      const MemoryRules& rules) {
  return parameterMemory(parameterBytes, rules) + constantBytes + (rules.training ? outputBytes : 0);
}

double allReduceBytes(double parameterBytes, const MemoryRules& rules) {
  return rules.training ? parameterBytes : 0;
}

Machine costedMachine(const DeviceSpec& accelerator, int accelerators, int cpus, double syncBandwidth,
                      double samplesPerSync) {
  Machine machine;
  machine.maxSizePerFpga = accelerator.memory;
  machine.maxFpgas = accelerators;
  machine.maxCpus = cpus;
  // Bytes per second to the workload's bytes per millisecond. In inference
  // parameterSize is 0, so replicas cost no all-reduce and only divide the load.
  machine.syncBandwidth = (syncBandwidth > 0 ? syncBandwidth : accelerator.syncBandwidth) / 1000.0;
  machine.samplesPerSync = samplesPerSync;
  return machine;
}

void addBackwardTwins(ForwardGraph& graph, const DeviceSpec& accelerator, const DeviceSpec& cpu) {
  const std::size_t numForward = graph.nodes.size();
  std::map<std::int64_t, std::size_t> position;  // forward node id -> index
  std::int64_t nextId = graph.firstBackwardId;
  for (std::size_t v = 0; v < numForward; ++v) {
    position[graph.nodes[v].id] = v;
    nextId = std::max(nextId, graph.nodes[v].id + 1);
  }
  std::map<std::int64_t, std::int64_t> twin;  // forward id -> backward id
  for (std::size_t forward = 0; forward < numForward; ++forward) {
    if (!graph.work[forward]) continue;
    const auto [flops, bytes] = *graph.work[forward];
    const std::int64_t forwardId = graph.nodes[forward].id;
    Node node;
    node.id = nextId++;
    node.name = graph.nodes[forward].name + " (backward)";
    node.isBackward = true;
    node.layerId = graph.nodes[forward].layerId;
    node.fpgaLatency = operatorLatencyMs(2 * flops, 2 * bytes, accelerator);
    node.cpuLatency = forward < graph.measuredCpuMs.size() && graph.measuredCpuMs[forward]
                          ? 2 * *graph.measuredCpuMs[forward]
                          : operatorLatencyMs(2 * flops, 2 * bytes, cpu);
    node.supportedOnFpga = graph.nodes[forward].supportedOnFpga;
    graph.nodes[forward].colorClass = forwardId;
    node.colorClass = forwardId;
    twin[forwardId] = node.id;
    graph.nodes.push_back(std::move(node));
  }
  // The largest gradient a backward node sends is its cost (one cost per source).
  std::map<std::int64_t, double> largest;
  for (const auto& [pair, bytes] : graph.activationBytes) {
    double& cost = largest[twin.at(pair.second)];
    cost = std::max(cost, transferMs(bytes, accelerator));
  }
  const std::size_t numForwardEdges = graph.edges.size();
  for (std::size_t e = 0; e < numForwardEdges; ++e) {
    const RawEdge edge = graph.edges[e];
    const auto from = twin.find(edge.sourceId), to = twin.find(edge.destId);
    if (from == twin.end() || to == twin.end()) continue;
    graph.edges.push_back({to->second, from->second, largest[to->second]});
  }
  // The loss's gradient starts where the model's outputs are made.
  for (std::int64_t forward : graph.outputNodes)
    graph.edges.push_back({forward, twin.at(forward), graph.cost[position.at(forward)]});
}

std::optional<Workload> buildCostedWorkload(const std::string& name,
                                            const std::vector<CostOperator>& operators,
                                            const std::vector<CostTensor>& tensors,
                                            const CostModelOptions& options, std::string* error) {
  for (const auto& [spec, what] :
       {std::pair{&options.accelerator, "accelerator"}, std::pair{&options.cpu, "CPU core"}})
    if (!(spec->peakFlops > 0) || !(spec->memoryBandwidth > 0)) {
      *error = name + ": the " + std::string(what) + " spec '" + spec->name +
               "' needs a positive peakFlops and memoryBandwidth";
      return std::nullopt;
    }
  if (!(options.accelerator.linkBandwidth > 0)) {
    *error = name + ": the accelerator spec '" + options.accelerator.name +
             "' needs a positive linkBandwidth";
    return std::nullopt;
  }
  const auto n = static_cast<int>(operators.size());
  ForwardGraph graph;
  graph.cost.assign(n, 0);
  std::map<std::string, std::int64_t> layerOf;
  for (int o = 0; o < n; ++o) {
    const CostOperator& op = operators[o];
    Node node;
    node.id = op.id.value_or(o);
    node.name = op.name;
    if (op.compute) {
      const double flops = op.flops.value_or(0);
      node.fpgaLatency = operatorLatencyMs(flops, op.bytes, options.accelerator);
      node.cpuLatency = op.cpuLatencyMs ? *op.cpuLatencyMs
                                        : operatorLatencyMs(flops, op.bytes, options.cpu);
      graph.work.push_back(std::pair{flops, op.bytes});
    } else {
      graph.work.push_back(std::nullopt);
    }
    graph.measuredCpuMs.push_back(op.cpuLatencyMs);
    node.size = operatorMemory(op.parameterBytes, op.constantBytes, op.outputBytes, options.memory);
    node.parameterSize = allReduceBytes(op.parameterBytes, options.memory);
    if (!op.layer.empty()) {
      const auto [it, added] = layerOf.try_emplace(op.layer, static_cast<std::int64_t>(layerOf.size()));
      node.layerId = it->second;
    }
    graph.nodes.push_back(std::move(node));
  }
  std::vector<char> isOutput(n, 0);
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const CostTensor& tensor = tensors[t];
    if (tensor.producer < 0 || tensor.producer >= n) {
      *error = name + ": tensor " + std::to_string(t) + ": producer " +
               std::to_string(tensor.producer) + " is not an operator";
      return std::nullopt;
    }
    if (tensor.isOutput) isOutput[tensor.producer] = 1;
    bool read = false;
    for (int consumer : tensor.consumers) {
      if (consumer < 0 || consumer >= n) {
        *error = name + ": tensor " + std::to_string(t) + ": consumer " + std::to_string(consumer) +
                 " is not an operator";
        return std::nullopt;
      }
      if (consumer == tensor.producer) continue;
      read = true;
      const std::int64_t from = graph.nodes[tensor.producer].id, to = graph.nodes[consumer].id;
      graph.edges.push_back({from, to, 0});
      if (operators[tensor.producer].compute && operators[consumer].compute)
        graph.activationBytes[{from, to}] += tensor.bytes;
    }
    if (read) graph.cost[tensor.producer] += transferMs(tensor.bytes, options.accelerator);
  }
  std::map<std::int64_t, double> costOf;
  for (int o = 0; o < n; ++o) costOf[graph.nodes[o].id] = graph.cost[o];
  for (RawEdge& edge : graph.edges) edge.cost = costOf[edge.sourceId];
  for (int o = 0; o < n; ++o)
    if (isOutput[o] && operators[o].compute) graph.outputNodes.push_back(graph.nodes[o].id);
  graph.firstBackwardId = options.firstBackwardId;
  if (options.memory.training) addBackwardTwins(graph, options.accelerator, options.cpu);

  const Machine machine = costedMachine(options.accelerator, options.accelerators, options.cpus,
                                        options.syncBandwidth, options.samplesPerSync);
  std::string why;
  auto workload = buildWorkload(name, machine, std::move(graph.nodes), graph.edges, &why);
  if (!workload) {
    *error = name + ": the graph is not a valid workload: " + why;
    return std::nullopt;
  }
  if (!options.contractLayers) return workload;
  return contractLayers(*workload, error);
}

}  // namespace dnnplace
