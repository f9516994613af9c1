// The `dnnplace._core` extension: workloads, solve, evaluate, compare and
// the ONNX importer in Python's style (docs/python.md). Errors carry the
// CLI's one-line messages: ValueError for bad input, RuntimeError for bugs.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "bindings.hpp"
#include "dnnplace/compare.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/import.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/render.hpp"
#include "dnnplace/report.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace py = pybind11;

namespace dnnplace::python {
namespace {

[[noreturn]] void invalid(const std::string& message) { throw py::value_error(oneLine(message)); }

std::string pathString(const py::object& path) {
  return py::str(py::module_::import("os").attr("fspath")(path));
}

Objective objectiveOf(const std::string& name) {
  if (name == "throughput") return Objective::Throughput;
  if (name == "latency") return Objective::Latency;
  invalid("unknown objective '" + name + "' (expected throughput or latency)");
}

const char* objectiveName(Objective objective) {
  return objective == Objective::Latency ? "latency" : "throughput";
}

/// Half the machine's memory, as the CLI's --memory-limit default.
std::uint64_t defaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize) / 2;
}

int defaultThreads() {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 256u));
}

/// Runs work(interrupt) on its own thread without the GIL; the calling
/// thread checks for signals every 50 ms and, on one (Ctrl-C), sets the
/// interrupt flag, waits for the work to stop and re-raises the exception.
template <typename Result, typename Work>
Result runInterruptible(Work work) {
  std::atomic<bool> interrupt{false};
  std::optional<py::error_already_set> pending;
  std::future<Result> result;
  {
    py::gil_scoped_release release;
    result = std::async(std::launch::async, [&] { return work(&interrupt); });
    while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      if (pending) continue;
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        pending.emplace();  // fetches (and clears) the error
        interrupt = true;
      }
    }
  }
  Result value = result.get();
  if (pending) {
    pending->restore();
    throw py::error_already_set();
  }
  return value;
}

// ---------------------------------------------------------------- workloads

Workload workloadFromText(const std::string& text, const std::string& name) {
  std::string error;
  auto workload = parseWorkload(text, name, &error);
  if (!workload) invalid(error);
  return std::move(*workload);
}

py::object jsonModule() { return py::module_::import("json"); }

std::string workloadRepr(const Workload& w) {
  std::ostringstream out;
  out << "Workload(name=" << std::string(py::repr(py::str(w.name))) << ", nodes=" << w.numNodes()
      << ", accelerators=" << w.machine.maxFpgas << ", cpus=" << w.machine.maxCpus
      << ", memory_per_accelerator=" << w.machine.maxSizePerFpga << ")";
  return out.str();
}

// -------------------------------------------------------------------- plans

struct Device {
  std::string kind;  // "accelerator" or "cpu"
  int index = 0;
  std::vector<std::int64_t> nodeIds;
  std::optional<double> load, forwardLoad, backwardLoad, memory;
  std::int64_t replicas = 1;  // accelerators this entry stands for (docs/model.md §9)
};

/// A plan: the file the CLI writes, its per-device node ids and figures.
struct Plan {
  std::string json;  // as planToJson writes it (or as given to from_json)
  PlanFile file;
  std::string method, status, stopReason = "none", message, objectiveKind = "throughput";
  std::string boundScope = "all";
  std::optional<double> objective, lowerBound, gap, seconds;
  std::vector<Device> devices;
  bool found = true;
};

std::optional<double> numberAt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string stringAt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Plan planFromJson(const std::string& text, const std::string& name) {
  std::string error;
  auto file = parsePlan(text, name, &error);
  if (!file) invalid(error);
  Plan plan;
  plan.json = text;
  plan.file = std::move(*file);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_object()) {
    plan.method = stringAt(j, "method");
    plan.status = stringAt(j, "status");
    if (const std::string stop = stringAt(j, "stopReason"); !stop.empty()) plan.stopReason = stop;
    plan.message = stringAt(j, "message");
    plan.objective = numberAt(j, "objective");
    plan.lowerBound = numberAt(j, "lowerBound");
    plan.gap = numberAt(j, "gap");
    if (const std::string scope = stringAt(j, "boundScope"); !scope.empty()) plan.boundScope = scope;
    plan.seconds = numberAt(j, "seconds");
    if (j.contains("totalLatency")) plan.objectiveKind = "latency";
    if (!plan.objective)
      plan.objective = numberAt(j, j.contains("totalLatency") ? "totalLatency" : "maxLoad");
  }
  for (const char* kind : {"fpgas", "cpus"}) {
    const auto& lists = kind[0] == 'f' ? plan.file.fpgas : plan.file.cpus;
    for (std::size_t i = 0; i < lists.size(); ++i) {
      Device device;
      device.kind = kind[0] == 'f' ? "accelerator" : "cpu";
      device.index = static_cast<int>(i);
      device.nodeIds = lists[i];
      if (kind[0] == 'f' && i < plan.file.fpgaReplicas.size())
        device.replicas = plan.file.fpgaReplicas[i];
      if (j.is_object() && j[kind].is_array() && i < j[kind].size() && j[kind][i].is_object()) {
        const auto& d = j[kind][i];
        device.load = numberAt(d, "load");
        device.forwardLoad = numberAt(d, "forwardLoad");
        device.backwardLoad = numberAt(d, "backwardLoad");
        device.memory = numberAt(d, "memory");
      }
      plan.devices.push_back(std::move(device));
    }
  }
  return plan;
}

