// Reading JSON input (src/io/json_reader.hpp) through parsePlan and
// parseWorkload: the streamed read, which builds no tree, accepts exactly
// the texts nlohmann's own parser accepts, and reports the fault a check of
// the whole tree finds first; numbers, strings and faults at the edges.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"
#include "util/format.hpp"

namespace dnnplace {
namespace {

using Json = nlohmann::json;

/// Random JSON text: nested values, escapes, numbers of every kind, and keys
/// from a small set that includes a plan's, so objects repeat keys (the last
/// one counts) and some documents are plans or nearly plans.
class RandomJson {
 public:
  explicit RandomJson(std::uint64_t seed) : rng_(seed) {}

  std::string document() {
    if (pick(10) == 0) return value(0);
    std::string text = "{";
    const int fields = pick(4);
    for (int i = 0; i < fields; ++i) {
      if (i) text += ",";
      text += '"';
      text += pick(3) ? (pick(2) ? "fpgas" : "cpus") : key();
      text += "\":";
      text += pick(5) ? deviceList() : value(1);
    }
    return text + "}";
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  std::string key() {
    static const char* keys[] = {"a", "nodes", "\\u0066pgas", "\\u006eodes",
                                 "cpus"};  // escaped: "fpgas", "nodes"
    return keys[pick(5)];
  }
  /// Mostly devices, mostly with lists of ids.
  std::string deviceList() {
    std::string text = "[";
    const int n = pick(4);
    for (int i = 0; i < n; ++i) {
      text += i ? "," : "";
      if (pick(6) == 0) {
        text += value(2);
        continue;
      }
      text += "{";
      const int members = pick(3);
      for (int m = 0; m < members; ++m) {
        text += std::string(m ? "," : "") + "\"" + (pick(4) ? std::string("nodes") : key()) + "\":";
        if (pick(5) == 0) {
          text += value(3);
          continue;
        }
        text += "[";
        const int ids = pick(5);
        for (int j = 0; j < ids; ++j)
          text += std::string(j ? "," : "") + (pick(8) ? std::to_string(pick(100)) : value(4));
        text += "]";
      }
      text += "}";
    }
    return text + "]";
  }
  std::string value(int depth) {
    switch (depth > 4 ? pick(6) : pick(8)) {
      case 0: return "null";
      case 1: return pick(2) ? "true" : "false";
      case 2: return std::to_string(static_cast<std::int64_t>(rng_()) >> pick(64));
      case 3: return std::to_string(rng_());  // past int64: unsigned
      case 4: {
        static const char* numbers[] = {"0.1",
                                        "-0",
                                        "-2.5e-3",
                                        "1E10",
                                        "3.0",
                                        "17185374208.0",
                                        "1e-320",
                                        "-9223372036854775808",
                                        "-9223372036854775809",
                                        "18446744073709551615",
                                        "18446744073709551616",
                                        "1e-400",
                                        "2.2250738585072011e-308",
                                        "0.30000000000000004",
                                        "1.7976931348623157e308",
                                        "-0.0",
                                        "1e400",
                                        "0e400"};
        return numbers[pick(18)];
      }
      case 5: {
        static const char* strings[] = {"\"\"",
                                        "\"x\"",
                                        "\"tab\\there\"",
                                        "\"\\u00e9\\\"q\"",
                                        "\"a long string that no small-string buffer holds\"",
                                        "\"\\ud83d\\ude00 \\/\\b\\f\\n\\r\\u0000\"",
                                        "\"caf\xc3\xa9\""};
        return strings[pick(7)];
      }
      case 6: {
        std::string text = "[";
        const int n = pick(5);
        for (int i = 0; i < n; ++i) text += std::string(i ? "," : "") + value(depth + 1);
        return text + "]";
      }
      default: {
        std::string text = "{";
        const int n = pick(4);
        for (int i = 0; i < n; ++i)
          text += std::string(i ? "," : "") + "\"" + key() + "\":" + value(depth + 1);
        return text + "}";
      }
    }
  }

  std::mt19937_64 rng_;
};

// ---------------------------------------------------------------------------
// The reference: a plan checked on nlohmann's whole tree, with the messages
// of docs/formats.md.

std::string describeTree(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case Json::value_t::string: return "string \"" + printable(value.get<std::string>()) + "\"";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    case Json::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
    case Json::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
    case Json::value_t::number_float: return formatShortest(value.get<double>());
    default: return "?";
  }
}

/// An id as plans take it: an integer that fits in 64 bits, also written 3.0.
std::optional<std::string> idFault(const Json& value) {
  if (value.is_number_integer() && !value.is_number_unsigned()) return std::nullopt;
  if (value.is_number_unsigned())
    return value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
               ? std::optional<std::string>("must be an integer that fits in 64 bits, got " +
                                            describeTree(value))
               : std::nullopt;
  if (value.is_number_float()) {
    const double x = value.get<double>();
    if (std::floor(x) == x && (x < -9.2e18 || x > 9.2e18))
      return "must be an integer that fits in 64 bits, got " + describeTree(value);
    if (std::floor(x) == x) return std::nullopt;
  }
  return "must be an integer, got " + describeTree(value);
}

std::int64_t idOf(const Json& value) {
  return value.is_number_float() ? static_cast<std::int64_t>(value.get<double>())
                                 : value.get<std::int64_t>();
}

/// The plan in `tree`, or the first fault ("d.json: …").
std::string referencePlan(const Json& tree, PlanFile* plan) {
  if (!tree.is_object()) return "d.json: top level must be a JSON object, got " + describeTree(tree);
  if (!tree.contains("fpgas") && !tree.contains("cpus"))
    return "d.json: a plan needs \"fpgas\" and/or \"cpus\" (lists of {\"nodes\": [ids]})";
  for (const char* list : {"fpgas", "cpus"}) {
    if (!tree.contains(list)) continue;
    const Json& devices = tree[list];
    if (!devices.is_array())
      return std::string("d.json: ") + list + " must be an array, got " + describeTree(devices);
    auto& out = std::string(list) == "fpgas" ? plan->fpgas : plan->cpus;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const std::string device = "d.json: " + std::string(list) + "[" + std::to_string(d) + "]";
      if (!devices[d].is_object())
        return device + " must be a JSON object, got " + describeTree(devices[d]);
      if (!devices[d].contains("nodes")) return device + ": nodes is missing";
      const Json& nodes = devices[d]["nodes"];
      if (!nodes.is_array()) return device + ": nodes must be an array, got " + describeTree(nodes);
      std::vector<std::int64_t> ids;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (const auto fault = idFault(nodes[i]))
          return device + ": nodes[" + std::to_string(i) + "] " + *fault;
        ids.push_back(idOf(nodes[i]));
      }
      out.push_back(ids);
    }
  }
  return "";
}

