#pragma once
// The common case of a workload's node or edge, read without building
// messages: every field present in its plainest form (an integer id, true/
// false or 0/1 flags, finite amounts). A false leaves the element to the
// checked readers in workload.cpp, which accept the other spellings too and
// name the fault; what both accept, they read alike.

#include "dnnplace/workload.hpp"
#include "json_input.hpp"

namespace dnnplace::detail {

/// *node untouched unless true.
bool readPlainNode(const json_input::FlatValue& item, Node* node);
/// *edge untouched unless true.
bool readPlainEdge(const json_input::FlatValue& item, RawEdge* edge);

}  // namespace dnnplace::detail
