// The device catalog and device spec files of the ONNX importer's cost model
// (docs/cost-model.md): the built-in catalog, lookups, user files and the
// exact message of each malformed spec.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "dnnplace/import.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

const std::string kAccelerators = "v100, a100, h100, mi250x, tpu-v4";

std::optional<DeviceSpec> lookUp(const std::string& nameOrPath, DeviceKind kind, std::string* error) {
  error->clear();
  return loadDeviceSpec(nameOrPath, kind, error);
}

const DeviceSpec* catalogEntry(const std::string& name) {
  for (const auto& [kind, spec] : deviceCatalog())
    if (spec.name == name) return &spec;
  return nullptr;
}

TEST(DeviceCatalog, HasAcceleratorsOfSeveralVendorsAndACpuCore) {
  int accelerators = 0;
  int cpus = 0;
  std::set<std::string> names;
  for (const auto& [kind, spec] : deviceCatalog()) {
    SCOPED_TRACE(spec.name);
    (kind == DeviceKind::Accelerator ? accelerators : cpus) += 1;
    EXPECT_TRUE(names.insert(spec.name).second) << "name given twice";
    for (const char c : spec.name) EXPECT_TRUE(std::islower(c) || std::isdigit(c) || c == '-');
    EXPECT_GT(spec.source.size(), 40u) << "a source names the document and the figures taken";
    EXPECT_TRUE(std::isfinite(spec.peakFlops) && spec.peakFlops > 0);
    EXPECT_TRUE(std::isfinite(spec.memoryBandwidth) && spec.memoryBandwidth > 0);
    EXPECT_TRUE(std::isfinite(spec.opOverhead) && spec.opOverhead >= 0);
    if (kind == DeviceKind::Accelerator) {
      EXPECT_TRUE(std::isfinite(spec.memory) && spec.memory > 0);
      EXPECT_TRUE(std::isfinite(spec.linkBandwidth) && spec.linkBandwidth > 0);
      // Every accelerator gives its dense 16-bit peak, never a sparsity figure.
      EXPECT_NE(spec.source.find("dense"), std::string::npos);
    } else {
      EXPECT_EQ(spec.memory, 0);
      EXPECT_EQ(spec.linkBandwidth, 0);
    }
  }
  EXPECT_GE(accelerators, 4);
  EXPECT_GE(cpus, 1);
  EXPECT_TRUE(names.contains("mi250x") && names.contains("tpu-v4")) << "non-NVIDIA accelerators";
  EXPECT_TRUE(names.contains("xeon-8380-core")) << "the CLI's default --cpu";
}

TEST(DeviceCatalog, FiguresAreThePublishedOnes) {
  // docs/model.md §8's example device, figure for figure.
  const DeviceSpec* a100 = catalogEntry("a100");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->peakFlops, 312e12);
  EXPECT_EQ(a100->memoryBandwidth, 1.555e12);
  EXPECT_EQ(a100->memory, 40e9);
  EXPECT_EQ(a100->linkBandwidth, 25e9);
  EXPECT_EQ(a100->opOverhead, 5e-6);
  const DeviceSpec* v100 = catalogEntry("v100");
  const DeviceSpec* h100 = catalogEntry("h100");
  const DeviceSpec* mi250x = catalogEntry("mi250x");
  ASSERT_TRUE(v100 && h100 && mi250x);
  EXPECT_EQ(v100->peakFlops, 125e12);
  EXPECT_EQ(v100->memoryBandwidth, 900e9);
  EXPECT_EQ(h100->peakFlops, 989.4e12);  // half the data sheet's 1,979 with sparsity
  EXPECT_EQ(h100->memoryBandwidth, 3.35e12);
  EXPECT_EQ(mi250x->peakFlops, 383e12);
  EXPECT_EQ(mi250x->memory, 128e9);
  // Links: 25/32 of one direction of PCIe x16, as the A100's 25 of 32 GB/s (Gen3, Gen5).
  EXPECT_EQ(v100->linkBandwidth, 16e9 * 25 / 32);
  EXPECT_EQ(h100->linkBandwidth, 64e9 * 25 / 32);
  // The all-reduce between replicas: one direction of NVLink (600, 300 and 900
  // GB/s both ways); no figure where the catalog states none.
  EXPECT_EQ(a100->syncBandwidth, 300e9);
  EXPECT_EQ(v100->syncBandwidth, 150e9);
  EXPECT_EQ(h100->syncBandwidth, 450e9);
  EXPECT_EQ(mi250x->syncBandwidth, 0);
  // One Xeon 8380 core: 2 FMA units x 16 FP32 lanes x 2 FLOP x 2.3 GHz, and
  // 8 channels x 25.6 GB/s of DDR4-3200 shared by 40 cores.
  const DeviceSpec* core = catalogEntry("xeon-8380-core");
  ASSERT_NE(core, nullptr);
  EXPECT_DOUBLE_EQ(core->peakFlops, 2 * 16 * 2 * 2.3e9);
  EXPECT_DOUBLE_EQ(core->memoryBandwidth, 8 * 25.6e9 / 40);
}

