#pragma once
/// Reading input files under a byte cap. readFile(path, error) (workload.hpp)
/// uses defaultReadLimit(); the CLI gives the cap of its --memory-limit.

#include <cstdint>
#include <optional>
#include <string>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

/// The most bytes of input read under a memory limit: a quarter of it (the
/// text, the parser's records and the graph built from them take about 2.5
/// times the text). A limit of 0 (no cap) counts as a quarter of the
/// machine's memory: a larger input could not be held anyway.
std::uint64_t readLimitFor(std::uint64_t memoryLimitBytes);

/// readLimitFor(half the machine's memory), the CLI's default limit.
std::uint64_t defaultReadLimit();

/// Reads a whole file ("-": standard input) of at most `maxBytes` bytes; a
/// longer file or stream (an endless pipe) stops there with the error
/// "NAME: more than N bytes, the input cap (a quarter of the memory limit)".
std::optional<std::string> readFile(const std::string& path, std::string* error,
                                    std::uint64_t maxBytes);

/// loadWorkload and loadPlan (workload.hpp, plan.hpp) reading at most `maxBytes`.
std::optional<Workload> loadWorkload(const std::string& path, std::string* error,
                                     std::uint64_t maxBytes);
std::optional<PlanFile> loadPlan(const std::string& path, std::string* error, std::uint64_t maxBytes);

}  // namespace dnnplace
