// PLACEHOLDER: replaced by the real implementation before its issue is closed.
#include "dnnplace/generator.hpp"
namespace dnnplace {
Workload generateWorkload(const GeneratorOptions&) { return {}; }
bool parseGraphShape(const std::string&, GraphShape*) { return false; }
}  // namespace dnnplace
