#pragma once
/// importOnnx on a model's bytes (the fuzz target's entry point).

#include <optional>
#include <string>

#include "dnnplace/import.hpp"

namespace dnnplace::onnx_import {

/// importOnnx of a model already read; `file` names it in messages.
std::optional<Workload> importOnnxBytes(const std::string& bytes, const std::string& file,
                                        const OnnxImportOptions& options, ImportSummary* summary,
                                        ImportError* error);

}  // namespace dnnplace::onnx_import
