#pragma once
// Helpers shared by the tests: where the paper's data and the CLI live, and
// running the CLI as a user would.

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dnnplace/generator.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::testing {

/// The shared folder (env DNNPLACE_SHARED, else the CMake option). nullopt,
/// with a reason in *why, when it or its workloads/expected folders are absent.
std::optional<std::filesystem::path> sharedDir(std::string* why);

/// Skips the current test, saying why, when the shared data is absent.
#define DNNPLACE_REQUIRE_SHARED(var)                           \
  std::string var##_why;                                       \
  auto var##_opt = ::dnnplace::testing::sharedDir(&var##_why); \
  if (!var##_opt) GTEST_SKIP() << var##_why;                   \
  const std::filesystem::path var = *var##_opt

struct CommandResult {
  int exitCode = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};
/// Runs the dnnplace executable with shell-quoted arguments.
CommandResult runCli(const std::string& arguments);

/// A run of the CLI in a process of its own under GNU time (no shell; stdin
/// and stdout are /dev/null): exit code, stderr, wall seconds and peak
/// resident set.
struct MeasuredRun {
  int exitCode = -1;
  std::string err;
  double seconds = 0;
  double peakBytes = 0;
};
MeasuredRun runCliMeasured(const std::vector<std::string>& arguments);

/// Whether a peak resident set means anything in this build: AddressSanitizer's
/// shadow memory and quarantine swell it, so memory limits are asserted in
/// plain builds (CI runs both).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kPeakMemoryMeaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kPeakMemoryMeaningful = false;
#else
inline constexpr bool kPeakMemoryMeaningful = true;
#endif
#else
inline constexpr bool kPeakMemoryMeaningful = true;
#endif
/// Whether this build runs under AddressSanitizer (several times slower).
inline constexpr bool kSanitized = !kPeakMemoryMeaningful;
/// How many random cases the slowest property tests run: all of them in the
/// plain build, which looks for counterexamples, and a third under the
/// sanitizers, which look for memory errors (CI runs both).
constexpr int randomCases(int plain) { return kSanitized ? plain / 3 : plain; }

/// Parses workload JSON text or fails the test.
Workload parseOrDie(const std::string& json);

/// A fresh temporary file path with the given suffix.
std::filesystem::path tempPath(const std::string& suffix);
/// Writes text to a new temporary file and returns its path.
std::filesystem::path writeTemp(const std::string& text, const std::string& suffix = ".json");

/// Calls visit(key, entry, workload) for every workload listed in
/// shared/expected/<file> (throughput.json or latency.json) whose entry passes
/// `select`, in the file's order; a workload that does not load fails the
/// test. Returns how many were visited.
using ExpectedEntryFilter = std::function<bool(const std::string& key, const nlohmann::json& entry)>;
int forEachExpectedWorkload(
    const std::filesystem::path& shared, const std::string& file, const ExpectedEntryFilter& select,
    const std::function<void(const std::string& key, const nlohmann::json& entry, const Workload&)>&
        visit);

/// Defined functions of an executable: name -> (address, size), from nm's
/// POSIX format ("name type address size"; symbols without a size are left
/// out). Empty if nm cannot read it.
std::map<std::string, std::pair<unsigned long, unsigned long>> executableFunctions(
    const std::string& executable);

/// Every shape the generator makes, for inference and for training, on top of
/// `base` (its shape and training fields are overwritten).
std::vector<Workload> generatedShapes(GeneratorOptions base);

}  // namespace dnnplace::testing
