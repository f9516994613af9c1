// libFuzzer target: the workload reader. What it accepts must write out and
// read back as the same graph.

#include <cstdint>

#include "dnnplace/workload.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dnnplace;
  std::string error;
  auto workload = parseWorkload(fuzz::asText(data, size), "fuzz.json", &error);
  if (!workload) {
    fuzz::expectOneLine(error, "fuzz.json");
    return 0;
  }
  std::string again;
  auto reparsed = parseWorkload(workloadToJson(*workload), "again.json", &again);
  if (!reparsed) fuzz::finding("an accepted workload does not read back: " + again);
  if (reparsed->numNodes() != workload->numNodes() ||
      reparsed->graph().edges.size() != workload->graph().edges.size())
    fuzz::finding("an accepted workload reads back as another graph");
  return 0;
}
