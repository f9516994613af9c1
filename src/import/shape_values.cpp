// A small evaluator of the integer (and scalar) arithmetic of shapes: values
// are tensors of at most kMaxElements elements, held as doubles (exact for
// the integers of shapes), with ONNX's broadcasting.

#include "import/shape_values.hpp"

#include <onnx/defs/tensor_proto_util.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "import/onnx_model.hpp"

namespace dnnplace::onnx_import {

namespace {

constexpr std::size_t kMaxElements = 4096;

struct Value {
  int type = onnx::TensorProto::INT64;
  std::vector<std::int64_t> dims;
  std::vector<double> data;
  /// The product of dims, saturating above kMaxElements (dims may be huge).
  std::size_t elements() const {
    double n = 1;
    for (auto d : dims) n *= static_cast<double>(d);
    return n > kMaxElements ? kMaxElements + 1 : static_cast<std::size_t>(n);
  }
};

using Maybe = std::optional<Value>;

bool supportedType(int type) {
  return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 ||
         type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE ||
         type == onnx::TensorProto::BOOL;
}

bool isInteger(int type) {
  return type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32 ||
         type == onnx::TensorProto::BOOL;
}

Maybe fromTensor(const onnx::TensorProto& tensor) {
  Value value;
  value.type = tensor.data_type();
  if (!supportedType(value.type)) return std::nullopt;
  double count = 1;
  for (auto d : tensor.dims()) {
    if (d < 0) return std::nullopt;
    value.dims.push_back(d);
    count *= static_cast<double>(d);
  }
  if (count > kMaxElements || tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  // libonnx's ParseData writes past its vector when raw_data is not exactly
  // the tensor's elements; the importer refuses such tensors before inference
  // (checkTensors), and this guards any tensor that did not pass there.
  if (tensor.has_raw_data() &&
      static_cast<double>(tensor.raw_data().size()) != count * elementBytes(value.type))
    return std::nullopt;
  try {
    switch (value.type) {
      case onnx::TensorProto::INT64:
        for (auto v : onnx::ParseData<std::int64_t>(&tensor))
          value.data.push_back(static_cast<double>(v));
        break;
      case onnx::TensorProto::INT32:
        for (auto v : onnx::ParseData<std::int32_t>(&tensor)) value.data.push_back(v);
        break;
      case onnx::TensorProto::FLOAT:
        for (auto v : onnx::ParseData<float>(&tensor)) value.data.push_back(v);
        break;
      case onnx::TensorProto::DOUBLE:
        for (auto v : onnx::ParseData<double>(&tensor)) value.data.push_back(v);
        break;
      default: return std::nullopt;  // bool data is rare in shape arithmetic
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (value.data.size() != value.elements()) return std::nullopt;
  return value;
}

onnx::TensorProto toTensor(const Value& value) {
  onnx::TensorProto tensor;
  tensor.set_data_type(value.type);
  for (auto d : value.dims) tensor.add_dims(d);
  for (double v : value.data) switch (value.type) {
      case onnx::TensorProto::INT64: tensor.add_int64_data(static_cast<std::int64_t>(v)); break;
      case onnx::TensorProto::INT32:
      case onnx::TensorProto::BOOL: tensor.add_int32_data(static_cast<std::int32_t>(v)); break;
      case onnx::TensorProto::FLOAT: tensor.add_float_data(static_cast<float>(v)); break;
      default: tensor.add_double_data(v); break;
    }
  return tensor;
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t intAttribute(const onnx::NodeProto& node, const char* name, std::int64_t fallback) {
  const auto* a = attribute(node, name);
  return a && a->has_i() ? a->i() : fallback;
}

/// Integers from an attribute (opset < 13) or, if given, an input value.
std::optional<std::vector<std::int64_t>> intsFrom(const onnx::NodeProto& node, const char* name,
                                                  const Value* input) {
  std::vector<std::int64_t> out;
  if (input) {
    for (double v : input->data) out.push_back(static_cast<std::int64_t>(v));
    return out;
  }
  const auto* a = attribute(node, name);
  if (!a) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

bool normalizeAxis(std::int64_t* axis, std::size_t rank) {
  if (*axis < 0) *axis += static_cast<std::int64_t>(rank);
  return *axis >= 0 && *axis < static_cast<std::int64_t>(rank);
}

/// ONNX (numpy) broadcasting of several values' dims.
std::optional<std::vector<std::int64_t>> broadcastDims(const std::vector<const Value*>& values) {
  std::size_t rank = 0;
  for (const Value* v : values) rank = std::max(rank, v->dims.size());
  std::vector<std::int64_t> dims(rank, 1);
  for (const Value* v : values)
    for (std::size_t i = 0; i < v->dims.size(); ++i) {
      std::int64_t& d = dims[rank - v->dims.size() + i];
      const std::int64_t e = v->dims[i];
      if (d == 1)
        d = e;
      else if (e != 1 && e != d)
        return std::nullopt;
    }
  return dims;
}

/// The element of `v` that broadcasts to flat index `flat` of `dims`.
double broadcastAt(const Value& v, const std::vector<std::int64_t>& dims, std::size_t flat) {
  std::size_t index = 0, stride = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    const std::size_t coordinate = flat % static_cast<std::size_t>(dims[i]);
    flat /= static_cast<std::size_t>(dims[i]);
    const std::size_t j = i + v.dims.size();
    if (j < dims.size()) continue;  // a leading dimension v does not have
    const std::size_t k = j - dims.size();
    const auto extent = static_cast<std::size_t>(v.dims[k]);
    index += (extent == 1 ? 0 : coordinate) * stride;
    stride *= extent;
  }
  return v.data[index];
}

Maybe elementwise(const std::vector<const Value*>& inputs, int type,
                  const std::function<double(const std::vector<double>&)>& f) {
  const auto dims = broadcastDims(inputs);
  if (!dims) return std::nullopt;
  Value out;
  out.type = type;
  out.dims = *dims;
  if (out.elements() > kMaxElements) return std::nullopt;
  std::vector<double> args(inputs.size());
  for (std::size_t flat = 0; flat < out.elements(); ++flat) {
    for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = broadcastAt(*inputs[i], out.dims, flat);
    const double r = f(args);
    if (!std::isfinite(r) && isInteger(type)) return std::nullopt;
    out.data.push_back(r);
  }
  return out;
}

double integerResult(double v, int type) { return isInteger(type) ? std::trunc(v) : v; }

/// The value of one operator from its inputs' values (nullptr where unknown),
/// or nullopt if it cannot (or need not) be evaluated here.
Maybe evaluate(const onnx::NodeProto& node, const std::vector<const Value*>& in,
               const std::vector<const std::vector<std::int64_t>*>& shapes) {
  const std::string& op = node.op_type();
  auto all = [&](std::size_t n) {
    if (in.size() < n) return false;
    for (std::size_t i = 0; i < n; ++i)
      if (!in[i]) return false;
    return true;
  };
  if (op == "Shape" || op == "Size") {
    if (shapes.empty() || !shapes[0]) return std::nullopt;
    const auto& shape = *shapes[0];
    Value out;
    if (op == "Size") {
      double n = 1;
      for (auto d : shape) n *= static_cast<double>(d);
      out.data = {n};
      return out;
    }
    const auto rank = static_cast<std::int64_t>(shape.size());
    std::int64_t start = intAttribute(node, "start", 0), end = intAttribute(node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<std::int64_t>(start, 0, rank);
    end = std::clamp<std::int64_t>(end, 0, rank);
    for (std::int64_t i = start; i < end; ++i) out.data.push_back(static_cast<double>(shape[i]));
    out.dims = {static_cast<std::int64_t>(out.data.size())};
    return out;
  }
  if (op == "Identity" && all(1)) return *in[0];
  if (op == "Cast" && all(1)) {
    Value out = *in[0];
    out.type = static_cast<int>(intAttribute(node, "to", 0));
    if (!supportedType(out.type)) return std::nullopt;
    for (double& v : out.data)
      v = out.type == onnx::TensorProto::BOOL ? (v != 0) : integerResult(v, out.type);
    return out;
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && all(1)) {
    auto axes = intsFrom(node, "axes", in.size() > 1 ? in[1] : nullptr);
    Value out = *in[0];
    if (op == "Squeeze") {
      if (!axes || axes->empty()) {
        out.dims.erase(std::remove(out.dims.begin(), out.dims.end(), 1), out.dims.end());
        return out;
      }
      for (auto& a : *axes)
        if (!normalizeAxis(&a, out.dims.size()) || out.dims[a] != 1) return std::nullopt;
      std::sort(axes->rbegin(), axes->rend());
      for (auto a : *axes) out.dims.erase(out.dims.begin() + a);
      return out;
    }
    if (!axes) return std::nullopt;
    const std::size_t rank = out.dims.size() + axes->size();
    for (auto& a : *axes)
      if (!normalizeAxis(&a, rank)) return std::nullopt;
    std::sort(axes->begin(), axes->end());
    for (auto a : *axes) out.dims.insert(out.dims.begin() + a, 1);
    return out;
  }
  if (op == "Concat" && all(in.size()) && !in.empty()) {
    std::int64_t axis = intAttribute(node, "axis", 0);
    Value out = *in[0];
    if (!normalizeAxis(&axis, out.dims.size()) || axis != 0) return std::nullopt;
    for (std::size_t i = 1; i < in.size(); ++i) {
      if (in[i]->dims.size() != out.dims.size() ||
          !std::equal(in[i]->dims.begin() + 1, in[i]->dims.end(), out.dims.begin() + 1))
        return std::nullopt;
      out.dims[0] += in[i]->dims[0];
      out.data.insert(out.data.end(), in[i]->data.begin(), in[i]->data.end());
    }
    return out;
  }
  if (op == "Gather" && all(2)) {
    const Value &data = *in[0], &indices = *in[1];
    std::int64_t axis = intAttribute(node, "axis", 0);
    if (data.dims.empty() || data.dims[0] == 0 || !normalizeAxis(&axis, data.dims.size()) || axis != 0)
      return std::nullopt;
    const std::size_t row = data.elements() / static_cast<std::size_t>(data.dims[0]);
    Value out;
    out.type = data.type;
    out.dims = indices.dims;
    out.dims.insert(out.dims.end(), data.dims.begin() + 1, data.dims.end());
    if (out.elements() > kMaxElements) return std::nullopt;
    for (double i : indices.data) {
      auto k = static_cast<std::int64_t>(i);
      if (k < 0) k += data.dims[0];
      if (k < 0 || k >= data.dims[0]) return std::nullopt;
      out.data.insert(out.data.end(), data.data.begin() + k * row, data.data.begin() + (k + 1) * row);
    }
    return out;
  }
  if (op == "Slice" && all(3) && in[0]->dims.size() == 1) {
    const Value& data = *in[0];
    if (in.size() > 3 && in[3]) {  // axes: only the one axis of a vector
      if (in[3]->data.size() != 1 || (in[3]->data[0] != 0 && in[3]->data[0] != -1)) return std::nullopt;
    }
    const auto n = static_cast<double>(data.dims[0]);
    if (in[1]->data.size() != 1 || in[2]->data.size() != 1) return std::nullopt;
    double start = in[1]->data[0], end = in[2]->data[0];
    const double step = in.size() > 4 && in[4] ? in[4]->data.at(0) : 1;
    if (step == 0) return std::nullopt;
    if (start < 0) start += n;
    if (end < 0) end += n;
    Value out;
    out.type = data.type;
    if (step > 0) {
      start = std::clamp(start, 0.0, n);
      end = std::clamp(end, 0.0, n);
      for (double i = start; i < end; i += step)
        out.data.push_back(data.data[static_cast<std::size_t>(i)]);
    } else {
      start = std::clamp(start, 0.0, n - 1);
      end = std::clamp(end, -1.0, n - 1);
      for (double i = start; i > end; i += step)
        out.data.push_back(data.data[static_cast<std::size_t>(i)]);
    }
    out.dims = {static_cast<std::int64_t>(out.data.size())};
    return out;
  }
  static const std::unordered_map<std::string, std::function<double(double, double)>> binary = {
      {"Add", [](double a, double b) { return a + b; }},
      {"Sub", [](double a, double b) { return a - b; }},
      {"Mul", [](double a, double b) { return a * b; }},
      {"Div", [](double a, double b) { return a / b; }},
      {"Pow", [](double a, double b) { return std::pow(a, b); }},
      {"Max", [](double a, double b) { return std::max(a, b); }},
      {"Min", [](double a, double b) { return std::min(a, b); }},
  };
  static const std::unordered_map<std::string, std::function<double(double, double)>> compare = {
      {"Equal", [](double a, double b) { return a == b ? 1.0 : 0.0; }},
      {"Less", [](double a, double b) { return a < b ? 1.0 : 0.0; }},
      {"Greater", [](double a, double b) { return a > b ? 1.0 : 0.0; }},
      {"LessOrEqual", [](double a, double b) { return a <= b ? 1.0 : 0.0; }},
      {"GreaterOrEqual", [](double a, double b) { return a >= b ? 1.0 : 0.0; }},
      {"And", [](double a, double b) { return (a != 0 && b != 0) ? 1.0 : 0.0; }},
      {"Or", [](double a, double b) { return (a != 0 || b != 0) ? 1.0 : 0.0; }},
  };
  if (const auto it = binary.find(op); it != binary.end() && in.size() == 2 && all(2)) {
    const int type = in[0]->type;
    if (op == "Div" && isInteger(type))
      for (double b : in[1]->data)
        if (b == 0) return std::nullopt;
    return elementwise({in[0], in[1]}, type, [&, type](const std::vector<double>& a) {
      return integerResult(it->second(a[0], a[1]), type);
    });
  }
  if (const auto it = compare.find(op); it != compare.end() && all(2))
    return elementwise({in[0], in[1]}, onnx::TensorProto::BOOL,
                       [&](const std::vector<double>& a) { return it->second(a[0], a[1]); });
  static const std::unordered_map<std::string, std::function<double(double)>> unary = {
      {"Neg", [](double a) { return -a; }},
      {"Abs", [](double a) { return std::fabs(a); }},
      {"Sqrt", [](double a) { return std::sqrt(a); }},
      {"Reciprocal", [](double a) { return 1 / a; }},
      {"Floor", [](double a) { return std::floor(a); }},
      {"Ceil", [](double a) { return std::ceil(a); }},
      {"Not", [](double a) { return a == 0 ? 1.0 : 0.0; }},
  };
  if (const auto it = unary.find(op); it != unary.end() && all(1)) {
    const int type = in[0]->type;
    return elementwise({in[0]}, type, [&, type](const std::vector<double>& a) {
      return integerResult(it->second(a[0]), type);
    });
  }
  if (op == "Where" && all(3))
    return elementwise({in[0], in[1], in[2]}, in[1]->type,
                       [](const std::vector<double>& a) { return a[0] != 0 ? a[1] : a[2]; });
  if (op == "ConstantOfShape" && all(1)) {
    Value out;
    out.type = onnx::TensorProto::FLOAT;
    double fill = 0;
    if (const auto* a = attribute(node, "value"); a && a->has_t()) {
      const auto v = fromTensor(a->t());
      if (!v || v->data.size() != 1) return std::nullopt;
      out.type = v->type;
      fill = v->data[0];
    }
    for (double d : in[0]->data) {
      if (d < 0) return std::nullopt;
      out.dims.push_back(static_cast<std::int64_t>(d));
    }
    if (out.elements() > kMaxElements) return std::nullopt;
    out.data.assign(out.elements(), fill);
    return out;
  }
  if (op == "Range" && all(3)) {
    if (in[0]->data.size() != 1 || in[1]->data.size() != 1 || in[2]->data.size() != 1)
      return std::nullopt;
    const double start = in[0]->data[0], limit = in[1]->data[0], delta = in[2]->data[0];
    if (delta == 0) return std::nullopt;
    const double count = std::max(0.0, std::ceil((limit - start) / delta));
    if (count > kMaxElements) return std::nullopt;
    Value out;
    out.type = in[0]->type;
    for (double i = 0; i < count; ++i) out.data.push_back(start + i * delta);
    out.dims = {static_cast<std::int64_t>(out.data.size())};
    return out;
  }
  if (op == "Expand" && all(2)) {
    Value shape;  // zeros of the target shape: broadcasting does the rest
    for (double d : in[1]->data) {
      if (d < 0) return std::nullopt;
      shape.dims.push_back(static_cast<std::int64_t>(d));
    }
    if (shape.elements() > kMaxElements) return std::nullopt;
    shape.data.assign(shape.elements(), 0);
    return elementwise({in[0], &shape}, in[0]->type, [](const std::vector<double>& a) { return a[0]; });
  }
  if (op == "Reshape" && all(2)) {
    Value out = *in[0];
    out.dims.clear();
    std::int64_t known = 1;
    int inferred = -1;
    for (std::size_t i = 0; i < in[1]->data.size(); ++i) {
      auto d = static_cast<std::int64_t>(in[1]->data[i]);
      if (d == 0 && intAttribute(node, "allowzero", 0) == 0) {
        if (i >= in[0]->dims.size()) return std::nullopt;
        d = in[0]->dims[i];
      }
      if (d == -1) {
        if (inferred >= 0) return std::nullopt;
        inferred = static_cast<int>(i);
        d = 1;
      } else if (d < 0) {
        return std::nullopt;
      }
      known *= d;
      out.dims.push_back(d);
    }
    const auto total = static_cast<std::int64_t>(in[0]->data.size());
    if (inferred >= 0) {
      if (known == 0 || total % known != 0) return std::nullopt;
      out.dims[inferred] = total / known;
    }
    if (static_cast<std::int64_t>(out.elements()) != total) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

}  // namespace

int foldShapeValues(onnx::ModelProto* model) {
  onnx::GraphProto* graph = model->mutable_graph();
  std::unordered_map<std::string, Value> values;
  std::unordered_map<std::string, std::vector<std::int64_t>> shapes;
  auto addShape = [&](const onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
    std::vector<std::int64_t> dims;
    for (const auto& d : info.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) return;
      dims.push_back(d.dim_value());
    }
    shapes[info.name()] = std::move(dims);
  };
  for (const auto& info : graph->input()) addShape(info);
  for (const auto& info : graph->value_info()) addShape(info);
  for (const auto& init : graph->initializer()) {
    shapes[init.name()] = {init.dims().begin(), init.dims().end()};
    if (auto v = fromTensor(init)) values.emplace(init.name(), std::move(*v));
  }
  int folded = 0;
  for (auto& node : *graph->mutable_node()) {
    if (node.op_type() == "Constant" && node.output_size() == 1) {
      const auto* a = attribute(node, "value");
      if (a && a->has_t())
        if (auto v = fromTensor(a->t())) values.emplace(node.output(0), std::move(*v));
      continue;
    }
    if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
    if (node.output_size() != 1 || node.output(0).empty()) continue;
    std::vector<const Value*> in;
    std::vector<const std::vector<std::int64_t>*> inShapes;
    for (const auto& name : node.input()) {
      const auto v = values.find(name);
      in.push_back(name.empty() || v == values.end() ? nullptr : &v->second);
      const auto s = shapes.find(name);
      inShapes.push_back(s == shapes.end() ? nullptr : &s->second);
    }
    Maybe result;
    try {
      result = evaluate(node, in, inShapes);
    } catch (const std::exception&) {
      result.reset();
    }
    if (!result || result->elements() > kMaxElements || result->data.size() != result->elements())
      continue;
    const std::string output = node.output(0);
    const std::string name = node.name();
    node.Clear();
    node.set_op_type("Constant");
    node.set_name(name);
    node.add_output(output);
    auto* value = node.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = toTensor(*result);
    shapes[output] = result->dims;
    values.emplace(output, std::move(*result));
    ++folded;
  }
  return folded;
}

}  // namespace dnnplace::onnx_import
