// The static executable finds unwind tables by binary search in the linker's
// .eh_frame_hdr, not by sorting every .eh_frame entry at the first exception
// (app/static_unwind.cpp). If either half were lost (no table written, or the
// start-up registration back), exceptions would still work, only slower:
// 5.5 ms more for --help and every usage error, which no output shows.
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace dnnplace {
namespace {

#ifndef DNNPLACE_STATIC_EXECUTABLE_BUILD
#define DNNPLACE_STATIC_EXECUTABLE_BUILD 0
#endif

/// An ELF executable's program headers (empty if unreadable).
std::vector<Elf64_Phdr> programHeaders(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || header.e_ident[EI_CLASS] != ELFCLASS64) return {};
  std::vector<Elf64_Phdr> programs;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<std::uint64_t>(i) * header.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&program), sizeof program)) return {};
    programs.push_back(program);
  }
  return programs;
}

/// The number of entries in the .eh_frame_hdr search table that `program`
/// (PT_GNU_EH_FRAME) points at; -1 if there is no table (a linker that could
/// not build one leaves the unwinder a linear search).
long searchTableEntries(const std::string& path, const Elf64_Phdr& program) {
  std::ifstream in(path, std::ios::binary);
  unsigned char bytes[12] = {};
  in.seekg(static_cast<std::streamoff>(program.p_offset));
  if (program.p_filesz < sizeof bytes || !in.read(reinterpret_cast<char*>(bytes), sizeof bytes)) return -1;
  // version 1; then how eh_frame_ptr, fde_count and the table are encoded
  // (DW_EH_PE_*: 0xff = omitted; the low nibble 3 or 0xb = 4 bytes).
  const unsigned version = bytes[0], pointerEncoding = bytes[1], countEncoding = bytes[2], tableEncoding = bytes[3];
  const auto fourBytes = [](unsigned encoding) { return (encoding & 0x0f) == 0x03 || (encoding & 0x0f) == 0x0b; };
  if (version != 1 || tableEncoding == 0xff || !fourBytes(pointerEncoding) || !fourBytes(countEncoding)) return -1;
  std::uint32_t count = 0;
  std::memcpy(&count, bytes + 8, 4);
  return count;
}

TEST(StaticUnwind, FramesAreFoundInTheLinkersTableNotByASortAtTheFirstThrow) {
  if (!DNNPLACE_STATIC_EXECUTABLE_BUILD) GTEST_SKIP() << "built with DNNPLACE_STATIC_EXECUTABLE=OFF: a dynamic executable";
  const auto programs = programHeaders(DNNPLACE_CLI_PATH);
  ASSERT_FALSE(programs.empty()) << "cannot read " << DNNPLACE_CLI_PATH;
  const auto table = std::find_if(programs.begin(), programs.end(),
                                  [](const Elf64_Phdr& program) { return program.p_type == PT_GNU_EH_FRAME; });
  ASSERT_NE(table, programs.end()) << "no .eh_frame_hdr: the unwinder would sort every entry at the first exception";
  // One entry per function with unwind information: thousands (COIN-OR's and the C++ runtime's included).
  EXPECT_GT(searchTableEntries(DNNPLACE_CLI_PATH, *table), 5000) << "no search table in .eh_frame_hdr";
  const auto functions = testing::executableFunctions(DNNPLACE_CLI_PATH);
  ASSERT_FALSE(functions.empty()) << "nm could not read " << DNNPLACE_CLI_PATH;
  EXPECT_EQ(functions.count("__wrap___register_frame_info"), 1u)
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
