#pragma once
/// Importers: real models in as workloads (docs/cost-model.md, docs/model.md §8).
/// An ONNX graph through the analytic device cost model, a PipeDream layer
/// profile as measured, a Piper input (degree 1), and the device specs both cost models use.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace {

/// One device of docs/model.md §8: FLOP/s, bytes/s, bytes, bytes/s between
/// accelerator and host, seconds per operator. A CPU core has no memory or
/// link figure (0).
struct DeviceSpec {
  std::string name;
  double peakFlops = 0;
  double memoryBandwidth = 0;
  double memory = 0;
  double linkBandwidth = 0;
  double opOverhead = 0;
  std::string source;  ///< where the published figures come from
  /// The product's full name ("A100-SXM4-40GB"), accepted by loadDeviceSpec
  /// as the short name is; empty when the short name is all there is.
  std::string model;
  /// Bytes per second each accelerator sends to its peers (one direction of
  /// its NVLink-class interconnect): the default syncBandwidth of a replicated
  /// stage's gradient all-reduce (docs/model.md §9). 0: not known.
  double syncBandwidth = 0;
};

enum class DeviceKind { Accelerator, Cpu };

/// The catalog shipped with dnnplace (data/devices.json, built in).
const std::vector<std::pair<DeviceKind, DeviceSpec>>& deviceCatalog();

/// A device by catalog name (case-insensitive) or from a JSON file of the
/// docs/model.md §8 format. An accelerator needs all five figures positive
/// (opOverhead may be 0); a CPU core peakFlops, memoryBandwidth and opOverhead.
/// On failure returns nullopt and sets *error to one line naming the file or
/// name and the field.
std::optional<DeviceSpec> loadDeviceSpec(const std::string& nameOrPath, DeviceKind kind,
                                         std::string* error);

/// Why an import failed: bad input (exit 2), or a model that fits no device (exit 3).
struct ImportError {
  std::string message;  ///< one line naming the file and the operator, tensor or field
  bool infeasible = false;
};

struct OnnxImportOptions {
  std::string modelPath;
  DeviceSpec accelerator;
  DeviceSpec cpu;
  int accelerators = 1;  ///< k (maxFPGAs)
  int cpus = 0;          ///< ℓ (maxCPUs)
  bool training = false;
  /// Values of symbolic dimensions, e.g. {"batch", 8}.
  std::vector<std::pair<std::string, std::int64_t>> dims;
  /// Layer: the operators of one module (their name's scope) fused into one node.
  enum class Granularity { Operator, Layer };
  Granularity granularity = Granularity::Operator;
  /// A layer is a module at most this deep in the module tree (its scope's
  /// first components: 2 makes "/layer1/layer1.0" of "/layer1/layer1.0/conv1/Conv");
  /// 0: the innermost module of each operator.
  int layerDepth = 0;
  /// Training: optimizer-state copies per parameter (Adam's two moments).
  double optimizerStates = 2;
  /// Replicated stages' all-reduce: bytes per second (0: the accelerator's
  /// syncBandwidth, if it has one) and samples between two synchronizations.
  double syncBandwidth = 0;
  double samplesPerSync = 1;
};

/// What the importer saw, for its summary line.
struct ImportSummary {
  int operators = 0;                        ///< ONNX operators (compute nodes before any fusion)
  double parameterBytes = 0;                ///< bytes of all parameters
  double forwardFlops = 0;                  ///< FLOPs of one forward pass
  std::vector<std::string> bytesOnlyTypes;  ///< operator types estimated by bytes only
};

/// The summary `import onnx` prints on stderr: operators, nodes, parameter
/// bytes, forward FLOPs, and the operator types estimated by bytes only.
std::string importSummaryText(const ImportSummary& summary, const Workload& workload,
                              const std::string& device);

/// The summary `import pipedream` and `import piper` print on stderr: nodes
/// (forward, backward), edges, parameter bytes, the machine.
std::string importedWorkloadSummary(const std::string& importer, const Workload& workload);

/// The catalog as a table, one line per device (for --help).
std::string deviceCatalogText();

/// Reads an ONNX model (docs/model.md §8) into a workload on k accelerators and ℓ cores.
std::optional<Workload> importOnnx(const OnnxImportOptions& options, ImportSummary* summary,
                                   ImportError* error);

struct PipedreamImportOptions {
  std::string profilePath;  ///< PipeDream's graph.txt
  double bandwidth = 0;     ///< bytes per second between stages (and for the all-reduce)
  int accelerators = 1;
  int cpus = 0;
  double memory = 0;  ///< bytes per accelerator
  bool training = false;
  /// Charge activation transfers at `bandwidth` (false: PipeDream's planner's default, free).
  bool chargeActivations = true;
};

/// Reads a PipeDream layer profile (docs/import.md) into a workload.
std::optional<Workload> importPipedream(const PipedreamImportOptions& options, ImportError* error);

struct PiperImportOptions {
  std::string inputPath;  ///< one of Piper's inputs/*.json
  /// Absent: the file's maxDevices, maxMemoryPerDevice, bandwidth (bytes per second, between
  /// stages and for the all-reduce).
  std::optional<int> accelerators;
  int cpus = 0;
  std::optional<double> memory;
  std::optional<double> bandwidth;
  /// Charge activations and their gradients at `bandwidth` (false: no transfer cost).
  bool chargeActivations = true;
  /// Microbatches whose activations a replica holds (Piper's y): size = b + inFlight * a.
  double inFlight = 1;
  /// samplesPerSync (docs/model.md §9); absent: the file's mbsInBatch.
  std::optional<double> samplesPerSync;
};

/// Reads a Piper input (tensor-parallel degree 1; docs/import.md) into a workload.
std::optional<Workload> importPiper(const PiperImportOptions& options, ImportError* error);

/// Fuses the nodes of each layer (equal layerId; forward and backward nodes
/// apart) into one node, as the reference's -contractLayers does: latencies,
/// sizes and parameter sizes add up; the fused node's cost is the sum of the
/// costs of its members with an edge out of the layer; color classes of the
/// members are merged. Nodes without a layerId stay as they are. Layers on a
/// directed cycle of the fused graph are fused together. Fails (nullopt,
/// *error) only if the result breaks a rule of docs/model.md §1.
std::optional<Workload> contractLayers(const Workload& workload, std::string* error);

}  // namespace dnnplace
