// The command line as a user meets it: help, exit codes, one-line errors.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace dnnplace {
namespace {

using testing::runCli;
using testing::writeTemp;

const char* kWorkload = R"({"maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
  {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 40},
  {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 40}],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]})";

// Each command's help lists its own options (only the command named is
// given them), and the top level's lists every command.
TEST(Cli, HelpOnEveryCommand) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"", {"solve", "evaluate", "info", "generate", "compare", "--version"}},
      {"solve ",
       {"workload TEXT REQUIRED", "--method", "--threads", "--max-ideals", "--quiet", "Methods:"}},
      {"evaluate ", {"plan TEXT REQUIRED", "--contiguous", "--format"}},
      {"info ", {"workload TEXT REQUIRED", "--max-ideals", "--time-limit"}},
      {"generate ", {"shape TEXT REQUIRED", "--width", "--training"}},
      {"compare ",
       {"workloads TEXT ... REQUIRED", "--methods", "--format", "--memory-limit", "Methods:"}},
      {"--help solve ", {"workload TEXT REQUIRED", "--method", "--threads", "Methods:"}},
      {"-h evaluate ", {"plan TEXT REQUIRED", "--contiguous"}},
      {"render ", {"plan TEXT REQUIRED", "--view", "--detail", "--out"}},
  };
  for (const auto& [command, shown] : expected) {
    auto result = runCli(command + "--help");
    EXPECT_EQ(result.exitCode, 0) << command;
    EXPECT_NE(result.out.find("Usage"), std::string::npos) << command << result.out;
    for (const std::string& text : shown)
      EXPECT_NE(result.out.find(text), std::string::npos) << command << text << result.out;
  }
}

TEST(Cli, BadUsageIsExitTwoWithOneLine) {
  auto result = runCli("solve");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_NE(result.err.find("workload is required"), std::string::npos) << result.err;
  result = runCli("frobnicate");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: unknown command 'frobnicate' (expected one of: solve, evaluate, info, generate, "
            "compare, render, import)\n");
  result = runCli("solve x.json --objective speed");
  EXPECT_EQ(result.exitCode, 2);
}

TEST(Cli, NumbersOutsideTheirRangeAreExitTwoSayingWhatIsWanted) {
  const auto workload = writeTemp(kWorkload);
  const std::string solve = "solve '" + workload.string() + "' --method dp ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {solve + "--time-limit nan", "--time-limit: expected a positive number of seconds, got 'nan'"},
      {solve + "--time-limit inf", "--time-limit: expected a positive number of seconds, got 'inf'"},
      {solve + "--time-limit 0", "--time-limit: expected a positive number of seconds, got '0'"},
      {solve + "--time-limit abc", "--time-limit: expected a positive number of seconds, got 'abc'"},
      {solve + "--gap nan", "--gap: expected a relative gap >= 0, got 'nan'"},
      {solve + "--gap 2", "--gap: expected a relative gap >= 0 of at most 1, got '2'"},
      {solve + "--seed -1", "--seed: expected a non-negative integer, got '-1'"},
      {solve + "--max-ideals -1", "--max-ideals: expected a non-negative integer, got '-1'"},
      {solve + "--memory-limit -1", "--memory-limit: expected a non-negative integer, got '-1'"},
      {"generate chain --memory inf", "--memory: expected a number of bytes >= 0, got 'inf'"},
      // Past the largest value taken: said, not clamped.
      {solve + "--time-limit 1e10",
       "--time-limit: expected a positive number of seconds of at most 1000000000, got '1e10'"},
      {"generate chain --memory 1e31",
       "--memory: expected a number of bytes >= 0 of at most 1e+30, got '1e31'"},
      {solve + "--max-ideals 18446744073709551616",
       "--max-ideals: expected a non-negative integer of at most 18446744073709551615, got "
       "'18446744073709551616'"},
      {"generate chain --seed +5", "--seed: expected a non-negative integer, got '+5'"},
      {"compare '" + workload.string() + "' --time-limit nan",
       "--time-limit: expected a positive number of seconds, got 'nan'"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto result = runCli(arguments);
    EXPECT_EQ(result.exitCode, 2) << arguments;
    EXPECT_EQ(result.err, "dnnplace: " + message + " (see --help)\n") << arguments;
  }
  std::filesystem::remove(workload);
}

