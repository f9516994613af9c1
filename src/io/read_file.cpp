#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dnnplace/workload.hpp"

namespace dnnplace {

std::string inputName(const std::string& path) { return path == "-" ? "standard input" : path; }

namespace {

std::uint64_t physicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

std::string tooLarge(const std::string& path, std::uint64_t maxBytes) {
  return inputName(path) + ": more than " + std::to_string(maxBytes) +
         " bytes, the input cap (a quarter of the memory limit, at least 64 MiB)";
}

}  // namespace

std::uint64_t readLimitFor(std::uint64_t memoryLimitBytes) {
  const std::uint64_t memory = memoryLimitBytes > 0 ? memoryLimitBytes : physicalMemory();
  // Unknown machine size: no cap beyond what the address space allows.
  // A limit too small to hold a sizeable workload is the solver's concern
  // (its tables), not a reason to refuse the file.
  constexpr std::uint64_t kLeast = std::uint64_t{64} << 20;
  return memory > 0 ? std::max(memory / 4, kLeast) : std::numeric_limits<std::uint64_t>::max() / 4;
}

std::uint64_t defaultReadLimit() { return readLimitFor(physicalMemory() / 2); }

std::optional<std::string> readFile(const std::string& path, std::string* error,
                                    std::uint64_t maxBytes) {
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
  // At most maxBytes + 1 bytes are read: the one past the cap says the
  // input is longer.
  maxBytes = std::min<std::uint64_t>(maxBytes, std::string().max_size() / 2);
  struct stat status {};
  std::string text;
  if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_size > 0) {
    if (static_cast<std::uint64_t>(status.st_size) > maxBytes) {
      *error = tooLarge(path, maxBytes);
      return std::nullopt;
    }
    text.resize(static_cast<std::size_t>(status.st_size) + 1);
  }
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) {  // pipes, growing files
      if (used > maxBytes) {
        *error = tooLarge(path, maxBytes);
        return std::nullopt;
      }
      text.resize(static_cast<std::size_t>(
          std::min<std::uint64_t>(std::max<std::size_t>(4096, 2 * text.size()), maxBytes + 1)));
    }
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
  if (used > maxBytes) {
    *error = tooLarge(path, maxBytes);
    return std::nullopt;
  }
  text.resize(used);
  return text;
}

}  // namespace dnnplace
