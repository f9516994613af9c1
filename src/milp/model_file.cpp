#include "milp/model_file.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "CoinError.hpp"
#include "CoinLpIO.hpp"
#include "CoinMessageHandler.hpp"
#include "CoinMpsIO.hpp"
#include "OsiClpSolverInterface.hpp"
#include "milp/milp.hpp"
#include "milp/model_builder.hpp"

namespace dnnplace {

namespace milp {

std::string extension(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

std::string modelPathProblem(const std::string& path) {
  const std::string ext = extension(path);
  if (ext != "lp" && ext != "mps") return "--write-model: '" + path + "' must end in .lp or .mps";
  // CBC's writers throw, or print to stdout, on a path they cannot open:
  // find out first, in one line.
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return "--write-model: " + path + ": cannot write: " + std::strerror(errno);
  std::fclose(file);
  return "";
}

void writeModel(OsiClpSolverInterface& model, const std::string& path) {
  OsiClpSolverInterface* solver = &model;
  const std::string stem = path.substr(0, path.rfind('.'));
  // Full precision (the writers default to 5 decimals) and no compression.
  if (extension(path) == "lp") {
    solver->writeLp(stem.c_str(), "lp", 1e-14, 10, 15);
  } else {
    std::vector<std::string> rowNames, columnNames;
    for (int r = 0; r < solver->getNumRows(); ++r) rowNames.push_back(solver->getRowName(r));
    for (int c = 0; c < solver->getNumCols(); ++c) columnNames.push_back(solver->getColName(c));
    std::vector<char> integerType(solver->getNumCols());
    for (int c = 0; c < solver->getNumCols(); ++c) integerType[c] = solver->isInteger(c) ? 1 : 0;
    auto writer = makeCoin<CoinMpsIO>();
    writer->messageHandler()->setLogLevel(0);
    // The char* overload: CoinUtils 2.11's std::vector<std::string> one leaks the names.
    std::vector<const char*> rowPointers, columnPointers;
    for (const auto& text : rowNames) rowPointers.push_back(text.c_str());
    for (const auto& text : columnNames) columnPointers.push_back(text.c_str());
    writer->setMpsData(*solver->getMatrixByCol(), solver->getInfinity(), solver->getColLower(),
                       solver->getColUpper(), solver->getObjCoefficients(), integerType.data(),
                       solver->getRowLower(), solver->getRowUpper(), columnPointers.data(),
                       rowPointers.data());
    writer->writeMps(path.c_str(), 0, 1, 2);
  }
}

}  // namespace milp

std::optional<MilpModelSize> readMilpModel(const std::string& path, std::string* error) {
  const std::string ext = milp::extension(path);
  MilpModelSize size;
  if (ext == "lp") {
    auto reader = milp::makeCoin<CoinLpIO>();
    reader->messageHandler()->setLogLevel(0);
    try {
      reader->readLp(path.c_str());
    } catch (const CoinError& e) {
      *error = path + ": not a readable LP file: " + e.message();
      return std::nullopt;
    }
    size.rows = reader->getNumRows();
    size.columns = reader->getNumCols();
    for (int c = 0; c < size.columns; ++c) size.integers += reader->isInteger(c) ? 1 : 0;
  } else if (ext == "mps") {
    auto reader = milp::makeCoin<CoinMpsIO>();
    reader->messageHandler()->setLogLevel(0);
    if (reader->readMps(path.c_str(), "") != 0) {
      *error = path + ": not a readable MPS file";
      return std::nullopt;
    }
    size.rows = reader->getNumRows();
    size.columns = reader->getNumCols();
    for (int c = 0; c < size.columns; ++c) size.integers += reader->isInteger(c) ? 1 : 0;
  } else {
    *error = path + ": expected a .lp or .mps file";
    return std::nullopt;
  }
  return size;
}

}  // namespace dnnplace
