#pragma once
/// The FLOP rules of the analytic cost model (docs/cost-model.md): FLOPs of
/// one forward execution of an operator, from its tensors' static shapes.

#include <optional>

#include "import/onnx_model.hpp"

namespace dnnplace::onnx_import {

/// The operator's FLOPs, or nullopt for a type without a rule (estimated by
/// its bytes only).
std::optional<double> operatorFlops(const Model& model, const Operator& op);

}  // namespace dnnplace::onnx_import
