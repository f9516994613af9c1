// Reading an ONNX model with libonnx: parse, opsets, symbolic dimensions,
// shape inference, and the static shapes the cost model needs.

#include "import/onnx_model.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "dnnplace/workload.hpp"
#include "import/shape_values.hpp"
#include "util/format.hpp"

namespace dnnplace::onnx_import {

struct Model::Storage {
  onnx::ModelProto proto;
};

Model::Model() : storage_(std::make_unique<Storage>()) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

double Tensor::elements() const {
  double count = 1;
  for (std::int64_t d : shape) count *= static_cast<double>(d);
  return count;
}

bool Tensor::trainableType() const {
  return elementType == onnx::TensorProto::FLOAT || elementType == onnx::TensorProto::FLOAT16 ||
         elementType == onnx::TensorProto::BFLOAT16 || elementType == onnx::TensorProto::DOUBLE;
}

double elementBytes(int type) {
  switch (type) {
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8: return 1;
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::FLOAT: return 4;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX64: return 8;
    case onnx::TensorProto::COMPLEX128: return 16;
    default: return 0;
  }
}

namespace {

/// Shape values a model computes from shapes computed from shapes...: a
/// PyTorch transformer needs one pass per layer or so.
constexpr int kMaxFoldPasses = 1000;

const onnx::AttributeProto* findAttribute(const onnx::NodeProto& node, const char* name) {
  for (const auto& attribute : node.attribute())
    if (attribute.name() == name) return &attribute;
  return nullptr;
}

std::string dimensionText(const onnx::TensorShapeProto::Dimension& dim) {
  if (dim.has_dim_value()) return std::to_string(dim.dim_value());
  if (dim.has_dim_param()) return "'" + dim.dim_param() + "'";
  return "?";
}

/// A library's message on one line, shortened.
std::string oneLineText(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

bool fail(ImportError* error, std::string message) {
  error->message = std::move(message);
  return false;
}

/// The standard domains' opsets must be ones this libonnx knows.
bool checkOpsets(const onnx::ModelProto& model, const std::string& file, ImportError* error) {
  if (model.opset_import_size() == 0)
    return fail(error, file + ": the model imports no opset (opset_import is empty)");
  const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto& opset : model.opset_import()) {
    const std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
    const auto it = known.find(domain);
    if (it == known.end()) continue;  // a custom domain: its operators are estimated by bytes
    if (opset.version() < 1 || opset.version() > it->second.second)
      return fail(error, file + ": opset " + std::to_string(opset.version()) + " of domain '" +
                             (domain.empty() ? "ai.onnx" : domain) +
                             "' is not one this ONNX library knows (1 to " +
                             std::to_string(it->second.second) + ")");
  }
  return true;
}

/// The extent a geometry attribute may have: far beyond any real kernel,
/// stride or padding, small enough that no shape arithmetic overflows.
constexpr std::int64_t kMaxGeometry = std::int64_t{1} << 31;

bool standardDomain(const onnx::NodeProto& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

/// What ONNX's shape inference divides by or loops on must be in range before
/// it runs: it trusts a convolution's strides (a stride of 0 divides by zero)
/// and a block size. Subgraphs (If, Loop, Scan) are checked alike.
bool checkGeometry(const onnx::GraphProto& graph, const std::string& file, ImportError* error) {
  static const std::set<std::string> convolutionsAndPools = {
      "Conv",    "ConvInteger", "QLinearConv", "ConvTranspose",     "AveragePool",
      "MaxPool", "LpPool",      "MaxUnpool",   "QLinearAveragePool"};
  static const std::set<std::string> blocks = {"DepthToSpace", "SpaceToDepth"};
  for (const auto& node : graph.node()) {
    const std::string where = file + ": operator '" + node.name() + "' (" + node.op_type() + ")";
    for (const auto& attribute : node.attribute()) {
      if (attribute.type() == onnx::AttributeProto::GRAPH && !checkGeometry(attribute.g(), file, error))
        return false;
      if (attribute.type() == onnx::AttributeProto::GRAPHS)
        for (const auto& subgraph : attribute.graphs())
          if (!checkGeometry(subgraph, file, error)) return false;
    }
    if (!standardDomain(node)) continue;
    if (node.op_type() == "STFT")
      return fail(error, where + ": signal-processing operators are not imported");
    const bool convolution = convolutionsAndPools.count(node.op_type()) > 0;
    if (!convolution && !blocks.count(node.op_type())) continue;
    for (const auto& attribute : node.attribute()) {
      const std::string& name = attribute.name();
      const bool geometry = convolution ? name == "strides" || name == "dilations" ||
                                              name == "kernel_shape" || name == "pads"
                                        : name == "blocksize";
      if (!geometry) continue;
      const std::int64_t low = name == "pads" ? 0 : 1;
      std::vector<std::int64_t> values(attribute.ints().begin(), attribute.ints().end());
      if (attribute.has_i()) values.push_back(attribute.i());
      for (const std::int64_t value : values)
        if (value < low || value > kMaxGeometry)
          return fail(error, where + ": attribute " + name + " has the value " + std::to_string(value) +
                                 " (each must be " + std::to_string(low) + " to 2^31)");
    }
  }
  return true;
}

/// A tensor's raw_data must hold exactly its elements: libonnx's ParseData
/// (shape inference, and the importer's shape arithmetic) copies all of it
/// into a vector sized raw_data.size() / sizeof(T), so fewer or odd bytes
/// are written past the vector's end.
bool checkRawData(const onnx::TensorProto& tensor, const std::string& where, ImportError* error) {
  if (!tensor.has_raw_data() || tensor.data_location() == onnx::TensorProto::EXTERNAL) return true;
  const double width = elementBytes(tensor.data_type());
  double elements = 1;
  for (const auto d : tensor.dims()) elements *= static_cast<double>(d);
  const double bytes = static_cast<double>(tensor.raw_data().size());
  if (width > 0 && elements >= 0 && bytes == elements * width) return true;
  return fail(error,
              where + " '" + tensor.name() + "': raw_data holds " + formatShortest(bytes) +
                  " bytes, its type and dims need " +
                  (width > 0 && elements >= 0 ? formatShortest(elements * width)
                                              : std::string("a fixed-width type and dims >= 0")));
}

/// checkRawData on every initializer and tensor attribute, subgraphs included.
bool checkTensors(const onnx::GraphProto& graph, const std::string& file, ImportError* error) {
  for (const auto& init : graph.initializer())
    if (!checkRawData(init, file + ": initializer", error)) return false;
  for (const auto& node : graph.node()) {
    const std::string where = file + ": operator '" + node.name() + "' (" + node.op_type() + ") tensor";
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_t() && !checkRawData(attribute.t(), where, error)) return false;
      for (const auto& tensor : attribute.tensors())
        if (!checkRawData(tensor, where, error)) return false;
      if (attribute.has_g() && !checkTensors(attribute.g(), file, error)) return false;
      for (const auto& subgraph : attribute.graphs())
        if (!checkTensors(subgraph, file, error)) return false;
    }
  }
  return true;
}

/// Gives the graph inputs' symbolic dimensions their --dim values; names a
/// dimension left symbolic or a --dim the model does not have.
bool bindDimensions(onnx::GraphProto* graph, const std::set<std::string>& initializers,
                    const std::vector<std::pair<std::string, std::int64_t>>& dims,
                    const std::string& file, ImportError* error) {
  std::map<std::string, std::int64_t> values(dims.begin(), dims.end());
  std::set<std::string> symbols;
  for (auto& input : *graph->mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* dim = shape->mutable_dim(i);
      if (dim->has_dim_value()) continue;
      const std::string symbol = dim->has_dim_param() ? dim->dim_param() : "";
      symbols.insert(symbol);
      const auto it = values.find(symbol);
      if (symbol.empty() || it == values.end())
        return fail(error, file + ": input '" + input.name() + "' dimension " + std::to_string(i) +
                               " is symbolic (" + (symbol.empty() ? "unnamed" : "'" + symbol + "'") +
                               "): give its value with --dim " + (symbol.empty() ? "NAME" : symbol) +
                               "=N");
      dim->set_dim_value(it->second);
    }
  }
  for (const auto& [name, value] : dims)
    if (!symbols.count(name)) {
      std::string known;
      for (const auto& symbol : symbols) known += (known.empty() ? "" : ", ") + symbol;
      return fail(error, file + ": --dim " + name +
                             ": the model's inputs have no symbolic dimension '" + name + "' (" +
                             (known.empty() ? "they have none" : "they have: " + known) + ")");
    }
  return true;
}

}  // namespace