Plan planOf(const Workload& workload, const SolveOutcome& outcome, const SolveOptions& options) {
  if (outcome.placement) {
    Plan plan = planFromJson(planToJson(workload, outcome, evaluateOptionsFor(options)), "plan");
    plan.objectiveKind = objectiveName(options.objective);
    return plan;
  }
  Plan plan;
  plan.found = false;
  plan.method = outcome.method;
  plan.status = statusName(outcome.status);
  plan.stopReason = stopReasonName(outcome.stop);
  plan.message = outcome.message;
  plan.seconds = outcome.seconds;
  plan.objectiveKind = objectiveName(options.objective);
  if (outcome.lowerBound > 0) plan.lowerBound = outcome.lowerBound;
  return plan;
}

std::string planRepr(const Plan& p) {
  std::ostringstream out;
  out.precision(10);
  out << "Plan(method=" << std::string(py::repr(py::str(p.method)))
      << ", status=" << std::string(py::repr(py::str(p.status)));
  if (p.objective) out << ", objective=" << *p.objective;
  int accelerators = 0, cpus = 0;
  for (const Device& d : p.devices)
    (d.kind == "cpu" ? cpus : accelerators) += d.nodeIds.empty() ? 0 : 1;
  out << ", accelerators_used=" << accelerators << ", cpus_used=" << cpus << ")";
  return out.str();
}

// --------------------------------------------------------------- evaluation

struct PyEvaluation {
  Evaluation evaluation;
  EvaluateOptions options;
};

EvaluateOptions evaluateOptions(const std::string& objective, bool diffMaxima, int q, bool contiguous) {
  EvaluateOptions options;
  options.objective = objectiveOf(objective);
  options.diffMaxima = diffMaxima;
  options.q = q;
  options.requireContiguous = contiguous;
  if (q < 1 || q > 64) invalid("q must be between 1 and 64");
  if (options.objective == Objective::Latency && diffMaxima)
    invalid(ignoredOption(nullptr, options.objective, {MethodOption::DiffMaxima}));
  return options;
}

PyEvaluation evaluateAny(const Workload& w, const py::object& plan,
                         std::optional<std::string> objective, bool diffMaxima, int q,
                         bool contiguous) {
  PlanFile file;
  std::string kind = "throughput";
  if (py::isinstance<Plan>(plan)) {
    const Plan& p = plan.cast<const Plan&>();
    if (!p.found) invalid("the plan has none: " + p.method + " ended " + p.status);
    file = p.file;
    kind = p.objectiveKind;
  } else {
    std::string error;
    const std::string path = pathString(plan);
    const auto loaded = loadPlan(path, &error);
    if (!loaded) invalid(error);
    file = *loaded;
  }
  const EvaluateOptions options = evaluateOptions(objective.value_or(kind), diffMaxima, q, contiguous);
  return {evaluatePlan(w, file, options), options};
}

// -------------------------------------------------------------------- solve

struct SolveArgs {
  std::string method;
  std::string objective;
  double timeLimit;
  std::optional<int> threads;
  std::uint64_t seed;
  std::optional<int> q;
  bool diffMaxima;
  std::optional<std::string> contiguity;
  std::optional<double> gap;
  std::optional<int> restarts;
  std::uint64_t maxIdeals;
  std::optional<std::uint64_t> memoryLimit;
  bool contractLayers;
  bool replicate;
  std::optional<py::object> plan;
  std::optional<py::object> writeModel;
};