// On random documents, and on the same documents with one byte changed
// (mostly no longer JSON): a text is refused as invalid JSON exactly when
// nlohmann's parser refuses it, and otherwise read as the whole tree reads:
// the same plan, or the same first fault.
TEST(JsonInput, PlansReadAsTheWholeTreeOnRandomAndDamagedDocuments) {
  int plans = 0, faults = 0, invalid = 0;
  std::mt19937_64 damage(7);
  for (std::uint64_t seed = 1; seed <= 20000; ++seed) {
    std::string text = RandomJson(seed).document();
    if (seed % 3 == 0) {
      static const char bytes[] = "{}[],:\"0-.eE+tfn \\u\x01\xff";
      text[damage() % text.size()] = bytes[damage() % (sizeof bytes - 1)];
    }
    if (seed % 50 == 0) text = "\xEF\xBB\xBF" + text;  // a byte order mark, which both skip
    SCOPED_TRACE("document: " + text);
    std::optional<Json> tree;
    try {
      tree = Json::parse(text);
    } catch (const Json::exception&) {
    }
    std::string error;
    const auto ours = parsePlan(text, "d.json", &error);
    if (!tree) {
      ++invalid;
      ASSERT_FALSE(ours.has_value());
      EXPECT_TRUE(error.rfind("d.json: invalid JSON at byte ", 0) == 0 ||
                  error == "d.json: empty file (expected a JSON object)")
          << error;
      EXPECT_EQ(error.find('\n'), std::string::npos) << error;
      continue;
    }
    PlanFile expected;
    const std::string expectedError = referencePlan(*tree, &expected);
    ASSERT_EQ(ours.has_value(), expectedError.empty()) << error << " / " << expectedError;
    if (ours) {
      ++plans;
      EXPECT_EQ(ours->fpgas, expected.fpgas);
      EXPECT_EQ(ours->cpus, expected.cpus);
    } else {
      ++faults;
      EXPECT_EQ(error, expectedError);
    }
  }
  // The generator must exercise what the test claims.
  EXPECT_GT(plans, 2000);
  EXPECT_GT(faults, 4000);
  EXPECT_GT(invalid, 4000);
}

