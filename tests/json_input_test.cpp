// Reading JSON (json_input.hpp, white-box): as nlohmann's parser did, and
// flat (a document whose top-level arrays are handed over element by
// element) exactly as the whole tree would, on any text; a workload must
// report the same first error.

#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dnnplace/workload.hpp"
#include "io/json_input.hpp"
#include "io/one_pass_elements.hpp"

namespace dnnplace {
namespace {

using json_input::InputJson;

/// Random JSON text: nested values, escapes, numbers of every kind, and keys
/// from a small set, so objects repeat keys (the last one counts).
class RandomJson {
 public:
  explicit RandomJson(std::uint64_t seed) : rng_(seed) {}

  std::string document() {
    // Mostly an object whose fields include the streamed ones, often arrays.
    if (pick(10) == 0) return value(0);
    std::string text = "{";
    const int fields = pick(6);
    for (int i = 0; i < fields; ++i) {
      if (i) text += ",";
      text += '"';
      text += key();
      text += "\":";
      text += pick(3) ? array(1) : value(1);
    }
    return text + "}";
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  std::string key() {
    static const char* keys[] = {"a", "b", "c", "\\u0061", "nodes"};  // "\\u0061" is "a"
    return keys[pick(5)];
  }
  std::string array(int depth) {
    std::string text = "[";
    const int n = pick(5);
    for (int i = 0; i < n; ++i) text += std::string(i ? "," : "") + value(depth + 1);
    return text + "]";
  }
  std::string value(int depth) {
    switch (depth > 4 ? pick(6) : pick(8)) {
      case 0: return "null";
      case 1: return pick(2) ? "true" : "false";
      case 2: return std::to_string(static_cast<std::int64_t>(rng_()) >> pick(64));
      case 3: return std::to_string(rng_());  // past int64: unsigned
      case 4: {
        static const char* numbers[] = {"0.1", "-0", "-2.5e-3", "1E10", "3.0", "17185374208.0", "1e-320",
                                        "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
                                        "18446744073709551616", "1e-400", "2.2250738585072011e-308",
                                        "0.30000000000000004", "1.7976931348623157e308", "-0.0", "1e400"};
        return numbers[pick(17)];
      }
      case 5: {
        static const char* strings[] = {"\"\"", "\"x\"", "\"tab\\there\"", "\"\\u00e9\\\"q\"",
                                        "\"a long string that no small-string buffer holds\"",
                                        "\"\\ud83d\\ude00 \\/\\b\\f\\n\\r\\u0000\"", "\"caf\xc3\xa9\""};
        return strings[pick(7)];
      }
      case 6: return array(depth);
      default: {
        std::string text = "{";
        const int n = pick(4);
        for (int i = 0; i < n; ++i) text += std::string(i ? "," : "") + "\"" + key() + "\":" + value(depth + 1);
        return text + "}";
      }
    }
  }

  std::mt19937_64 rng_;
};

/// Same tree, with the same JSON types (1, 1u and 1.0 are told apart).
bool sameTree(const InputJson& a, const InputJson& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt)
      if (it.key() != jt.key() || !sameTree(*it, *jt)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!sameTree(a[i], b[i])) return false;
    return true;
  }
  if (a.is_number_float()) return std::bit_cast<std::uint64_t>(a.get<double>()) == std::bit_cast<std::uint64_t>(b.get<double>());
  return a == b;
}

// RapidJSON reads the text; the trees are nlohmann's. On random documents,
// and on the same documents with one byte changed (mostly no longer JSON),
// the tree is the one nlohmann's own parser builds, and a text one rejects
// the other rejects too.
TEST(JsonInput, ReadsAsNlohmannsParserOnRandomAndDamagedDocuments) {
  int accepted = 0, rejected = 0;
  std::mt19937_64 damage(7);
  for (std::uint64_t seed = 1; seed <= 20000; ++seed) {
    std::string text = RandomJson(seed).document();
    if (seed % 2 == 0) {
      static const char bytes[] = "{}[],:\"0-.eE+tfn \\u\x01\xff";
      text[damage() % text.size()] = bytes[damage() % (sizeof bytes - 1)];
    }
    if (seed % 50 == 0) text = "\xEF\xBB\xBF" + text;  // a byte order mark, which both skip
    SCOPED_TRACE("document: " + text);
    std::optional<InputJson> theirs;
    try {
      theirs = InputJson::parse(text);
    } catch (const InputJson::exception&) {
    }
    std::string error;
    const auto ours = json_input::parseDocument(text, "d.json", &error);
    // One known difference: RapidJSON refuses any exponent past 308, even
    // on a zero ("0e400"), which nlohmann read as 0.
    if (const auto at = error.find("number overflow parsing '"); !ours && theirs && at != std::string::npos) {
      EXPECT_EQ(std::strtod(error.c_str() + at + 25, nullptr), 0.0) << error;
      continue;
    }
    ASSERT_EQ(ours.has_value(), theirs.has_value()) << error;
    if (!ours) {
      ++rejected;
      EXPECT_EQ(error.rfind("d.json: ", 0), 0u) << error;
      EXPECT_EQ(error.find('\n'), std::string::npos) << error;
      continue;
    }
    ++accepted;
    EXPECT_TRUE(sameTree(*ours, *theirs)) << ours->dump() << "\n" << theirs->dump();
  }
  EXPECT_GT(accepted, 8000);
  EXPECT_GT(rejected, 5000);
}

// Strings are checked for UTF-8 by us, not by RapidJSON: each sequence
// below, inside a string, is accepted or refused exactly as nlohmann did.
TEST(JsonInput, StringsAreUtf8AsNlohmannReadThem) {
  const std::vector<std::string> sequences = {
      "plain", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",  // valid
      "\\ud83d\\ude00", "\\u00e9", "12345678\xc3\xa9" "xyz12345",                          // valid
      "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xc3", "\xc3\x28", "\xe0\x80\xaf",          // invalid
      "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80",
      "\xf5\x80\x80\x80", "\xff", "\xe2\x82", "abcdefg\xe2\x82",
      "\\udc00", "\\ud800", "\\ud800x", "\\ud800\\u0041",                                 // lone surrogates
      "tab\there", "nl\nhere"};                                                                // raw control bytes
  int accepted = 0, refused = 0;
  for (const std::string& sequence : sequences) {
    for (const std::string& text : {"{\"a\": \"" + sequence + "\"}", "{\"" + sequence + "\": 1}"}) {
      SCOPED_TRACE("document: " + text);
      bool theirs = true;
      try {
        const InputJson parsed = InputJson::parse(text);
        theirs = !parsed.is_discarded();
      } catch (const InputJson::exception&) {
        theirs = false;
      }
      std::string error;
      const bool ours = json_input::parseDocument(text, "d.json", &error).has_value();
      EXPECT_EQ(ours, theirs) << error;
      (ours ? accepted : refused) += 1;
    }
  }
  EXPECT_EQ(accepted, 16);
  EXPECT_EQ(refused, 44);
}

// Errors point at the byte where the fault starts, as they did before
// RapidJSON read the input.
// Numbers are typed and converted by us (most without from_chars): every
// form, from one digit to past what a double or 64 bits hold, reads as
// nlohmann read it, to the bit.
TEST(JsonInput, NumbersReadAsNlohmannReadThem) {
  std::mt19937_64 random(11);
  const auto digits = [&](int count, bool leadingZeroAllowed) {
    std::string text;
    for (int i = 0; i < count; ++i) text += static_cast<char>('0' + (i == 0 && !leadingZeroAllowed ? 1 + random() % 9 : random() % 10));
    return text;
  };
  int integers = 0, decimals = 0, exponents = 0;
  for (int trial = 0; trial < 30000; ++trial) {
    std::string number = random() % 4 == 0 ? "-" : "";
    const int integerDigits = 1 + static_cast<int>(random() % 21);
    number += integerDigits == 1 ? digits(1, true) : digits(integerDigits, false);
    if (random() % 3 != 0) {
      number += '.';
      number += digits(1 + static_cast<int>(random() % 25), true);
    }
    if (random() % 6 == 0) {
      number += random() % 2 ? "e" : "E-";
      number += std::to_string(random() % 40);
    }
    SCOPED_TRACE(number);
    const InputJson theirs = InputJson::parse("[" + number + "]");
    std::string error;
    const auto ours = json_input::parseDocument("[" + number + "]", "d.json", &error);
    ASSERT_TRUE(ours.has_value()) << error;
    ASSERT_TRUE(sameTree(*ours, theirs)) << ours->dump(-1) << " against " << theirs.dump(-1);
    integers += theirs[0].is_number_integer();
    decimals += theirs[0].is_number_float() && number.find_first_of("eE") == std::string::npos;
    exponents += number.find_first_of("eE") != std::string::npos;
  }
  EXPECT_GT(integers, 5000);
  EXPECT_GT(decimals, 10000);
  EXPECT_GT(exponents, 3000);
}

TEST(JsonInput, ErrorsNameTheBytesOfTheFault) {
  auto errorOf = [](const std::string& text) {
    std::string error;
    EXPECT_FALSE(json_input::parseDocument(text, "d.json", &error).has_value()) << text;
    return error;
  };
  // A number past a double: RapidJSON's own check, and ours (10e308 passes RapidJSON's).
  EXPECT_EQ(errorOf(R"({"a": 1e400})"), "d.json: invalid JSON at byte 6: line 1, column 7: number overflow parsing '1e400'");
  EXPECT_EQ(errorOf(R"({"abcdefghijklmnop": 10e308})"),
            "d.json: invalid JSON at byte 21: line 1, column 22: number overflow parsing '10e308'");
  EXPECT_EQ(errorOf("{\n  \"a\": 100000000000000000000e300}"),
            "d.json: invalid JSON at byte 9: line 2, column 8: number overflow parsing '100000000000000000000e300'");
  // The bracket that opens level 65, also inside a streamed array.
  EXPECT_EQ(errorOf(std::string(65, '[')), "d.json: invalid JSON at byte 64: nested deeper than 64 levels");
  std::string error;
  json_input::StreamedArrays streamed;
  streamed.fields = {"nodes"};
  streamed.start = [](std::size_t) {};
  streamed.element = [](std::size_t, const json_input::FlatValue&) {};
  EXPECT_FALSE(json_input::parseFlat(R"({"nodes": [)" + std::string(63, '['), "d.json", &error, streamed));
  EXPECT_EQ(error, "d.json: invalid JSON at byte 73: nested deeper than 64 levels");
  EXPECT_EQ(errorOf(std::string(64, '[') + std::string(64, ']') + "x"),
            "d.json: invalid JSON at byte 128: line 1, column 129: The document root must not be followed by other values.");
  EXPECT_EQ(errorOf(std::string("{\"a\": 1,\n \"b\": \"\xff\"}")),
            "d.json: invalid JSON at byte 18: line 2, column 10: the string just before here is not UTF-8 (or escapes "
            "a lone UTF-16 surrogate)");
  EXPECT_EQ(errorOf(std::string("{\"a\": 1, \"b\": \0 2}", 18)), "d.json: invalid JSON at byte 14: a NUL byte");
  // Strings are decoded where they lie: an escaped newline, in a key or a
  // value, in a string that ends well or not, does not end a line. Each
  // document here is one line; read whole, copied, or in place.
  for (const std::string text : {R"({"k\n": "x\ny\u000a", "b": tru})", R"({"k": "\n\n\n\q"})",
                                 R"({"a":"\u000a\u000a\x"})", R"({"k": "\n\n\udc00", "x": tru})",
                                 R"({"k": "\n\n)", R"({"k": ["\n\n", "\n)" "\x01" R"("]})"}) {
    const std::string error = errorOf(text);
    const std::size_t byte = std::stoul(error.substr(error.find("byte ") + 5));
    EXPECT_NE(error.find("line 1, column " + std::to_string(byte + 1) + ": "), std::string::npos) << error;
    json_input::StreamedArrays streamed;
    streamed.fields = {"k"};
    streamed.start = [](std::size_t) {};
    streamed.element = [](std::size_t, const json_input::FlatValue&) {};
    std::string flatError, inPlaceError;
    EXPECT_FALSE(json_input::parseFlat(std::string_view(text), "d.json", &flatError, streamed));
    EXPECT_FALSE(json_input::parseFlat(std::string(text), "d.json", &inPlaceError, streamed));
    EXPECT_EQ(flatError, error);
    EXPECT_EQ(inPlaceError, error);
  }
  // A real line end still counts, after escaped ones (the second line starts at byte 14).
  const std::string twoLines = errorOf("{\"a\": \"\\n\\n\",\n \"b\": tru}");
  const std::size_t byte = std::stoul(twoLines.substr(twoLines.find("byte ") + 5));
  EXPECT_NE(twoLines.find("line 2, column " + std::to_string(byte - 13) + ": "), std::string::npos) << twoLines;
}

/// A value as a flat read sees it, with its JSON type (1, 1u and 1.0 are
/// told apart, and so are 0.0 and -0.0) and whole strings.
std::string show(const json_input::Value& value) {
  std::string text = std::to_string(static_cast<int>(value.kind)) + ":";
  switch (value.kind) {
    case json_input::Value::Kind::Float: return text + std::to_string(std::bit_cast<std::uint64_t>(value.floating));
    case json_input::Value::Kind::String: return text + std::string(value.string);
    default: return text + json_input::describe(value);
  }
}

/// A tree, flat: its value and, for an object, each distinct key's value.
std::string flatten(const InputJson& tree) {
  std::string text = show(json_input::valueOf(tree));
  if (tree.is_object())
    for (auto it = tree.begin(); it != tree.end(); ++it) text += "|" + it.key() + "=" + show(json_input::valueOf(*it));
  return text;
}

/// The same for a flat read; a repeated key shows its last value.
std::string flatten(const json_input::FlatValue& flat) {
  std::map<std::string, std::string> members;  // as the tree's, sorted by key
  for (const auto& member : flat.members()) members[std::string(member.key)] = show(member.value);
  std::string text = show(flat.value());
  for (const auto& [key, value] : members) {
    EXPECT_EQ(show(*flat.find(key)), value) << "find() is not the last occurrence of " << key;
    text += "|" + key + "=" + value;
  }
  return text;
}

struct Streamed {
  std::vector<std::vector<std::string>> elements{2};  ///< flattened, per field, of the last array seen
  std::vector<int> starts = {0, 0};
};

TEST(JsonInput, AFlatReadSeesWhatTheWholeTreeHoldsOnRandomDocuments) {
  int streamedArrays = 0, objectElements = 0, nestedMembers = 0, repeatedKeys = 0, failures = 0;
  for (std::uint64_t seed = 1; seed <= 6000; ++seed) {
    RandomJson random(seed);
    std::string text = random.document();
    if (seed % 10 == 0) text = text.substr(0, text.size() * (seed % 7) / 7);  // truncated: a syntax error
    SCOPED_TRACE("document: " + text);

    std::string wholeError, flatError;
    const auto whole = json_input::parseDocument(text, "d.json", &wholeError);
    Streamed got;
    json_input::StreamedArrays streamed;
    streamed.fields = {"a", "b"};
    streamed.start = [&](std::size_t f) {
      got.elements[f].clear();
      ++got.starts[f];
    };
    streamed.element = [&](std::size_t f, const json_input::FlatValue& element) {
      got.elements[f].push_back(flatten(element));
      std::set<std::string_view> keys;
      for (const auto& member : element.members()) {
        repeatedKeys += !keys.insert(member.key).second;
        nestedMembers += member.value.kind == json_input::Value::Kind::Array ||
                         member.value.kind == json_input::Value::Kind::Object;
      }
    };
    const auto flat = json_input::parseFlat(text, "d.json", &flatError, streamed);

    ASSERT_EQ(whole.has_value(), flat.has_value());
    EXPECT_EQ(wholeError, flatError);
    if (!whole) {
      ++failures;
      continue;
    }
    EXPECT_EQ(flatten(*flat), flatten(*whole));
    if (!whole->is_object()) {
      EXPECT_EQ(got.starts, (std::vector<int>{0, 0}));
      continue;
    }
    for (std::size_t f = 0; f < 2; ++f) {
      const std::string field = f == 0 ? "a" : "b";
      const auto it = whole->find(field);
      if (it == whole->end() || !it->is_array()) continue;
      // The last occurrence was an array: its elements came over, in order.
      ++streamedArrays;
      std::vector<std::string> expected;
      for (const InputJson& element : *it) {
        expected.push_back(flatten(element));
        objectElements += element.is_object() && !element.empty();
      }
      EXPECT_EQ(got.elements[f], expected) << field;
      EXPECT_GE(got.starts[f], 1);
    }
  }
  // The generator must exercise what the test claims.
  EXPECT_GT(streamedArrays, 1000);
  EXPECT_GT(objectElements, 500);
  EXPECT_GT(nestedMembers, 200);
  EXPECT_GT(repeatedKeys, 200);
  EXPECT_GT(failures, 200);
}

std::string node(int id, const std::string& extra = "") {
  return R"({"id": )" + std::to_string(id) +
         R"(, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0)" + extra + "}";
}

std::string firstError(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parseWorkload(text, "w.json", &error).has_value()) << text;
  return error;
}

