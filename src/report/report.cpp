#include "dnnplace/report.hpp"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "report/text.hpp"
#include "util/format.hpp"

namespace dnnplace {

using Json = nlohmann::json;
using report::fixed;

namespace {

/// What the objective measures: with --diffmaxima, not the max-load.
std::string objectiveLabel(const EvaluateOptions& options) {
  if (options.objective == Objective::Latency) return "latency";
  return options.diffMaxima ? "max forward + max backward load" : "max-load";
}

std::string deviceLabel(const DeviceReport& r) {
  return (r.accelerator ? "accelerator " : "cpu ") + std::to_string(r.index);
}

}  // namespace

std::string planToJson(const Workload& workload, const SolveOutcome& outcome,
                       const EvaluateOptions& options) {
  const Objective objective = options.objective;
  const Placement& placement = *outcome.placement;
  const Evaluation& evaluation = outcome.evaluation;
  // Node ids per device, ascending.
  std::vector<std::vector<std::int64_t>> ids(placement.numDevices());
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    if (placement.deviceOf[v] != Placement::kUnplaced)
      ids[placement.deviceOf[v]].push_back(workload.graph().nodes[v].id);
  for (auto& list : ids) std::sort(list.begin(), list.end());

  Json root = Json::object();
  if (objective == Objective::Throughput) {
    double maxLoad = 0;
    for (const auto& r : evaluation.devices) maxLoad = std::max(maxLoad, r.load);
    root["maxLoad"] = maxLoad;
    if (options.diffMaxima) root["maxForwardPlusMaxBackward"] = evaluation.objective;
  } else {
    root["totalLatency"] = evaluation.objective;
  }
  root["method"] = outcome.method;
  root["status"] = resultName(outcome);
  root["stopReason"] = stopReasonName(outcome.stop);
  root["objective"] = outcome.objective;
  root["lowerBound"] = outcome.lowerBound;
  root["gap"] = outcome.gap;
  root["boundScope"] = boundScopeName(outcome.boundScope);
  root["seconds"] = outcome.seconds;
  root["contiguous"] = evaluation.contiguous;
  if (!outcome.message.empty()) root["message"] = outcome.message;
  Json fpgas = Json::array(), cpus = Json::array();
  for (const DeviceReport& r : evaluation.devices) {
    const int device = r.accelerator ? r.index : placement.numAccelerators + r.index;
    Json entry = {{"load", r.load}, {"nodes", ids[device]}};
    if (objective == Objective::Throughput) {
      entry["forwardLoad"] = r.forwardLoad;
      entry["backwardLoad"] = r.backwardLoad;
      if (r.replicas > 1) {
        entry["replicas"] = r.replicas;
        entry["syncLoad"] = r.syncLoad;
      }
    } else {
      entry["finish"] = r.finish;
      if (r.accelerator) entry["subgraphs"] = r.pieces;
    }
    if (r.accelerator) entry["memory"] = r.memory;
    (r.accelerator ? fpgas : cpus).push_back(std::move(entry));
  }
  root["fpgas"] = std::move(fpgas);
  root["cpus"] = std::move(cpus);
  return root.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string outcomeSummary(const Workload& workload, const SolveOutcome& outcome,
                           const EvaluateOptions& options) {
  std::string text = outcome.method + ": " + resultName(outcome);
  if (outcome.placement) {
    int accelerators = 0, cpus = 0;
    for (const auto& r : outcome.evaluation.devices)
      (r.accelerator ? accelerators : cpus) += r.replicas;
    text += ", " + objectiveLabel(options) + " ";
    text += formatShortest(outcome.objective);
    if (outcome.lowerBound > 0)
      text += " (lower bound " + formatShortest(outcome.lowerBound) + ", gap " +
              fixed(100 * outcome.gap, 2) + "%)";
    text += " on " + std::to_string(accelerators) + " of " + std::to_string(workload.machine.maxFpgas) +
            " accelerators and " + std::to_string(cpus) + (cpus == 1 ? " CPU core" : " CPU cores");
  }
  text += ", " + fixed(outcome.seconds, 3) + " s";
  if (!outcome.message.empty()) text += "\n  " + outcome.message;
  return text + "\n";
}

std::string evaluationToJson(const Evaluation& evaluation, const EvaluateOptions& options) {
  const Objective objective = options.objective;
  Json root = Json::object();
  root["feasible"] = evaluation.feasible;
  root["objective"] = evaluation.objective;
  root["objectiveKind"] =
      objective == Objective::Latency ? "latency" : (options.diffMaxima ? "diffmaxima" : "throughput");
  root["contiguous"] = evaluation.contiguous;
  root["violations"] = evaluation.violations;
  Json devices = Json::array();
  for (const auto& r : evaluation.devices) {
    Json entry = {{"kind", r.accelerator ? "accelerator" : "cpu"},
                  {"index", r.index},
                  {"nodes", r.numNodes},
                  {"load", r.load}};
    if (objective == Objective::Throughput) {
      entry["forwardLoad"] = r.forwardLoad;
      entry["backwardLoad"] = r.backwardLoad;
      if (r.replicas > 1) {
        entry["replicas"] = r.replicas;
        entry["syncLoad"] = r.syncLoad;
      }
    } else {
      entry["finish"] = r.finish;
      entry["subgraphs"] = r.pieces;
    }
    if (r.accelerator) entry["memory"] = r.memory;
    devices.push_back(std::move(entry));
  }
  root["devices"] = std::move(devices);
  return root.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string evaluationToText(const Evaluation& evaluation, const EvaluateOptions& options) {
  const Objective objective = options.objective;
  std::string text;
  text += std::string("feasible:   ") + (evaluation.feasible ? "yes" : "no") + "\n";
  const std::string label = objectiveLabel(options) + ":";
  text += label + std::string(label.size() < 12 ? 12 - label.size() : 1, ' ') +
          formatShortest(evaluation.objective) + "\n";
  text += std::string("contiguous: ") + (evaluation.contiguous ? "yes" : "no") + "\n\n";
  // Replicated blocks (docs/model.md §9): loads are per replica, sync is the all-reduce's share.
  const bool replicated = std::any_of(evaluation.devices.begin(), evaluation.devices.end(),
                                      [](const DeviceReport& r) { return r.replicas > 1; });
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %7s %14s %14s %14s %12s", "device", "nodes", "load",
                objective == Objective::Latency ? "finish" : "forward",
                objective == Objective::Latency ? "subgraphs" : "backward", "memory MB");
  text += line + std::string(replicated ? "   replicas           sync\n" : "\n");
  for (const auto& r : evaluation.devices) {
    const std::string third = objective == Objective::Latency ? fixed(r.finish) : fixed(r.forwardLoad);
    const std::string fourth = objective == Objective::Latency ? std::to_string(r.pieces)
                                                               : fixed(r.backwardLoad);
    std::snprintf(line, sizeof line, "%-16s %7d %14s %14s %14s %12s", deviceLabel(r).c_str(),
                  r.numNodes, fixed(r.load).c_str(), third.c_str(), fourth.c_str(),
                  r.accelerator ? fixed(r.memory / 1e6, 1).c_str() : "-");
    text += line;
    if (replicated) {
      std::snprintf(line, sizeof line, " %10d %14s", r.replicas, fixed(r.syncLoad).c_str());
      text += line;
    }
    text += "\n";
  }
  if (!evaluation.violations.empty()) {
    text += "\nviolations:\n";
    for (const auto& v : evaluation.violations) text += "  - " + v + "\n";
  }
  return text;
}

}  // namespace dnnplace
