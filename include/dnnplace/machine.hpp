#pragma once
/// The machine a workload runs on (docs/model.md §1): k accelerators of equal
/// memory and ℓ CPU cores. A value: methods that try other device counts
/// change the machine only, never the graph.

namespace dnnplace {

struct Machine {
  double maxSizePerFpga = 0;  ///< bytes per accelerator (JSON maxSizePerFPGA)
  int maxFpgas = 0;           ///< k, accelerators (JSON maxFPGAs)
  int maxCpus = 0;            ///< ℓ, CPU cores (JSON maxCPUs)
  /// docs/model.md §9: bytes per millisecond each replica has for the gradient
  /// all-reduce (0: absent, no replication); samples between two synchronizations.
  double syncBandwidth = 0;
  double samplesPerSync = 1;
};

}  // namespace dnnplace
