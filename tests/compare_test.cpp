// `dnnplace compare` library side: default method lists, ratios to the best
// plan, devices used, and the text / json / csv renderings.

#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <atomic>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "dnnplace/compare.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/report.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

std::size_t displayColumn(const std::string& line, const std::string& needle) {
  const std::size_t bytes = line.find(needle);
  if (bytes == std::string::npos) return std::string::npos;
  std::size_t column = 0;
  for (std::size_t i = 0; i < bytes; ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++column;
  return column;
}

Workload smallWorkload(int seed) {
  GeneratorOptions g;
  g.shape = GraphShape::Transformer;
  g.blocks = 2;
  g.accelerators = 3;
  g.cpus = 1;
  g.seed = static_cast<std::uint64_t>(seed);
  Workload workload = generateWorkload(g);
  workload.name = "w" + std::to_string(seed) + ".json";
  return workload;
}

TEST(Compare, DefaultMethodsFollowTheObjectiveAndSkipExpert) {
  const auto throughput = defaultMethods(Objective::Throughput);
  const auto latency = defaultMethods(Objective::Latency);
  auto has = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  EXPECT_TRUE(has(throughput, "local-search"));
  EXPECT_TRUE(has(throughput, "scotch"));
  EXPECT_FALSE(has(throughput, "greedy"));
  EXPECT_TRUE(has(latency, "greedy"));
  EXPECT_FALSE(has(latency, "local-search"));
  EXPECT_FALSE(has(throughput, "expert"));
  EXPECT_FALSE(has(latency, "expert"));
  for (const auto& name : throughput) EXPECT_TRUE(findMethod(name)->throughput) << name;
  for (const auto& name : latency) EXPECT_TRUE(findMethod(name)->latency) << name;
}

TEST(Compare, RatiosAreRelativeToTheBestPlanOfEachWorkload) {
  const Workload a = smallWorkload(1), b = smallWorkload(2);
  SolveOptions options;
  options.timeLimitSeconds = 0;
  const auto rows = compareMethods({&a, &b}, {"cpu", "single", "local-search", "no-such"}, options);
  ASSERT_EQ(rows.size(), 8u);
  for (std::size_t w = 0; w < 2; ++w) {
    double best = 1e300;
    for (std::size_t i = 4 * w; i < 4 * w + 3; ++i) {
      EXPECT_EQ(rows[i].workload, w == 0 ? "w1.json" : "w2.json");
      ASSERT_TRUE(rows[i].outcome.placement) << rows[i].outcome.message;
      best = std::min(best, rows[i].outcome.objective);
    }
    for (std::size_t i = 4 * w; i < 4 * w + 3; ++i)
      EXPECT_DOUBLE_EQ(rows[i].ratioToBest, rows[i].outcome.objective / best);
    EXPECT_EQ(rows[4 * w].devicesUsed, 1);      // cpu
    EXPECT_EQ(rows[4 * w + 1].devicesUsed, 1);  // single
    EXPECT_GE(rows[4 * w + 2].devicesUsed, 1);
    EXPECT_EQ(rows[4 * w + 3].outcome.call, CallStatus::InvalidInput);
    EXPECT_EQ(rows[4 * w + 3].ratioToBest, 0);
  }
}

// Ctrl-C during a comparison: the rows run so far come back ranked among
// themselves (the ratio was left at 0 once), the rest are not run.
TEST(Compare, AnInterruptKeepsTheRowsRunAndRanksThem) {
  const Workload a = smallWorkload(1), b = smallWorkload(2);
  std::atomic<bool> interrupt{false};
  SolveOptions options;
  options.interrupt = &interrupt;
  int started = 0;
  // Progress is reported before each run: the third sees the interrupt.
  options.progress = [&](const std::string&) {
    if (++started == 2) interrupt = true;
  };
  const auto rows = compareMethods({&a, &b}, {"cpu", "single", "local-search"}, options);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].outcome.placement && rows[1].outcome.placement);
  const double best = std::min(rows[0].outcome.objective, rows[1].outcome.objective);
  EXPECT_DOUBLE_EQ(rows[0].ratioToBest, rows[0].outcome.objective / best);
  EXPECT_DOUBLE_EQ(rows[1].ratioToBest, rows[1].outcome.objective / best);
}

