#include "render/svg.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace dnnplace::render {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string deviceLabel(const Placement& placement, int device) {
  if (device < 0) return "unplaced";
  return placement.isAccelerator(device) ? "FPGA " + std::to_string(device)
                                         : "CPU " + std::to_string(device - placement.numAccelerators);
}

std::string deviceColour(const Placement& placement, int device) {
  static constexpr std::array<const char*, 12> kPalette = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                           "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                                                           "#9c755f", "#86bcb6", "#d37295", "#a0cbe8"};
  static constexpr std::array<const char*, 4> kGreys = {"#bab0ac", "#d4d4d4", "#9d9d9d", "#e8e8e8"};
  if (device < 0) return "#ffffff";
  if (placement.isAccelerator(device)) return kPalette[device % kPalette.size()];
  return kGreys[(device - placement.numAccelerators) % kGreys.size()];
}

const DeviceReport* reportOf(const Evaluation& evaluation, const Placement& placement, int device) {
  const bool accelerator = placement.isAccelerator(device);
  const int index = accelerator ? device : device - placement.numAccelerators;
  for (const auto& report : evaluation.devices)
    if (report.accelerator == accelerator && report.index == index) return &report;
  return nullptr;
}

std::vector<ComputeSplit> computeSplit(const Workload& workload, const Placement& placement) {
  std::vector<ComputeSplit> split(placement.numDevices());
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const int d = placement.deviceOf[v];
    if (d < 0 || d >= placement.numDevices()) continue;
    const Node& node = workload.graph().nodes[v];
    const double work = placement.isAccelerator(d) ? node.fpgaLatency : node.cpuLatency;
    (node.isBackward ? split[d].backward : split[d].forward) += work;
  }
  for (int d = 0; d < placement.numAccelerators; ++d) {
    const int r = std::max(placement.replicasOf(d), 1);
    split[d].forward /= r;
    split[d].backward /= r;
  }
  return split;
}

std::vector<int> pipelineOrder(const Workload& workload, const Placement& placement) {
  std::vector<int> first(placement.numDevices(), -1);
  const auto& order = workload.graph().topologicalOrder;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    const int d = placement.deviceOf[order[i]];
    if (d >= 0 && d < placement.numDevices() && first[d] < 0) first[d] = i;
  }
  std::vector<int> devices;
  for (int d = 0; d < placement.numDevices(); ++d)
    if (first[d] >= 0) devices.push_back(d);
  std::sort(devices.begin(), devices.end(), [&](int a, int b) { return first[a] < first[b]; });
  return devices;
}

}  // namespace dnnplace::render
