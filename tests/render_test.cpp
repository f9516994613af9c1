// The render component (issue #25, docs/render.md): SVG well-formed, one
// coloured node per graph node, one timeline row per device (replicas
// stacked), the latency schedule equal to the evaluator's latency, report
// numbers equal to the evaluator's, every shared workload and plan rendered,
// and bad inputs as one-line errors through the CLI.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/render.hpp"
#include "dnnplace/solver.hpp"
#include "render/schedule.hpp"
#include "render/svg.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

namespace fs = std::filesystem;
using testing::runCli;

/// A small XML well-formedness check: tags nest and match, attributes are
/// quoted, text holds no raw '<' and only entity '&'s. Empty when well-formed,
/// else what is wrong.
std::string xmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  bool root = false;
  auto entityOk = [&](std::size_t at) {
    const std::size_t semi = xml.find(';', at);
    if (semi == std::string::npos || semi - at > 10) return false;
    const std::string name = xml.substr(at + 1, semi - at - 1);
    return name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos" ||
           (name.size() > 1 && name[0] == '#');
  };
  while (i < xml.size()) {
    if (xml[i] == '&') {
      if (!entityOk(i)) return "bad entity at " + std::to_string(i);
      ++i;
      continue;
    }
    if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i])))
        return "text outside the root at " + std::to_string(i);
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const std::size_t end = xml.find("-->", i);
      if (end == std::string::npos) return "unclosed comment";
      i = end + 3;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0 || xml.compare(i, 2, "<!") == 0) {
      const std::size_t end = xml.find('>', i);
      if (end == std::string::npos) return "unclosed declaration";
      i = end + 1;
      continue;
    }
    const bool closing = xml[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    const std::size_t nameStart = j;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == ':' ||
                              xml[j] == '-' || xml[j] == '_' || xml[j] == '.'))
      ++j;
    const std::string name = xml.substr(nameStart, j - nameStart);
    if (name.empty()) return "a tag without a name at " + std::to_string(i);
    bool selfClosing = false;
    while (j < xml.size() && xml[j] != '>') {
      if (xml[j] == '"' || xml[j] == '\'') {
        const char quote = xml[j];
        const std::size_t end = xml.find(quote, j + 1);
        if (end == std::string::npos) return "unclosed attribute in <" + name + ">";
        if (xml.substr(j + 1, end - j - 1).find('<') != std::string::npos)
          return "'<' in an attribute of <" + name + ">";
        j = end + 1;
        continue;
      }
      if (xml[j] == '=' && j + 1 < xml.size() && xml[j + 1] != '"' && xml[j + 1] != '\'')
        return "unquoted attribute in <" + name + ">";
      if (xml[j] == '/' && j + 1 < xml.size() && xml[j + 1] == '>') selfClosing = true;
      ++j;
    }
    if (j >= xml.size()) return "unclosed tag <" + name + ">";
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    } else if (!selfClosing) {
      if (open.empty() && root) return "a second root <" + name + ">";
      root = true;
      open.push_back(name);
    } else {
      root = true;
    }
    i = j + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return root ? "" : "no element";
}

/// The <svg>...</svg> parts of an HTML report.
std::vector<std::string> svgParts(const std::string& html) {
  std::vector<std::string> parts;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    const std::size_t end = html.find("</svg>", at);
    if (end == std::string::npos) break;
    parts.push_back(html.substr(at, end + 6 - at));
  }
  return parts;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

SolveOutcome solved(const Workload& w, const std::string& method,
                    Objective objective = Objective::Throughput) {
  SolveOptions options;
  options.objective = objective;
  options.timeLimitSeconds = 10;
  SolveOutcome outcome = solve(w, method, options);
  EXPECT_TRUE(outcome.placement) << method << ": " << outcome.message;
  return outcome;
}

Workload smallTraining() {
  GeneratorOptions options;
  options.shape = GraphShape::Cnn;
  options.blocks = 3;
  options.training = true;
  options.accelerators = 3;
  options.cpus = 1;
  return generateWorkload(options);
}