// Each sequence below, inside a string (a value or a key), is accepted or
// refused exactly as nlohmann's parser does.
TEST(JsonInput, StringsAreUtf8AsNlohmannReadsThem) {
  const std::vector<std::string> sequences = {"plain",
                                              "caf\xc3\xa9",
                                              "\xe2\x82\xac",
                                              "\xf0\x9f\x98\x80",
                                              "\xf4\x8f\xbf\xbf",  // valid
                                              "\\ud83d\\ude00",
                                              "\\u00e9",
                                              "12345678\xc3\xa9"
                                              "xyz12345",  // valid
                                              "\x80",
                                              "\xbf",
                                              "\xc0\xaf",
                                              "\xc1\xbf",
                                              "\xc3",
                                              "\xc3\x28",
                                              "\xe0\x80\xaf",  // invalid
                                              "\xe0\x9f\xbf",
                                              "\xed\xa0\x80",
                                              "\xed\xbf\xbf",
                                              "\xf0\x8f\xbf\xbf",
                                              "\xf4\x90\x80\x80",
                                              "\xf5\x80\x80\x80",
                                              "\xff",
                                              "\xe2\x82",
                                              "abcdefg\xe2\x82",
                                              "\\udc00",
                                              "\\ud800",
                                              "\\ud800x",
                                              "\\ud800\\u0041",  // lone surrogates
                                              "tab\there",
                                              "nl\nhere"};  // raw control bytes
  int accepted = 0, refused = 0;
  for (const std::string& sequence : sequences) {
    for (const std::string& text :
         {"{\"fpgas\": [], \"a\": \"" + sequence + "\"}", "{\"fpgas\": [], \"" + sequence + "\": 1}"}) {
      SCOPED_TRACE("document: " + text);
      const bool theirs = Json::accept(text);
      std::string error;
      const bool ours = parsePlan(text, "d.json", &error).has_value();
      EXPECT_EQ(ours, theirs) << error;
      if (!ours) {
        EXPECT_NE(error.find("invalid string"), std::string::npos) << error;
        EXPECT_EQ(error.find_first_of("\x80\xff\n\t"), std::string::npos)
            << "bytes not escaped: " << error;
      }
      (ours ? accepted : refused) += 1;
    }
  }
  EXPECT_EQ(accepted, 16);
  EXPECT_EQ(refused, 44);
}

std::string node(const std::string& id, const std::string& extra = "") {
  return R"({"id": )" + id +
         R"(, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0)" + extra +
         "}";
}

std::string workloadOf(const std::string& nodes, const std::string& edges = "[]") {
  return R"({"maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 0, "nodes": )" + nodes + R"(, "edges": )" +
         edges + "}";
}