TEST(Cli, AFlagTheMethodWouldIgnoreIsExitTwo) {
  const auto workload = writeTemp(kWorkload);
  const std::string solve = "solve '" + workload.string() + "' ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--method dp --plan '" + workload.string() + "'", "--plan is read by --method expert only"},
      {"--method dp --write-model m.lp", "--write-model is written by --method milp only"},
      {"--method milp --q 2", "--q applies to --objective latency only"},
      {"--objective latency --method milp --diffmaxima",
       "--diffmaxima applies to --objective throughput only"},
      {"--contiguity convex", "--contiguity applies to --method milp and search only"},
      {"--method scotch --gap 0.5", "--gap applies to --method milp only"},
      {"--restarts 5", "--restarts applies to --method local-search and milp (its warm start) only"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto result = runCli(solve + arguments);
    EXPECT_EQ(result.exitCode, 2) << arguments;
    EXPECT_EQ(result.err, "dnnplace: solve: " + message + "\n") << arguments;
    EXPECT_EQ(result.out, "") << arguments;
  }
  // The same flags where they apply.
  EXPECT_EQ(runCli(solve + "--objective latency --method milp --q 2 --time-limit 5 --quiet").exitCode,
            0);
  EXPECT_EQ(runCli(solve + "--method milp --diffmaxima --gap 0.1 --time-limit 5 --quiet").exitCode, 0);
  EXPECT_EQ(runCli(solve + "--method milp --contiguity convex --time-limit 5 --quiet").exitCode, 0);
  EXPECT_EQ(runCli(solve + "--method local-search --restarts 5 --quiet").exitCode, 0);
  EXPECT_EQ(runCli(solve + "--method milp --restarts 2000 --time-limit 5 --quiet").exitCode, 0);

  // compare and evaluate refuse what their objective or methods would ignore, too.
  const auto plan = writeTemp(R"({"fpgas": [{"nodes": [1, 2]}]})");
  const std::string compare = "compare '" + workload.string() + "' ";
  const std::string evaluate = "evaluate '" + workload.string() + "' '" + plan.string() + "' ";
  const std::vector<std::pair<std::string, std::string>> elsewhere = {
      {compare + "--methods dp --q 2", "compare: --q applies to --objective latency only"},
      {compare + "--objective latency --diffmaxima",
       "compare: --diffmaxima applies to --objective throughput only"},
      {compare + "--methods dp,expert",
       "compare: method 'expert' needs a split (--plan), which only solve takes"},
      {compare + "--methods greedy",
       "compare: method 'greedy' does not support the throughput objective"},
      {compare + "--diffmaxima --methods dp",
       "compare: method 'dp' does not support --diffmaxima (those that do: milp, bound, single, "
       "cpu)"},
      {compare + "--methods cpu,cpu", "compare: method 'cpu' is listed twice"},
      {compare + "--methods ''", "--methods: expected a non-empty comma-separated list (see --help)"},
      {evaluate + "--q 5", "evaluate: --q applies to --objective latency only"},
      {evaluate + "--objective latency --diffmaxima",
       "evaluate: --diffmaxima applies to --objective throughput only"},
  };
  for (const auto& [arguments, message] : elsewhere) {
    const auto result = runCli(arguments);
    EXPECT_EQ(result.exitCode, 2) << arguments;
    EXPECT_EQ(result.err, "dnnplace: " + message + "\n") << arguments;
    EXPECT_EQ(result.out, "") << arguments;
  }
  EXPECT_EQ(runCli(evaluate + "--objective latency --q 2").exitCode, 0);
  EXPECT_EQ(runCli(compare + "--objective latency --methods greedy,cpu --q 2 --quiet").exitCode, 0);
  std::filesystem::remove(workload);
  std::filesystem::remove(plan);
}