TEST(DeviceCatalog, IsTheDataFileBuiltIn) {
  // The embedded text is data/devices.json as it is now (CMake re-runs on an edit).
  std::ifstream file(std::string(DNNPLACE_SOURCE_DIR) + "/data/devices.json");
  ASSERT_TRUE(file);
  const auto data = nlohmann::json::parse(file);
  const auto& devices = data.at("devices");
  ASSERT_EQ(devices.size(), deviceCatalog().size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& [kind, spec] = deviceCatalog()[i];
    const auto& entry = devices[i];
    EXPECT_EQ(entry.at("name"), spec.name);
    EXPECT_EQ(entry.at("kind"), kind == DeviceKind::Cpu ? "cpu" : "accelerator");
    EXPECT_EQ(entry.at("peakFlops").get<double>(), spec.peakFlops);
    EXPECT_EQ(entry.at("memoryBandwidth").get<double>(), spec.memoryBandwidth);
    EXPECT_EQ(entry.value("memory", 0.0), spec.memory);
    EXPECT_EQ(entry.value("linkBandwidth", 0.0), spec.linkBandwidth);
    EXPECT_EQ(entry.value("syncBandwidth", 0.0), spec.syncBandwidth);
    EXPECT_EQ(entry.at("opOverhead").get<double>(), spec.opOverhead);
    EXPECT_EQ(entry.at("source"), spec.source);
  }
}

TEST(DeviceCatalog, EveryDeviceIsInTheDocumentsTable) {
  std::ifstream file(std::string(DNNPLACE_SOURCE_DIR) + "/docs/cost-model.md");
  ASSERT_TRUE(file);
  std::stringstream text;
  text << file.rdbuf();
  for (const auto& [kind, spec] : deviceCatalog())
    EXPECT_NE(text.str().find("| `" + spec.name + "` |"), std::string::npos) << spec.name;
}

TEST(DeviceCatalog, LookupsIgnoreCase) {
  std::string error;
  for (const std::string name : {"a100", "A100", "Tpu-V4", "MI250X"}) {
    const auto spec = lookUp(name, DeviceKind::Accelerator, &error);
    ASSERT_TRUE(spec) << error;
    EXPECT_EQ(spec->name, std::string(name == "Tpu-V4"   ? "tpu-v4"
                                      : name == "MI250X" ? "mi250x"
                                                         : "a100"));
  }
  const auto core = lookUp("XEON-8380-Core", DeviceKind::Cpu, &error);
  ASSERT_TRUE(core) << error;
  EXPECT_EQ(core->name, "xeon-8380-core");
  EXPECT_EQ(core->peakFlops, 147.2e9);
}

TEST(DeviceCatalog, FullProductNamesNameTheSameDevice) {
  std::string error;
  for (const auto& [model, name] : {std::pair<const char*, const char*>{"A100-SXM4-40GB", "a100"},
                                    {"a100-sxm4-40gb", "a100"},
                                    {"V100-SXM2-32GB", "v100"},
                                    {"H100-SXM5-80GB", "h100"}}) {
    const auto spec = lookUp(model, DeviceKind::Accelerator, &error);
    ASSERT_TRUE(spec) << model << ": " << error;
    EXPECT_EQ(spec->name, name) << model;
    EXPECT_EQ(spec->peakFlops, lookUp(name, DeviceKind::Accelerator, &error)->peakFlops) << model;
  }
  EXPECT_FALSE(lookUp("A100-SXM4-80GB", DeviceKind::Accelerator, &error));
  EXPECT_NE(error.find("neither a catalog device"), std::string::npos) << error;
}

TEST(DeviceCatalog, NamesOfTheWrongKindOrNoneAreRefused) {
  std::string error;
  EXPECT_FALSE(lookUp("xeon-8380-core", DeviceKind::Accelerator, &error));
  EXPECT_EQ(error, "'xeon-8380-core' is a CPU core in the catalog, not an accelerator (accelerators: " +
                       kAccelerators + ")");
  EXPECT_FALSE(lookUp("H100", DeviceKind::Cpu, &error));
  EXPECT_EQ(error,
            "'H100' is an accelerator in the catalog, not a CPU core (CPU cores: xeon-8380-core)");
  EXPECT_FALSE(lookUp("foo", DeviceKind::Accelerator, &error));
  EXPECT_EQ(error, "'foo' is neither a catalog device (" + kAccelerators + ") nor a readable file");
  EXPECT_FALSE(lookUp("", DeviceKind::Cpu, &error));
  EXPECT_EQ(error, "'' is neither a catalog device (xeon-8380-core) nor a readable file");
}