// Numbers of every form, from one digit to past what a double or 64 bits
// hold, read as nlohmann reads them, to the bit: as a latency, and (if
// integral) as an id.
TEST(JsonInput, NumbersReadAsNlohmannReadsThem) {
  std::mt19937_64 random(11);
  const auto digits = [&](int count, bool leadingZeroAllowed) {
    std::string text;
    for (int i = 0; i < count; ++i)
      text +=
          static_cast<char>('0' + (i == 0 && !leadingZeroAllowed ? 1 + random() % 9 : random() % 10));
    return text;
  };
  int integers = 0, decimals = 0, exponents = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string number = random() % 4 == 0 ? "-" : "";
    const int integerDigits = 1 + static_cast<int>(random() % 21);
    number += integerDigits == 1 ? digits(1, true) : digits(integerDigits, false);
    if (random() % 3 != 0)
      number += std::string(".") + digits(1 + static_cast<int>(random() % 25), true);
    if (random() % 6 == 0)
      number += std::string(random() % 2 ? "e" : "E-") + std::to_string(random() % 40);
    SCOPED_TRACE(number);
    const Json theirs = Json::parse(number);
    std::string error;
    const auto asLatency =
        parseWorkload(workloadOf(std::string("[") + node("1", ", \"size\": " + number) + "]"), "w.json",
                      &error);
    if (theirs.get<double>() < 0) {
      EXPECT_NE(error.find("size must be a finite number >= 0, got "), std::string::npos) << error;
    } else if (theirs.get<double>() > 1e30) {
      EXPECT_NE(error.find("size must be at most 1e30, got "), std::string::npos) << error;
    } else {
      ASSERT_TRUE(asLatency.has_value()) << error;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(asLatency->graph().nodes[0].size),
                std::bit_cast<std::uint64_t>(theirs.get<double>()));
    }
    const auto asId =
        parseWorkload(workloadOf(std::string("[") + node(number) + "]"), "w.json", &error);
    if (theirs.is_number_integer() &&
        !(theirs.is_number_unsigned() && theirs.get<std::uint64_t>() > INT64_MAX)) {
      ASSERT_TRUE(asId.has_value()) << error;
      EXPECT_EQ(asId->graph().nodes[0].id, theirs.get<std::int64_t>());
    } else if (!asId) {
      EXPECT_NE(error.find("id must be an integer"), std::string::npos) << error;
    }
    integers += theirs.is_number_integer();
    decimals += theirs.is_number_float() && number.find_first_of("eE") == std::string::npos;
    exponents += number.find_first_of("eE") != std::string::npos;
  }
  EXPECT_GT(integers, 800);
  EXPECT_GT(decimals, 1500);
  EXPECT_GT(exponents, 500);
}