SolveOptions solveOptions(const SolveArgs& a, OptionSet* given, const std::string& command) {
  SolveOptions options;
  options.objective = objectiveOf(a.objective);
  if (!(a.timeLimit > 0 && a.timeLimit <= 1e9))
    invalid(command + ": time_limit must be a positive number of seconds");
  options.timeLimitSeconds = a.timeLimit;
  options.threads = a.threads.value_or(defaultThreads());
  if (options.threads < 1 || options.threads > 256)
    invalid(command + ": threads must be between 1 and 256");
  options.seed = a.seed;
  if (a.q) {
    if (*a.q < 1 || *a.q > 64) invalid(command + ": q must be between 1 and 64");
    options.q = *a.q;
    given->add(MethodOption::Q);
  }
  if (a.diffMaxima) {
    options.diffMaxima = true;
    given->add(MethodOption::DiffMaxima);
  }
  if (a.contiguity) {
    if (*a.contiguity != "none" && *a.contiguity != "convex")
      invalid(command + ": contiguity must be 'none' or 'convex'");
    options.contiguity = *a.contiguity == "convex" ? Contiguity::Convex : Contiguity::None;
    given->add(MethodOption::Contiguity);
  }
  if (a.gap) {
    if (!(*a.gap >= 0 && *a.gap <= 1)) invalid(command + ": gap must be between 0 and 1");
    options.relativeGap = *a.gap;
    given->add(MethodOption::Gap);
  }
  if (a.restarts) {
    if (*a.restarts < 1 || *a.restarts > 1000000)
      invalid(command + ": restarts must be between 1 and 1000000");
    options.restarts = *a.restarts;
    given->add(MethodOption::Restarts);
  }
  options.maxIdeals = a.maxIdeals;
  options.memoryLimitBytes = a.memoryLimit.value_or(defaultMemoryLimit());
  options.contractLayers = a.contractLayers;
  if (a.replicate) {
    options.replicate = true;
    given->add(MethodOption::Replicate);
  }
  if (a.plan && !a.plan->is_none()) {
    options.expertPlanPath = pathString(*a.plan);
    given->add(MethodOption::Plan);
  }
  if (a.writeModel && !a.writeModel->is_none()) {
    options.writeModelPath = pathString(*a.writeModel);
    given->add(MethodOption::WriteModel);
  }
  return options;
}

Plan solvePy(const Workload& w, const SolveArgs& args) {
  const MethodInfo* method = findMethod(args.method);
  if (!method) invalid("solve: " + unknownMethod(args.method));
  OptionSet given;
  const SolveOptions base = solveOptions(args, &given, "solve");
  if (const std::string why = ignoredOption(method, base.objective, given); !why.empty())
    invalid("solve: " + why);
  const std::string name = args.method;
  const SolveOutcome outcome = runInterruptible<SolveOutcome>([&](const std::atomic<bool>* interrupt) {
    SolveOptions options = base;
    options.interrupt = interrupt;
    return solve(w, name, options);
  });
  if (outcome.call == CallStatus::InternalError)
    throw std::runtime_error(oneLine(name + ": " + outcome.message));
  if (outcome.call == CallStatus::InvalidInput) invalid(name + ": " + outcome.message);
  return planOf(w, outcome, base);
}

// ------------------------------------------------------------------ compare

struct Row {
  std::string workload, method, result, stopReason, message, boundScope;
  std::optional<double> objective;
  double lowerBound = 0, gap = 0, seconds = 0, ratioToBest = 0;
  int devicesUsed = 0;
};

std::vector<Row> comparePy(const py::object& workloads, const py::object& methods,
                           const SolveArgs& args) {
  std::vector<const Workload*> pointers;
  if (py::isinstance<Workload>(workloads))
    pointers.push_back(&workloads.cast<const Workload&>());
  else
    for (const py::handle item : workloads) pointers.push_back(&item.cast<const Workload&>());
  std::string list;
  if (py::isinstance<py::str>(methods))
    list = methods.cast<std::string>();
  else if (!methods.is_none())
    for (const py::handle item : methods) list += (list.empty() ? "" : ",") + item.cast<std::string>();
  if (!methods.is_none() && list.empty())
    invalid("compare: methods names no method (None runs every method of the objective)");
  OptionSet given;
  const SolveOptions base = solveOptions(args, &given, "compare");
  if (const std::string why = ignoredOption(nullptr, base.objective, given); !why.empty())
    invalid("compare: " + why);
  std::string error;
  const auto names = methodsToCompare(list, base.objective, &error, base.diffMaxima);
  if (!names) invalid("compare: " + error);
  if (const std::string why = replicateRefusal(pointers, *names, base); !why.empty())
    invalid("compare: " + why);
  const auto rows = runInterruptible<std::vector<CompareRow>>([&](const std::atomic<bool>* interrupt) {
    SolveOptions options = base;
    options.interrupt = interrupt;
    return compareMethods(pointers, *names, options);
  });
  std::vector<Row> out;
  for (const CompareRow& row : rows) {
    if (row.outcome.call == CallStatus::InternalError)
      throw std::runtime_error(oneLine("compare: " + row.outcome.method + " on " + row.workload + ": " +
                                       row.outcome.message));
    Row r;
    r.workload = row.workload;
    r.method = row.outcome.method;
    r.result = resultName(row.outcome);
    r.stopReason = stopReasonName(row.outcome.stop);
    r.message = row.outcome.message;
    if (hasPlan(row.outcome)) r.objective = row.outcome.objective;
    r.lowerBound = row.outcome.lowerBound;
    r.gap = row.outcome.gap;
    r.boundScope = boundScopeName(row.outcome.boundScope);
    r.seconds = row.outcome.seconds;
    r.ratioToBest = row.ratioToBest;
    r.devicesUsed = row.devicesUsed;
    out.push_back(std::move(r));
  }
  return out;
}

