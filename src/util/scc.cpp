// Strongly connected components (iterative Tarjan).

#include "util/scc.hpp"

#include <algorithm>

namespace dnnplace {

std::vector<int> stronglyConnectedComponents(const std::vector<std::vector<int>>& next,
                                             int* numComponents) {
  const int n = static_cast<int>(next.size());
  std::vector<int> index(n, -1), low(n, 0), component(n, -1);
  std::vector<int> stack, callStack, edgePosition(n, 0);
  std::vector<char> onStack(n, 0);
  int counter = 0;
  *numComponents = 0;
  for (int root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    callStack.push_back(root);
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = 1;
    while (!callStack.empty()) {
      const int c = callStack.back();
      if (edgePosition[c] < static_cast<int>(next[c].size())) {
        const int d = next[c][edgePosition[c]++];
        if (index[d] < 0) {
          index[d] = low[d] = counter++;
          stack.push_back(d);
          onStack[d] = 1;
          callStack.push_back(d);
        } else if (onStack[d]) {
          low[c] = std::min(low[c], index[d]);
        }
        continue;
      }
      callStack.pop_back();
      if (!callStack.empty()) low[callStack.back()] = std::min(low[callStack.back()], low[c]);
      if (low[c] == index[c]) {
        int member;
        do {
          member = stack.back();
          stack.pop_back();
          onStack[member] = 0;
          component[member] = *numComponents;
        } while (member != c);
        ++*numComponents;
      }
    }
  }
  return component;
}

}  // namespace dnnplace
