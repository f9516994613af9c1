#pragma once
/// Synthetic but realistically shaped workloads: examples, tests, benchmarks.
///
/// Costs follow a simple device model so the numbers look like profiled ones:
/// an accelerator runs 5 TFLOP/s (elementwise ops are bound by 500 GB/s of
/// memory bandwidth), a CPU core is 10x slower, the host link moves 12 GB/s,
/// every operator has a small launch overhead, and each value gets a seeded
/// ±20% jitter. Latencies and costs are in milliseconds, sizes in bytes.

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
  int blocks = 4;         ///< layers (chain) or blocks (others)
  int width = 4;          ///< attention heads / parallel branches (unused by chain and cnn)
  bool training = false;  ///< add backward twins sharing color classes
  std::uint64_t seed = 1;
  int accelerators = 4;
  int cpus = 1;
  double memoryPerAccelerator = 16e9;  ///< bytes
  /// Series-parallel: nodes on each parallel chain. A block then has
  /// (chainLength + 1)^width ideals (width 10, length 3: about 10^6).
  int chainLength = 3;
  /// Fraction (0..1) of compute nodes, drawn with the seed, that cannot run on
  /// an accelerator (with their backward twins). 0: all supported.
  double unsupportedFraction = 0;
};

/// Largest graph generateWorkload agrees to build (forward nodes).
inline constexpr double kMaxGeneratedNodes = 2e6;

/// Checks the ranges generateWorkload accepts; on failure sets *error to one
/// line (without a file prefix) and returns false. Call it before
/// generateWorkload to report bad options instead of catching.
bool validGeneratorOptions(const GeneratorOptions& options, std::string* error);

/// Deterministic for given options. Latencies in milliseconds, sizes in bytes.
/// Every node has a colorClass; a backward twin shares its forward node's.
/// Throws std::invalid_argument for options out of range (blocks < 1, width < 1,
/// chainLength < 1, negative counts or memory, fraction outside [0, 1]).
Workload generateWorkload(const GeneratorOptions& options);

/// Parses "chain" / "transformer" / "cnn" / "series-parallel".
bool parseGraphShape(const std::string& text, GraphShape* shape);

}  // namespace dnnplace
