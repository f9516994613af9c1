#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
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

MeasuredRun runCliMeasured(const std::vector<std::string>& arguments) {
  // GNU time measures the peak: a child spawned from this process would
  // count this process's own resident pages until its exec, so the CLI
  // is started by a small program instead.
  const auto errPath = tempPath(".err");
  const auto timePath = tempPath(".time");
  std::vector<std::string> words = {"/usr/bin/time",  "-f", "%M", "-o", timePath.string(),
                                    DNNPLACE_CLI_PATH};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  MeasuredRun run;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) != pid) {
    ADD_FAILURE() << "cannot run /usr/bin/time (Debian package time, installed by scripts/dev.sh)";
    return run;
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(errPath);
  run.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  // The last line GNU time wrote is the peak in kilobytes (a line before it
  // says "Command exited with non-zero status N").
  std::ifstream timeFile(timePath);
  std::string line, last;
  while (std::getline(timeFile, line))
    if (!line.empty()) last = line;
  run.peakBytes = last.empty() ? 0 : std::stod(last) * 1024;
  if (last.empty()) ADD_FAILURE() << "GNU time wrote no peak for: " << words[5];
  std::filesystem::remove(errPath);
  std::filesystem::remove(timePath);
  return run;
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
