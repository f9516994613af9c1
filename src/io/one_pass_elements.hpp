#pragma once
// A workload's node or edge read in one pass over its members, without
// building messages: each field converted as the checked readers in
// workload.cpp convert it (json_input::toInteger, toNumber, toFlag). A false
// means a fault, which those readers then find again and name.

#include "dnnplace/workload.hpp"
#include "io/json_input.hpp"

namespace dnnplace::detail {

/// *node untouched unless true.
bool readNodeInOnePass(const json_input::FlatValue& item, Node* node);
/// *edge untouched unless true.
bool readEdgeInOnePass(const json_input::FlatValue& item, RawEdge* edge);

}  // namespace dnnplace::detail
