#pragma once
/// Scotch graph-partitioning baseline (throughput, max-load).
///
/// As in the reference: the graph of color classes is split into k parts
/// (k = maxFPGAs) by Scotch 7's default partitioning strategy (imbalance
/// 0.01), vertex weight = the class's accelerator latency, edge weight
/// between classes c1, c2 = Σ cost(u) over nodes u of c1 with an edge into
/// c2, plus the same for c2 → c1. Scotch needs integer weights: every weight
/// is multiplied by the same factor, 10^6 per time unit like the reference,
/// lowered when needed so that the total vertex weight and the total edge
/// weight each stay below 10^9 (SCOTCH_Num is 32-bit here), and rounded.
/// Vertices are numbered in color-class order (first occurrence in the input).
///
/// Where the reference would fail or ignore constraints we keep the plan
/// feasible and say so in the outcome's message: classes that fit no
/// accelerator (unsupported operator, or larger than its memory) go to CPU
/// core 0 before partitioning; if a part exceeds accelerator memory, its
/// classes are moved, largest first, to the accelerator with the most free
/// memory that can hold them, else to the least loaded CPU core ("memory
/// repair"). The partition is seeded with `seed` through a private Scotch
/// context in deterministic mode, so equal seeds give equal plans.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveScotch(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
