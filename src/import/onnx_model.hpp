#pragma once
/// An ONNX model read with Debian's libonnx (its protobuf classes and shape
/// inference), reduced to what the cost model needs: operators, and tensors
/// with static shapes and element sizes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/import.hpp"

namespace onnx {
class NodeProto;
}

namespace dnnplace::onnx_import {

struct Tensor {
  std::string name;
  int elementType = 0;              ///< TensorProto::DataType
  std::vector<std::int64_t> shape;  ///< static, after --dim and shape inference
  double bytes = 0;
  bool isGraphInput = false;   ///< a graph input without an initializer
  bool isInitializer = false;  ///< stored in the file (or declared so)
  bool isGraphOutput = false;
  bool hadSymbolicDims = false;  ///< a graph input whose shape needed --dim
  int inputPosition = -1;        ///< among the graph inputs without an initializer
  double elements() const;
  bool trainableType() const;  ///< a floating-point element type
};

struct Operator {
  std::string name;  ///< as in the file, or "Type_N" if it has none
  std::string type, domain;
  std::vector<int> inputs;   ///< tensor indices; -1 for an omitted optional input
  std::vector<int> outputs;  ///< tensor indices; -1 for an omitted optional output
  const onnx::NodeProto* proto = nullptr;
};

/// The model: owns the protobuf message the operators point into.
class Model {
 public:
  Model();
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  std::vector<Tensor> tensors;
  std::vector<Operator> operators;  ///< in file order (ONNX requires a topological one)
  bool hasInitializers = false;     ///< the file holds (some) weights

  /// An integer attribute of an operator, or `fallback`.
  std::int64_t intAttribute(const Operator& op, const char* name, std::int64_t fallback) const;
  /// An integer-list attribute, empty if absent.
  std::vector<std::int64_t> intsAttribute(const Operator& op, const char* name) const;

 private:
  struct Storage;
  std::unique_ptr<Storage> storage_;
  friend std::optional<Model> parseModel(const std::string&, const std::string&,
                                         const std::vector<std::pair<std::string, std::int64_t>>&,
                                         ImportError*);
};

/// Parses a model's bytes, checks its opsets and ONNX's own rules, binds
/// symbolic dimensions, runs ONNX shape inference (with data propagation, so
/// that shapes computed at run time from other shapes are known) and requires
/// every tensor an operator touches to have a static shape. `file` names it
/// in messages.
std::optional<Model> parseModel(const std::string& bytes, const std::string& file,
                                const std::vector<std::pair<std::string, std::int64_t>>& dims,
                                ImportError* error);

/// Bytes per element of an ONNX element type (0 if unknown).
double elementBytes(int elementType);

}  // namespace dnnplace::onnx_import
