#include "search/random_keys.hpp"

#include <algorithm>
#include <functional>

namespace dnnplace::search {

KeyDecoder::KeyDecoder(const ContractedGraph& graph) : graph_(graph) {
  inDegree_.resize(graph.numSuperNodes);
  heap_.reserve(graph.numSuperNodes);
}

void KeyDecoder::decode(std::span<const float> keys, std::vector<std::int32_t>* order) {
  const int n = graph_.numSuperNodes;
  order->clear();
  heap_.clear();
  // A min-heap on (key, super-node).
  const auto later = std::greater<std::pair<float, std::int32_t>>();
  for (int v = 0; v < n; ++v) {
    inDegree_[v] = graph_.predStart[v + 1] - graph_.predStart[v];
    if (inDegree_[v] == 0) heap_.push_back({keys[v], v});
  }
  std::make_heap(heap_.begin(), heap_.end(), later);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const std::int32_t v = heap_.back().second;
    heap_.pop_back();
    order->push_back(v);
    for (std::int32_t i = graph_.succStart[v]; i < graph_.succStart[v + 1]; ++i) {
      const std::int32_t w = graph_.succ[i];
      if (--inDegree_[w] == 0) {
        heap_.push_back({keys[w], w});
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
  }
}

void keysOf(std::span<const std::int32_t> order, std::vector<float>* keys) {
  const std::size_t n = order.size();
  keys->resize(n);
  for (std::size_t p = 0; p < n; ++p)
    (*keys)[order[p]] = static_cast<float>((static_cast<double>(p) + 0.5) / static_cast<double>(n));
}

void shuffleKeys(std::vector<float>* keys, int lo, int hi, std::mt19937_64& rng) {
  const int n = static_cast<int>(keys->size());
  if (n == 0 || hi <= lo) return;
  std::uniform_real_distribution<float> inside(static_cast<float>(lo) / static_cast<float>(n),
                                               static_cast<float>(hi) / static_cast<float>(n));
  for (float& key : *keys) {
    const int position = static_cast<int>(key * static_cast<float>(n));
    if (position >= lo && position < hi) key = inside(rng);
  }
}

std::vector<std::int32_t> orderOfPlan(const ContractedGraph& graph, const Placement& placement) {
  const int n = graph.numSuperNodes;
  const int devices = placement.numAccelerators + placement.numCpus;
  std::vector<int> deviceOf(n, 0);
  for (int s = 0; s < n; ++s) {
    const int device = placement.deviceOf[graph.members[graph.memberStart[s]]];
    deviceOf[s] = device >= 0 && device < devices ? device : 0;
  }
  // The devices' graph, ranked by Kahn's algorithm (smallest device first);
  // devices on a cycle (a plan that is not contiguous) follow the others.
  std::vector<std::vector<int>> out(devices);
  std::vector<int> inDegree(devices, 0);
  for (int s = 0; s < n; ++s)
    for (std::int32_t i = graph.succStart[s]; i < graph.succStart[s + 1]; ++i) {
      const int a = deviceOf[s], b = deviceOf[graph.succ[i]];
      if (a == b) continue;
      out[a].push_back(b);
      ++inDegree[b];
    }
  std::vector<int> rank(devices, devices), ready;
  for (int d = devices; d-- > 0;)
    if (inDegree[d] == 0) ready.push_back(d);
  int next = 0;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<>());
    const int d = ready.back();
    ready.pop_back();
    rank[d] = next++;
    for (int e : out[d])
      if (--inDegree[e] == 0) {
        ready.push_back(e);
        std::push_heap(ready.begin(), ready.end(), std::greater<>());
      }
  }
  std::vector<float> keys(n);
  for (int s = 0; s < n; ++s)
    keys[s] = static_cast<float>(rank[deviceOf[s]]) +
              static_cast<float>((s + 0.5) / static_cast<double>(n));
  std::vector<std::int32_t> order;
  KeyDecoder(graph).decode(keys, &order);
  return order;
}

std::vector<std::int32_t> numberingOrder(const ContractedGraph& graph,
                                         ContractionOptions::Order order) {
  const int n = graph.numSuperNodes;
  std::vector<std::int32_t> result(n);
  const ContractedGraph renumbered = renumberContracted(graph, order);
  for (int s = 0; s < n; ++s) result[renumbered.superOf[graph.members[graph.memberStart[s]]]] = s;
  return result;
}

std::uint64_t hashOrder(std::span<const std::int32_t> order) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ull;
  for (std::int32_t v : order) {
    hash ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
    hash *= 0xff51afd7ed558ccdull;
  }
  return hash;
}

}  // namespace dnnplace::search
