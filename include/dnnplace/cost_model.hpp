#pragma once
/// The analytic cost model of docs/model.md §8 (docs/cost-model.md), once:
/// an operator's latency on a device from its FLOPs and bytes, a tensor's
/// transfer time, an operator's memory, the backward twins of a training
/// graph, and a workload built from an operator graph described by its
/// FLOPs and bytes (the ONNX importer and the PyTorch profiler both use it).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/graph.hpp"
#include "dnnplace/import.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

/// 1000 · (max(flops / peakFlops, bytes / memoryBandwidth) + opOverhead): milliseconds.
double operatorLatencyMs(double flops, double bytes, const DeviceSpec& device);

/// 1000 · bytes / linkBandwidth: milliseconds to move a tensor between devices.
double transferMs(double bytes, const DeviceSpec& accelerator);

/// What the memory rules depend on.
struct MemoryRules {
  bool training = false;
  double optimizerStates = 2;  ///< training: optimizer-state copies per parameter
};

/// Memory of parameters: × (2 + optimizerStates) in training (a gradient and
/// the optimizer's states beside each weight), as they are in inference.
double parameterMemory(double parameterBytes, const MemoryRules& rules);

/// An operator's size: its parameters' memory, its constants, and in training
/// the outputs it keeps for the backward pass.
double operatorMemory(double parameterBytes, double constantBytes, double outputBytes,
                      const MemoryRules& rules);

/// parameterSize (what a replicated stage's all-reduce moves, docs/model.md
/// §9): the weights in training, nothing in inference.
double allReduceBytes(double parameterBytes, const MemoryRules& rules);

/// The machine of an imported workload: k accelerators of the spec's memory,
/// ℓ cores, and for replicated stages (docs/model.md §9) syncBandwidth in bytes
/// per millisecond from `syncBandwidth` bytes per second, or when that is 0
/// from the accelerator's own figure (none when it has none either).
Machine costedMachine(const DeviceSpec& accelerator, int accelerators, int cpus, double syncBandwidth,
                      double samplesPerSync);

/// The forward graph a training graph's backward half is built from.
struct ForwardGraph {
  std::vector<Node> nodes;     ///< any distinct ids; twins take ids after the largest
  std::vector<RawEdge> edges;  ///< with their costs
  /// Per node: FLOPs and bytes of a compute node; nullopt for a zero-work
  /// node (a model input, a shared parameter), which has no twin.
  std::vector<std::optional<std::pair<double, double>>> work;
  /// Per node: its measured CPU latency (ms) if any; its twin takes twice it.
  std::vector<std::optional<double>> measuredCpuMs;
  /// Per edge between compute nodes (by ids): the bytes it carries.
  std::map<std::pair<std::int64_t, std::int64_t>, double> activationBytes;
  std::vector<std::int64_t> outputNodes;  ///< ids of the compute nodes that make a model output
  std::vector<double> cost;               ///< per node (by position): its forward cost
  std::int64_t firstBackwardId = 0;  ///< twins' ids: from the larger of this and the largest id + 1
};

/// Adds a backward twin per compute node, in its color class, at twice its
/// forward FLOPs and bytes; a reversed edge per forward edge between compute
/// nodes, costed by the largest gradient the twin sends; and an edge from
/// each output node to its twin (the loss's gradient).
void addBackwardTwins(ForwardGraph& graph, const DeviceSpec& accelerator, const DeviceSpec& cpu);

/// One operator of a graph given by its work (the PyTorch profiler's fx nodes).
struct CostOperator {
  std::string name;
  std::optional<std::int64_t> id;  ///< the node's id; default its position
  bool compute = true;             ///< false: a zero-work source (a model input)
  std::optional<double> flops;     ///< nullopt: no FLOP rule, estimated by bytes only
  double bytes = 0;                ///< input and output tensors, parameters included
  double parameterBytes = 0;
  double constantBytes = 0;
  double outputBytes = 0;
  std::optional<double> cpuLatencyMs;  ///< measured; else the CPU core's roofline
  std::string layer;                   ///< owning module ("" for none): its layerId
};

/// A value one operator makes and others read.
struct CostTensor {
  int producer = 0;
  std::vector<int> consumers;
  double bytes = 0;
  bool isOutput = false;  ///< a model output (training: the loss's gradient starts there)
};

struct CostModelOptions {
  DeviceSpec accelerator;
  DeviceSpec cpu;
  int accelerators = 1;
  int cpus = 0;
  MemoryRules memory;
  double syncBandwidth = 0;          ///< bytes per second; 0: the accelerator's syncBandwidth
  double samplesPerSync = 1;         ///< samples between two gradient all-reduces
  bool contractLayers = false;       ///< fuse the operators of each layer into one node
  std::int64_t firstBackwardId = 0;  ///< training: the backward twins' ids start here or later
};

/// The workload of docs/model.md §8 for such a graph: a node per operator
/// (backward twins follow in training); tensors name operators by position, cost(u) = transfer of u's
/// tensors that others read. On failure nullopt and *error one line naming `name`.
std::optional<Workload> buildCostedWorkload(const std::string& name,
                                            const std::vector<CostOperator>& operators,
                                            const std::vector<CostTensor>& tensors,
                                            const CostModelOptions& options, std::string* error);

}  // namespace dnnplace
