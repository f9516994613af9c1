// The import commands: a model or a profile in, a workload JSON out.

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <utility>

#include "commands.hpp"
#include "dnnplace/report.hpp"

namespace dnnplace::cli {

namespace {

/// "NAME=VALUE" with a positive integer VALUE.
bool parseDim(const std::string& text, std::pair<std::string, std::int64_t>* dim, std::string* error) {
  const auto eq = text.find('=');
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto parsed = eq == std::string::npos ? std::from_chars_result{end, std::errc::invalid_argument}
                                              : std::from_chars(text.data() + eq + 1, end, value);
  if (eq == std::string::npos || eq == 0 || parsed.ec != std::errc() || parsed.ptr != end ||
      value <= 0) {
    *error = "import onnx: --dim expects NAME=VALUE with a positive integer VALUE, got '" + text + "'";
    return false;
  }
  *dim = {text.substr(0, eq), value};
  return true;
}

/// Whether two paths name one existing file.
bool sameFile(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::equivalent(a, b, error);
}

int importFailed(const ImportError& error) {
  return fail(error.message, error.infeasible ? kInfeasible : kInvalid);
}

}  // namespace

int runImportOnnx(ImportOnnxArgs& args) {
  std::string error;
  for (const std::string& text : args.dims) {
    std::pair<std::string, std::int64_t> dim;
    if (!parseDim(text, &dim, &error)) return fail(error);
    for (const auto& [name, value] : args.options.dims)
      if (name == dim.first) return fail("import onnx: --dim " + name + " is given twice");
    args.options.dims.push_back(dim);
  }
  if (args.optimizerStatesGiven && !args.options.training)
    return fail("import onnx: --optimizer-states applies to --training only");
  if (args.options.accelerators == 0 && args.options.cpus == 0)
    return fail("import onnx: the machine has no device: give --accelerators or --cpus");
  if (!args.out.empty() && sameFile(args.out, args.model))
    return fail("import onnx: --out " + args.out + " is the model itself");
  const auto accelerator = loadDeviceSpec(args.device, DeviceKind::Accelerator, &error);
  if (!accelerator) return fail("import onnx: --device: " + error);
  const auto cpu = loadDeviceSpec(args.cpu, DeviceKind::Cpu, &error);
  if (!cpu) return fail("import onnx: --cpu: " + error);
  args.options.modelPath = args.model;
  args.options.accelerator = *accelerator;
  args.options.cpu = *cpu;
  args.options.granularity = args.granularity == "layer" ? OnnxImportOptions::Granularity::Layer
                                                         : OnnxImportOptions::Granularity::Operator;
  ImportSummary summary;
  ImportError importError;
  const auto workload = importOnnx(args.options, &summary, &importError);
  if (!workload) return importFailed(importError);
  if (!writeText(args.out, workloadToJson(*workload), &error)) return fail(error);
  if (!args.quiet) std::cerr << importSummaryText(summary, *workload, accelerator->name);
  return kOk;
}

int runImportPipedream(ImportPipedreamArgs& args) {
  args.options.chargeActivations = args.activations == "charged";
  ImportError importError;
  const auto workload = importPipedream(args.options, &importError);
  if (!workload) return importFailed(importError);
  std::string error;
  if (!writeText(args.out, workloadToJson(*workload), &error)) return fail(error);
  if (!args.quiet) std::cerr << importedWorkloadSummary("pipedream", *workload);
  return kOk;
}

int runImportPiper(ImportPiperArgs& args) {
  args.options.chargeActivations = args.activations == "charged";
  if (args.accelerators >= 0) args.options.accelerators = args.accelerators;
  if (args.memory >= 0) args.options.memory = args.memory;
  if (args.bandwidth >= 0) args.options.bandwidth = args.bandwidth;
  if (args.samplesPerSync >= 0) args.options.samplesPerSync = args.samplesPerSync;
  if (!args.out.empty() && sameFile(args.out, args.options.inputPath))
    return fail("import piper: --out " + args.out + " is the input itself");
  ImportError importError;
  const auto workload = importPiper(args.options, &importError);
  if (!workload) return importFailed(importError);
  std::string error;
  if (!writeText(args.out, workloadToJson(*workload), &error)) return fail(error);
  if (!args.quiet) std::cerr << importedWorkloadSummary("piper", *workload);
  return kOk;
}

}  // namespace dnnplace::cli
