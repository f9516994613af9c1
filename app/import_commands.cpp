// The import commands: a model or a profile in, a workload JSON out.

#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <utility>

#include "commands.hpp"
#include "dnnplace/report.hpp"

namespace dnnplace::cli {

namespace {

/// "NAME=VALUE" with a positive integer VALUE.
bool parseDim(const std::string& text, std::pair<std::string, std::int64_t>* dim, std::string* error) {
  const auto eq = text.find('=');
  std::int64_t value = 0;
  int used = 0;
  if (eq == std::string::npos || eq == 0 ||
      std::sscanf(text.c_str() + eq + 1, "%" SCNd64 "%n", &value, &used) != 1 ||
      text.c_str()[eq + 1 + used] != '\0' || value <= 0) {
    *error = "import onnx: --dim expects NAME=VALUE with a positive integer VALUE, got '" + text + "'";
    return false;
  }
  *dim = {text.substr(0, eq), value};
  return true;
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
    args.options.dims.push_back(dim);
  }
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
  return kOk;
}

}  // namespace dnnplace::cli