// Nodes and edges are read while parsing, but a file with several faults
// reports the one a check of the whole tree meets first.
// The one-pass reader of nodes and edges takes every spelling the checked
// reader takes (tests/workload_test.cpp: read alike), and leaves every fault
// to the checked reader, which names it.
TEST(JsonInput, NodesAndEdgesAreReadInOnePassUnlessFaulty) {
  const auto elements = [](const std::string& array) {
    std::vector<std::pair<bool, Node>> read;
    json_input::StreamedArrays streamed;
    streamed.fields = {"a"};
    streamed.start = [](std::size_t) {};
    streamed.element = [&](std::size_t, const json_input::FlatValue& element) {
      Node node;
      node.name = "untouched";
      const bool taken = detail::readNodeInOnePass(element, &node);
      read.emplace_back(taken, node);
    };
    std::string error;
    EXPECT_TRUE(json_input::parseFlat(std::string(R"({"a": )") + array + "}", "d.json", &error, streamed)) << error;
    return read;
  };
  const std::string rest = R"("supportedOnFpga": true, "cpuLatency": 2.5, "fpgaLatency": 1, "isBackwardNode": 0)";
  const auto taken = elements("[{\"id\": 7, " + rest + R"(, "colorClass": -3, "size": 1e3, "name": "conv"},)" +
                              "{\"id\": 1, \"id\": 8, " + rest + R"(, "supportedOnFpga": 0.0, "isBackwardNode": 1.0},)" +
                              "{\"id\": 9.0, " + rest + R"(, "colorClass": 2.0, "name": 5}])");
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_TRUE(taken[0].first);
  EXPECT_EQ(taken[0].second.id, 7);
  EXPECT_EQ(taken[0].second.cpuLatency, 2.5);
  EXPECT_EQ(taken[0].second.fpgaLatency, 1.0);
  EXPECT_EQ(taken[0].second.colorClass, std::optional<std::int64_t>(-3));
  EXPECT_EQ(taken[0].second.size, 1000.0);
  EXPECT_EQ(taken[0].second.name, "conv");
  EXPECT_TRUE(taken[0].second.supportedOnFpga);
  EXPECT_FALSE(taken[0].second.isBackward);
  EXPECT_TRUE(taken[1].first);  // the last of a repeated key counts; 0.0 and 1.0 are flags
  EXPECT_EQ(taken[1].second.id, 8);
  EXPECT_FALSE(taken[1].second.supportedOnFpga);
  EXPECT_TRUE(taken[1].second.isBackward);
  EXPECT_EQ(taken[1].second.colorClass, std::nullopt);
  EXPECT_EQ(taken[1].second.name, "");
  EXPECT_TRUE(taken[2].first);  // integers written 9.0, as the paper's files sometimes do; a name not a string is no name
  EXPECT_EQ(taken[2].second.id, 9);
  EXPECT_EQ(taken[2].second.colorClass, std::optional<std::int64_t>(2));
  EXPECT_EQ(taken[2].second.name, "");

  // Faults: each goes to the checked reader, the node untouched.
  for (const std::string& other : {"{\"id\": 7.5, " + rest + "}", "{" + rest + "}", "{\"id\": 9223372036854775808, " + rest + "}",
                                   "{\"id\": 7, " + rest + R"(, "cpuLatency": -1})", "{\"id\": 7, " + rest + R"(, "size": "big"})",
                                   "{\"id\": 7, " + rest + R"(, "colorClass": 1e19})", "{\"id\": 7, " + rest + R"(, "isBackwardNode": 2})",
                                   std::string("7"), std::string("[]")}) {
    const auto read = elements("[" + other + "]");
    ASSERT_EQ(read.size(), 1u) << other;
    EXPECT_FALSE(read[0].first) << other;
    EXPECT_EQ(read[0].second.name, "untouched") << other;
  }

  json_input::StreamedArrays streamed;
  streamed.fields = {"e"};
  streamed.start = [](std::size_t) {};
  std::vector<bool> edgesTaken;
  streamed.element = [&](std::size_t, const json_input::FlatValue& element) {
    RawEdge edge;
    edgesTaken.push_back(detail::readEdgeInOnePass(element, &edge));
    if (edgesTaken.size() == 1) {
      EXPECT_EQ(edge.cost, -0.5);  // an edge's cost may be negative
    }
  };
  std::string error;
  EXPECT_TRUE(json_input::parseFlat(std::string(R"({"e": [{"sourceId": 1, "destId": 2, "cost": -0.5},
      {"sourceId": 1.0, "destId": 2, "cost": 1}, {"sourceId": 1, "destId": 2}]})"), "d.json", &error, streamed));
  EXPECT_EQ(edgesTaken, (std::vector<bool>{true, true, false}));
}

