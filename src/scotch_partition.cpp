// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/scotch_partition.hpp"

namespace dnnplace {
SolveOutcome solveScotch(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
}  // namespace dnnplace