// --verbose lists each phase with its time, in order: load, validate, the
// method's own phases, verify (the evaluator's re-check), write.
TEST(Cli, VerboseListsEachPhaseInOrder) {
  const auto workload = writeTemp(kWorkload);
  auto phases = [&](const std::string& method) -> std::vector<std::string> {
    const auto result =
        runCli("solve '" + workload.string() + "' --method " + method + " --quiet --verbose");
    EXPECT_EQ(result.exitCode, 0) << method << ": " << result.err;
    EXPECT_EQ(result.err.rfind("phases: ", 0), 0u) << method << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    std::vector<std::string> names;
    std::stringstream line(result.err.substr(8, result.err.find('\n') - 8));
    for (std::string item; std::getline(line, item, ',');) {
      if (item.front() == ' ') item.erase(0, 1);
      const std::size_t space = item.find(' ');
      if (space == std::string::npos) {
        ADD_FAILURE() << "no time in '" << item << "'";
        return {};
      }
      const std::string time = item.substr(space + 1);
      EXPECT_EQ(time.size() >= 7 && time.compare(time.size() - 2, 2, " s") == 0 &&
                    time[time.size() - 6] == '.',
                true)
          << "'" << time << "' in " << result.err;
      names.push_back(item.substr(0, space));
    }
    return names;
  };
  EXPECT_EQ(phases("cpu"), (std::vector<std::string>{"load", "validate", "verify", "write"}));
  for (const std::string method : {"dp", "milp"}) {
    const auto names = phases(method);
    ASSERT_GE(names.size(), 4u) << method;
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 2),
              (std::vector<std::string>{"load", "validate"}))
        << method;
    EXPECT_EQ(std::vector<std::string>(names.end() - 2, names.end()),
              (std::vector<std::string>{"verify", "write"}))
        << method;
  }
  std::filesystem::remove(workload);
}

TEST(Cli, AResultThatCannotBeWrittenIsNotExitZero) {
  const auto workload = writeTemp(kWorkload);
  if (std::filesystem::exists("/dev/full")) {  // every write to it fails with "no space left"
    const std::string file = " '" + workload.string() + "'";
    for (const std::string& command : {"solve" + file, "info" + file, std::string("--help"),
                                       std::string("--version"), std::string("solve --help")}) {
      const auto errPath = testing::tempPath(".err");
      const std::string line = std::string("'") + DNNPLACE_CLI_PATH + "' " + command +
                               " >/dev/full 2>'" + errPath.string() + "'";
      const int status = std::system(line.c_str());
      ASSERT_TRUE(WIFEXITED(status)) << command;
      EXPECT_EQ(WEXITSTATUS(status), 2) << command;
      std::ifstream err(errPath);
      std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
      EXPECT_NE(text.find("dnnplace: standard output: cannot write\n"), std::string::npos)
          << command << ": " << text;
      std::filesystem::remove(errPath);
    }
  } else {
    ADD_FAILURE() << "/dev/full is missing: the write-error check did not run";
  }
  // --out says why, as --write-model does, before the run (whose result
  // would be lost): a method that would fail is not even run.
  std::string small = kWorkload;
  small.replace(small.find("100"), 3, "50");  // single: the graph's 80 bytes do not fit (exit 3)
  const auto tight = writeTemp(small);
  const auto out =
      runCli("solve '" + tight.string() + "' --method single --out /nonexistent/plan.json");
  std::filesystem::remove(tight);
  EXPECT_EQ(out.exitCode, 2);
  EXPECT_EQ(out.err, "dnnplace: /nonexistent/plan.json: cannot write: No such file or directory\n");
  for (const std::string& flags :
       {std::string("--out /tmp"), std::string("--report /nonexistent/r.html")}) {
    const auto refused = runCli("solve '" + workload.string() + "' " + flags);
    EXPECT_EQ(refused.exitCode, 2) << flags;
    EXPECT_EQ(refused.out, "") << flags;
    EXPECT_EQ(refused.err.rfind("dnnplace: ", 0), 0u) << refused.err;
    EXPECT_NE(refused.err.find(": cannot write: "), std::string::npos) << refused.err;
  }
  if (std::filesystem::exists("/dev/full")) {
    const auto full = runCli("solve '" + workload.string() + "' --quiet --out /dev/full");
    EXPECT_EQ(full.exitCode, 2);
    EXPECT_EQ(full.err, "dnnplace: /dev/full: cannot write: No space left on device\n");
  }
  const auto model =
      runCli("solve '" + workload.string() + "' --method milp --write-model /nonexistent/m.mps");
  EXPECT_EQ(model.exitCode, 2);
  EXPECT_EQ(
      model.err,
      "dnnplace: milp: --write-model: /nonexistent/m.mps: cannot write: No such file or directory\n");
  EXPECT_EQ(model.out, "");
  std::filesystem::remove(workload);
}