TEST(JsonInput, ErrorsNameTheByteOfTheFault) {
  auto errorOf = [](const std::string& text) {
    std::string error;
    EXPECT_FALSE(parsePlan(text, "d.json", &error).has_value()) << text;
    return error;
  };
  // A number past a double: its first byte.
  EXPECT_EQ(errorOf(R"({"a": 1e400})"),
            "d.json: invalid JSON at byte 6: line 1, column 7: number overflow parsing '1e400'");
  EXPECT_EQ(errorOf(R"({"abcdefghijklmnop": 10e308})"),
            "d.json: invalid JSON at byte 21: line 1, column 22: number overflow parsing '10e308'");
  EXPECT_EQ(errorOf("{\n  \"a\": -100000000000000000000e300}"),
            "d.json: invalid JSON at byte 9: line 2, column 8: number overflow parsing "
            "'-100000000000000000000e300'");
  // The bracket that opens level 65, also inside a workload's nodes, and past brackets in strings.
  EXPECT_EQ(errorOf(std::string(65, '[')),
            "d.json: invalid JSON at byte 64: nested deeper than 64 levels");
  EXPECT_EQ(errorOf("[\"[[\\\"[\", " + std::string(64, '[')),
            "d.json: invalid JSON at byte 73: nested deeper than 64 levels");
  std::string error;
  EXPECT_FALSE(parseWorkload(R"({"nodes": [)" + std::string(63, '['), "d.json", &error));
  EXPECT_EQ(error, "d.json: invalid JSON at byte 73: nested deeper than 64 levels");
  // Any other fault: the byte where the parser found it, and what it read
  // last (shortened to its end).
  EXPECT_EQ(errorOf(std::string(64, '[') + std::string(64, ']') + "x"),
            "d.json: invalid JSON at byte 128: line 1, column 129: syntax error while parsing value - "
            "invalid "
            "literal; last read: '..." +
                std::string(39, ']') + "x'");
  EXPECT_EQ(
      errorOf("{\"a\": 1,\n \"b\": tru}"),
      "d.json: invalid JSON at byte 18: line 2, column 10: syntax error while parsing value - invalid "
      "literal; last read: '\"b\": tru}'");
  EXPECT_EQ(
      errorOf("{\"a\": 1,\n \"b\": \"\xff\"}"),
      "d.json: invalid JSON at byte 16: line 2, column 8: syntax error while parsing value - invalid "
      "string: ill-formed UTF-8 byte; last read: '\"\\xff'");
  EXPECT_EQ(errorOf("{\"fpgas\": [1, 2"),
            "d.json: invalid JSON at byte 15: line 1, column 16: syntax error while parsing array - "
            "unexpected "
            "end of input; expected ']'");
  // What it read last is shortened to its end, where the fault is.
  const std::string unterminated = errorOf("{\"a\": \"" + std::string(5000, 'x') + "\xc3");
  EXPECT_LT(unterminated.size(), 200u) << unterminated;
  EXPECT_NE(unterminated.find("last read: '..." + std::string(39, 'x') + "\\xc3'"), std::string::npos)
      << unterminated;
  // A NUL byte, wherever it is; an empty text.
  EXPECT_EQ(errorOf(std::string("{\"a\": 1, \"b\": \0 2}", 18)),
            "d.json: invalid JSON at byte 14: a NUL byte");
  EXPECT_EQ(errorOf(std::string("\"\0\"", 3)), "d.json: invalid JSON at byte 1: a NUL byte");
  EXPECT_EQ(errorOf(" \n"), "d.json: empty file (expected a JSON object)");
  // Escapes are not line ends: the second line starts at byte 14.
  EXPECT_EQ(
      errorOf("{\"a\": \"\\n\\n\",\n \"b\": tru}"),
      "d.json: invalid JSON at byte 23: line 2, column 10: syntax error while parsing value - invalid "
      "literal; last read: '\"b\": tru}'");
}

TEST(JsonInput, PlansTakeTheLastOfARepeatedKey) {
  std::string error;
  const auto plan =
      parsePlan(R"({"fpgas": [{"nodes": ["x"]}], "cpus": 5, "fpgas": [{"nodes": [1, 2.0], "nodes": [3]},
      {"nodes": 7, "nodes": [4], "shape": [[1], {"nodes": "no"}]}], "cpus": [{"nodes": []}]})",
                "p.json", &error);
  ASSERT_TRUE(plan.has_value()) << error;
  EXPECT_EQ(plan->fpgas, (std::vector<std::vector<std::int64_t>>{{3}, {4}}));
  EXPECT_EQ(plan->cpus, (std::vector<std::vector<std::int64_t>>{{}}));
  EXPECT_FALSE(parsePlan(R"({"fpgas": [{"nodes": [1]}], "fpgas": 3})", "p.json", &error));
  EXPECT_EQ(error, "p.json: fpgas must be an array, got 3");
  EXPECT_FALSE(parsePlan(R"({"fpgas": [{"nodes": [1, [2]], "nodes": [3]}, {"nodes": ["x"]}]})",
                         "p.json", &error));
  EXPECT_EQ(error, "p.json: fpgas[1]: nodes[0] must be an integer, got string \"x\"");
}