TEST(RenderGraph, FullViewHasOneColouredNodePerGraphNodeAndIsWellFormed) {
  const Workload w = smallTraining();
  const SolveOutcome outcome = solved(w, "dp");
  RenderOptions options;
  options.detail = RenderDetail::Full;
  std::string error;
  const auto svg = renderGraphSvg(w, *outcome.placement, outcome.evaluation, options, &error);
  ASSERT_TRUE(svg) << error;
  EXPECT_EQ(xmlProblem(*svg), "");
  EXPECT_EQ(count(*svg, "class=\"node\""), static_cast<std::size_t>(w.numNodes()));
  // Each node's box is filled in its device's colour.
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const std::string id = "id=\"node_" + std::to_string(w.graph().nodes[v].id) + "\"";
    const std::size_t at = svg->find(id);
    ASSERT_NE(at, std::string::npos) << id;
    const std::size_t fill = svg->find("fill=\"", at);
    const int d = outcome.placement->deviceOf[v];
    const std::string colour = svg->substr(fill + 6, 7);
    EXPECT_EQ(colour, (d < outcome.placement->numAccelerators
                           ? std::vector<std::string>{"#4e79a7", "#f28e2b", "#59a14f"}[d]
                           : std::string("#bab0ac")))
        << id;
  }
  // Cross-device edges are bold; the DOT text says the same.
  const std::string dot = renderGraphDot(w, *outcome.placement, outcome.evaluation, options);
  std::size_t crossing = 0;
  for (const Edge& e : w.graph().edges)
    crossing += outcome.placement->deviceOf[e.source] != outcome.placement->deviceOf[e.dest];
  EXPECT_EQ(count(dot, "penwidth=2.5"), crossing);
}

TEST(RenderGraph, LargeGraphsContractToOneBoxPerDeviceBlock) {
  const Workload w = smallTraining();
  const SolveOutcome outcome = solved(w, "dp");
  RenderOptions options;
  options.contractAbove = 5;  // Auto: this graph counts as large
  EXPECT_FALSE(rendersFullGraph(w, options));
  std::string error;
  const auto svg = renderGraphSvg(w, *outcome.placement, outcome.evaluation, options, &error);
  ASSERT_TRUE(svg) << error;
  EXPECT_EQ(xmlProblem(*svg), "");
  EXPECT_EQ(count(*svg, "class=\"node\""), outcome.evaluation.devices.size());
  for (const auto& r : outcome.evaluation.devices)
    EXPECT_NE(svg->find(std::to_string(r.numNodes) + " nodes"), std::string::npos);
}

/// Four layers in a row, the first two with weights; the all-reduce at 8
/// bytes per ms every 4 samples (docs/model.md §9).
const char* kReplicated = R"({"maxSizePerFPGA": 64, "maxFPGAs": 5, "maxCPUs": 1,
  "syncBandwidth": 8, "samplesPerSync": 4, "nodes": [
  {"id": 1, "isBackwardNode": false, "supportedOnFpga": true, "cpuLatency": 90, "fpgaLatency": 9, "size": 8, "parameterSize": 16},
  {"id": 2, "isBackwardNode": false, "supportedOnFpga": true, "cpuLatency": 30, "fpgaLatency": 3, "size": 8, "parameterSize": 8},
  {"id": 3, "isBackwardNode": false, "supportedOnFpga": false, "cpuLatency": 5, "fpgaLatency": 0, "size": 0}],
  "edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}, {"sourceId": 2, "destId": 3, "cost": 0.25}]})";

TEST(RenderTimeline, OneRowPerDeviceWithReplicasStacked) {
  const Workload w = testing::parseOrDie(kReplicated);
  std::string error;
  const auto plan = parsePlan(
      R"({"fpgas": [{"nodes": [1], "replicas": 3}, {"nodes": [2]}], "cpus": [{"nodes": [3]}]})",
      "plan.json", &error);
  ASSERT_TRUE(plan) << error;
  std::vector<std::string> problems;
  const Placement p = resolvePlan(w, *plan, &problems);
  ASSERT_TRUE(problems.empty());
  const Evaluation e = evaluate(w, p, {});
  ASSERT_TRUE(e.feasible) << e.violations.front();
  RenderOptions options;
  options.samples = 6;
  const std::string svg = renderTimelineSvg(w, p, e, options);
  EXPECT_EQ(xmlProblem(svg), "");
  EXPECT_EQ(count(svg, "<g class=\"row"), 5u);  // 3 replicas of FPGA 0, FPGA 1, CPU 0
  EXPECT_EQ(count(svg, "data-device=\"FPGA 0\""), 3u);
  EXPECT_EQ(count(svg, "data-replica=\"3\""), 1u);
  // Loads: FPGA 0 (9 + 0.5 + the all-reduce 4/3) / 3 = 3.61, FPGA 1 3.75, CPU 0 5: the bottleneck.
  double worst = 0;
  for (const auto& r : e.devices) worst = std::max(worst, r.load);
  EXPECT_EQ(count(svg, "<g class=\"row bottleneck\""), 1u);
  EXPECT_NE(svg.find("data-device=\"CPU 0\" data-replica=\"1\""), std::string::npos);
  EXPECT_NE(svg.find("time per sample " + std::string(render::num(worst).c_str())), std::string::npos);
  // Every sample's forward bar appears once; the replicated block shows its all-reduce.
  EXPECT_EQ(count(svg, "class=\"bar forward\""), 6u * 3u);
  EXPECT_EQ(count(svg, "class=\"bar sync\""), 6u);
  const std::string bars = renderBarsSvg(w, p, e, options);
  EXPECT_EQ(xmlProblem(bars), "");
  EXPECT_EQ(count(bars, "class=\"device-bars\""), 3u);
}

