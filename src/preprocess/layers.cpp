// Layer contraction (solve --contract-layers, import --granularity layer).

#include "dnnplace/import.hpp"

namespace dnnplace {

std::optional<Workload> contractLayers(const Workload& workload, std::string* error) {
  *error = workload.name + ": contract-layers is not implemented yet";
  return std::nullopt;
}

}  // namespace dnnplace
