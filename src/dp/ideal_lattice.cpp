#include "dp/ideal_lattice.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace dnnplace {

namespace {

using Word = std::uint64_t;

bool predecessorsInside(const ContractedGraph& graph, int v, const Word* bits) {
  for (int i = graph.predStart[v]; i < graph.predStart[v + 1]; ++i) {
    const int u = graph.pred[i];
    if (!((bits[u >> 6] >> (u & 63)) & 1)) return false;
  }
  return true;
}

void setBit(Word* bits, int v) { bits[v >> 6] |= Word{1} << (v & 63); }
void clearBit(Word* bits, int v) { bits[v >> 6] &= ~(Word{1} << (v & 63)); }

/// Whether adding `more` elements reallocates `array`, copying it whole.
template <class Array>
bool grows(const Array& array, std::size_t more) {
  return array.size() + more > array.capacity();
}

}  // namespace

IdealCount countIdeals(const ContractedGraph& graph, std::uint64_t cap, const CountLimits& limits) {
  // Each ideal once, as its elements in increasing order (the numbering is
  // topological): a depth-first walk that extends an ideal by a node above
  // its last one whose predecessors are all inside. Those "ready" nodes are
  // kept in a bitset with a summary word per 64 words, so finding the next
  // one does not rescan the graph (a chain of n nodes would cost n² then).
  const int n = graph.numSuperNodes;
  const int words = std::max(1, (n + 63) / 64);
  std::vector<Word> ready(words, 0), summary((words + 63) / 64, 0);
  std::vector<std::int32_t> missing(n);
  auto setReady = [&](int v) {
    ready[v >> 6] |= Word{1} << (v & 63);
    summary[v >> 12] |= Word{1} << ((v >> 6) & 63);
  };
  auto clearReady = [&](int v) {
    ready[v >> 6] &= ~(Word{1} << (v & 63));
    if (!ready[v >> 6]) summary[v >> 12] &= ~(Word{1} << ((v >> 6) & 63));
  };
  auto nextReady = [&](int from) -> int {  // the first ready node >= from, or n
    if (from >= n) return n;
    int word = from >> 6;
    Word bits = ready[word] & (~Word{0} << (from & 63));
    if (bits) return (word << 6) + std::countr_zero(bits);
    ++word;
    for (int block = word >> 6; block < static_cast<int>(summary.size()); ++block) {
      Word nonEmpty = summary[block];
      if (block == word >> 6) nonEmpty &= ~Word{0} << (word & 63);
      if (nonEmpty) {
        const int w = (block << 6) + std::countr_zero(nonEmpty);
        return (w << 6) + std::countr_zero(ready[w]);
      }
    }
    return n;
  };
  for (int v = 0; v < n; ++v) {
    missing[v] = graph.predStart[v + 1] - graph.predStart[v];
    if (missing[v] == 0) setReady(v);
  }
  auto add = [&](int v) {
    clearReady(v);
    for (int i = graph.succStart[v]; i < graph.succStart[v + 1]; ++i)
      if (--missing[graph.succ[i]] == 0) setReady(graph.succ[i]);
  };
  auto remove = [&](int v) {  // the last node added
    for (int i = graph.succStart[v]; i < graph.succStart[v + 1]; ++i)
      if (missing[graph.succ[i]]++ == 0) clearReady(graph.succ[i]);
    setReady(v);
  };

  struct Frame {
    int added, next;
  };
  std::vector<Frame> stack{{-1, 0}};
  std::uint64_t count = 1;  // the empty ideal
  if (cap && count > cap) return {cap, true};
  std::uint32_t sinceCheck = 0;
  while (!stack.empty()) {
    if (++sinceCheck == 4096) {
      sinceCheck = 0;
      if ((limits.interrupt && limits.interrupt->load()) ||
          std::chrono::steady_clock::now() > limits.deadline)
        return {count, false, true};
    }
    Frame& frame = stack.back();
    const int candidate = nextReady(frame.next);
    if (candidate < n) {
      frame.next = candidate + 1;
      add(candidate);
      if (++count > cap && cap) return {cap, true};
      stack.push_back({candidate, candidate + 1});
    } else {
      if (frame.added >= 0) remove(frame.added);
      stack.pop_back();
    }
  }
  return {count, false};
}

IdealCount countIdeals(const Workload& workload, std::uint64_t cap, const CountLimits& limits) {
  return countIdeals(contractWorkload(workload, ContractionOptions{}), cap, limits);
}

std::uint64_t IdealLattice::bytes() const {
  return (levelStart_.capacity() + childBegin_.capacity() + maxElement_.capacity()) *
             sizeof(std::int32_t) +
         linkStart_.capacity() * sizeof(std::int64_t) + links_.capacity() * sizeof(Link);
}

