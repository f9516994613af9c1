// FLOPs per ONNX operator (docs/model.md §8): convolutions and matrix
// products by their multiply-adds, normalizations and softmax at 5 per output
// element, other elementwise operators at 1, pooling at its kernel size per
// output element, reductions at 1 per input element, data movement at 0.

#include "import/flops.hpp"

#include <set>
#include <string>

namespace dnnplace::onnx_import {

namespace {

const std::set<std::string>& dataMovement() {
  static const std::set<std::string> types = {"Reshape",
                                              "Transpose",
                                              "Concat",
                                              "Split",
                                              "Slice",
                                              "Gather",
                                              "GatherElements",
                                              "GatherND",
                                              "Squeeze",
                                              "Unsqueeze",
                                              "Flatten",
                                              "Shape",
                                              "Size",
                                              "Identity",
                                              "Expand",
                                              "Tile",
                                              "Pad",
                                              "Constant",
                                              "ConstantOfShape",
                                              "Cast",
                                              "CastLike",
                                              "Range",
                                              "ScatterND",
                                              "ScatterElements",
                                              "Scatter",
                                              "DepthToSpace",
                                              "SpaceToDepth",
                                              "NonZero",
                                              "Dropout",
                                              "OneHot",
                                              "Trilu",
                                              "EyeLike",
                                              "Compress",
                                              "ReverseSequence",
                                              "SequenceConstruct",
                                              "SplitToSequence"};
  return types;
}

const std::set<std::string>& normalizations() {
  static const std::set<std::string> types = {"BatchNormalization",
                                              "LayerNormalization",
                                              "InstanceNormalization",
                                              "GroupNormalization",
                                              "LpNormalization",
                                              "MeanVarianceNormalization",
                                              "LRN",
                                              "Softmax",
                                              "LogSoftmax",
                                              "Hardmax"};
  return types;
}

const std::set<std::string>& elementwise() {
  static const std::set<std::string> types = {"Add",
                                              "Sub",
                                              "Mul",
                                              "Div",
                                              "Pow",
                                              "Mod",
                                              "Neg",
                                              "Abs",
                                              "Reciprocal",
                                              "Sqrt",
                                              "Exp",
                                              "Log",
                                              "Erf",
                                              "Sin",
                                              "Cos",
                                              "Tan",
                                              "Asin",
                                              "Acos",
                                              "Atan",
                                              "Sinh",
                                              "Cosh",
                                              "Tanh",
                                              "Asinh",
                                              "Acosh",
                                              "Atanh",
                                              "Floor",
                                              "Ceil",
                                              "Round",
                                              "Sign",
                                              "Relu",
                                              "LeakyRelu",
                                              "PRelu",
                                              "Elu",
                                              "Selu",
                                              "Celu",
                                              "Sigmoid",
                                              "HardSigmoid",
                                              "HardSwish",
                                              "Softplus",
                                              "Softsign",
                                              "ThresholdedRelu",
                                              "Gelu",
                                              "Mish",
                                              "Clip",
                                              "Max",
                                              "Min",
                                              "Sum",
                                              "Mean",
                                              "Where",
                                              "Equal",
                                              "Less",
                                              "LessOrEqual",
                                              "Greater",
                                              "GreaterOrEqual",
                                              "Not",
                                              "And",
                                              "Or",
                                              "Xor",
                                              "BitShift",
                                              "IsNaN",
                                              "IsInf",
                                              "Resize",
                                              "Upsample",
                                              "QuantizeLinear",
                                              "DequantizeLinear"};
  return types;
}

const std::set<std::string>& reductions() {
  static const std::set<std::string> types = {"ReduceMean",      "ReduceSum",    "ReduceMax",
                                              "ReduceMin",       "ReduceProd",   "ReduceL1",
                                              "ReduceL2",        "ReduceLogSum", "ReduceLogSumExp",
                                              "ReduceSumSquare", "ArgMax",       "ArgMin",
                                              "CumSum",          "TopK"};
  return types;
}

double product(const std::vector<std::int64_t>& values, std::size_t from = 0) {
  double p = 1;
  for (std::size_t i = from; i < values.size(); ++i) p *= static_cast<double>(values[i]);
  return p;
}

}  // namespace

std::optional<double> operatorFlops(const Model& model, const Operator& op) {
  if (!op.domain.empty() && op.domain != "ai.onnx") return std::nullopt;
  const auto input = [&](std::size_t i) -> const Tensor* {
    return i < op.inputs.size() && op.inputs[i] >= 0 ? &model.tensors[op.inputs[i]] : nullptr;
  };
  const Tensor* out = !op.outputs.empty() && op.outputs[0] >= 0 ? &model.tensors[op.outputs[0]]
                                                                : nullptr;
  const double outElements = out ? out->elements() : 0;
  const std::string& type = op.type;

  if (type == "Conv") {
    // 2 · N·C_out·spatial_out · (C_in/groups) · kernel: the weight is
    // [C_out, C_in/groups, k...], so (C_in/groups) · kernel = prod(W[1:]).
    const Tensor* weight = input(1);
    if (!weight || weight->shape.size() < 2) return std::nullopt;
    return 2 * outElements * product(weight->shape, 1);
  }
  if (type == "ConvTranspose") {
    // Each input element is spread over C_out/groups · kernel outputs; W is [C_in, C_out/groups, k...].
    const Tensor *x = input(0), *weight = input(1);
    if (!x || !weight || weight->shape.size() < 2) return std::nullopt;
    return 2 * x->elements() * product(weight->shape, 1);
  }
  if (type == "MatMul") {
    const Tensor* a = input(0);
    if (!a || a->shape.empty()) return std::nullopt;
    return 2 * outElements * static_cast<double>(a->shape.back());
  }
  if (type == "Gemm") {
    const Tensor* a = input(0);
    if (!a || a->shape.size() != 2) return std::nullopt;
    const double k =
        static_cast<double>(model.intAttribute(op, "transA", 0) ? a->shape[0] : a->shape[1]);
    return 2 * outElements * k;
  }
  if (type == "LSTM" || type == "GRU" || type == "RNN") {
    // Every step multiplies the input by W [dirs, gates·hidden, input] and the
    // state by R [dirs, gates·hidden, hidden]: 2 · seq · batch · (|W| + |R|);
    // the gates' elementwise work is small beside it.
    const Tensor *x = input(0), *w = input(1), *r = input(2);
    if (!x || !w || !r || x->shape.size() != 3) return std::nullopt;
    const bool batchFirst = model.intAttribute(op, "layout", 0) == 1;
    const double steps = static_cast<double>(x->shape[batchFirst ? 1 : 0]);
    const double batch = static_cast<double>(x->shape[batchFirst ? 0 : 1]);
    return 2 * steps * batch * (w->elements() + r->elements());
  }
  if (type == "Einsum") return std::nullopt;
  if (normalizations().count(type)) return 5 * outElements;
  if (type == "MaxPool" || type == "AveragePool" || type == "LpPool") {
    return outElements * product(model.intsAttribute(op, "kernel_shape"));
  }
  if (type == "GlobalAveragePool" || type == "GlobalMaxPool" || type == "GlobalLpPool") {
    const Tensor* x = input(0);
    return x ? x->elements() : 0;
  }
  if (reductions().count(type)) {
    const Tensor* x = input(0);
    return x ? x->elements() : 0;
  }
  if (elementwise().count(type)) return outElements;
  if (dataMovement().count(type)) return 0.0;
  return std::nullopt;
}

}  // namespace dnnplace::onnx_import
