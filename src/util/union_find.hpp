#pragma once
/// Union-find over 0..n-1 with path halving. Deterministic: the smaller root
/// survives a union; `attach` keeps a chosen root instead.

#include <utility>
#include <vector>

namespace dnnplace {

class UnionFind {
 public:
  explicit UnionFind(int size) : parent_(size) {
    for (int i = 0; i < size; ++i) parent_[i] = i;
  }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  /// Joins the sets of a and b; false if they were one already.
  bool unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    return true;
  }
  /// Makes the root `childRoot` a child of `root`.
  void attach(int childRoot, int root) { parent_[childRoot] = root; }

 private:
  std::vector<int> parent_;
};

}  // namespace dnnplace
