// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/latency_greedy.hpp"

namespace dnnplace {
SolveOutcome solveLatencyGreedy(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
}  // namespace dnnplace
