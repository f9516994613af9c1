#include "milp/limits.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "ClpEventHandler.hpp"
#include "ClpSolve.hpp"
#include "OsiClpSolverInterface.hpp"
#include "util/format.hpp"

namespace dnnplace::milp {

namespace {

// Measured on the release build (docs/benchmarks.md, "limits"): peak
// resident bytes and seconds of building, loading and presolving a model,
// per nonzero and per row or column, rounded up.
constexpr double kBytesPerNonzero = 160;
constexpr double kBytesPerLine = 400;  // a row or column: bounds, names, Clp's arrays
constexpr double kSecondsPerNonzero = 3e-7;
constexpr double kSecondsPerLine = 1e-6;

/// Edges of the workload's graph.
double edgeCount(const Workload& w) {
  double edges = 0;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) edges += static_cast<double>(w.successors(v).size());
  return edges;
}

/// A model's counts while they are summed: in double, so products of
/// workload sizes cannot overflow.
struct Counts {
  double rows = 0, columns = 0, nonzeros = 0;

  ModelSize size() const {
    auto saturated = [](double count) {
      constexpr double kMax = 9e18;  // below 2^63
      return static_cast<std::int64_t>(std::min(count, kMax));
    };
    return {saturated(rows), saturated(columns), saturated(nonzeros)};
  }
};

/// The assignment, memory and symmetry-breaking rows over `devices`
/// devices, `accelerators` of them accelerators, with `identicalPairs`
/// pairs of neighbouring identical devices.
Counts assignmentCounts(double classes, double devices, double accelerators, double identicalPairs) {
  Counts s;
  s.columns = classes * devices + classes * identicalPairs;
  s.rows = classes + accelerators + 2 * classes * identicalPairs;
  s.nonzeros = classes * devices + classes * accelerators + 5 * classes * identicalPairs;
  return s;
}

class SimplexStop : public ClpEventHandler {
 public:
  SimplexStop(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* interrupt,
              std::shared_ptr<std::atomic<bool>> fired)
      : deadline_(deadline), interrupt_(interrupt), fired_(std::move(fired)) {}
  ClpEventHandler* clone() const override { return new SimplexStop(*this); }
  int event(Event which) override {
    if (which != endOfIteration && which != endOfFactorization && which != startOfIterationInDual)
      return -1;
    if (!(interrupt_ && interrupt_->load()) && std::chrono::steady_clock::now() <= deadline_) return -1;
    if (fired_) fired_->store(true);
    return 0;  // Clp: stop, status 5
  }

 private:
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* interrupt_;
  std::shared_ptr<std::atomic<bool>> fired_;
};

}  // namespace

double ModelSize::bytes() const {
  return kBytesPerNonzero * static_cast<double>(nonzeros) +
         kBytesPerLine * static_cast<double>(rows + columns);
}

double ModelSize::buildSeconds() const {
  return kSecondsPerNonzero * static_cast<double>(nonzeros) +
         kSecondsPerLine * static_cast<double>(rows + columns);
}

std::string ModelSize::describe() const {
  std::ostringstream text;
  text << rows << " rows, " << columns << " columns, " << nonzeros << " nonzeros, about "
       << formatBytes(bytes());
  return text.str();
}

ModelSize throughputModelSize(const Workload& w, const SolveOptions& options) {
  const double n = w.numNodes(), edges = edgeCount(w), classes = w.graph().numClasses;
  const double k = w.machine.maxFpgas, cpus = w.machine.maxCpus, devices = k + cpus;
  Counts s = assignmentCounts(classes, devices, k, std::max(0.0, k - 1) + std::max(0.0, cpus - 1));
  // Objective columns; one load row per device (two with diffMaxima) over
  // its classes; per source group and accelerator a column, two rows per
  // target class, and a load term.
  s.columns += 2 + n * k;
  s.rows += 2 * devices + 2 * edges * k;
  s.nonzeros += 2 * devices * (classes + 1) + n * k + 6 * edges * k;
  if (options.contiguity == Contiguity::Convex) {
    s.columns += devices * n;
    s.rows += devices * (n + 2 * edges);
    s.nonzeros += devices * (2 * n + 5 * edges);
  }
  return s.size();
}

