// The analytic cost model (include/dnnplace/cost_model.hpp) for Python: the
// PyTorch profiler (python/dnnplace/torch.py) describes each fx node by its
// FLOPs and bytes and the library turns them into latencies, costs, memory
// and, in training, backward twins.

#include <cmath>
#include <sstream>
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "dnnplace/cost_model.hpp"
#include "dnnplace/workload.hpp"

namespace py = pybind11;

namespace dnnplace::python {

namespace {

[[noreturn]] void invalid(const std::string& message) { throw py::value_error(message); }

std::string shown(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

DeviceSpec spec(const std::string& name, DeviceKind kind, const char* what) {
  std::string error;
  auto device = loadDeviceSpec(name, kind, &error);
  if (!device) invalid(std::string(what) + ": " + error);
  return std::move(*device);
}

template <typename T>
T field(const py::dict& d, const char* key, T fallback) {
  return d.contains(key) ? d[key].cast<T>() : fallback;
}

CostOperator operatorOf(const py::dict& d) {
  CostOperator op;
  op.name = d["name"].cast<std::string>();
  if (d.contains("id") && !d["id"].is_none()) op.id = d["id"].cast<std::int64_t>();
  op.compute = field(d, "compute", true);
  if (d.contains("flops") && !d["flops"].is_none()) op.flops = d["flops"].cast<double>();
  op.bytes = field(d, "bytes", 0.0);
  op.parameterBytes = field(d, "parameter_bytes", 0.0);
  op.constantBytes = field(d, "constant_bytes", 0.0);
  op.outputBytes = field(d, "output_bytes", 0.0);
  if (d.contains("cpu_latency_ms") && !d["cpu_latency_ms"].is_none())
    op.cpuLatencyMs = d["cpu_latency_ms"].cast<double>();
  op.layer = field(d, "layer", std::string());
  return op;
}

CostTensor tensorOf(const py::dict& d) {
  CostTensor tensor;
  tensor.producer = d["producer"].cast<int>();
  tensor.consumers = field(d, "consumers", std::vector<int>{});
  tensor.bytes = field(d, "bytes", 0.0);
  tensor.isOutput = field(d, "is_output", false);
  return tensor;
}

py::dict specDict(const DeviceSpec& s) {
  py::dict d;
  d["name"] = s.name;
  d["model"] = s.model;
  d["peakFlops"] = s.peakFlops;
  d["memoryBandwidth"] = s.memoryBandwidth;
  d["memory"] = s.memory;
  d["linkBandwidth"] = s.linkBandwidth;
  d["opOverhead"] = s.opOverhead;
  return d;
}

}  // namespace

void bindCostModel(py::module_& m) {
  m.def(
      "device_spec",
      [](const std::string& name, const std::string& kind) {
        if (kind != "accelerator" && kind != "cpu")
          invalid("device_spec: kind must be 'accelerator' or 'cpu'");
        return specDict(
            spec(name, kind == "cpu" ? DeviceKind::Cpu : DeviceKind::Accelerator, "device_spec"));
      },
      py::arg("name"), py::arg("kind") = "accelerator",
      "A device of the catalog (or a spec file) as the dict of its docs/model.md §8 figures.");
  m.def(
      "operator_latency_ms",
      [](double flops, double bytes, const std::string& device, const std::string& kind) {
        if (!(std::isfinite(flops) && flops >= 0 && std::isfinite(bytes) && bytes >= 0))
          invalid("operator_latency_ms: flops and bytes must be finite numbers >= 0, got " +
                  shown(flops) + " and " + shown(bytes));
        if (kind != "accelerator" && kind != "cpu")
          invalid("operator_latency_ms: kind must be 'accelerator' or 'cpu'");
        const DeviceKind k = kind == "cpu" ? DeviceKind::Cpu : DeviceKind::Accelerator;
        return operatorLatencyMs(flops, bytes, spec(device, k, "operator_latency_ms"));
      },
      py::arg("flops"), py::arg("bytes"), py::arg("device") = "a100", py::arg("kind") = "accelerator",
      "docs/model.md §8's roofline latency of one operator, in ms.");
  m.def(
      "transfer_ms",
      [](double bytes, const std::string& device) {
        if (!(std::isfinite(bytes) && bytes >= 0))
          invalid("transfer_ms: bytes must be a finite number >= 0, got " + shown(bytes));
        return transferMs(bytes, spec(device, DeviceKind::Accelerator, "transfer_ms"));
      },
      py::arg("bytes"), py::arg("device") = "a100",
      "Milliseconds to move a tensor of `bytes` over the accelerator's link.");
  m.def(
      "build_costed_workload",
      [](const std::string& name, const py::list& operators, const py::list& tensors,
         const std::string& device, const std::string& cpu, int accelerators, int cpus, bool training,
         double optimizerStates, bool contractLayers, std::int64_t firstBackwardId,
         double syncBandwidth, double samplesPerSync) {
        if (accelerators < 0 || accelerators > kMaxDevicesPerKind || cpus < 0 ||
            cpus > kMaxDevicesPerKind)
          invalid(name + ": accelerators and cpus must be between 0 and " +
                  std::to_string(kMaxDevicesPerKind));
        if (accelerators == 0 && cpus == 0)
          invalid(name + ": the machine has no device: give accelerators or cpus");
        if (!(syncBandwidth == 0 || syncBandwidth >= 1e-27) || !std::isfinite(syncBandwidth))
          invalid(name +
                  ": sync_bandwidth must be 0 (the device's) or a finite number of bytes per "
                  "second from 1e-27, got " +
                  std::string(py::str(py::float_(syncBandwidth))));
        if (!(samplesPerSync >= 1) || !std::isfinite(samplesPerSync))
          invalid(name + ": samples_per_sync must be a finite number >= 1, got " +
                  std::string(py::str(py::float_(samplesPerSync))));
        CostModelOptions options;
        options.accelerator = spec(device, DeviceKind::Accelerator, "device");
        options.cpu = spec(cpu, DeviceKind::Cpu, "cpu");
        options.accelerators = accelerators;
        options.cpus = cpus;
        options.memory = {training, optimizerStates};
        options.contractLayers = contractLayers;
        options.firstBackwardId = firstBackwardId;
        options.syncBandwidth = syncBandwidth;
        options.samplesPerSync = samplesPerSync;
        std::vector<CostOperator> ops;
        for (const auto& item : operators) ops.push_back(operatorOf(item.cast<py::dict>()));
        std::vector<CostTensor> ts;
        for (const auto& item : tensors) ts.push_back(tensorOf(item.cast<py::dict>()));
        std::string error;
        auto workload = buildCostedWorkload(name, ops, ts, options, &error);
        if (!workload) invalid(error);
        return std::move(*workload);
      },
      py::arg("name"), py::arg("operators"), py::arg("tensors"), py::kw_only(),
      py::arg("device") = "a100", py::arg("cpu") = "xeon-8380-core", py::arg("accelerators") = 1,
      py::arg("cpus") = 0, py::arg("training") = false, py::arg("optimizer_states") = 2.0,
      py::arg("contract_layers") = false, py::arg("first_backward_id") = 0,
      py::arg("sync_bandwidth") = 0.0, py::arg("samples_per_sync") = 1.0,
      "A workload from an operator graph given by FLOPs and bytes (docs/model.md §8): operators are "
      "dicts (name, id, compute, flops, bytes, parameter_bytes, constant_bytes, output_bytes, "
      "cpu_latency_ms, layer), tensors dicts (producer, consumers, bytes, is_output); sync_bandwidth "
      "(bytes/s, 0: the device's) and samples_per_sync set the replicated stages' all-reduce.");
}

}  // namespace dnnplace::python
