// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/dp.hpp"
namespace dnnplace {
SolveOutcome solveDp(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
SolveOutcome solveDpLinear(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
SolveOutcome solvePipedream(const Workload&, const SolveOptions&) {
  SolveOutcome o; o.status = SolveStatus::InvalidInput; o.message = "not implemented yet"; return o;
}
}  // namespace dnnplace