std::int64_t Model::intAttribute(const Operator& op, const char* name, std::int64_t fallback) const {
  const auto* attribute = findAttribute(*op.proto, name);
  return attribute && attribute->has_i() ? attribute->i() : fallback;
}

std::vector<std::int64_t> Model::intsAttribute(const Operator& op, const char* name) const {
  const auto* attribute = findAttribute(*op.proto, name);
  if (!attribute) return {};
  return {attribute->ints().begin(), attribute->ints().end()};
}

std::optional<Model> parseModel(const std::string& bytes, const std::string& file,
                                const std::vector<std::pair<std::string, std::int64_t>>& dims,
                                ImportError* error) {
  Model model;
  onnx::ModelProto& proto = model.storage_->proto;
  if (bytes.empty() || !proto.ParseFromString(bytes) || !proto.has_graph()) {
    error->message =
        file + ": not an ONNX model (" +
        (bytes.empty() ? std::string("the file is empty")
                       : "no ONNX graph could be read from it: a truncated file, or another format") +
        ")";
    return std::nullopt;
  }
  if (proto.graph().node_size() == 0) {
    error->message = file + ": the model's graph has no operators";
    return std::nullopt;
  }
  if (!checkOpsets(proto, file, error) || !checkGeometry(proto.graph(), file, error) ||
      !checkTensors(proto.graph(), file, error))
    return std::nullopt;
  // ONNX's own checker first: shape inference assumes a well-formed graph.
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception& e) {
    error->message = file + ": not a valid ONNX model: " + oneLineText(e.what());
    return std::nullopt;
  }

  onnx::GraphProto* graph = proto.mutable_graph();
  std::set<std::string> initializers;
  for (const auto& init : graph->initializer()) initializers.insert(init.name());
  std::set<std::string> symbolicInputs;
  for (const auto& input : graph->input())
    if (input.type().has_tensor_type())
      for (const auto& dim : input.type().tensor_type().shape().dim())
        if (!dim.has_dim_value()) symbolicInputs.insert(input.name());
  if (!bindDimensions(graph, initializers, dims, file, error)) return std::nullopt;
  // Shapes are inferred afresh from the bound inputs: the exporter's own
  // value_info and output shapes still carry the symbolic dimensions.
  // Static shapes the file gives are kept (an operator of a custom domain has
  // no inference of its own).
  auto symbolic = [](const onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return true;
    for (const auto& dim : info.type().tensor_type().shape().dim())
      if (!dim.has_dim_value()) return true;
    return false;
  };
  auto* infos = graph->mutable_value_info();
  infos->erase(std::remove_if(infos->begin(), infos->end(), symbolic), infos->end());
  for (auto& output : *graph->mutable_output())
    if (symbolic(output) && output.type().has_tensor_type())
      output.mutable_type()->mutable_tensor_type()->clear_shape();
  try {
    onnx::ShapeInferenceOptions options(false, 0, true);
    onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(), options);
    // Each pass evaluates the shape values inference could not follow, so
    // that the next can shape what depends on them (foldShapeValues).
    for (int pass = 0; pass < kMaxFoldPasses && foldShapeValues(&proto) > 0; ++pass)
      onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    error->message = file + ": ONNX shape inference failed: " + oneLineText(e.what());
    return std::nullopt;
  }

  // Every tensor: graph inputs, initializers, and what inference found.
  std::unordered_map<std::string, int> indexOf;
  std::unordered_map<std::string, const onnx::TypeProto*> typeOf;
  for (const auto& info : graph->input()) typeOf[info.name()] = &info.type();
  for (const auto& info : graph->value_info()) typeOf[info.name()] = &info.type();
  for (const auto& info : graph->output())  // a shape from value_info stays
    if (!typeOf.count(info.name()) || info.type().tensor_type().has_shape())
      typeOf[info.name()] = &info.type();
  std::unordered_map<std::string, const onnx::TensorProto*> initializerOf;
  for (const auto& init : graph->initializer()) initializerOf[init.name()] = &init;
  std::set<std::string> graphInputs, graphOutputs;
  std::unordered_map<std::string, int> inputPosition;
  for (const auto& info : graph->input()) {
    graphInputs.insert(info.name());
    if (!initializerOf.count(info.name()))
      inputPosition.emplace(info.name(), static_cast<int>(inputPosition.size()));
  }
  model.hasInitializers = graph->initializer_size() > 0;
  for (const auto& info : graph->output()) graphOutputs.insert(info.name());

  // `op` and `role` name the tensor's place in a message.
  auto tensorIndex = [&](const std::string& name, const std::string& where) -> std::optional<int> {
    if (const auto it = indexOf.find(name); it != indexOf.end()) return it->second;
    Tensor tensor;
    tensor.name = name;
    tensor.isInitializer = initializerOf.count(name) > 0;
    tensor.isGraphInput = graphInputs.count(name) > 0 && !tensor.isInitializer;
    tensor.isGraphOutput = graphOutputs.count(name) > 0;
    tensor.hadSymbolicDims = symbolicInputs.count(name) > 0;
    if (const auto it = inputPosition.find(name); it != inputPosition.end() && tensor.isGraphInput)
      tensor.inputPosition = it->second;
    if (tensor.isInitializer) {
      const onnx::TensorProto& init = *initializerOf[name];
      tensor.elementType = init.data_type();
      tensor.shape.assign(init.dims().begin(), init.dims().end());
    } else {
      const auto it = typeOf.find(name);
      if (it == typeOf.end() || !it->second->has_tensor_type() ||
          !it->second->tensor_type().has_shape()) {
        error->message = file + ": " + where + ": tensor '" + name +
                         "' has no shape after ONNX shape inference (an operator it cannot infer, "
                         "or a dimension computed from data)";
        return std::nullopt;
      }
      const auto& type = it->second->tensor_type();
      tensor.elementType = type.elem_type();
      for (int i = 0; i < type.shape().dim_size(); ++i) {
        const auto& dim = type.shape().dim(i);
        if (!dim.has_dim_value() || dim.dim_value() < 0) {
          // A symbol of the inputs would have been bound; any other comes from
          // inference (ONNX names them unk__N): a size it could not compute.
          error->message = file + ": " + where + ": tensor '" + name + "' dimension " +
                           std::to_string(i) + " is " + dimensionText(dim) +
                           " after shape inference, not a number: ONNX shape inference could not "
                           "compute it (a size that depends on data, or on values it does not "
                           "follow; docs/cost-model.md §1 says how to export so that it can)";
          return std::nullopt;
        }
        tensor.shape.push_back(dim.dim_value());
      }
    }
    if (elementBytes(tensor.elementType) == 0) {
      error->message = file + ": " + where + ": tensor '" + name + "' has element type " +
                       std::to_string(tensor.elementType) + ", of no known size";
      return std::nullopt;
    }
    tensor.bytes = tensor.elements() * elementBytes(tensor.elementType);
    const int index = static_cast<int>(model.tensors.size());
    model.tensors.push_back(std::move(tensor));
    indexOf.emplace(name, index);
    return index;
  };

  std::map<std::string, int> typeCount;
  for (const auto& node : graph->node()) {
    Operator op;
    op.type = node.op_type();
    op.domain = node.domain();
    op.name = node.name().empty() ? op.type + "_" + std::to_string(typeCount[op.type]) : node.name();
    ++typeCount[op.type];
    op.proto = &node;
    const std::string where = "operator '" + op.name + "' (" + op.type + ")";
    // Tensor indices of a list of names; -1 for an omitted optional one.
    const auto indices = [&](const auto& names, const char* role, std::vector<int>* out) {
      for (const std::string& name : names) {
        if (name.empty()) {
          out->push_back(-1);
          continue;
        }
        const auto index = tensorIndex(name, where + role);
        if (!index) return false;
        out->push_back(*index);
      }
      return true;
    };
    if (!indices(node.input(), " input", &op.inputs) || !indices(node.output(), " output", &op.outputs))
      return std::nullopt;
    model.operators.push_back(std::move(op));
  }
  return model;
}

}  // namespace dnnplace::onnx_import
