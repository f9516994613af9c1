#pragma once
/// What every libFuzzer target here checks: an input is either accepted or
/// rejected with one line that starts with the input's name; an accepted
/// input never makes the library report an internal error.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace dnnplace::fuzz {

/// Stops the run with a finding (libFuzzer saves the input that caused it).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::abort();
}

inline void expectOneLine(const std::string& error, const std::string& name) {
  if (error.rfind(name + ": ", 0) != 0) finding("error without the input's name: " + error);
  if (error.find('\n') != std::string::npos) finding("error of more than one line: " + error);
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace dnnplace::fuzz
