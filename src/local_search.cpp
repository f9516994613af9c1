// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/local_search.hpp"

namespace dnnplace {
SolveOutcome solveLocalSearch(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
}  // namespace dnnplace
