// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/ideal_lattice.hpp"
namespace dnnplace {
IdealCount countIdeals(const Workload&, std::uint64_t cap) { return {cap, true}; }
}  // namespace dnnplace