/// A random placement of every node over k accelerators and ℓ CPU cores.
Placement randomPlacement(const Workload& w, std::mt19937_64& random) {
  Placement p;
  p.numAccelerators = w.machine.maxFpgas;
  p.numCpus = std::max(w.machine.maxCpus, 1);
  std::uniform_int_distribution<int> device(0, p.numDevices() - 1);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) p.deviceOf.push_back(device(random));
  return p;
}

TEST(RenderSchedule, LatencyEqualsTheEvaluatorsOnRandomPlacements) {
  std::mt19937_64 random(25);
  int compared = 0, cycles = 0;
  for (const GraphShape shape :
       {GraphShape::Chain, GraphShape::Transformer, GraphShape::Cnn, GraphShape::SeriesParallel}) {
    for (int seed = 1; seed <= 40; ++seed) {
      GeneratorOptions options;
      options.shape = shape;
      options.blocks = 2;
      options.width = 2;
      options.chainLength = 2;
      options.seed = static_cast<std::uint64_t>(seed);
      options.accelerators = 1 + seed % 3;
      options.cpus = 1 + seed % 2;
      const Workload w = generateWorkload(options);
      const Placement p = randomPlacement(w, random);
      EvaluateOptions latency;
      latency.objective = Objective::Latency;
      latency.q = 1 << 20;
      const Evaluation e = evaluate(w, p, latency);
      const auto schedule = render::latencySchedule(w, p);
      if (!schedule) {
        ++cycles;
        EXPECT_FALSE(e.feasible);
        continue;
      }
      ++compared;
      EXPECT_TRUE(sameObjective(schedule->makespan, e.objective))
          << schedule->makespan << " vs " << e.objective;
      // The critical path ends at the makespan and starts at time 0.
      double earliest = schedule->makespan, latest = 0;
      for (const auto& t : schedule->tasks)
        if (t.critical) {
          earliest = std::min(earliest, t.start);
          latest = std::max(latest, t.finish);
        }
      EXPECT_EQ(earliest, 0);
      EXPECT_EQ(latest, schedule->makespan);
    }
  }
  EXPECT_GT(compared, 100);
  (void)cycles;
}

/// The exact value after `key="` in an HTML report (data-value etc.).
double valueAfter(const std::string& html, const std::string& key, std::size_t* from = nullptr) {
  const std::size_t at = html.find(key + "=\"", from ? *from : 0);
  EXPECT_NE(at, std::string::npos) << key;
  if (at == std::string::npos) return -1;
  if (from) *from = at + 1;
  return std::strtod(html.c_str() + at + key.size() + 2, nullptr);
}

/// The report's summary objective and device table equal the evaluator's.
void expectReportNumbers(const std::string& html, const Evaluation& e) {
  const std::size_t objective = html.find("id=\"objective\"");
  ASSERT_NE(objective, std::string::npos);
  std::size_t at = objective;
  EXPECT_EQ(valueAfter(html, "data-value", &at), e.objective);
  std::size_t rows = 0;
  for (std::size_t row = html.find("<tr class=\"device\""); row != std::string::npos;
       row = html.find("<tr class=\"device\"", row + 1))
    ++rows;
  EXPECT_EQ(rows, e.devices.size());
  for (const auto& r : e.devices) {
    const std::string name = (r.accelerator ? "FPGA " : "CPU ") + std::to_string(r.index);
    std::size_t row = html.find("<tr class=\"device\" data-device=\"" + name + "\"");
    ASSERT_NE(row, std::string::npos) << name;
    EXPECT_EQ(valueAfter(html, "data-load", &row), r.load) << name;
    EXPECT_EQ(valueAfter(html, "data-memory", &row), r.memory) << name;
  }
}

