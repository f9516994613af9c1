#include "milp/model_builder.hpp"

#include <limits>
#include <map>
#include <stdexcept>

#include "CoinPackedMatrix.hpp"
#include "OsiClpSolverInterface.hpp"

namespace dnnplace::milp {

namespace {

/// CBC indexes rows, columns and nonzeros by int.
void checkIndexRange(std::size_t count) {
  if (count >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error(
        "the model has more rows, columns or nonzeros than CBC's 32-bit indices hold");
}

}  // namespace

int ModelBuilder::addColumn(std::string name, double lower, double upper, double objective,
                            bool integer) {
  checkIndexRange(lower_.size() + 1);
  names_.push_back(std::move(name));
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  integer_.push_back(integer);
  return static_cast<int>(lower_.size()) - 1;
}

void ModelBuilder::addRow(std::string name, const Linear& expr, double lower, double upper) {
  std::map<int, double> merged;
  for (const auto& [column, coefficient] : expr.terms) merged[column] += coefficient;
  const std::size_t before = rowColumns_.size();
  for (const auto& [column, coefficient] : merged)
    if (coefficient != 0) {
      rowColumns_.push_back(column);
      rowValues_.push_back(coefficient);
    }
  if (rowColumns_.size() == before) return;
  checkIndexRange(rowColumns_.size());
  checkIndexRange(rowNames_.size() + 1);
  if (rowNames_.size() % 4096 == 0 &&
      ((interrupt_ && interrupt_->load()) || std::chrono::steady_clock::now() > deadline_))
    throw BuildStopped{};
  rowStart_.push_back(static_cast<int>(rowColumns_.size()));
  rowNames_.push_back(std::move(name));
  rowLower_.push_back(lower == -kInfinity ? -COIN_DBL_MAX : lower - expr.constant);
  rowUpper_.push_back(upper == kInfinity ? COIN_DBL_MAX : upper - expr.constant);
}

CoinPtr<OsiClpSolverInterface> ModelBuilder::build() const {
  // Built in one piece: appending rows one by one is quadratic.
  std::vector<int> lengths(numRows());
  for (int r = 0; r < numRows(); ++r) lengths[r] = rowStart_[r + 1] - rowStart_[r];
  CoinPackedMatrix matrix(false, numColumns(), numRows(), rowStart_.back(), rowValues_.data(),
                          rowColumns_.data(), rowStart_.data(), lengths.data());
  std::vector<double> lower(lower_), upper(upper_);
  for (auto& u : upper)
    if (u == kInfinity) u = COIN_DBL_MAX;
  auto solver = makeCoin<OsiClpSolverInterface>();
  solver->messageHandler()->setLogLevel(0);
  solver->loadProblem(matrix, lower.data(), upper.data(), objective_.data(), rowLower_.data(),
                      rowUpper_.data());
  for (int c = 0; c < numColumns(); ++c) {
    if (integer_[c]) solver->setInteger(c);
    solver->setColName(c, names_[c]);
  }
  for (int r = 0; r < numRows(); ++r) solver->setRowName(r, rowNames_[r]);
  return solver;
}

std::string name(const char* prefix, std::initializer_list<long> indices) {
  std::string text = prefix;
  for (long i : indices) {
    text += '_';
    text += std::to_string(i);
  }
  return text;
}

}  // namespace dnnplace::milp
