// libFuzzer target: import onnx on arbitrary bytes (libonnx's parser, checker
// and shape inference, then the cost model). What it accepts must write out
// and read back as the same graph.

#include <cstdint>

#include "dnnplace/import.hpp"
#include "fuzz_support.hpp"
#include "import/onnx_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dnnplace;
  const std::string bytes(fuzz::asText(data, size));
  OnnxImportOptions options;
  options.accelerator = {"a100", 312e12, 1.555e12, 40e9, 25e9, 5e-6, "", ""};
  options.cpu = {"core", 147.2e9, 5.12e9, 0, 0, 1e-6, "", ""};
  options.accelerators = 4;
  options.cpus = 1;
  options.training = size % 2 == 1;
  options.granularity = size % 3 == 1 ? OnnxImportOptions::Granularity::Layer
                                      : OnnxImportOptions::Granularity::Operator;
  // The zoo's symbolic dimensions, so that its models reach the cost model.
  for (const auto& dims : std::vector<std::vector<std::pair<std::string, std::int64_t>>>{
           {{"batch", 2}, {"seq", 8}}, {{"batch", 2}}, {}}) {
    options.dims = dims;
    ImportError error;
    const auto workload = onnx_import::importOnnxBytes(bytes, "fuzz.onnx", options, nullptr, &error);
    if (!workload) {
      fuzz::expectOneLine(error.message, "fuzz.onnx");
      if (error.message.find("--dim") != std::string::npos) continue;  // try the next dimensions
      return 0;
    }
    std::string again;
    const auto reparsed = parseWorkload(workloadToJson(*workload), "again.json", &again);
    if (!reparsed) fuzz::finding("an imported workload does not read back: " + again);
    if (reparsed->numNodes() != workload->numNodes() ||
        reparsed->graph().edges.size() != workload->graph().edges.size())
      fuzz::finding("an imported workload reads back as another graph");
    return 0;
  }
  return 0;
}
