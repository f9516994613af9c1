// Seeded mutation fuzzing of the workload and plan parsers: flipped, inserted,
// deleted and duplicated bytes, truncations and splices of valid documents.
// Every input must either parse or give one line starting with the file name;
// what parses must serialize and parse again. Run under the sanitizer build too.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {
namespace {

using Rng = std::mt19937_64;

/// Characters that matter to JSON, so mutations reach past the lexer.
constexpr char kInteresting[] = "{}[]\":,-+.eE0123456789 tfn\\";

std::string mutate(const std::string& original, Rng& rng) {
  std::string text = original;
  const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int i = 0; i < edits && !text.empty(); ++i) {
    std::uniform_int_distribution<std::size_t> at(0, text.size() - 1);
    switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
      case 0:  // flip one bit
        text[at(rng)] ^= static_cast<char>(1 << std::uniform_int_distribution<int>(0, 7)(rng));
        break;
      case 1:  // replace with a JSON-relevant character
        text[at(rng)] =
            kInteresting[std::uniform_int_distribution<std::size_t>(0, sizeof kInteresting - 2)(rng)];
        break;
      case 2:  // insert one
        text.insert(
            at(rng), 1,
            kInteresting[std::uniform_int_distribution<std::size_t>(0, sizeof kInteresting - 2)(rng)]);
        break;
      case 3: {  // delete a run
        const std::size_t from = at(rng);
        text.erase(from, std::uniform_int_distribution<std::size_t>(1, 16)(rng));
        break;
      }
      case 4:  // truncate
        text.resize(at(rng));
        break;
      case 5: {  // duplicate a slice somewhere else
        const std::size_t from = at(rng);
        const std::string slice =
            text.substr(from, std::uniform_int_distribution<std::size_t>(1, 64)(rng));
        text.insert(at(rng), slice);
        break;
      }
      case 6: {  // a number somewhere becomes extreme
        static const char* extremes[] = {"1e400", "-1",   "1e30", "NaN",  "-0", "9223372036854775808",
                                         "1.5",   "null", "true", "\"\"", "[]", "{}"};
        const std::size_t from = text.find_first_of("0123456789", at(rng));
        if (from == std::string::npos) break;
        const std::size_t to = text.find_first_not_of("0123456789.e+-", from);
        text.replace(from, (to == std::string::npos ? text.size() : to) - from,
                     extremes[std::uniform_int_distribution<int>(0, 11)(rng)]);
        break;
      }
      default:  // random byte
        text[at(rng)] = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
        break;
    }
  }
  return text;
}

void expectOneLine(const std::string& error, const std::string& name) {
  EXPECT_EQ(error.rfind(name + ": ", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(Fuzz, WorkloadParserNeverCrashes) {
  GeneratorOptions options;
  options.shape = GraphShape::Transformer;
  options.blocks = 1;
  options.width = 1;
  options.training = true;
  const std::string valid = workloadToJson(generateWorkload(options));
  // A compact variant too, so short mutations hit structure more often.
  const std::string small = R"({"maxSizePerFPGA": 10, "maxFPGAs": 1, "maxCPUs": 1, "nodes": [
{"id": 1, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1, "size": 3},
{"id": 2, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0},
{"id": 3, "supportedOnFpga": 0, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 1, "colorClass": 1}],
"edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}, {"sourceId": 2, "destId": 3, "cost": 0.25}]})";
  Rng rng(12345);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string& base = i % 3 == 0 ? valid : small;
    const std::string text = mutate(base, rng);
    std::string error;
    auto workload = parseWorkload(text, "fuzz.json", &error);
    if (!workload) {
      ++rejected;
      expectOneLine(error, "fuzz.json");
      continue;
    }
    ++accepted;
    std::string again;
    auto reparsed = parseWorkload(workloadToJson(*workload), "again.json", &again);
    ASSERT_TRUE(reparsed) << "accepted input does not round-trip: " << again;
    EXPECT_EQ(reparsed->numNodes(), workload->numNodes());
    EXPECT_EQ(reparsed->graph().edges.size(), workload->graph().edges.size());
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(accepted, 50);  // some mutations are harmless (whitespace, values)
}

TEST(Fuzz, PlanParserNeverCrashes) {
  const std::string valid =
      R"({"maxLoad": 3.5, "fpgas": [{"load": 2, "nodes": [1, 2, 3]}, {"load": 1.5, "nodes": []}],)"
      R"( "cpus": [{"load": 0, "nodes": [4, 5]}]})";
  // Plans that still parse are mapped onto a workload and evaluated: unknown,
  // repeated and missing ids must become violations, never out-of-range access.
  std::string error;
  auto workload = parseWorkload(R"({"maxSizePerFPGA": 10, "maxFPGAs": 2, "maxCPUs": 1, "nodes": [
{"id": 1, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1, "size": 3},
{"id": 2, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0},
{"id": 3, "supportedOnFpga": 0, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 0},
{"id": 4, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 1, "colorClass": 1},
{"id": 5, "supportedOnFpga": 1, "cpuLatency": 2, "fpgaLatency": 1, "isBackwardNode": 1}],
"edges": [{"sourceId": 1, "destId": 2, "cost": 0.5}, {"sourceId": 2, "destId": 3, "cost": 0.25},
{"sourceId": 3, "destId": 5, "cost": 1}, {"sourceId": 5, "destId": 4, "cost": 2}]})",
                                "w.json", &error);
  ASSERT_TRUE(workload) << error;
  Rng rng(54321);
  int rejected = 0, evaluated = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = mutate(valid, rng);
    auto plan = parsePlan(text, "plan.json", &error);
    if (!plan) {
      ++rejected;
      expectOneLine(error, "plan.json");
      continue;
    }
    std::vector<std::string> violations;
    const Placement placement = resolvePlan(*workload, *plan, &violations);
    ASSERT_EQ(static_cast<int>(placement.deviceOf.size()), workload->numNodes());
    for (auto objective : {Objective::Throughput, Objective::Latency}) {
      EvaluateOptions options;
      options.objective = objective;
      const Evaluation evaluation = evaluate(*workload, placement, options);
      EXPECT_EQ(evaluation.feasible, evaluation.violations.empty());
    }
    ++evaluated;
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(evaluated, 100);
}

}  // namespace
}  // namespace dnnplace