TEST(Compare, TextTableIsAlignedAndExplainsMissingPlans) {
  const Workload a = smallWorkload(3);
  SolveOptions options;
  options.timeLimitSeconds = 0;
  const auto rows = compareMethods({&a}, {"single", "local-search", "no-such"}, options);
  const auto text = lines(formatComparison(rows, "text"));
  ASSERT_GE(text.size(), 6u);
  for (const char* column : {"workload", "method", "objective", "ratio", "lower bound", "gap",
                             "seconds", "devices", "status"})
    EXPECT_NE(text[0].find(column), std::string::npos) << column;
  // The status column starts at the same place on every row.
  const std::size_t statusColumn = displayColumn(text[0], "status");
  EXPECT_EQ(displayColumn(text[1], "feasible") == statusColumn ||
                displayColumn(text[1], "optimal") == statusColumn,
            true)
      << text[1];
  EXPECT_EQ(displayColumn(text[3], "invalid_input"), statusColumn) << text[3];
  // No plan: dashes in the number columns, and the reason under the table.
  EXPECT_NE(text[3].find("\xE2\x80\x94"), std::string::npos);
  EXPECT_NE(text.back().find("w3.json / no-such: unknown method 'no-such'"), std::string::npos)
      << text.back();
}

TEST(Compare, JsonAndCsvCarryEveryRow) {
  const Workload a = smallWorkload(4);
  SolveOptions options;
  options.timeLimitSeconds = 0;
  const auto rows = compareMethods({&a}, {"single", "no-such"}, options);

  const auto json = nlohmann::json::parse(formatComparison(rows, "json"));
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["method"], "single");
  EXPECT_DOUBLE_EQ(json[0]["objective"].get<double>(), rows[0].outcome.objective);
  EXPECT_DOUBLE_EQ(json[0]["ratioToBest"].get<double>(), 1.0);
  EXPECT_EQ(json[0]["devicesUsed"], 1);
  EXPECT_TRUE(json[1]["objective"].is_null());
  EXPECT_EQ(json[1]["status"], "invalid_input");

  const auto csv = lines(formatComparison(rows, "csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[0].rfind("workload,method,status,objective,", 0), 0u) << csv[0];
  EXPECT_EQ(csv[1].rfind("w4.json,single,", 0), 0u) << csv[1];
  EXPECT_NE(csv[2].find(",unknown method 'no-such'"), std::string::npos) << csv[2];
  EXPECT_EQ(csv[2].rfind("w4.json,no-such,invalid_input,,", 0), 0u) << csv[2];
}

// A method that proves no bound (cpu: lower bound 0) shows none in any
// format, as the text table does, rather than a bound of 0 and a gap of 100%;
// a bound of 0 that proves a plan of 0 optimal (dp) is shown. Against a best
// objective of 0, a positive one is infinitely worse, not 0 times as bad.
TEST(Compare, OnlyProvenBoundsAreShownAndAZeroBestIsNoRatioOfZero) {
  const Workload w =
      testing::parseOrDie(R"({"maxSizePerFPGA": 100, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 5, "fpgaLatency": 0, "isBackwardNode": 0},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 5, "fpgaLatency": 0, "isBackwardNode": 0}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 0}]})");
  SolveOptions options;
  const auto rows = compareMethods({&w}, {"dp", "cpu"}, options);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].outcome.status, SolveStatus::Optimal) << rows[0].outcome.message;
  ASSERT_EQ(rows[0].outcome.objective, 0);
  ASSERT_EQ(rows[1].outcome.lowerBound, 0);
  EXPECT_EQ(rows[1].outcome.objective, 10);
  EXPECT_TRUE(std::isinf(rows[1].ratioToBest));

  const auto json = nlohmann::json::parse(formatComparison(rows, "json"));
  EXPECT_EQ(json[0]["lowerBound"], 0);
  EXPECT_EQ(json[0]["gap"], 0);
  EXPECT_TRUE(json[1]["lowerBound"].is_null()) << json[1].dump();
  EXPECT_TRUE(json[1]["gap"].is_null()) << json[1].dump();
  EXPECT_EQ(json[1]["ratioToBest"], "inf");  // JSON has no infinity; null means no plan
  const auto csv = lines(formatComparison(rows, "csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_NE(csv[1].find(",optimal,0,1,0,0,"), std::string::npos) << csv[1];
  EXPECT_NE(csv[2].find(",10,inf,,,"), std::string::npos) << csv[2];
  const std::string text = formatComparison(rows, "text");
  EXPECT_NE(text.find("0.0000  0.00%"), std::string::npos) << text;
}

// The registry's table of options only some methods read: a method refuses
// exactly the options it does not take, and each refusal names exactly the
// methods that take the option.
TEST(Compare, EachOptionIsRefusedByTheMethodsThatDoNotTakeIt) {
  auto words = [](const std::string& text) {
    std::vector<std::string> list;
    std::stringstream in(text);
    for (std::string word; in >> word;) list.push_back(word);
    return list;
  };
  for (const MethodOption option :
       {MethodOption::Plan, MethodOption::WriteModel, MethodOption::Contiguity, MethodOption::Gap,
        MethodOption::Restarts}) {
    std::string refusal;
    for (const MethodInfo& method : methods()) {
      const std::string why = ignoredOption(&method, Objective::Throughput, {option});
      EXPECT_EQ(why.empty(), method.takes.has(option)) << method.name << ": " << why;
      if (!why.empty()) refusal = why;
      // compare and evaluate name no method: only the objective's rules apply.
      EXPECT_EQ(ignoredOption(nullptr, Objective::Throughput, {option}), "");
    }
    ASSERT_FALSE(refusal.empty());
    const auto named = words(refusal);
    for (const MethodInfo& method : methods())
      EXPECT_EQ(std::find(named.begin(), named.end(), method.name) != named.end(),
                method.takes.has(option))
          << method.name << " in '" << refusal << "'";
  }
  for (const MethodInfo* method : {findMethod("dp"), static_cast<const MethodInfo*>(nullptr)}) {
    EXPECT_EQ(ignoredOption(method, Objective::Throughput, {MethodOption::Q}),
              "--q applies to --objective latency only");
    EXPECT_EQ(ignoredOption(method, Objective::Latency, {MethodOption::Q}), "");
    EXPECT_EQ(ignoredOption(method, Objective::Latency, {MethodOption::DiffMaxima}),
              "--diffmaxima applies to --objective throughput only");
    EXPECT_EQ(ignoredOption(method, Objective::Throughput, {MethodOption::DiffMaxima}), "");
  }
  // The first refused option, in the order of the rules.
  EXPECT_EQ(ignoredOption(findMethod("dp"), Objective::Throughput,
                          {MethodOption::Q, MethodOption::Gap}),
            "--gap applies to --method milp only");
}

TEST(Compare, AMethodListIsCheckedAgainstTheRegistry) {
  std::string error;
  EXPECT_EQ(methodsToCompare("", Objective::Latency, &error), defaultMethods(Objective::Latency));
  EXPECT_EQ(methodsToCompare("cpu,dp", Objective::Throughput, &error),
            (std::vector<std::string>{"cpu", "dp"}));
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"dp,expert", "method 'expert' needs a split (--plan), which only solve takes"},
      {"greedy", "method 'greedy' does not support the throughput objective"},
      {"dp,nosuch,greedy", unknownMethod("nosuch")},
  };
  for (const auto& [list, message] : refused) {
    EXPECT_FALSE(methodsToCompare(list, Objective::Throughput, &error)) << list;
    EXPECT_EQ(error, message) << list;
  }
  // --diffmaxima: only the methods that score max FW + max BW, by default
  // and in a list (each refusal would otherwise be a row of invalid_input).
  const std::vector<std::string> diff = {"milp", "bound", "single", "cpu"};
  EXPECT_EQ(defaultMethods(Objective::Throughput, true), diff);
  EXPECT_EQ(methodsToCompare("", Objective::Throughput, &error, true), diff);
  EXPECT_EQ(methodsToCompare("cpu,milp", Objective::Throughput, &error, true),
            (std::vector<std::string>{"cpu", "milp"}));
  EXPECT_FALSE(methodsToCompare("milp,dp", Objective::Throughput, &error, true));
  EXPECT_EQ(error,
            "method 'dp' does not support --diffmaxima (those that do: milp, bound, single, cpu)");
  EXPECT_FALSE(methodsToCompare("dp,milp,dp", Objective::Throughput, &error));
  EXPECT_EQ(error, "method 'dp' is listed twice");
  EXPECT_FALSE(methodsToCompare("dp,", Objective::Throughput, &error));
  EXPECT_EQ(error, "--methods 'dp,' has an empty method name (expected e.g. dp,milp)");
  EXPECT_FALSE(methodsToCompare("dp,,milp", Objective::Throughput, &error));
  EXPECT_EQ(error, "--methods 'dp,,milp' has an empty method name (expected e.g. dp,milp)");
  // Every method the registry says supports diffmaxima runs it.
  GeneratorOptions generator;
  generator.training = true;
  generator.blocks = 2;
  const Workload w = generateWorkload(generator);
  SolveOptions options;
  options.diffMaxima = true;
  options.timeLimitSeconds = 2;
  for (const MethodInfo& method : methods()) {
    if (method.needsPlan || !method.throughput) continue;
    const SolveOutcome outcome = solve(w, method.name, options);
    EXPECT_EQ(outcome.ok(), method.diffMaxima) << method.name << ": " << outcome.message;
  }
  EXPECT_EQ(unknownMethod("x").rfind("unknown method 'x' (expected one of: dp, dp-linear, ", 0), 0u);
}