// A file name is the user's, and may hold a newline or a terminal escape:
// the error stays one line and does not drive the terminal.
TEST(Cli, ControlCharactersInAFileNameAreEscaped) {
  // (std::system's shell is POSIX sh: printf makes the name.)
  const auto result = runCli(R"sh(solve "$(printf '/nonexistent/evil\nname\033[31m.json')")sh");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(
      result.err,
      "dnnplace: /nonexistent/evil\\nname\\x1b[31m.json: cannot open: No such file or directory\n");
}

// No JSON text holds a NUL byte, so reading stops at the first: /dev/zero
// was once read until memory ran out.
TEST(Cli, AnEndlessFileIsReadOnlyToItsFirstNulByte) {
  ASSERT_TRUE(std::filesystem::exists("/dev/zero"));
  const auto result = runCli("info /dev/zero");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: /dev/zero: invalid JSON at byte 0: a NUL byte\n");
}

// "-" reads the workload (or evaluate's plan) from standard input, as
// --out - writes to standard output; messages call it standard input.
TEST(Cli, ADashIsStandardInput) {
  const auto workload = writeTemp(kWorkload);
  const auto out = testing::tempPath(".out"), err = testing::tempPath(".err");
  auto run = [&](const std::string& input, const std::string& arguments) {
    const std::string line = "cat '" + input + "' | '" + DNNPLACE_CLI_PATH + "' " + arguments + " >'" +
                             out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(line.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  auto slurp = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  ASSERT_EQ(run(workload.string(), "solve - --method cpu --quiet"), 0) << slurp(err);
  EXPECT_EQ(nlohmann::json::parse(slurp(out))["maxLoad"], 30);
  const auto plan = writeTemp(R"({"fpgas": [{"nodes": [1, 2]}]})");
  ASSERT_EQ(run(plan.string(), "evaluate '" + workload.string() + "' - --format json"), 0)
      << slurp(err);
  EXPECT_EQ(nlohmann::json::parse(slurp(out))["objective"], 3);
  const auto broken = writeTemp(R"({"maxSizePerFPGA": 1)");
  EXPECT_EQ(run(broken.string(), "solve -"), 2);
  EXPECT_EQ(slurp(err).rfind("dnnplace: standard input: invalid JSON", 0), 0u) << slurp(err);
  // One standard input cannot be both files.
  EXPECT_EQ(run(workload.string(), "evaluate - -"), 2);
  EXPECT_EQ(slurp(err),
            "dnnplace: evaluate: the workload and the plan cannot both be standard input\n");
  EXPECT_EQ(run(workload.string(), "render - - --out /tmp/dnnplace-never.html"), 2);
  EXPECT_EQ(slurp(err), "dnnplace: render: the workload and the plan cannot both be standard input\n");
  for (const auto& path : {workload, out, err, plan, broken}) std::filesystem::remove(path);
}

TEST(Cli, MissingFileIsExitTwo) {
  auto result = runCli("info /nonexistent/w.json");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: /nonexistent/w.json: cannot open: No such file or directory\n");
}

TEST(Cli, SolveSingleWritesAPlanThatEvaluates) {
  auto workload = writeTemp(kWorkload);
  auto plan = testing::tempPath(".json");
  auto result = runCli("solve " + workload.string() + " --method single --out " + plan.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("single: feasible, max-load 3"), std::string::npos) << result.err;
  auto evaluation = runCli("evaluate " + workload.string() + " " + plan.string() + " --format json");
  ASSERT_EQ(evaluation.exitCode, 0) << evaluation.err;
  auto json = nlohmann::json::parse(evaluation.out);
  EXPECT_EQ(json["feasible"], true);
  EXPECT_DOUBLE_EQ(json["objective"].get<double>(), 3);
  EXPECT_EQ(json["devices"].size(), 1u);
  EXPECT_TRUE(json["violations"].empty());
}

TEST(Cli, SolveOnStdoutKeepsReferenceFields) {
  auto workload = writeTemp(kWorkload);
  auto result = runCli("solve " + workload.string() + " --method cpu --quiet");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(result.err.empty());
  auto plan = nlohmann::json::parse(result.out);
  EXPECT_DOUBLE_EQ(plan["maxLoad"].get<double>(), 30);
  EXPECT_TRUE(plan["fpgas"].empty());
  ASSERT_EQ(plan["cpus"].size(), 1u);
  EXPECT_EQ(plan["cpus"][0]["nodes"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(plan["status"], "feasible");
}

TEST(Cli, InfeasiblePlanIsExitThreeNamingViolations) {
  auto workload = writeTemp(kWorkload);
  auto plan = writeTemp(
      R"({"fpgas": [{"nodes": [1]}, {"nodes": [2]}, {"nodes": []}], "cpus": [{"nodes": [1]}]})");
  auto result = runCli("evaluate " + workload.string() + " " + plan.string());
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_NE(result.out.find("node 1 is listed twice (fpgas[0] and cpus[0])"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("max-load:   2.5"), std::string::npos) << result.out;
}

// With --diffmaxima the objective is max forward + max backward load, and
// every report says so rather than calling it the max-load.
TEST(Cli, TheDiffMaximaObjectiveIsNamedAsSuch) {
  auto workload = writeTemp(R"({"maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 0, "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 3, "isBackwardNode": 1, "colorClass": 1}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]})");
  auto plan = writeTemp(R"({"fpgas": [{"nodes": [1, 2]}]})");
  const std::string evaluate = "evaluate " + workload.string() + " " + plan.string();
  auto text = runCli(evaluate + " --diffmaxima");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("max forward + max backward load: 4\n"), std::string::npos) << text.out;
  auto json = nlohmann::json::parse(runCli(evaluate + " --diffmaxima --format json").out);
  EXPECT_EQ(json["objectiveKind"], "diffmaxima");
  EXPECT_EQ(nlohmann::json::parse(runCli(evaluate + " --format json").out)["objectiveKind"],
            "throughput");
  auto solved = runCli("solve " + workload.string() + " --method milp --diffmaxima --time-limit 10");
  ASSERT_EQ(solved.exitCode, 0) << solved.err;
  EXPECT_NE(solved.err.find(", max forward + max backward load 4 "), std::string::npos) << solved.err;
}

// Messages a review found garbled: "node 2 has nodes not supported on
// accelerators (2)", "node 2 (and 0 more)", "1000.000000 bytes", and an
// unknown method without the list of known ones.
TEST(Cli, MessagesSayPlainlyWhatIsWrong) {
  auto nodes = [](int secondSupported) {
    return R"("nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 10},
    {"id": 2, "supportedOnFpga": )" +
           std::to_string(secondSupported) +
           R"(, "cpuLatency": 10, "fpgaLatency": 2, "isBackwardNode": 0, "size": 1000}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}]})";
  };
  const auto unsupported =
      writeTemp(R"({"maxSizePerFPGA": 100000, "maxFPGAs": 2, "maxCPUs": 0, )" + nodes(0));
  const auto tooBig = writeTemp(R"({"maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 0, )" + nodes(1));
  const std::string known =
      "dp, dp-linear, milp, bound, pipedream, scotch, local-search, search, greedy, single, cpu, "
      "expert";
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"solve " + unsupported.string(), 3,
       "dp: node 2 is not supported on accelerators, and maxCPUs is 0"},
      {"solve " + unsupported.string() + " --method single", 3,
       "single: node 2 cannot run on an accelerator"},
      {"solve " + tooBig.string() + " --method scotch", 3,
       "scotch: node 2 needs 1000 bytes, accelerators hold 100 bytes, and maxCPUs is 0"},
      {"solve " + tooBig.string() + " --method nosuch", 2,
       "solve: unknown method 'nosuch' (expected one of: " + known + ")"},
      {"compare " + tooBig.string() + " --methods dp,nosuch", 2,
       "compare: unknown method 'nosuch' (expected one of: " + known + ")"},
  };
  for (const auto& [arguments, code, message] : cases) {
    const auto result = runCli(arguments);
    EXPECT_EQ(result.exitCode, code) << arguments;
    EXPECT_EQ(result.err, "dnnplace: " + message + "\n") << arguments;
  }
}

TEST(Cli, SingleWhenMemoryDoesNotFitIsExitThree) {
  auto workload = writeTemp(R"({"maxSizePerFPGA": 50, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 40},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 40}],
    "edges": []})");
  auto result = runCli("solve " + workload.string() + " --method single");
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.err, "dnnplace: single: the whole graph needs 80 bytes, one accelerator holds 50\n");
}

