#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace dnnplace::testing {

std::optional<std::filesystem::path> sharedDir(std::string* why) {
  const char* env = std::getenv("DNNPLACE_SHARED");
  std::filesystem::path dir = env && *env ? env : DNNPLACE_SHARED_DIR_DEFAULT;
  if (!std::filesystem::is_directory(dir / "workloads") ||
      !std::filesystem::is_directory(dir / "expected")) {
    *why = "shared data not found at " + dir.string() +
           " (set DNNPLACE_SHARED or -DDNNPLACE_SHARED_DIR to the folder holding workloads/ and "
           "expected/)";
    return std::nullopt;
  }
  return dir;
}

static std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path tempPath(const std::string& suffix) {
  static std::atomic<int> counter{0};
  return std::filesystem::temp_directory_path() /
         ("dnnplace_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix);
}

std::filesystem::path writeTemp(const std::string& text, const std::string& suffix) {
  auto path = tempPath(suffix);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

CommandResult runCli(const std::string& arguments) {
  auto outPath = tempPath(".out");
  auto errPath = tempPath(".err");
  std::string command = std::string("'") + DNNPLACE_CLI_PATH + "' " + arguments + " >'" +
                        outPath.string() + "' 2>'" + errPath.string() + "' </dev/null";
  int status = std::system(command.c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(outPath);
  result.err = slurp(errPath);
  std::filesystem::remove(outPath);
  std::filesystem::remove(errPath);
  return result;
}

Workload parseOrDie(const std::string& json) {
  std::string error;
  auto workload = parseWorkload(json, "test.json", &error);
  if (!workload) {
    ADD_FAILURE() << "workload did not parse: " << error;
    return Workload{};
  }
  return std::move(*workload);
}

int forEachExpectedWorkload(
    const std::filesystem::path& shared, const std::string& file, const ExpectedEntryFilter& select,
    const std::function<void(const std::string& key, const nlohmann::json& entry, const Workload&)>&
        visit) {
  std::ifstream in(shared / "expected" / file);
  const auto expected = nlohmann::json::parse(in);
  int visited = 0;
  for (const auto& [key, entry] : expected.at("workloads").items()) {
    if (select && !select(key, entry)) continue;
    SCOPED_TRACE(key);
    std::string error;
    const auto workload = loadWorkload((shared / "workloads" / key).string(), &error);
    EXPECT_TRUE(workload) << error;
    if (!workload) continue;
    visit(key, entry, *workload);
    ++visited;
  }
  return visited;
}

std::vector<Workload> generatedShapes(GeneratorOptions base) {
  std::vector<Workload> workloads;
  for (GraphShape shape :
       {GraphShape::Chain, GraphShape::Transformer, GraphShape::Cnn, GraphShape::SeriesParallel})
    for (bool training : {false, true}) {
      base.shape = shape;
      base.training = training;
      workloads.push_back(generateWorkload(base));
    }
  return workloads;
}

std::map<std::string, std::pair<unsigned long, unsigned long>> executableFunctions(
    const std::string& executable) {
  std::map<std::string, std::pair<unsigned long, unsigned long>> functions;
  const std::string command = "nm -P -S --defined-only '" + executable + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return functions;
  char line[8192];
  while (std::fgets(line, sizeof line, pipe)) {
    unsigned long address = 0, size = 0;
    char type = 0;
    char name[8000];
    if (std::sscanf(line, "%7999s %c %lx %lx", name, &type, &address, &size) != 4) continue;
    // i: the C library's functions chosen at start-up for the processor (memcpy, strlen).
    if (type == 't' || type == 'T' || type == 'w' || type == 'W' || type == 'i')
      functions[name] = {address, size};
  }
  pclose(pipe);
  return functions;
}

}  // namespace dnnplace::testing