TEST(DeviceSpecFile, RoundTripsACatalogEntry) {
  const DeviceSpec& h100 = *catalogEntry("h100");
  nlohmann::json json = {{"name", "My-H100"},
                         {"kind", "accelerator"},
                         {"peakFlops", h100.peakFlops},
                         {"memoryBandwidth", h100.memoryBandwidth},
                         {"memory", h100.memory},
                         {"linkBandwidth", h100.linkBandwidth},
                         {"opOverhead", h100.opOverhead},
                         {"syncBandwidth", h100.syncBandwidth},
                         {"source", "measured"},
                         {"comment", "unknown members are ignored"}};
  const auto path = testing::writeTemp(json.dump(2));
  std::string error;
  const auto spec = lookUp(path.string(), DeviceKind::Accelerator, &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->name, "My-H100");
  EXPECT_EQ(spec->peakFlops, h100.peakFlops);
  EXPECT_EQ(spec->memoryBandwidth, h100.memoryBandwidth);
  EXPECT_EQ(spec->memory, h100.memory);
  EXPECT_EQ(spec->linkBandwidth, h100.linkBandwidth);
  EXPECT_EQ(spec->opOverhead, h100.opOverhead);
  EXPECT_EQ(spec->syncBandwidth, h100.syncBandwidth);
  EXPECT_EQ(spec->source, "measured");
}

TEST(DeviceSpecFile, NameAndKindMayBeLeftOut) {
  // One GCD of an MI250X: half the module (docs/cost-model.md's example).
  const auto dir = testing::tempPath("");
  std::filesystem::create_directories(dir);
  const auto path = dir / "mi250x-gcd.json";
  std::ofstream(path) << R"({"peakFlops": 191.5e12, "memoryBandwidth": 1.6384e12,
    "memory": 64e9, "linkBandwidth": 25e9, "opOverhead": 0})";
  std::string error;
  const auto spec = lookUp(path.string(), DeviceKind::Accelerator, &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->name, "mi250x-gcd");
  EXPECT_EQ(spec->peakFlops, 191.5e12);
  EXPECT_EQ(spec->opOverhead, 0);
  EXPECT_EQ(spec->source, "");
  EXPECT_EQ(spec->syncBandwidth, 0);  // optional: no replicated stages unless given
  // A CPU core ignores the memory and link figures, even nonsense ones.
  const auto core = testing::writeTemp(
      R"({"name": "epyc-core", "kind": "cpu", "peakFlops": 1e11, "memoryBandwidth": 4e9,
          "opOverhead": 2e-6, "memory": -1, "linkBandwidth": "none"})");
  const auto cpu = lookUp(core.string(), DeviceKind::Cpu, &error);
  ASSERT_TRUE(cpu) << error;
  EXPECT_EQ(cpu->name, "epyc-core");
  EXPECT_EQ(cpu->memoryBandwidth, 4e9);
  EXPECT_EQ(cpu->opOverhead, 2e-6);
  EXPECT_EQ(cpu->memory, 0);
  EXPECT_EQ(cpu->linkBandwidth, 0);
  std::filesystem::remove_all(dir);
}

const std::string kGood = R"({"name": "dev", "peakFlops": 1e14, "memoryBandwidth": 1e12,
 "memory": 1e10, "linkBandwidth": 1e10, "opOverhead": 1e-5})";

/// kGood with `from` (once in it) replaced by `to`.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kGood;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

struct Malformed {
  std::string text;
  DeviceKind kind;
  std::string message;  ///< after "PATH"
};