TEST(Cli, InfoReportsGraphStatistics) {
  auto workload = writeTemp(kWorkload);
  auto result = runCli("info " + workload.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("nodes:                    2 (2 forward, 0 backward)"), std::string::npos);
  EXPECT_NE(result.out.find("edges:                    1"), std::string::npos);
  EXPECT_NE(result.out.find("max-load lower bound:     2\n"), std::string::npos) << result.out;
  // The work bound the methods report, which sees that whole nodes pack:
  // three of 10 on two accelerators put two on one (20), not 30 / 2.
  auto three = writeTemp(R"({"maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 0, "nodes": [
    {"id": 1, "supportedOnFpga": 1, "isBackwardNode": 0, "cpuLatency": 100, "fpgaLatency": 10, "size": 1},
    {"id": 2, "supportedOnFpga": 1, "isBackwardNode": 0, "cpuLatency": 100, "fpgaLatency": 10, "size": 1},
    {"id": 3, "supportedOnFpga": 1, "isBackwardNode": 0, "cpuLatency": 100, "fpgaLatency": 10, "size": 1}], "edges": []})");
  result = runCli("info " + three.string());
  EXPECT_NE(result.out.find("max-load lower bound:     20\n"), std::string::npos) << result.out;
  std::filesystem::remove(three);
}