// ------------------------------------------------------------------- render

/// `dnnplace render` from Python: a Plan (from solve or from_json) or a plan
/// file, drawn to `path` in the format its extension names.
void renderPy(const Workload& w, const py::object& plan, const py::object& path,
              std::optional<std::string> objective, bool diffMaxima, int q, const std::string& view,
              const std::string& detail) {
  if (view != "graph" && view != "timeline") invalid("render: view must be 'graph' or 'timeline'");
  if (detail != "auto" && detail != "full" && detail != "contracted")
    invalid("render: detail must be 'auto', 'full' or 'contracted'");
  if (q < 1 || q > 64) invalid("render: q must be between 1 and 64");
  const Plan* given = py::isinstance<Plan>(plan) ? &plan.cast<const Plan&>() : nullptr;
  RenderOptions options;
  options.view = view == "graph" ? RenderView::Graph : RenderView::Timeline;
  options.detail = detail == "auto"   ? RenderDetail::Auto
                   : detail == "full" ? RenderDetail::Full
                                      : RenderDetail::Contracted;
  options.evaluate = evaluateOptions(objective.value_or(given ? given->objectiveKind : "throughput"),
                                     diffMaxima, q, false);
  const std::string out = pathString(path);
  // A Plan is already read (Plan.file); a path is read as `dnnplace render` reads it.
  std::optional<std::string> planPath;
  if (!given) planPath = pathString(plan);
  std::string error;
  std::optional<std::string> failed;
  {
    py::gil_scoped_release released;
    auto outcome = given ? outcomeOfPlan(w, given->file, "render: the plan", options.evaluate, &error)
                         : outcomeOfPlanFile(w, *planPath, options.evaluate, &error);
    if (outcome && given) {
      // The solve's own summary rather than the plan file's.
      if (!given->method.empty()) outcome->method = given->method;
      if (given->seconds) outcome->seconds = *given->seconds;
      if (given->lowerBound) {
        outcome->lowerBound = *given->lowerBound;
        outcome->gap = given->gap.value_or(outcome->gap);
      }
      if (given->status == "optimal" && outcome->evaluation.feasible)
        outcome->status = SolveStatus::Optimal;
      outcome->message = given->message;
    }
    failed = outcome ? renderToFile(w, *outcome, out, options) : std::optional<std::string>(error);
  }
  if (failed) invalid(*failed);
}

// ------------------------------------------------------------------- import

