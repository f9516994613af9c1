#include "dnnplace/compare.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace dnnplace {

namespace {

void releaseFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

bool hasPlan(const SolveOutcome& outcome) { return outcome.placement && outcome.found(); }

std::vector<std::string> defaultMethods(Objective objective, bool diffMaxima) {
  std::vector<std::string> names;
  for (const auto& method : methods())
    if (!method.needsPlan && method.supports(objective, diffMaxima)) names.push_back(method.name);
  return names;
}

std::optional<std::vector<std::string>> methodsToCompare(const std::string& list, Objective objective,
                                                         std::string* error, bool diffMaxima) {
  if (list.empty()) return defaultMethods(objective, diffMaxima);
  std::vector<std::string> names;
  std::stringstream items(list);
  for (std::string name; std::getline(items, name, ',');) {
    const MethodInfo* method = findMethod(name);
    if (name.empty()) {
      *error = "--methods '" + list + "' has an empty method name (expected e.g. dp,milp)";
    } else if (!method) {
      *error = unknownMethod(name);
    } else if (method->needsPlan) {
      *error = "method '" + name + "' needs a split (--plan), which only solve takes";
    } else if (!method->supports(objective)) {
      *error = unsupportedObjective(name, objective);
    } else if (!method->supports(objective, diffMaxima)) {
      *error = "method '" + name + "' does not support --diffmaxima (those that do: " +
               joinNames(defaultMethods(objective, true)) + ")";
    } else if (std::find(names.begin(), names.end(), name) != names.end()) {
      *error = "method '" + name + "' is listed twice";
    } else {
      names.push_back(name);
      continue;
    }
    return std::nullopt;
  }
  if (list.back() == ',') {
    *error = "--methods '" + list + "' has an empty method name (expected e.g. dp,milp)";
    return std::nullopt;
  }
  return names;
}

namespace {
bool replicatesBlocks(const std::string& name) {
  const MethodInfo* method = findMethod(name);
  return method && method->takes.has(MethodOption::Replicate);
}
}  // namespace

std::size_t rowsPerWorkload(const std::vector<std::string>& methods, const SolveOptions& options) {
  return methods.size() + (options.replicate
                               ? static_cast<std::size_t>(
                                     std::count_if(methods.begin(), methods.end(), replicatesBlocks))
                               : 0);
}

std::string replicateRefusal(const std::vector<const Workload*>& workloads,
                             const std::vector<std::string>& methods, const SolveOptions& options) {
  if (!options.replicate) return "";
  if (std::none_of(methods.begin(), methods.end(), replicatesBlocks))
    return "--replicate applies to --method dp, dp-linear, pipedream and milp, and none of them is "
           "compared";
  for (const Workload* w : workloads)
    if (!(w->machine.syncBandwidth > 0))
      return "--replicate needs the syncBandwidth of " + w->name +
             " (docs/model.md §9): without it no block can be replicated";
  return "";
}

std::vector<CompareRow> compareMethods(const std::vector<const Workload*>& workloads,
                                       const std::vector<std::string>& methodNames,
                                       const SolveOptions& options) {
  std::vector<CompareRow> rows;
  // With --replicate each method runs as a pure pipeline, and those that
  // replicate blocks (docs/model.md §9) run again with it, beside.
  struct Run {
    std::string method;
    bool replicate;
  };
  std::vector<Run> runs;
  for (const auto& name : methodNames) {
    runs.push_back({name, false});
    if (options.replicate && replicatesBlocks(name)) runs.push_back({name, true});
  }
  SolveOptions pure = options;
  pure.replicate = false;
  const std::size_t total = workloads.size() * runs.size();
  // Interrupted: the rows so far, ranked among themselves (the caller says
  // how many runs are missing).
  bool interrupted = false;
  for (const Workload* workload : workloads) {
    const std::size_t firstRow = rows.size();
    for (const auto& [name, replicate] : runs) {
      if (options.interrupt && options.interrupt->load()) {
        interrupted = true;
        break;
      }
      if (options.progress)
        options.progress("compare " + std::to_string(rows.size() + 1) + "/" + std::to_string(total) +
                         ": " + name + (replicate ? " --replicate" : "") + " on " + workload->name);
      CompareRow row;
      row.workload = workload->name;
      // Each method runs under its own time limit and memory limit (solve()
      // starts its clock); what one method freed is handed back to the
      // system before the next starts, so their peaks do not add up.
      row.outcome = solve(*workload, name, replicate ? options : pure);
      if (replicate) row.outcome.method += " --replicate";
      releaseFreedMemory();
      if (hasPlan(row.outcome))
        for (const DeviceReport& device : row.outcome.evaluation.devices)
          row.devicesUsed += device.replicas;
      rows.push_back(std::move(row));
    }
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = firstRow; i < rows.size(); ++i)
      if (hasPlan(rows[i].outcome)) best = std::min(best, rows[i].outcome.objective);
    for (std::size_t i = firstRow; i < rows.size(); ++i) {
      if (!hasPlan(rows[i].outcome)) continue;
      const double objective = rows[i].outcome.objective;
      // Against a best of 0, any positive objective is infinitely worse.
      rows[i].ratioToBest = best > 0 ? objective / best
                                     : (objective == 0 ? 1.0 : std::numeric_limits<double>::infinity());
    }
    if (interrupted) break;
  }
  return rows;
}

}  // namespace dnnplace
