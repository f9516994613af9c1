#pragma once
// Small helpers shared by the render component's views: escaping, numbers,
// device names and colours, and the per-device split of the evaluator's loads.

#include <string>
#include <vector>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::render {

/// Text made safe inside XML/HTML content and attribute values.
std::string escape(const std::string& text);
/// A number as people read it: 4 significant digits ("12.35", "0.0012", "3.1e+09").
std::string num(double value);
/// "FPGA 2" or "CPU 0" for a device number of the placement.
std::string deviceLabel(const Placement& placement, int device);
/// A fill colour per device: accelerators from a qualitative palette, CPU cores in greys.
std::string deviceColour(const Placement& placement, int device);

/// The evaluator's report of a device, by device number (nullptr if empty).
const DeviceReport* reportOf(const Evaluation& evaluation, const Placement& placement, int device);

/// A device's compute per sample (its nodes' latencies on that device kind,
/// per replica), forward and backward; the rest of the evaluator's forward and
/// backward load is communication.
struct ComputeSplit {
  double forward = 0, backward = 0;
};
std::vector<ComputeSplit> computeSplit(const Workload& workload, const Placement& placement);

/// The used devices in pipeline order: by the topological position of their first node.
std::vector<int> pipelineOrder(const Workload& workload, const Placement& placement);

}  // namespace dnnplace::render