// Without --memory-limit the DP stops at half the machine's memory: a graph
// of a few dozen independent nodes has more ideals than any memory holds.
TEST(Cli, TheDpMemoryLimitDefaultsToHalfTheMachine) {
  const std::uint64_t half = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                             static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 2;
  for (const std::string command : {"solve", "compare"}) {
    const auto help = runCli(command + " --help");
    const std::string shown = "--memory-limit UINT:N=";
    const std::size_t at = help.out.find(shown);
    ASSERT_NE(at, std::string::npos) << help.out;
    EXPECT_EQ(std::stoull(help.out.substr(at + shown.size())), half) << command;
  }
}

// The memory limit bounds the DP's seeds as well as the DP: on a chain of
// 5,000 nodes and 1,000 accelerators the exact chain seed's table alone
// would take 650 MB. (Peak memory read with GNU time, which the benchmarks
// need too; skipped, and said so, without it.)
TEST(Cli, TheMemoryLimitBoundsTheSeedsToo) {
  if (!std::filesystem::exists("/usr/bin/time"))
    GTEST_SKIP() << "/usr/bin/time (Debian package time) is missing";
  const auto workload = testing::tempPath(".json");
  ASSERT_EQ(runCli("generate chain --blocks 5000 --accelerators 1000 --cpus 10 --out " +
                   workload.string())
                .exitCode,
            0);
  const auto peakPath = testing::tempPath(".peak");
  const std::string line = "/usr/bin/time -f %M -o '" + peakPath.string() + "' '" + DNNPLACE_CLI_PATH +
                           "' solve '" + workload.string() +
                           "' --memory-limit 50000000 --quiet --out /dev/null";
  const int status = std::system(line.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << line;
  std::ifstream peak(peakPath);
  long kilobytes = 0;
  ASSERT_TRUE(peak >> kilobytes);
  // AddressSanitizer's shadow memory and quarantine swell the resident set
  // (150,056 KB once in the sanitizer build, where the plain one stays far below).
  EXPECT_LT(kilobytes, testing::kSanitized ? 300'000 : 150'000) << "peak resident KB";
  std::filesystem::remove(workload);
  std::filesystem::remove(peakPath);
}

// A limit that stops the DP returns the best plan known, exit 0, and says
// which limit stopped it; exit 4 is for a limit that leaves no plan.
TEST(Cli, ALimitThatStopsTheDpReturnsItsBestPlan) {
  const auto workload = testing::tempPath(".json");
  ASSERT_EQ(runCli("generate series-parallel --blocks 2 --width 5 --seed 1 --out " + workload.string())
                .exitCode,
            0);
  for (const std::string limit : {"--max-ideals 50", "--memory-limit 20000"}) {
    const auto result = runCli("solve " + workload.string() + " " + limit);
    ASSERT_EQ(result.exitCode, 0) << limit << ": " << result.err;
    EXPECT_NE(result.err.find("returning the best seed plan"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(limit.substr(0, limit.find(' '))), std::string::npos) << result.err;
    const auto plan = nlohmann::json::parse(result.out);
    EXPECT_EQ(plan["status"], "feasible");
    EXPECT_GT(plan["maxLoad"].get<double>(), 0);
  }
}

// 40 independent nodes: 2^40 ideals. Without a cap on the count, the time
// limit stops it and the output says the count is a lower bound.
TEST(Cli, InfoStopsCountingAtItsTimeLimit) {
  std::string nodes;
  for (int id = 1; id <= 40; ++id)
    nodes += std::string(id > 1 ? ", " : "") + R"({"id": )" + std::to_string(id) +
             R"(, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0})";
  const auto workload = writeTemp(R"({"maxSizePerFPGA": 1, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [)" +
                                  nodes + R"(], "edges": []})");
  const auto result = runCli("info " + workload.string() + " --max-ideals 0 --time-limit 0.2");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const std::size_t line = result.out.find("ideals (contracted):      at least ");
  ASSERT_NE(line, std::string::npos) << result.out;
  const std::string rest = result.out.substr(line + 35);
  EXPECT_GT(std::stoull(rest), 1000u) << result.out;
  EXPECT_NE(rest.find(" (counting stopped at --time-limit 0.2 s)\n"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace dnnplace
