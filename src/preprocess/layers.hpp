#pragma once
/// Layer contraction (docs/model.md §8 "Layers"): the nodes of each layerId
/// fused into one, with the map back to the original nodes, so that a plan
/// of the fused graph places the original one.

#include <optional>
#include <string>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace {

struct LayerFusion {
  Workload workload;               ///< the fused graph, on the same machine
  std::vector<NodeIndex> fusedOf;  ///< per original node: its node in `workload`
  int layersFusedByCycles = 0;     ///< layers fused into others because they formed a cycle
};

/// contractLayers (dnnplace/import.hpp) with the map back.
std::optional<LayerFusion> fuseLayers(const Workload& workload, std::string* error);

}  // namespace dnnplace
