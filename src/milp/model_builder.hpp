#pragma once
/// A small linear-model builder on top of OsiClp, and the guard that keeps
/// CLP and CBC objects alive after an allocation failed inside them.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class OsiClpSolverInterface;

namespace dnnplace::milp {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// CLP and CBC are not exception-safe: when an allocation fails inside one
/// of their calls, the object can be left with a pointer already freed or
/// dangling, and its destructor then crashes (seen by failing operator new in
/// turn: ~CoinIndexedVector inside ~ClpSimplex, from ~CbcModel; ~ClpModel
/// after passInEventHandler, which deletes its old handler before it clones
/// the new one). Their owners use this deleter: an object whose owner an
/// exception unwinds past is leaked instead of destroyed, whichever call
/// threw. That is the most a caller can do: failures inside some of their
/// constructors, and CBC's assertions as it unwinds its own half-built nodes,
/// end the process before any caller sees them (tests/allocation_failure_test
/// passes over allocations inside COIN-OR for that reason). Outside unwinding
/// it deletes as usual.
struct DeleteUnlessUnwinding {
  int uncaughtAtCreation = std::uncaught_exceptions();
  template <class T>
  void operator()(T* object) const noexcept {
    if (std::uncaught_exceptions() <= uncaughtAtCreation) delete object;
  }
};

/// An owned CLP, CBC or CoinUtils object (see DeleteUnlessUnwinding).
template <class T>
using CoinPtr = std::unique_ptr<T, DeleteUnlessUnwinding>;

template <class T, class... Args>
CoinPtr<T> makeCoin(Args&&... args) {
  return CoinPtr<T>(new T(std::forward<Args>(args)...));
}

/// A linear expression: Σ coefficient · column + constant.
struct Linear {
  std::vector<std::pair<int, double>> terms;
  double constant = 0;
  Linear& add(int column, double coefficient) {
    if (column >= 0 && coefficient != 0) terms.emplace_back(column, coefficient);
    return *this;
  }
  Linear& add(const Linear& other, double factor) {
    for (const auto& [column, coefficient] : other.terms) add(column, coefficient * factor);
    constant += other.constant * factor;
    return *this;
  }
  bool isZero() const { return terms.empty() && constant == 0; }
};

/// Thrown by ModelBuilder::addRow once the deadline set by stopAt passes or
/// the interrupt is set: the model is abandoned half built.
struct BuildStopped {};

/// Collects named columns and rows, then builds the OsiClp model in one piece.
class ModelBuilder {
 public:
  /// From now on addRow checks, every few thousand rows, the deadline and
  /// the interrupt, and throws BuildStopped when either is reached.
  void stopAt(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* interrupt) {
    deadline_ = deadline;
    interrupt_ = interrupt;
  }
  int addColumn(std::string name, double lower, double upper, double objective, bool integer);
  /// lower ≤ expr ≤ upper; rows without variables are dropped (callers only
  /// build those when they hold trivially).
  void addRow(std::string name, const Linear& expr, double lower, double upper);
  int numColumns() const { return static_cast<int>(lower_.size()); }
  int numRows() const { return static_cast<int>(rowNames_.size()); }
  std::int64_t numNonzeros() const { return static_cast<std::int64_t>(rowColumns_.size()); }
  bool isInteger(int column) const { return integer_[column]; }
  CoinPtr<OsiClpSolverInterface> build() const;

 private:
  std::vector<std::string> names_;
  std::vector<double> lower_, upper_, objective_;
  std::vector<char> integer_;
  std::vector<int> rowStart_{0}, rowColumns_;  ///< rows in CSR form
  std::vector<double> rowValues_;
  std::vector<std::string> rowNames_;
  std::vector<double> rowLower_, rowUpper_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* interrupt_ = nullptr;
};

/// A row or column name: prefix_i_j_...
std::string name(const char* prefix, std::initializer_list<long> indices);

}  // namespace dnnplace::milp
