// ONNX models as workloads through the analytic cost model (docs/model.md §8).

#include "dnnplace/import.hpp"

namespace dnnplace {

std::optional<Workload> importOnnx(const OnnxImportOptions& options, ImportSummary*, ImportError* error) {
  error->message = options.modelPath + ": import onnx is not implemented yet";
  return std::nullopt;
}

std::string importSummaryText(const ImportSummary&, const Workload&, const std::string&) { return ""; }

}  // namespace dnnplace