// solve() times the evaluator's re-check, after the method's own phases.
TEST(Compare, SolveEndsThePhasesWithTheReCheck) {
  const Workload w = smallWorkload(5);
  for (const std::string method : {"cpu", "dp", "local-search"}) {
    const SolveOutcome outcome = solve(w, method, SolveOptions());
    ASSERT_TRUE(outcome.placement) << method << ": " << outcome.message;
    ASSERT_FALSE(outcome.phases.empty()) << method;
    EXPECT_EQ(outcome.phases.back().name, "verify") << method;
    EXPECT_GE(outcome.phases.back().seconds, 0) << method;
    EXPECT_EQ(std::count_if(outcome.phases.begin(), outcome.phases.end(),
                            [](const PhaseTime& phase) { return phase.name == "verify"; }),
              1)
        << method;
  }
}

TEST(Compare, TheCallStatusTheConclusionAndTheStopReasonAreApart) {
  const Workload w = smallWorkload(5);
  const SolveOutcome unknown = solve(w, "no-such-method", SolveOptions());
  EXPECT_EQ(unknown.call, CallStatus::InvalidInput);
  EXPECT_STREQ(resultName(unknown), "invalid_input");
  EXPECT_FALSE(unknown.found());

  const SolveOutcome done = solve(w, "dp", SolveOptions());
  EXPECT_EQ(done.call, CallStatus::Ok);
  EXPECT_EQ(done.status, SolveStatus::Optimal);
  EXPECT_EQ(done.stop, StopReason::None);
  EXPECT_EQ(nlohmann::json::parse(planToJson(w, done, EvaluateOptions()))["stopReason"], "none");

  // 16 independent chains of 3: 4^16 ideals, far more than the cap allows.
  GeneratorOptions wide;
  wide.shape = GraphShape::SeriesParallel;
  wide.blocks = 1;
  wide.width = 16;
  const Workload big = generateWorkload(wide);
  SolveOptions capped;
  capped.maxIdeals = 1000;
  const SolveOutcome stopped = solve(big, "dp", capped);
  EXPECT_EQ(stopped.call, CallStatus::Ok);
  EXPECT_EQ(stopped.stop, StopReason::IdealLimit) << stopped.message;
  ASSERT_TRUE(stopped.placement) << stopped.message;  // the best seed plan
  EXPECT_EQ(nlohmann::json::parse(planToJson(big, stopped, EvaluateOptions()))["stopReason"],
            "ideal_limit");

  std::atomic<bool> interrupt{true};
  SolveOptions interrupted;
  interrupted.interrupt = &interrupt;
  EXPECT_EQ(solve(big, "local-search", interrupted).stop, StopReason::Interrupt);
}