Workload importOnnxPy(const py::object& path, const std::string& device, int accelerators, int cpus,
                      const std::string& cpu, bool training,
                      const std::map<std::string, std::int64_t>& dims, const std::string& granularity,
                      int layerDepth, std::optional<double> optimizerStates,
                      std::optional<double> syncBandwidth, double samplesPerSync) {
  OnnxImportOptions options;
  options.modelPath = pathString(path);
  if (accelerators < 0 || accelerators > kMaxDevicesPerKind || cpus < 0 || cpus > kMaxDevicesPerKind)
    invalid("import_onnx: accelerators and cpus must be between 0 and " +
            std::to_string(kMaxDevicesPerKind));
  if (accelerators == 0 && cpus == 0)
    invalid("import_onnx: the machine has no device: give accelerators or cpus");
  options.accelerators = accelerators;
  options.cpus = cpus;
  options.training = training;
  for (const auto& [name, value] : dims)
    if (name.empty() || value <= 0)
      invalid(
          "import_onnx: dims maps a symbolic dimension's name to a positive integer, got " +
          (name.empty() ? std::string("an empty name") : "'" + name + "': " + std::to_string(value)));
  options.dims.assign(dims.begin(), dims.end());
  if (granularity != "operator" && granularity != "layer")
    invalid("import_onnx: granularity must be 'operator' or 'layer'");
  options.granularity = granularity == "layer" ? OnnxImportOptions::Granularity::Layer
                                               : OnnxImportOptions::Granularity::Operator;
  if (layerDepth < 0) invalid("import_onnx: layer_depth must be at least 0");
  options.layerDepth = layerDepth;
  if (optimizerStates) {
    if (!training) invalid("import_onnx: optimizer_states applies to training only");
    options.optimizerStates = *optimizerStates;
  }
  // 0 (or None): the device's figure, as in dnnplace.torch.profile.
  if (syncBandwidth && *syncBandwidth != 0) {
    if (!(*syncBandwidth >= 1e-27) || !std::isfinite(*syncBandwidth))
      invalid(
          "import_onnx: sync_bandwidth must be 0 (the device's) or a finite number of bytes per "
          "second from 1e-27");
    options.syncBandwidth = *syncBandwidth;
  }
  if (!(samplesPerSync >= 1) || !std::isfinite(samplesPerSync))
    invalid("import_onnx: samples_per_sync must be a number >= 1");
  options.samplesPerSync = samplesPerSync;
  std::string error;
  const auto accelerator = loadDeviceSpec(device, DeviceKind::Accelerator, &error);
  if (!accelerator) invalid("import_onnx: device: " + error);
  const auto core = loadDeviceSpec(cpu, DeviceKind::Cpu, &error);
  if (!core) invalid("import_onnx: cpu: " + error);
  options.accelerator = *accelerator;
  options.cpu = *core;
  ImportSummary summary;
  ImportError importError;
  std::optional<Workload> workload;
  {
    py::gil_scoped_release release;
    workload = importOnnx(options, &summary, &importError);
  }
  if (!workload) invalid(importError.message);
  return std::move(*workload);
}

}  // namespace
}  // namespace dnnplace::python

using namespace dnnplace;
using namespace dnnplace::python;