std::string firstError(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parseWorkload(text, "w.json", &error).has_value()) << text;
  return error;
}

// Nodes and edges are converted as the parser meets them: every spelling
// the format allows, and the last of a repeated key.
TEST(JsonInput, NodesAndEdgesAreReadAsTheyAreMet) {
  const std::string rest =
      R"("supportedOnFpga": true, "cpuLatency": 2.5, "fpgaLatency": 1, "isBackwardNode": 0)";
  std::string error;
  const auto w = parseWorkload(
      workloadOf(
          "[{\"id\": 7, " + rest + R"(, "colorClass": -3, "size": 1e3, "name": "conv"},)" +
              "{\"id\": \"x\", \"id\": 8, " + rest +
              R"(, "supportedOnFpga": 0.0, "isBackwardNode": 1.0, "name": "a", "name": null},)" +
              "{\"id\": 9.0, " + rest + R"(, "colorClass": 2.0, "name": 5, "shape": [{"id": 1}]}])",
          R"([{"sourceId": 7, "destId": 9, "cost": 0.5}, {"sourceId": 9.0, "destId": 8, "cost": 1, "cost": 2}])"),
      "w.json", &error);
  ASSERT_TRUE(w.has_value()) << error;
  ASSERT_EQ(w->numNodes(), 3);
  EXPECT_EQ(w->graph().nodes[0].id, 7);
  EXPECT_EQ(w->graph().nodes[0].cpuLatency, 2.5);
  EXPECT_EQ(w->graph().nodes[0].fpgaLatency, 1.0);
  EXPECT_EQ(w->graph().nodes[0].colorClass, std::optional<std::int64_t>(-3));
  EXPECT_EQ(w->graph().nodes[0].size, 1000.0);
  EXPECT_EQ(w->graph().nodes[0].name, "conv");
  EXPECT_TRUE(w->graph().nodes[0].supportedOnFpga);
  EXPECT_FALSE(w->graph().nodes[0].isBackward);
  EXPECT_EQ(w->graph().nodes[1].id, 8);  // the last of a repeated key counts; 0.0 and 1.0 are flags
  EXPECT_FALSE(w->graph().nodes[1].supportedOnFpga);
  EXPECT_TRUE(w->graph().nodes[1].isBackward);
  EXPECT_EQ(w->graph().nodes[1].colorClass, std::nullopt);
  EXPECT_EQ(w->graph().nodes[1].name, "");
  EXPECT_EQ(w->graph().nodes[2].id, 9);  // integers written 9.0; a name not a string is no name
  EXPECT_EQ(w->graph().nodes[2].colorClass, std::optional<std::int64_t>(2));
  EXPECT_EQ(w->graph().nodes[2].name, "");
  EXPECT_EQ(w->graph().outCost[0], 0.5);
  EXPECT_EQ(w->graph().outCost[2], 2.0);

  // A fault that the element's last key repairs is no fault; one it brings is.
  EXPECT_TRUE(parseWorkload(workloadOf(std::string("[") +
                                       node("1", R"(, "cpuLatency": -1, "cpuLatency": 1)") + "]"),
                            "w.json", &error));
  EXPECT_EQ(firstError(workloadOf(std::string("[") + node("1", R"(, "size": 1, "size": "big")") + "]")),
            "w.json: node #0 (id 1): size must be a number, got string \"big\"");
  EXPECT_EQ(firstError(workloadOf(std::string("[") + node("1") + "]",
                                  R"([{"sourceId": 1, "destId": 1, "cost": 1, "destId": -0.5}])")),
            "w.json: edge #0: destId must be an integer, got -0.5");
  EXPECT_EQ(firstError(
                workloadOf(std::string("[") + node("1", R"(, "id": 9223372036854775808)") + "]")),
            "w.json: node #0: id must be an integer that fits in 64 bits, got 9223372036854775808");
}