TEST(JsonInput, AWorkloadReportsItsFirstFaultInTreeOrder) {
  const std::string goodNodes = std::string("[") + node(0) + "," + node(1) + "]";
  const std::string goodEdges = R"([{"sourceId": 0, "destId": 1, "cost": 1}])";
  const std::string badNodes = std::string("[") + node(0) + ", 7, " + node(1, R"(, "cpuLatency": -1)") + "]";
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
  EXPECT_EQ(firstError("{" + machine + R"(, "nodes": )" + goodNodes + R"(, "edges": )" + badEdges + "}"),
            "w.json: edge #0: destId is missing");

  // A repeated key: the last occurrence counts, whether array or not.
  EXPECT_EQ(firstError("{" + machine + R"(, "nodes": )" + goodNodes + R"(, "edges": )" + goodEdges +
                       R"(, "nodes": 5})"),
            "w.json: nodes must be an array, got 5");
  std::string error;
  const auto later = parseWorkload("{" + machine + R"(, "nodes": )" + badNodes + R"(, "edges": )" + goodEdges +
                                       R"(, "nodes": )" + goodNodes + "}",
                                   "w.json", &error);
  ASSERT_TRUE(later.has_value()) << error;
  EXPECT_EQ(later->numNodes(), 2);
  const auto emptied = parseWorkload("{" + machine + R"(, "nodes": )" + goodNodes + R"(, "edges": )" + goodEdges +
                                         R"(, "edges": [], "nodes": )" + "[" + node(4) + "]}",
                                     "w.json", &error);
  ASSERT_TRUE(emptied.has_value()) << error;
  EXPECT_EQ(emptied->numNodes(), 1);
  EXPECT_TRUE(emptied->edges.empty());

  // Extra nested fields inside an element are read past.
  const auto nested = parseWorkload("{" + machine + R"(, "nodes": [)" + node(0, R"(, "shape": [[1, 2], [3, {"x": []}]])") +
                                        R"(], "edges": []})",
                                    "w.json", &error);
  ASSERT_TRUE(nested.has_value()) << error;
  EXPECT_EQ(nested->numNodes(), 1);
}

}  // namespace
}  // namespace dnnplace
