#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnplace/workload.hpp"

namespace dnnplace {

std::string inputName(const std::string& path) { return path == "-" ? "standard input" : path; }

std::optional<std::string> readFile(const std::string& path, std::string* error) {
  // "-" is standard input, as it is standard output for --out.
  const bool standardInput = path == "-";
  // A directory opens as a file that reads nothing; say what it is instead
  // of reporting an empty file.
  std::error_code ignored;
  if (!standardInput && std::filesystem::is_directory(path, ignored)) {
    *error = path + ": cannot read: it is a directory";
    return std::nullopt;
  }
  const int fd = standardInput ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return std::nullopt;
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd != STDIN_FILENO) ::close(fd);
    }
  } closer{fd};
  // A regular file is read into one buffer of its size (plus the byte that
  // lets the last read see the end); a pipe into one that grows.
  struct stat status {};
  std::string text;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0)
    text.resize(static_cast<std::size_t>(status.st_size) + 1);
  std::size_t used = 0;
  for (;;) {
    if (used == text.size())
      text.resize(std::max<std::size_t>(4096, 2 * text.size()));  // pipes, growing files
    const ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *error = inputName(path) + ": cannot read: " + std::strerror(errno);
      return std::nullopt;
    }
    if (got == 0) break;
    // No JSON text holds a NUL byte: the reader refuses the first one and
    // says where it is, so reading stops there too (/dev/zero would
    // otherwise be read until memory runs out).
    const bool nul = std::memchr(text.data() + used, 0, static_cast<std::size_t>(got)) != nullptr;
    used += static_cast<std::size_t>(got);
    if (nul) break;
  }
  text.resize(used);
  return text;
}

}  // namespace dnnplace
