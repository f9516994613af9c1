#pragma once
/// Counting the ideals (predecessor-closed node sets) of the contracted
/// forward graph, with the same machinery the DP enumerates them with.

#include <cstdint>

#include "dnnplace/workload.hpp"

namespace dnnplace {

struct IdealCount {
  std::uint64_t count = 0;  ///< exact when !exceeded, else the cap that was passed
  bool exceeded = false;
};

/// Ideals of the forward graph after the DP's preprocessing (DESIGN §4, 1–4).
IdealCount countIdeals(const Workload& workload, std::uint64_t cap);

}  // namespace dnnplace
