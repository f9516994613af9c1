// The executable's hot functions (app/function-order.txt) are laid out side by
// side, and the list still names the executable's functions. Neither shows in
// any output: a lost ordering (another linker, a renamed option) or a list
// gone stale costs only memory, which only the benchmarks would reveal.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

#ifndef DNNPLACE_FUNCTION_ORDER_FILE
#define DNNPLACE_FUNCTION_ORDER_FILE ""
#endif

std::vector<std::string> listedFunctions(const std::string& path) {
  std::vector<std::string> names;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  return names;
}

TEST(FunctionOrder, ListedFunctionsExistAndLieSideBySide) {
  const std::string orderFile = DNNPLACE_FUNCTION_ORDER_FILE;
  if (orderFile.empty()) GTEST_SKIP() << "built with DNNPLACE_ORDER_FUNCTIONS=OFF: no layout to check";

  const std::vector<std::string> listed = listedFunctions(orderFile);
  ASSERT_GT(listed.size(), 500u) << orderFile;
  const auto functions = dnnplace::testing::executableFunctions(DNNPLACE_CLI_PATH);
  ASSERT_GT(functions.size(), 10000u) << "nm could not read " << DNNPLACE_CLI_PATH;

  // Each function once, by address (aliases such as C1/C2 constructors share one).
  std::map<unsigned long, unsigned long> placed;
  std::size_t found = 0;
  for (const std::string& name : listed) {
    const auto it = functions.find(name);
    if (it == functions.end()) continue;
    ++found;
    auto& size = placed[it->second.first];
    size = std::max(size, it->second.second);
  }
  EXPECT_GE(found * 10, listed.size() * 9)
      << found << " of " << listed.size() << " listed functions exist: run scripts/order-functions.sh";
  ASSERT_FALSE(placed.empty()) << "none of the listed functions exist";

  unsigned long total = 0, end = 0;
  for (const auto& [address, size] : placed) {
    total += size;
    end = std::max(end, address + size);
  }
  const unsigned long span = end - placed.begin()->first;
  // Side by side, they span about their own size (alignment and the odd
  // function that shares a section add a little); spread out, they spanned
  // all 5.6 MB of code, 11 times their size.
  EXPECT_LE(span, 2 * total) << "listed functions total " << total << " bytes but span " << span;
}

}  // namespace
