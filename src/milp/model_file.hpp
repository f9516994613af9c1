#pragma once
/// Exporting a model through --write-model (.lp or .mps, as CBC's own
/// writers write them); readMilpModel (milp.hpp) reads one back.

#include <string>

class OsiClpSolverInterface;

namespace dnnplace::milp {

/// The lower-case file extension of a path ("" for none).
std::string extension(const std::string& path);

/// "" when `path` ends in .lp or .mps and can be written (it is created
/// empty), else the message saying why not.
std::string modelPathProblem(const std::string& path);

/// Writes the model at full precision, uncompressed, in the format the
/// extension names.
void writeModel(OsiClpSolverInterface& model, const std::string& path);

}  // namespace dnnplace::milp