TEST(Compare, SaysWhichBoundsHoldOverContiguousPlacementsOnly) {
  // dp's optimum is over contiguous placements: its "lower bound" may sit
  // above milp's non-contiguous plan, and the table says so.
  GeneratorOptions generator;
  generator.blocks = 2;
  generator.training = true;
  const Workload w = generateWorkload(generator);
  SolveOptions options;
  options.timeLimitSeconds = 2;
  EXPECT_EQ(solve(w, "dp", options).boundScope, BoundScope::Contiguous);
  EXPECT_EQ(solve(w, "search", options).boundScope, BoundScope::Every);
  EXPECT_EQ(solve(w, "milp", options).boundScope, BoundScope::Every);
  options.contiguity = Contiguity::Convex;
  EXPECT_EQ(solve(w, "milp", options).boundScope, BoundScope::Convex);

  CompareRow dp, milp;
  dp.workload = milp.workload = "w.json";
  dp.outcome.method = "dp";
  dp.outcome.status = SolveStatus::Optimal;
  dp.outcome.objective = dp.outcome.lowerBound = 17.7899;
  dp.outcome.boundScope = BoundScope::Contiguous;
  milp.outcome.method = "milp";
  milp.outcome.status = SolveStatus::Feasible;
  milp.outcome.objective = 17.7147;
  milp.outcome.lowerBound = 17.697;
  const std::string text = formatComparison({dp, milp}, "text");
  EXPECT_NE(text.find("\ndp: the lower bound and status hold over contiguous placements only "
                      "(docs/model.md §4)\nthe other lower bounds hold for every placement\n"),
            std::string::npos)
      << text;
  const auto json = nlohmann::json::parse(formatComparison({dp, milp}, "json"));
  EXPECT_EQ(json[0]["boundScope"], "contiguous");
  EXPECT_EQ(json[1]["boundScope"], "all");
  // Nothing to say when every bound holds for every placement.
  EXPECT_EQ(formatComparison({milp}, "text").find("placements only"), std::string::npos);
}

TEST(Compare, CsvQuotesFieldsWithCommas) {
  CompareRow row;
  row.workload = "a,b.json";
  row.outcome.method = "x";
  row.outcome.status = SolveStatus::NoPlan;
  row.outcome.message = "said \"no\", twice";
  const auto csv = lines(formatComparison({row}, "csv"));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv[1], "\"a,b.json\",x,no_solution,,,,,all,0.000000,0,\"said \"\"no\"\", twice\"");
}

}  // namespace
}  // namespace dnnplace
