#pragma once
/// A placement: which device each node runs on (docs/model.md §2, §6).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace {

/// Device numbering: 0..numAccelerators-1 are accelerators, then
/// numAccelerators..numAccelerators+numCpus-1 are CPU cores.
/// A device may be empty; deviceOf[v] == kUnplaced marks an unplaced node.
struct Placement {
  static constexpr std::int32_t kUnplaced = -1;
  int numAccelerators = 0;
  int numCpus = 0;
  std::vector<std::int32_t> deviceOf;
  /// docs/model.md §9: per accelerator, how many identical accelerators run
  /// its block (data parallelism); empty means 1 each.
  std::vector<int> replicas;

  int numDevices() const { return numAccelerators + numCpus; }
  int replicasOf(int accelerator) const { return replicas.empty() ? 1 : replicas[accelerator]; }
  bool isAccelerator(int device) const { return device < numAccelerators; }
  static int cpuDevice(int numAccelerators, int core) { return numAccelerators + core; }
};

/// A plan file as written: per device, the node ids it lists.
struct PlanFile {
  std::vector<std::vector<std::int64_t>> fpgas;
  std::vector<std::vector<std::int64_t>> cpus;
  std::vector<std::int64_t> fpgaReplicas;  ///< per fpgas entry, its "replicas" (1 when absent)
};

/// Parses plan JSON (docs/model.md §6; reference and human-expert splits).
/// Only `fpgas` and `cpus` (and an accelerator entry's `replicas`, docs/model.md §9)
/// are read; other fields are ignored.
std::optional<PlanFile> parsePlan(std::string_view text, const std::string& name, std::string* error);
/// Reads (at most `maxBytes`: readFile) and parses a plan file.
std::optional<PlanFile> loadPlan(const std::string& path, std::string* error,
                                 std::uint64_t maxBytes = defaultReadLimit());

/// Whether the plan's replica counts fit the workload's machine (none above
/// maxFPGAs: docs/model.md §9); else a one-line error naming the entry.
bool checkReplicas(const Workload& workload, const PlanFile& plan, const std::string& name,
                   std::string* error);

/// Maps a plan file onto a workload. Unknown ids and nodes listed twice are
/// appended to *violations (a twice-listed node keeps its first device). A
/// backward node the file omits is placed with the forward nodes of its color
/// class, as expert splits require; other omitted nodes stay kUnplaced, for
/// the evaluator to report.
Placement resolvePlan(const Workload& workload, const PlanFile& plan,
                      std::vector<std::string>* violations);

}  // namespace dnnplace