IdealLattice::Status IdealLattice::build(const ContractedGraph& graph, const Limits& limits) {
  const int n = graph.numSuperNodes;
  const int words = std::max(1, (n + 63) / 64);
  levelStart_.assign(1, 0);
  linkStart_.assign(1, 0);
  links_.clear();
  childBegin_.clear();
  maxElement_.clear();

  // Per ideal while building: largest element and first canonical child; the
  // children of ideal K are the ids [childBegin[K], childBegin[K + 1]).
  std::vector<std::int32_t> maxElement{-1};
  std::vector<std::int32_t> childBegin;
  // Per ideal of the level being expanded: its members, then its "ready"
  // nodes (outside it, every predecessor inside), `words` each. An ideal's
  // children add one ready node above its largest element; the ready set
  // then changes only at that node and its successors.
  const std::size_t stride = 2 * static_cast<std::size_t>(words);
  std::vector<Word> levelBits(stride, 0), nextBits;
  for (int v = 0; v < n; ++v)
    if (graph.predStart[v] == graph.predStart[v + 1]) setBit(levelBits.data() + words, v);
  std::vector<std::int32_t> predMark(n, -1);

  // The empty ideal: no links.
  linkStart_.push_back(0);
  levelStart_.push_back(1);

  // With a memory limit, the arrays grow here, not in push_back, and only
  // when the bytes after the growth (with the caller's bytes per ideal)
  // stay within it: the limit holds before an allocation, not just after.
  // For `moreIdeals` new ideals with `moreLinks` links in all, and
  // `moreExpanded` ideals whose children start.
  auto room = [&](std::size_t moreIdeals, std::size_t moreLinks, std::size_t moreExpanded) {
    auto grown = [](const auto& array, std::size_t more) {
      return grows(array, more) ? std::max(2 * array.capacity(), array.size() + more)
                                : array.capacity();
    };
    const std::size_t linksCapacity = grown(links_, moreLinks);
    const std::size_t linkStartCapacity = grown(linkStart_, moreIdeals);
    const std::size_t elementCapacity = grown(maxElement, moreIdeals);
    const std::size_t childCapacity = grown(childBegin, moreExpanded);
    const std::size_t bitsCapacity = grown(nextBits, stride * moreIdeals);
    const std::uint64_t after =
        linksCapacity * sizeof(Link) + linkStartCapacity * sizeof(std::int64_t) +
        (elementCapacity + childCapacity + levelStart_.capacity()) * sizeof(std::int32_t) +
        (bitsCapacity + levelBits.capacity()) * sizeof(Word) +
        limits.extraBytesPerIdeal * (maxElement.size() + moreIdeals);
    if (after > limits.memoryLimitBytes) return false;
    links_.reserve(linksCapacity);
    linkStart_.reserve(linkStartCapacity);
    maxElement.reserve(elementCapacity);
    childBegin.reserve(childCapacity);
    nextBits.reserve(bitsCapacity);
    return true;
  };

  // Growing an array copies it whole into fresh memory, which a virtual
  // machine may back page by page, slowly: doubling a large array can take
  // seconds, with no deadline check inside the copy. So
  // with a deadline, a growth that would end past it, at twice the slowest
  // rate a copy of at least 1 MB ran so far, stops the build before it
  // starts. (At the last copy's rate alone a series-parallel lattice of
  // 11.9 M ideals overran an 8 s limit by 3.5 s: fresh pages come slower as
  // the arrays grow, and a lattice that could not finish before the
  // deadline serves no DP anyway.)
  const bool timed = limits.deadline != std::chrono::steady_clock::time_point::max();
  double secondsPerByte = 0;
  auto bytesCopiedToGrow = [&](std::size_t moreIdeals, std::size_t moreLinks) {
    auto copied = [](const auto& array, std::size_t more) {
      return grows(array, more) ? array.size() * sizeof(array[0]) : 0;
    };
    return copied(links_, moreLinks) + copied(linkStart_, moreIdeals) + copied(maxElement, moreIdeals) +
           copied(nextBits, stride * moreIdeals);
  };
  constexpr std::size_t kTimedCopy = std::size_t{1} << 20;

  auto childWith = [&](std::int32_t parent, std::int32_t element) {
    const auto first = maxElement.begin() + childBegin[parent];
    const auto last = maxElement.begin() + childBegin[parent + 1];
    return static_cast<std::int32_t>(std::lower_bound(first, last, element) - maxElement.begin());
  };

  auto lastReport = std::chrono::steady_clock::now();
  std::uint64_t checkCounter = 0;
  for (int level = 0; level < n; ++level) {
    const std::int32_t begin = levelStart_[level], end = levelStart_[level + 1];
    nextBits.clear();
    for (std::int32_t ideal = begin; ideal < end; ++ideal) {
      if (limits.memoryLimitBytes && !room(0, 0, 1)) return Status::MemoryLimit;
      childBegin.push_back(static_cast<std::int32_t>(maxElement.size()));
      const Word* bits = levelBits.data() + static_cast<std::size_t>(ideal - begin) * stride;
      const Word* ready = bits + words;
      for (int v = maxElement[ideal] + 1; v < n; ++v) {
        const Word above = ready[v >> 6] >> (v & 63);
        if (!above) {  // nothing ready in the rest of this word
          v |= 63;
          continue;
        }
        v += std::countr_zero(above);
        const std::int32_t child = static_cast<std::int32_t>(maxElement.size());
        if (limits.maxIdeals && static_cast<std::uint64_t>(child) + 1 > limits.maxIdeals) {
          // A limit already passed is the one that stopped it (the checks
          // below run every thousand ideals).
          if (limits.interrupt && limits.interrupt->load()) return Status::Interrupted;
          if (std::chrono::steady_clock::now() > limits.deadline) return Status::TimeLimit;
          return Status::IdealLimit;
        }
        if (child == std::numeric_limits<std::int32_t>::max() - 1) return Status::IdealLimit;
        const std::size_t parentLinks =
            static_cast<std::size_t>(linkStart_[ideal + 1] - linkStart_[ideal]);
        const std::size_t copying = timed ? bytesCopiedToGrow(1, 1 + parentLinks) : 0;
        std::chrono::steady_clock::time_point growthStart;
        if (copying >= kTimedCopy) {
          growthStart = std::chrono::steady_clock::now();
          if (secondsPerByte > 0 &&
              std::chrono::duration<double>(limits.deadline - growthStart).count() <
                  2 * secondsPerByte * copying)
            return Status::TimeLimit;
        }
        if (limits.memoryLimitBytes && !room(1, 1 + parentLinks, 0)) return Status::MemoryLimit;
        maxElement.push_back(v);
        nextBits.insert(nextBits.end(), bits, bits + stride);
        Word* childBits = nextBits.data() + nextBits.size() - stride;
        setBit(childBits, v);
        clearBit(childBits + words, v);
        for (int i = graph.succStart[v]; i < graph.succStart[v + 1]; ++i)
          if (predecessorsInside(graph, graph.succ[i], childBits))
            setBit(childBits + words, graph.succ[i]);
        // Links: v itself, then every maximal element of the parent that is
        // not a predecessor of v.
        links_.push_back({v, ideal, 0});
        for (int i = graph.predStart[v]; i < graph.predStart[v + 1]; ++i) predMark[graph.pred[i]] = v;
        // By index: push_back may reallocate links_ under a span.
        for (std::int64_t i = linkStart_[ideal]; i < linkStart_[ideal + 1]; ++i) {
          const Link link = links_[i];
          if (predMark[link.element] != v)
            links_.push_back({link.element, childWith(link.target, v), 0});
        }
        linkStart_.push_back(static_cast<std::int64_t>(links_.size()));
        if (copying >= kTimedCopy)
          secondsPerByte = std::max(
              secondsPerByte,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - growthStart).count() /
                  copying);
      }
      if ((++checkCounter & 1023) == 0) {
        const auto now = std::chrono::steady_clock::now();
        if (limits.interrupt && limits.interrupt->load()) return Status::Interrupted;
        if (now > limits.deadline) return Status::TimeLimit;
        if (limits.progress && now - lastReport > std::chrono::milliseconds(500)) {
          lastReport = now;
          limits.progress(maxElement.size());
        }
      }
    }
    levelStart_.push_back(static_cast<std::int32_t>(maxElement.size()));
    levelBits.swap(nextBits);
  }
  // Sorted by element, so walkers can take "maximal elements below x" as a
  // prefix. (Seconds on lattices of millions of ideals: under the deadline too.)
  auto stopped = [&](std::int64_t i) {
    if ((i & 65535) != 0) return false;
    return (limits.interrupt && limits.interrupt->load()) ||
           std::chrono::steady_clock::now() > limits.deadline;
  };
  auto stopStatus = [&] {
    return limits.interrupt && limits.interrupt->load() ? Status::Interrupted : Status::TimeLimit;
  };
  for (std::int32_t ideal = 0; ideal < numIdeals(); ++ideal) {
    if (stopped(ideal)) return stopStatus();
    std::sort(links_.begin() + linkStart_[ideal], links_.begin() + linkStart_[ideal + 1],
              [](const Link& a, const Link& b) { return a.element < b.element; });
  }
  for (std::size_t i = 0; i < links_.size(); ++i) {
    if (stopped(static_cast<std::int64_t>(i))) return stopStatus();
    Link& link = links_[i];
    const std::int64_t begin = linkStart_[link.target], count = linkStart_[link.target + 1] - begin;
    link.targetLinks = static_cast<std::uint64_t>(begin) << 8 | static_cast<std::uint64_t>(count);
  }
  // The full ideal (the last level) was never expanded: it has no children.
  if (limits.memoryLimitBytes && !room(0, 0, maxElement.size() + 1 - childBegin.size()))
    return Status::MemoryLimit;
  childBegin.resize(maxElement.size() + 1, static_cast<std::int32_t>(maxElement.size()));
  childBegin_ = std::move(childBegin);
  maxElement_ = std::move(maxElement);
  return Status::Complete;
}

}  // namespace dnnplace
