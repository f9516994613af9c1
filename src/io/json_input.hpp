#pragma once
// Small helpers for the JSON we write and the messages we print: the one
// JSON library (nlohmann::json), numbers as the shortest text that reads
// back the same, and arbitrary bytes made safe for one terminal line.
// Reading JSON input is in io/json_reader.hpp.

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dnnplace::json_input {

/// For the JSON we write.
using Json = nlohmann::json;

/// Shortest text that reads back as the same double.
std::string formatNumber(double value);

/// Makes arbitrary bytes safe to show on one terminal line (escapes control
/// and non-ASCII bytes, shortens long text).
std::string printable(std::string_view text, std::size_t maxLength = 60);

}  // namespace dnnplace::json_input
