#pragma once
/// Synthetic but realistically shaped workloads: examples, tests, benchmarks.

#include <cstdint>
#include <string>

#include "dnnplace/workload.hpp"

namespace dnnplace {

enum class GraphShape {
  Chain,           ///< a simple sequence of layers
  Transformer,     ///< blocks of multi-head attention branches + MLP, residuals
  Cnn,             ///< residual blocks with a shortcut branch
  SeriesParallel,  ///< blocks of `width` independent parallel chains (many ideals)
};

struct GeneratorOptions {
  GraphShape shape = GraphShape::Chain;
  int blocks = 4;        ///< layers (chain) or blocks (others)
  int width = 4;         ///< attention heads / parallel branches
  bool training = false; ///< add backward twins sharing color classes
  std::uint64_t seed = 1;
  int accelerators = 4;
  int cpus = 1;
  double memoryPerAccelerator = 16e9;  ///< bytes
};

/// Deterministic for given options. Latencies in milliseconds, sizes in bytes.
Workload generateWorkload(const GeneratorOptions& options);

/// Parses "chain" / "transformer" / "cnn" / "series-parallel".
bool parseGraphShape(const std::string& text, GraphShape* shape);

}  // namespace dnnplace