TEST(DeviceSpecFile, EachFaultHasItsOwnLine) {
  const auto acc = DeviceKind::Accelerator;
  const std::vector<Malformed> cases = {
      {edited(R"("peakFlops": 1e14, )", ""), acc, ": field 'peakFlops' is missing"},
      {edited("1e14", R"("312e12")"), acc,
       ": field 'peakFlops' must be a number, got string \"312e12\""},
      {edited("1e14", "true"), acc, ": field 'peakFlops' must be a number, got true"},
      {edited("1e14", "null"), acc, ": field 'peakFlops' must be a number, got null"},
      {edited("1e14", "0"), acc, ": field 'peakFlops' must be positive, got 0"},
      {edited("1e12", "-5"), acc, ": field 'memoryBandwidth' must be positive, got -5"},
      // Finite but past what a workload holds once an operator's time is derived from it.
      {edited("1e14", "1e-300"), acc, ": field 'peakFlops' must be at least 1 per second, got 1e-300"},
      {edited("1e12", "0.5"), acc, ": field 'memoryBandwidth' must be at least 1 per second, got 0.5"},
      {edited("1e-5", "1e300"), acc, ": field 'opOverhead' must be at most 1e27, got 1e+300"},
      {edited("1e10, \"link", "-1, \"link"), acc, ": field 'memory' must be positive, got -1"},
      {edited("\"memory\": 1e10", "\"memory\": [40e9]"), acc,
       ": field 'memory' must be a number, got an array"},
      {edited("\"linkBandwidth\": 1e10", "\"linkBandwidth\": 0.0"), acc,
       ": field 'linkBandwidth' must be positive, got 0"},
      {edited("\"linkBandwidth\": 1e10, ", ""), acc, ": field 'linkBandwidth' is missing"},
      {edited("1e-5", "-1e-6"), acc, ": field 'opOverhead' must be >= 0, got -1e-06"},
      {edited("1e-5", R"(1e-5, "syncBandwidth": 0)"), acc,
       ": field 'syncBandwidth' must be positive, got 0"},
      {edited("1e-5", R"(1e-5, "syncBandwidth": 1e-28)"), acc,
       ": field 'syncBandwidth' must be at least 1e-27 (bytes per second), got 1e-28"},
      {edited("1e-5", R"(1e-5, "syncBandwidth": "nvlink")"), acc,
       ": field 'syncBandwidth' must be a number, got string \"nvlink\""},
      {edited(R"(, "opOverhead": 1e-5)", ""), acc, ": field 'opOverhead' is missing"},
      {edited(R"("dev")", "3"), acc, ": field 'name' must be a string, got 3"},
      {edited(R"("name": "dev")", R"("name": "dev", "kind": "gpu")"), acc,
       ": field 'kind' must be \"accelerator\" or \"cpu\", got string \"gpu\""},
      {edited(R"("name": "dev")", R"("name": "dev", "kind": "cpu")"), acc,
       ": field 'kind' is \"cpu\", but an accelerator is needed here"},
      {edited(R"("name": "dev")", R"("name": "dev", "kind": "accelerator")"), DeviceKind::Cpu,
       ": field 'kind' is \"accelerator\", but a CPU core is needed here"},
      {edited(R"("name": "dev")", R"("name": "dev", "peakFlops": 2e14)"), acc,
       ": field 'peakFlops' is given twice"},
      {edited(R"("memoryBandwidth": 1e12,)", ""), DeviceKind::Cpu,
       ": field 'memoryBandwidth' is missing"},
      {"[" + kGood + "]", acc, " must be a JSON object with the device's figures, got an array"},
      {"312e12", acc, " must be a JSON object with the device's figures, got a number"},
      {edited("1e14", "1e999"), acc,
       ": invalid JSON at byte 29: line 1, column 30: number overflow parsing '1e999'"},
  };
  for (const Malformed& c : cases) {
    const auto path = testing::writeTemp(c.text);
    std::string error;
    EXPECT_FALSE(lookUp(path.string(), c.kind, &error)) << c.text;
    EXPECT_EQ(error, path.string() + c.message) << c.text;
    std::filesystem::remove(path);
  }
}

TEST(DeviceSpecFile, UnreadablePathsSayWhy) {
  const auto dir = testing::tempPath("");
  std::filesystem::create_directories(dir);
  std::string error;
  EXPECT_FALSE(lookUp(dir.string(), DeviceKind::Accelerator, &error));
  EXPECT_EQ(error, dir.string() + ": cannot read: it is a directory");
  std::filesystem::remove_all(dir);
}

TEST(DeviceCli, HelpListsTheCatalog) {
  const auto result = testing::runCli("import onnx --help");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("Devices in the catalog (docs/cost-model.md):\n" + deviceCatalogText()),
            std::string::npos)
      << result.out;
  // The figures as a user reads them: TFLOP/s, GB/s, GB and the host link.
  EXPECT_NE(result.out.find(
                "  a100            accelerator       312         1555   40 GB         25        300\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find(
                "  xeon-8380-core  cpu core       0.1472         5.12       -          -          -"),
            std::string::npos)
      << result.out;
}

TEST(DeviceCli, AnUnknownDeviceIsRefusedBeforeTheModelIsRead) {
  auto result = testing::runCli("import onnx x.onnx --device nosuch --accelerators 4");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "dnnplace: import onnx: --device: 'nosuch' is neither a catalog device (" +
                            kAccelerators + ") nor a readable file\n");
  result = testing::runCli("import onnx x.onnx --device a100 --cpu A100 --accelerators 4");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: import onnx: --cpu: 'A100' is an accelerator in the catalog, not a CPU core "
            "(CPU cores: xeon-8380-core)\n");
  const auto path = testing::writeTemp(edited("1e10, \"link", "-1, \"link"));
  result = testing::runCli("import onnx x.onnx --device " + path.string() + " --accelerators 4");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: import onnx: --device: " + path.string() +
                            ": field 'memory' must be positive, got -1\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dnnplace
