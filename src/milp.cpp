// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/milp.hpp"

namespace dnnplace {
SolveOutcome solveMilp(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
}  // namespace dnnplace