PYBIND11_MODULE(_core, m) {
  m.doc() = "dnnplace: optimal placement of DNN operators on accelerators and CPU cores";

  py::class_<Workload>(m, "Workload", "A graph placed on a machine (docs/model.md §1).")
      .def_static(
          "load",
          [](const py::object& path) {
            std::string error;
            auto workload = loadWorkload(pathString(path), &error);
            if (!workload) invalid(error);
            return std::move(*workload);
          },
          py::arg("path"), "Reads a workload JSON file.")
      .def_static(
          "from_json",
          [](const std::string& text, const std::string& name) { return workloadFromText(text, name); },
          py::arg("text"), py::arg("name") = "workload", "Parses workload JSON text.")
      .def_static(
          "from_dict",
          [](const py::dict& d, const std::string& name) {
            return workloadFromText(jsonModule().attr("dumps")(d).cast<std::string>(), name);
          },
          py::arg("d"), py::arg("name") = "workload", "A workload from the dict of its JSON.")
      .def("to_json", &workloadToJson, "The workload JSON text (as `dnnplace generate` writes it).")
      .def(
          "to_dict", [](const Workload& w) { return jsonModule().attr("loads")(workloadToJson(w)); },
          "The workload JSON as a dict.")
      .def(
          "save",
          [](const Workload& w, const py::object& path) {
            std::string error;
            if (!writeText(pathString(path), workloadToJson(w), &error)) invalid(error);
          },
          py::arg("path"))
      .def(
          "on_machine",
          [](const Workload& w, std::optional<int> accelerators, std::optional<int> cpus,
             std::optional<double> memory) {
            Machine machine = w.machine;
            if (accelerators) machine.maxFpgas = *accelerators;
            if (cpus) machine.maxCpus = *cpus;
            if (memory) machine.maxSizePerFpga = *memory;
            // Through the parser, so the machine is validated as a file's would be.
            return workloadFromText(workloadToJson(w.onMachine(machine)), w.name);
          },
          py::kw_only(), py::arg("accelerators") = py::none(), py::arg("cpus") = py::none(),
          py::arg("memory_per_accelerator") = py::none(), "The same graph on another machine.")
      .def_readwrite("name", &Workload::name)
      .def_property_readonly("num_nodes", &Workload::numNodes)
      .def_property_readonly("num_edges", [](const Workload& w) { return w.graph().edges.size(); })
      .def_property_readonly("accelerators", [](const Workload& w) { return w.machine.maxFpgas; })
      .def_property_readonly("cpus", [](const Workload& w) { return w.machine.maxCpus; })
      .def_property_readonly("memory_per_accelerator",
                             [](const Workload& w) { return w.machine.maxSizePerFpga; })
      .def_property_readonly("node_ids",
                             [](const Workload& w) {
                               std::vector<std::int64_t> ids;
                               for (const Node& n : w.graph().nodes) ids.push_back(n.id);
                               return ids;
                             })
      .def_property_readonly("node_names",
                             [](const Workload& w) {
                               std::vector<std::string> names;
                               for (const Node& n : w.graph().nodes) names.push_back(n.name);
                               return names;
                             })
      .def("__eq__",
           [](const Workload& a, const Workload& b) { return workloadToJson(a) == workloadToJson(b); })
      .def("__len__", &Workload::numNodes)
      .def("__repr__", &workloadRepr);

  py::class_<Device>(m, "Device", "One device of a plan: its nodes and, when known, its figures.")
      .def_readonly("kind", &Device::kind)
      .def_readonly("index", &Device::index)
      .def_readonly("node_ids", &Device::nodeIds)
      .def_readonly("load", &Device::load)
      .def_readonly("forward_load", &Device::forwardLoad)
      .def_readonly("backward_load", &Device::backwardLoad)
      .def_readonly("memory", &Device::memory)
      .def_readonly("replicas", &Device::replicas,
                    "accelerators this entry stands for (replicated stages, docs/model.md §9)")
      .def("__repr__", [](const Device& d) {
        std::ostringstream out;
        out << "Device(kind='" << d.kind << "', index=" << d.index << ", nodes=" << d.nodeIds.size();
        if (d.load) out << ", load=" << *d.load;
        if (d.memory) out << ", memory=" << *d.memory;
        if (d.replicas != 1) out << ", replicas=" << d.replicas;
        return out.str() + ")";
      });

  py::class_<Plan>(m, "Plan", "A placement as `dnnplace solve` writes it (docs/model.md §6).")
      .def_static(
          "from_json", [](const std::string& text) { return planFromJson(text, "plan"); },
          py::arg("text"))
      .def_static(
          "load",
          [](const py::object& path) {
            std::string error;
            const std::string p = pathString(path);
            const auto text = readFile(p, &error);
            if (!text) invalid(error);
            return planFromJson(*text, inputName(p));
          },
          py::arg("path"))
      .def("to_json",
           [](const Plan& p) {
             if (!p.found) invalid(p.method + ": no plan (" + p.status + ")");
             return p.json;
           })
      .def(
          "save",
          [](const Plan& p, const py::object& path) {
            if (!p.found) invalid(p.method + ": no plan (" + p.status + ")");
            std::string error;
            if (!writeText(pathString(path), p.json, &error)) invalid(error);
          },
          py::arg("path"))
      .def_readonly("found", &Plan::found, "a feasible plan came back (optimal or feasible)")
      .def_readonly("method", &Plan::method)
      .def_readonly("status", &Plan::status)
      .def_readonly("stop_reason", &Plan::stopReason)
      .def_readonly("message", &Plan::message)
      .def_readonly("objective", &Plan::objective)
      .def_readonly("objective_kind", &Plan::objectiveKind)
      .def_readonly("lower_bound", &Plan::lowerBound)
      .def_readonly("gap", &Plan::gap)
      .def_readonly("bound_scope", &Plan::boundScope,
                    "the placements lower_bound and 'optimal' hold over: all, convex or contiguous")
      .def_readonly("seconds", &Plan::seconds)
      .def_readonly("devices", &Plan::devices)
      .def("__repr__", &planRepr);

  py::class_<DeviceReport>(m, "DeviceReport", "The evaluator's figures for one non-empty device.")
      .def_property_readonly("kind",
                             [](const DeviceReport& d) {
                               return d.accelerator ? "accelerator" : "cpu";
                             })
      .def_readonly("index", &DeviceReport::index)
      .def_readonly("num_nodes", &DeviceReport::numNodes)
      .def_readonly("load", &DeviceReport::load)
      .def_readonly("forward_load", &DeviceReport::forwardLoad)
      .def_readonly("backward_load", &DeviceReport::backwardLoad)
      .def_readonly("memory", &DeviceReport::memory)
      .def_readonly("pieces", &DeviceReport::pieces)
      .def_readonly("finish", &DeviceReport::finish)
      .def("__repr__", [](const DeviceReport& d) {
        std::ostringstream out;
        out << "DeviceReport(kind='" << (d.accelerator ? "accelerator" : "cpu")
            << "', index=" << d.index << ", nodes=" << d.numNodes << ", load=" << d.load
            << ", memory=" << d.memory << ")";
        return out.str();
      });

  py::class_<PyEvaluation>(m, "Evaluation", "The independent evaluator's verdict on a plan.")
      .def_property_readonly("feasible", [](const PyEvaluation& e) { return e.evaluation.feasible; })
      .def_property_readonly("objective", [](const PyEvaluation& e) { return e.evaluation.objective; })
      .def_property_readonly("violations",
                             [](const PyEvaluation& e) { return e.evaluation.violations; })
      .def_property_readonly("devices", [](const PyEvaluation& e) { return e.evaluation.devices; })
      .def_property_readonly("contiguous",
                             [](const PyEvaluation& e) { return e.evaluation.contiguous; })
      .def("to_json", [](const PyEvaluation& e) { return evaluationToJson(e.evaluation, e.options); })
      .def("__str__", [](const PyEvaluation& e) { return evaluationToText(e.evaluation, e.options); })
      .def("__repr__", [](const PyEvaluation& e) {
        std::ostringstream out;
        out.precision(10);
        out << "Evaluation(feasible=" << (e.evaluation.feasible ? "True" : "False")
            << ", objective=" << e.evaluation.objective
            << ", violations=" << e.evaluation.violations.size()
            << ", devices=" << e.evaluation.devices.size() << ")";
        return out.str();
      });

  py::class_<Row>(m, "CompareRow", "One method on one workload (`dnnplace compare`).")
      .def_readonly("workload", &Row::workload)
      .def_readonly("method", &Row::method)
      .def_readonly("result", &Row::result)
      .def_readonly("stop_reason", &Row::stopReason)
      .def_readonly("message", &Row::message)
      .def_readonly("objective", &Row::objective)
      .def_readonly("lower_bound", &Row::lowerBound)
      .def_readonly("gap", &Row::gap)
      .def_readonly("bound_scope", &Row::boundScope,
                    "the placements lower_bound and 'optimal' hold over: all, convex or contiguous")
      .def_readonly("seconds", &Row::seconds)
      .def_readonly("ratio_to_best", &Row::ratioToBest)
      .def_readonly("devices_used", &Row::devicesUsed)
      .def("__repr__", [](const Row& r) {
        std::ostringstream out;
        out.precision(10);
        out << "CompareRow(workload=" << std::string(py::repr(py::str(r.workload))) << ", method='"
            << r.method << "', result='" << r.result << "'";
        if (r.objective) out << ", objective=" << *r.objective << ", ratio_to_best=" << r.ratioToBest;
        return out.str() + ")";
      });

  const auto solveArgs =
      [](std::string method, std::string objective, double timeLimit, std::optional<int> threads,
         std::uint64_t seed, std::optional<int> q, bool diffMaxima,
         std::optional<std::string> contiguity, std::optional<double> gap, std::optional<int> restarts,
         std::uint64_t maxIdeals, std::optional<std::uint64_t> memoryLimit, bool contractLayers,
         bool replicate, std::optional<py::object> plan, std::optional<py::object> writeModel) {
        return SolveArgs{std::move(method),
                         std::move(objective),
                         timeLimit,
                         threads,
                         seed,
                         q,
                         diffMaxima,
                         std::move(contiguity),
                         gap,
                         restarts,
                         maxIdeals,
                         memoryLimit,
                         contractLayers,
                         replicate,
                         std::move(plan),
                         std::move(writeModel)};
      };

  m.def(
      "solve",
      [solveArgs](const Workload& w, std::string method, std::string objective, double timeLimit,
                  std::optional<int> threads, std::uint64_t seed, std::optional<int> q, bool diffMaxima,
                  std::optional<std::string> contiguity, std::optional<double> gap,
                  std::optional<int> restarts, std::uint64_t maxIdeals,
                  std::optional<std::uint64_t> memoryLimit, bool contractLayers, bool replicate,
                  std::optional<py::object> plan, std::optional<py::object> writeModel) {
        return solvePy(w, solveArgs(std::move(method), std::move(objective), timeLimit, threads, seed,
                                    q, diffMaxima, std::move(contiguity), gap, restarts, maxIdeals,
                                    memoryLimit, contractLayers, replicate, std::move(plan),
                                    std::move(writeModel)));
      },
      py::arg("workload"), py::kw_only(), py::arg("method") = "dp", py::arg("objective") = "throughput",
      py::arg("time_limit") = 60.0, py::arg("threads") = py::none(), py::arg("seed") = 1,
      py::arg("q") = py::none(), py::arg("diff_maxima") = false, py::arg("contiguity") = py::none(),
      py::arg("gap") = py::none(), py::arg("restarts") = py::none(), py::arg("max_ideals") = 0,
      py::arg("memory_limit") = py::none(), py::arg("contract_layers") = false,
      py::arg("replicate") = false, py::arg("plan") = py::none(), py::arg("write_model") = py::none(),
      "Places the workload with one method (`dnnplace solve`); returns a Plan. Ctrl-C stops the "
      "solve and raises KeyboardInterrupt.");

  m.def(
      "evaluate",
      [](const Workload& w, const py::object& plan, std::optional<std::string> objective,
         bool diffMaxima, int q, bool contiguous) {
        return evaluateAny(w, plan, std::move(objective), diffMaxima, q, contiguous);
      },
      py::arg("workload"), py::arg("plan"), py::kw_only(), py::arg("objective") = py::none(),
      py::arg("diff_maxima") = false, py::arg("q") = 1, py::arg("contiguous") = false,
      "Checks a Plan or a plan file against the workload (`dnnplace evaluate`).");

  m.def(
      "compare",
      [solveArgs](const py::object& workloads, const py::object& methods, std::string objective,
                  double timeLimit, std::optional<int> threads, std::uint64_t seed,
                  std::optional<int> q, bool diffMaxima, std::optional<std::string> contiguity,
                  std::optional<double> gap, std::optional<int> restarts, std::uint64_t maxIdeals,
                  std::optional<std::uint64_t> memoryLimit, bool contractLayers, bool replicate) {
        return comparePy(workloads, methods,
                         solveArgs("", std::move(objective), timeLimit, threads, seed, q, diffMaxima,
                                   std::move(contiguity), gap, restarts, maxIdeals, memoryLimit,
                                   contractLayers, replicate, std::nullopt, std::nullopt));
      },
      py::arg("workloads"), py::kw_only(), py::arg("methods") = py::none(),
      py::arg("objective") = "throughput", py::arg("time_limit") = 60.0,
      py::arg("threads") = py::none(), py::arg("seed") = 1, py::arg("q") = py::none(),
      py::arg("diff_maxima") = false, py::arg("contiguity") = py::none(), py::arg("gap") = py::none(),
      py::arg("restarts") = py::none(), py::arg("max_ideals") = 0, py::arg("memory_limit") = py::none(),
      py::arg("contract_layers") = false, py::arg("replicate") = false,
      "Runs several methods on one or more workloads (`dnnplace compare`); a list of CompareRow.");

  m.def("render", &renderPy, py::arg("workload"), py::arg("plan"), py::arg("path"), py::kw_only(),
        py::arg("objective") = py::none(), py::arg("diff_maxima") = false, py::arg("q") = 1,
        py::arg("view") = "graph", py::arg("detail") = "auto",
        "Draws a Plan or a plan file to path (`dnnplace render`): .html (the report), .svg "
        "(view='graph' or 'timeline') or .dot.");

  m.def("import_onnx", &importOnnxPy, py::arg("path"), py::kw_only(), py::arg("device") = "a100",
        py::arg("accelerators") = 1, py::arg("cpus") = 0, py::arg("cpu") = "xeon-8380-core",
        py::arg("training") = false, py::arg("dims") = std::map<std::string, std::int64_t>{},
        py::arg("granularity") = "operator", py::arg("layer_depth") = 0,
        py::arg("optimizer_states") = py::none(), py::arg("sync_bandwidth") = py::none(),
        py::arg("samples_per_sync") = 1.0,
        "Reads an ONNX model through the analytic cost model (`dnnplace import onnx`); "
        "sync_bandwidth (bytes/s; default: the device's) and samples_per_sync set replicated "
        "stages' all-reduce.");

  m.def(
      "methods",
      []() {
        std::vector<std::string> names;
        for (const MethodInfo& info : dnnplace::methods()) names.push_back(info.name);
        return names;
      },
      "The placement methods, in display order.");
  m.def(
      "default_methods",
      [](const std::string& objective, bool diffmaxima) {
        return defaultMethods(objectiveOf(objective), diffmaxima);
      },
      py::arg("objective") = "throughput", py::arg("diff_maxima") = false,
      "The methods compare runs by default (with diff_maxima: those that support it).");

  bindCostModel(m);
}