// A plan file with replicated stages is drawn beside the bound that holds
// with replicas (model.md §9): the bound of placements without them (9 here,
// the largest class) was once drawn above the plan's own 5, "gap 0 %".
TEST(RenderReport, AReplicatedPlanFileGetsTheBoundThatHoldsWithReplicas) {
  const auto workload = testing::writeTemp(kReplicated);
  const auto plan = testing::writeTemp(
      R"({"fpgas": [{"nodes": [1], "replicas": 3}, {"nodes": [2]}], "cpus": [{"nodes": [3]}]})");
  const auto out = testing::tempPath(".html");
  const auto result =
      testing::runCli("render " + workload.string() + " " + plan.string() + " --out " + out.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  std::ifstream file(out);
  const std::string html((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::size_t at = html.find("id=\"objective\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(valueAfter(html, "data-value", &at), 5);  // the CPU core
  at = html.find("id=\"bound\"");
  ASSERT_NE(at, std::string::npos);
  // Work over the 6 devices: 9 + 3 on accelerators, 5 on the core.
  EXPECT_DOUBLE_EQ(valueAfter(html, "data-value", &at), 17.0 / 6);
  // info names both bounds.
  const auto info = testing::runCli("info " + workload.string());
  EXPECT_NE(info.out.find("max-load lower bound:     9 (without replicated stages)\n"
                          "  with replicated stages: 2.833333333 (syncBandwidth: solve --replicate)\n"),
            std::string::npos)
      << info.out;
}

TEST(RenderReport, NumbersEqualTheEvaluators) {
  const Workload w = smallTraining();
  for (const Objective objective : {Objective::Throughput, Objective::Latency}) {
    const SolveOutcome outcome =
        solved(w, objective == Objective::Latency ? "greedy" : "dp", objective);
    RenderOptions options;
    options.evaluate.objective = objective;
    std::string error;
    const auto html = renderReport(w, outcome, options, &error);
    ASSERT_TRUE(html) << error;
    const Evaluation e = evaluate(w, *outcome.placement, options.evaluate);
    expectReportNumbers(*html, e);
    EXPECT_EQ(html->find("http"), html->find("http://www.w3.org"));  // no network but XML namespaces
    for (const auto& svg : svgParts(*html)) EXPECT_EQ(xmlProblem(svg), "") << svg.substr(0, 200);
    EXPECT_EQ(svgParts(*html).size(), 3u);
  }
}

TEST(RenderCli, SolveAndCompareWriteReports) {
  const fs::path workload = testing::writeTemp(workloadToJson(smallTraining()));
  const fs::path report = testing::tempPath(".html"), plan = testing::tempPath(".json");
  auto result = runCli("solve " + workload.string() + " --quiet --out " + plan.string() + " --report " +
                       report.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const std::string html = readAll(report);
  EXPECT_NE(html.find("id=\"method\">dp<"), std::string::npos);
  const Workload w = *loadWorkload(workload.string(), nullptr);
  std::string error;
  const auto e = evaluatePlanFile(w, plan.string(), {}, &error);
  ASSERT_TRUE(e) << error;
  expectReportNumbers(html, *e);

  const fs::path compared = testing::tempPath(".html");
  result = runCli("compare " + workload.string() +
                  " --methods dp,scotch --quiet --time-limit 5 --report " + compared.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const std::string chart = readAll(compared);
  EXPECT_EQ(count(chart, "<g class=\"method\""), 2u);
  for (const auto& svg : svgParts(chart)) EXPECT_EQ(xmlProblem(svg), "");
  result = runCli("compare " + workload.string() + " --methods dp --quiet --report x.png");
  EXPECT_EQ(result.exitCode, 2);
}

/// Exit code 2 (or 3) and a single line on stderr.
void expectOneLineFailure(const std::string& arguments, const std::string& mentions) {
  const auto result = runCli(arguments);
  EXPECT_TRUE(result.exitCode == 2 || result.exitCode == 3) << arguments << ": " << result.exitCode;
  EXPECT_EQ(count(result.err, "\n"), 1u) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
}

TEST(RenderCli, BadInputsAreOneLineErrors) {
  const fs::path workload = testing::writeTemp(workloadToJson(smallTraining()));
  const fs::path other = testing::writeTemp(kReplicated);
  const fs::path plan = testing::tempPath(".json");
  ASSERT_EQ(runCli("solve " + workload.string() + " --quiet --out " + plan.string()).exitCode, 0);
  const fs::path otherPlan = testing::writeTemp(R"({"fpgas": [{"nodes": [1, 2, 3]}], "cpus": []})");
  const std::string w = workload.string(), p = plan.string();
  // A plan for another workload: ids it lacks, or nodes it leaves out.
  expectOneLineFailure("render " + other.string() + " " + p + " --out " +
                           testing::tempPath(".html").string(),
                       "another workload");
  expectOneLineFailure("render " + w + " " + otherPlan.string() + " --out " +
                           testing::tempPath(".html").string(),
                       "another workload");
  const fs::path unknown =
      testing::writeTemp(R"({"fpgas": [{"nodes": [1, 2, 3, 99999]}], "cpus": []})");
  expectOneLineFailure("render " + other.string() + " " + unknown.string() + " --out " +
                           testing::tempPath(".svg").string(),
                       "99999");
  expectOneLineFailure("render " + w + " " + p + " --out /nonexistent-dir/report.html", "cannot write");
  expectOneLineFailure("render " + w + " " + p + " --out report.png", "unknown extension");
  expectOneLineFailure("render " + w + " " + p + " --view timeline --out t.html", "timeline");
  expectOneLineFailure("render " + w + " missing-plan.json --out t.html", "missing-plan.json");
  expectOneLineFailure("render " + w + " " + p + " --view gantt --out t.svg", "gantt");
  expectOneLineFailure("solve " + w + " --quiet --report r.txt", "unknown extension");
}

/// Renders every shared workload with its dp and milp plans, and the experts'
/// plans on their workloads, for both objectives: each report well-formed,
/// its numbers the evaluator's.
void renderShared(const fs::path& shared, const std::string& objective) {
  int rendered = 0;
  for (const auto& entry : fs::recursive_directory_iterator(shared / "workloads" / objective)) {
    if (entry.path().extension() != ".json") continue;
    const std::string path = entry.path().string();
    std::string error;
    const auto w = loadWorkload(path, &error);
    ASSERT_TRUE(w) << error;
    std::vector<std::string> plans;
    for (const std::string method : {"dp", "milp"}) {
      const fs::path plan = testing::tempPath(".json");
      const auto result = runCli("solve " + path + " --objective " + objective + " --method " + method +
                                 " --time-limit 2 --quiet --out " + plan.string());
      if (result.exitCode == 0)
        plans.push_back(plan.string());
      else
        EXPECT_EQ(result.exitCode, 4)
            << method << " on " << path << ": " << result.err;  // no plan in 2 s
    }
    const fs::path expert = shared / "workloads" / "experts" /
                            (entry.path().stem().string() + "_expert.json");
    if (entry.path().parent_path().filename() == "LayerGraphs" && fs::exists(expert))
      plans.push_back(expert.string());
    EvaluateOptions options;
    options.objective = objective == "latency" ? Objective::Latency : Objective::Throughput;
    for (const auto& plan : plans) {
      const fs::path html = testing::tempPath(".html"), timeline = testing::tempPath(".svg");
      auto result = runCli("render " + path + " " + plan + " --objective " + objective + " --out " +
                           html.string());
      ASSERT_EQ(result.exitCode, 0) << path << " " << plan << ": " << result.err;
      const auto e = evaluatePlanFile(*w, plan, options, &error);
      ASSERT_TRUE(e) << error;
      const std::string report = readAll(html);
      expectReportNumbers(report, *e);
      for (const auto& svg : svgParts(report)) EXPECT_EQ(xmlProblem(svg), "") << path << " " << plan;
      result = runCli("render " + path + " " + plan + " --objective " + objective +
                      " --view timeline --out " + timeline.string());
      ASSERT_EQ(result.exitCode, 0) << result.err;
      EXPECT_EQ(xmlProblem(readAll(timeline)), "");
      if (options.objective == Objective::Latency) {
        const auto plan_file = loadPlan(plan, &error);
        std::vector<std::string> problems;
        const auto schedule = render::latencySchedule(*w, resolvePlan(*w, *plan_file, &problems));
        ASSERT_TRUE(schedule);
        EXPECT_TRUE(sameObjective(schedule->makespan, e->objective)) << path << " " << plan;
      }
      ++rendered;
    }
  }
  EXPECT_GT(rendered, 10);
}

TEST(RenderShared, EveryThroughputWorkloadWithDpMilpAndExpertPlans) {
  DNNPLACE_REQUIRE_SHARED(shared);
  renderShared(shared, "throughput");
}

TEST(RenderShared, EveryLatencyWorkloadWithDpMilpAndExpertPlans) {
  DNNPLACE_REQUIRE_SHARED(shared);
  renderShared(shared, "latency");
}

}  // namespace
}  // namespace dnnplace
