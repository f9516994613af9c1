#pragma once
/// Checks of option values that say what is wanted in a few words.

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "dnnplace/workload.hpp"

namespace dnnplace::cli {

// CLI11's number checks let NaN through (every comparison with it is false)
// and print their bounds with all 309 digits of DBL_MAX: these say what is
// wanted, in a few words.
inline CLI::Validator finiteNumber(const std::string& what, double low, double high, bool lowIncluded) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        const bool aboveLow = lowIncluded ? value >= low : value > low;
        if (used != text.size() || text.empty() || !std::isfinite(value) || !aboveLow)
          return "expected " + what + ", got '" + text + "'";
        if (value > high) {
          char most[32];
          std::snprintf(most, sizeof most, "%.15g", high);
          return "expected " + what + " of at most " + most + ", got '" + text + "'";
        }
        return std::string();
      },
      what);
}

// A negative number would wrap around in an unsigned option, and one past
// 2^64 - 1 would be clamped to it.
inline const CLI::Validator kNonNegativeInteger(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || text[0] == '-' || text[0] == '+' || end != text.data() + text.size() ||
          status == std::errc::invalid_argument)
        return "expected a non-negative integer, got '" + text + "'";
      if (status == std::errc::result_out_of_range)
        return "expected a non-negative integer of at most 18446744073709551615, got '" + text + "'";
      return std::string();
    },
    "N");

// A list given on the command line names at least one item (an empty one
// would otherwise read as "not given": every default).
inline const CLI::Validator kNonEmpty(
    [](std::string& text) -> std::string {
      return text.empty() ? "expected a non-empty comma-separated list" : std::string();
    },
    "LIST");

// A number of accelerators or CPU cores: what the workload reader accepts.
inline const CLI::Range kDeviceCount(0, static_cast<int>(kMaxDevicesPerKind));

}  // namespace dnnplace::cli