TEST(JsonInput, AWorkloadReportsItsFirstFaultInTreeOrder) {
  const std::string goodNodes = std::string("[") + node("0") + "," + node("1") + "]";
  const std::string goodEdges = R"([{"sourceId": 0, "destId": 1, "cost": 1}])";
  const std::string badNodes = std::string("[") + node("0") + ", 7, " +
                               node("1", R"(, "cpuLatency": -1)") + "]";
  const std::string badEdges = R"([{"sourceId": 0, "cost": 1}])";
  const std::string machine = R"("maxSizePerFPGA": 1, "maxFPGAs": 1, "maxCPUs": 0)";

  // Nodes and edges before the machine's fields: the machine is checked first.
  EXPECT_EQ(firstError(R"({"nodes": )" + badNodes + R"(, "edges": )" + badEdges +
                       R"(, "maxSizePerFPGA": 1, "maxCPUs": 0})"),
            "w.json: maxFPGAs is missing");
  // Then the presence of both arrays, then the first bad node, then edges.
  EXPECT_EQ(firstError("{" + machine + R"(, "nodes": )" + badNodes + "}"), "w.json: edges is missing");
  EXPECT_EQ(firstError("{" + machine + R"(, "edges": )" + badEdges + R"(, "nodes": )" + badNodes + "}"),
            "w.json: node #1 must be a JSON object, got 7");
  EXPECT_EQ(firstError("{" + machine + R"(, "nodes": )" + goodNodes + R"(, "edges": )" + badEdges +
                       "}"),
            "w.json: edge #0: destId is missing");

  // A repeated key: the last occurrence counts, whether array or not.
  EXPECT_EQ(firstError("{" + machine + R"(, "nodes": )" + goodNodes + R"(, "edges": )" + goodEdges +
                       R"(, "nodes": 5})"),
            "w.json: nodes must be an array, got 5");
  std::string error;
  const auto later = parseWorkload("{" + machine + R"(, "nodes": )" + badNodes + R"(, "edges": )" +
                                       goodEdges + R"(, "nodes": )" + goodNodes + "}",
                                   "w.json", &error);
  ASSERT_TRUE(later.has_value()) << error;
  EXPECT_EQ(later->numNodes(), 2);
  const auto emptied = parseWorkload("{" + machine + R"(, "nodes": )" + goodNodes + R"(, "edges": )" +
                                         goodEdges + R"(, "edges": [], "nodes": )" + "[" + node("4") +
                                         "]}",
                                     "w.json", &error);
  ASSERT_TRUE(emptied.has_value()) << error;
  EXPECT_EQ(emptied->numNodes(), 1);
  EXPECT_TRUE(emptied->graph().edges.empty());

  // Extra nested fields inside an element, and elsewhere, are read past.
  const auto nested = parseWorkload("{" + machine + R"(, "meta": {"nodes": [7]}, "nodes": [)" +
                                        node("0", R"(, "shape": [[1, 2], [3, {"x": []}]])") +
                                        R"(], "edges": []})",
                                    "w.json", &error);
  ASSERT_TRUE(nested.has_value()) << error;
  EXPECT_EQ(nested->numNodes(), 1);
  // A top level that is not an object, even one holding what a workload holds.
  EXPECT_EQ(firstError("[{" + machine + R"(, "nodes": [], "edges": []}])"),
            "w.json: top level must be a JSON object, got an array");
  EXPECT_EQ(firstError("\"" + std::string(100, 'w') + "\""),
            "w.json: top level must be a JSON object, got string \"" + std::string(60, 'w') + "...\"");
}

}  // namespace
}  // namespace dnnplace
