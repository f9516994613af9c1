// PipeDream's layer profiles (graph.txt) as workloads: docs/import.md.

#include "dnnplace/import.hpp"

namespace dnnplace {

std::optional<Workload> importPipedream(const PipedreamImportOptions& options, ImportError* error) {
  error->message = options.profilePath + ": import pipedream is not implemented yet";
  return std::nullopt;
}

}  // namespace dnnplace
