// Where results go: files, standard output, and one-line messages.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <unistd.h>

#include "dnnplace/report.hpp"
#include "report/text.hpp"

namespace dnnplace {

std::string methodTable() {
  std::string text;
  for (const auto& m : methods())
    text += "\n  " + m.name + std::string(14 - std::min<std::size_t>(13, m.name.size()), ' ') +
            m.summary;
  return text;
}

std::string phasesLine(const std::vector<PhaseTime>& phases) {
  std::string line = "phases:";
  for (const PhaseTime& phase : phases)
    line += (&phase == phases.data() ? " " : ", ") + phase.name + " " +
            report::fixed(phase.seconds, 3) + " s";
  return line + "\n";
}

bool writeText(const std::string& path, const std::string& text, std::string* error) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return true;
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    *error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const int writeError = errno;
  const bool closed = std::fclose(file) == 0;  // a full disk may show only here
  if (!written || !closed) {
    *error = path + ": cannot write: " + std::strerror(written ? errno : writeError);
    return false;
  }
  return true;
}

std::string unwritablePath(const std::string& path) {
  if (path.empty() || path == "-") return "";
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path);
  const auto status = fs::status(file, ec);
  if (fs::is_directory(status)) return path + ": cannot write: Is a directory";
  if (fs::exists(status)) {
    if (::access(path.c_str(), W_OK) != 0) return path + ": cannot write: " + std::strerror(errno);
    return "";
  }
  const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const auto parentStatus = fs::status(parent, ec);
  if (!fs::exists(parentStatus)) return path + ": cannot write: No such file or directory";
  if (!fs::is_directory(parentStatus)) return path + ": cannot write: Not a directory";
  if (::access(parent.c_str(), W_OK) != 0) return path + ": cannot write: " + std::strerror(errno);
  return "";
}

std::string oneLine(const std::string& message) {
  std::string line;
  line.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      line += c;
    } else if (c == '\n') {
      line += "\\n";
    } else if (c == '\t') {
      line += "\\t";
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      line += escaped;
    }
  }
  return line;
}

}  // namespace dnnplace
