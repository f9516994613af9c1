// The static executable finds unwind tables by binary search in the linker's
// .eh_frame_hdr, not by sorting every .eh_frame entry at the first exception
// (app/static_unwind.cpp). If either half were lost (no table written, or the
// start-up registration back), exceptions would still work, only slower:
// 5.5 ms more for --help and every usage error, which no output shows.
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace dnnplace {
namespace {

#ifndef DNNPLACE_STATIC_EXECUTABLE_BUILD
#define DNNPLACE_STATIC_EXECUTABLE_BUILD 0
#endif

/// The types of an ELF executable's program headers (empty if unreadable).
std::vector<std::uint32_t> programHeaderTypes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || header.e_ident[EI_CLASS] != ELFCLASS64) return {};
  std::vector<std::uint32_t> types;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<std::uint64_t>(i) * header.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&program), sizeof program)) return {};
    types.push_back(program.p_type);
  }
  return types;
}

bool definesSymbol(const std::string& path, const std::string& symbol) {
  const std::string command = "nm -P --defined-only '" + path + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return false;
  char line[8192];
  bool found = false;
  while (std::fgets(line, sizeof line, pipe))
    found = found || std::string(line).rfind(symbol + " ", 0) == 0;
  pclose(pipe);
  return found;
}

TEST(StaticUnwind, FramesAreFoundInTheLinkersTableNotByASortAtTheFirstThrow) {
  if (!DNNPLACE_STATIC_EXECUTABLE_BUILD) GTEST_SKIP() << "built with DNNPLACE_STATIC_EXECUTABLE=OFF: a dynamic executable";
  const auto types = programHeaderTypes(DNNPLACE_CLI_PATH);
  ASSERT_FALSE(types.empty()) << "cannot read " << DNNPLACE_CLI_PATH;
  EXPECT_NE(std::find(types.begin(), types.end(), static_cast<std::uint32_t>(PT_GNU_EH_FRAME)), types.end())
      << "no .eh_frame_hdr table: the unwinder would sort every entry at the first exception";
  EXPECT_TRUE(definesSymbol(DNNPLACE_CLI_PATH, "__wrap___register_frame_info"))
      << "crtbeginT.o's registration of the unwind tables is not made a no-op";

  // Exceptions still unwind: CLI11 reports --version, --help and usage errors by throwing.
  auto result = testing::runCli("--version");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_EQ(result.out, "dnnplace 0.1.0\n");
  result = testing::runCli("solve --help");
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("--method"), std::string::npos) << result.out;
  result = testing::runCli("solve --no-such-option x.json");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: The following argument was not expected: --no-such-option (see --help)\n");
}

}  // namespace
}  // namespace dnnplace
