#pragma once
/// Replicated blocks (docs/model.md §9) outside the DP: the checks every
/// method with --replicate makes first, the replica counts `milp --replicate`
/// gives the blocks of its non-contiguous plan, and a bound that holds with
/// replication.

#include <optional>

#include "dnnplace/solver.hpp"

namespace dnnplace::baseline {

/// Why --replicate cannot run on this workload with these options (the
/// latency objective, --diffmaxima, no syncBandwidth), as the outcome to
/// return; nullopt when it can.
std::optional<SolveOutcome> replicationRefusal(const Workload& workload, const SolveOptions& options);

/// Gives the accelerators `placement` leaves unused to its blocks as
/// replicas, bottleneck first: while the device of the largest load is an
/// accelerator and the fewest extra replicas that lower its load are still
/// free, it gets them. (A greedy local search, not an optimum: the MILP
/// chose its blocks for one accelerator each.)
Placement replicateBottlenecks(const Workload& workload, Placement placement);

/// A lower bound on the max-load of every placement, replicated or not: r
/// replicas of a block B together spend load(B) + sync(B, r) ≥ its
/// nodes' compute per sample, a CPU core its nodes' CPU time, so the k + ℓ
/// devices spend at least Σ_v min(fpgaLatency, cpuLatency) (cpuLatency for
/// a node no accelerator can run).
double replicatedWorkBound(const Workload& workload);

}  // namespace dnnplace::baseline