ModelSize latencyModelSize(const Workload& w, int q) {
  const double n = w.numNodes(), edges = edgeCount(w), classes = w.graph().numClasses;
  const double k = w.machine.maxFpgas, subgraphs = q;
  Counts s = assignmentCounts(classes, k + 1, k, std::max(0.0, k - 1));
  // Per accelerator: slots and their sum, levels (the suffix sums of the
  // slots make levelIn and levelInUp quadratic in q), per edge and slot the
  // level, re-entry and entering rows.
  s.columns += k * (n * subgraphs + n * subgraphs + edges * subgraphs);
  s.rows += k * (n + 3 * n * subgraphs + 5 * edges * subgraphs);
  s.nonzeros += k * (n * (subgraphs + 1) + n * subgraphs * subgraphs + 5 * n * subgraphs +
                     15 * edges * subgraphs);
  // Timing: finish times and their rows; per accelerator and subgraph the
  // start, end, in and out columns, the feeds and sends rows, waits, span,
  // done and order rows.
  s.columns += 1 + n + k * subgraphs * (2 + 2 * n);
  s.rows += 2 * n + edges + k * subgraphs * (2 * edges + 2 * n + 3);
  s.nonzeros += 4 * n + 3 * edges + k * subgraphs * (6 * edges + 9 * n + 7);
  return s.size();
}

namespace {

/// Why a model of this size cannot be built within the limits (empty: it can).
std::string sizeProblem(const ModelSize& size, const SolveOptions& options, double secondsLeft,
                        StopReason* limit) {
  constexpr std::int64_t kIndexLimit = std::numeric_limits<int>::max() / 2;
  std::ostringstream why;
  if (size.rows > kIndexLimit || size.columns > kIndexLimit || size.nonzeros > kIndexLimit) {
    *limit = StopReason::MemoryLimit;
    why << "has more rows, columns or nonzeros than CBC's 32-bit indices hold";
  } else if (options.memoryLimitBytes > 0 &&
             size.bytes() > 0.8 * static_cast<double>(options.memoryLimitBytes)) {
    *limit = StopReason::MemoryLimit;
    why << "would pass the memory limit of "
        << formatBytes(static_cast<double>(options.memoryLimitBytes));
  } else if (size.buildSeconds() > 0.5 * secondsLeft) {
    *limit = StopReason::TimeLimit;
    why << "would take about " << formatShortest(std::ceil(size.buildSeconds() * 10) / 10)
        << " s to build, more than half of the "
        << formatShortest(std::floor(std::max(0.0, secondsLeft) * 10) / 10) << " s left";
  }
  return why.str();
}

}  // namespace

ModelChoice chooseModel(const Workload& w, const SolveOptions& options, double secondsLeft) {
  ModelChoice choice;
  const bool latency = options.objective == Objective::Latency;
  choice.q = latency ? options.q : 1;
  choice.size = latency ? latencyModelSize(w, choice.q) : throughputModelSize(w, options);
  const std::string why = sizeProblem(choice.size, options, secondsLeft, &choice.limit);
  if (why.empty()) return choice;
  std::ostringstream note;
  note << "the model (" << choice.size.describe() << ") " << why;
  std::string smallestWhy;  // why the smallest q tried does not fit
  while (latency && choice.q > 1) {
    --choice.q;
    choice.size = latencyModelSize(w, choice.q);
    StopReason ignored;
    const std::string largerWhy = smallestWhy.empty() ? why : smallestWhy;
    smallestWhy = sizeProblem(choice.size, options, secondsLeft, &ignored);
    if (!smallestWhy.empty()) continue;
    if (choice.q + 1 < options.q && largerWhy != why)
      note << "; for q = " << choice.q + 1 << " it " << largerWhy;
    note << "; built for q = " << choice.q << " instead (" << choice.size.describe()
         << "): its plans are plans for q = " << options.q << ", its bound is not";
    choice.note = note.str();
    return choice;
  }
  choice.build = false;
  if (!smallestWhy.empty() && smallestWhy != why) note << "; for q = 1 it " << smallestWhy;
  note << "; no MILP was built, the plan is the best warm start";
  choice.note = note.str();
  return choice;
}

std::uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

void stopSimplexAt(OsiClpSolverInterface& solver, std::chrono::steady_clock::time_point deadline,
                   const std::atomic<bool>* interrupt, std::shared_ptr<std::atomic<bool>> fired) {
  const SimplexStop stop(deadline, interrupt, std::move(fired));
  solver.getModelPtr()->passInEventHandler(&stop);  // Clp keeps a clone
  // Clp's initial solve would otherwise catch SIGINT itself for its
  // duration, so the caller's flag would never be set.
  ClpSolve options;
  options.setSpecialOption(2, 1);
  solver.setSolveOptions(options);
}

}  // namespace dnnplace::milp
