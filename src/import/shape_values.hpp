#pragma once
/// The values ONNX shape inference needs but does not follow. PyTorch exports
/// compute reshape targets, slice bounds and expand shapes at run time from
/// other shapes (Shape → Gather → Div → Concat → Reshape); ONNX 1.12's data
/// propagation follows only some of those operators, and a tensor after the
/// first it cannot follow has no shape. Once the model's inputs are bound,
/// every such value is a small constant: this evaluates them and turns their
/// operators into Constant nodes, so that inference can go on.

namespace onnx {
class ModelProto;
}

namespace dnnplace::onnx_import {

/// One pass over the graph in order: every operator whose inputs are known
/// small values (constants, initializers, the shape of a tensor inference has
/// shaped) and that this evaluator knows is replaced by a Constant node of its
/// value. Returns how many operators were replaced.
int foldShapeValues(onnx::ModelProto* model);

}  // namespace dnnplace::onnx_import
