#pragma once
// How messages name a workload's elements.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace dnnplace::detail {

/// "node #3", or "node #3 (id 7)" once its id is known.
std::string nodeLabel(std::size_t index, std::optional<std::int64_t> id);

}  // namespace dnnplace::detail
