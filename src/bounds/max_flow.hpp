#pragma once
/// A small maximum-flow solver (Dinic's algorithm) on real capacities, for
/// the minimum cuts of the throughput bounds (bounds/throughput_bound.hpp).
/// The residual state can be copied, so one base flow is extended by extra
/// source edges many times without starting over.

#include <algorithm>
#include <limits>
#include <vector>

namespace dnnplace::bounds {

class MaxFlow {
 public:
  explicit MaxFlow(int nodes) : first_(nodes, -1) {}

  int numNodes() const { return static_cast<int>(first_.size()); }
  int addNode() {
    first_.push_back(-1);
    return numNodes() - 1;
  }
  /// An arc u → v of capacity `capacity` (and its residual twin); returns its index.
  int addArc(int u, int v, double capacity) {
    arcs_.push_back({v, first_[u], capacity});
    first_[u] = static_cast<int>(arcs_.size()) - 1;
    arcs_.push_back({u, first_[v], 0});
    first_[v] = static_cast<int>(arcs_.size()) - 1;
    return static_cast<int>(arcs_.size()) - 2;
  }
  /// Raises an arc's residual capacity (an arc added with capacity 0 becomes usable).
  void addCapacity(int arc, double capacity) { arcs_[arc].residual += capacity; }

  /// Pushes as much more flow from s to t as the residual graph allows;
  /// returns the amount pushed. Residuals below `epsilon` count as zero.
  double augment(int s, int t, double epsilon) {
    double total = 0;
    while (levels(s, t, epsilon)) {
      next_.assign(first_.begin(), first_.end());
      for (;;) {
        const double pushed = push(s, t, std::numeric_limits<double>::infinity(), epsilon);
        if (pushed <= 0) break;
        total += pushed;
      }
    }
    return total;
  }

  /// After augment: whether v is reachable from s in the residual graph (the
  /// source side of a minimum cut).
  bool sourceSide(int v) const { return level_[v] >= 0; }

 private:
  struct Arc {
    int to, next;
    double residual;
  };
  std::vector<int> first_, level_, next_, queue_;
  std::vector<Arc> arcs_;

  bool levels(int s, int t, double epsilon) {
    level_.assign(first_.size(), -1);
    queue_.clear();
    queue_.push_back(s);
    level_[s] = 0;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const int u = queue_[head];
      for (int a = first_[u]; a >= 0; a = arcs_[a].next)
        if (arcs_[a].residual > epsilon && level_[arcs_[a].to] < 0) {
          level_[arcs_[a].to] = level_[u] + 1;
          queue_.push_back(arcs_[a].to);
        }
    }
    return level_[t] >= 0;
  }

  double push(int u, int t, double limit, double epsilon) {
    if (u == t) return limit;
    for (int& a = next_[u]; a >= 0; a = arcs_[a].next) {
      Arc& arc = arcs_[a];
      if (arc.residual <= epsilon || level_[arc.to] != level_[u] + 1) continue;
      const double pushed = push(arc.to, t, std::min(limit, arc.residual), epsilon);
      if (pushed > 0) {
        arc.residual -= pushed;
        arcs_[a ^ 1].residual += pushed;
        return pushed;
      }
    }
    return 0;
  }
};

}  // namespace dnnplace::bounds
