#pragma once
/// Number formats of messages. Each has its own job; they are not
/// interchangeable (messages and tests quote their output).

#include <cstddef>
#include <string>
#include <string_view>

namespace dnnplace {

/// Shortest text that reads back as the same double ("NaN", "Infinity",
/// "-Infinity" for those): for quoting input values exactly.
std::string formatShortest(double value);

/// Ten significant digits (printf's %.10g): objective values in progress
/// lines and notes.
std::string formatTenDigits(double value);

/// A memory size for people: "1.5 GB", "12.0 MB", "512 bytes".
std::string formatBytes(double bytes);

/// Arbitrary bytes made safe to show on one terminal line (control and
/// non-ASCII bytes escaped as \xNN, long text shortened with "...").
std::string printable(std::string_view text, std::size_t maxLength = 60);

}  // namespace dnnplace
