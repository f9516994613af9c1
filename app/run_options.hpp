#pragma once
/// The options several commands share (objective, time limit, threads, ...)
/// and which of the method-specific ones were given.

#include <CLI/CLI.hpp>

#include <string>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/solver.hpp"

namespace dnnplace::cli {

/// Which options of MethodOption were given. Those with a default (a valid
/// value, so only their count tells) are kept as they are added.
struct Given {
  const CLI::Option *q = nullptr, *gap = nullptr, *restarts = nullptr, *contiguity = nullptr,
                    *replicate = nullptr;
  OptionSet read(bool plan, bool writeModel, bool diffMaxima) const {
    OptionSet set;
    auto mark = [&set](bool given, MethodOption option) {
      if (given) set.add(option);
    };
    auto counted = [](const CLI::Option* option) { return option && option->count() > 0; };
    mark(plan, MethodOption::Plan);
    mark(writeModel, MethodOption::WriteModel);
    mark(counted(contiguity), MethodOption::Contiguity);
    mark(counted(gap), MethodOption::Gap);
    mark(counted(restarts), MethodOption::Restarts);
    mark(counted(q), MethodOption::Q);
    mark(diffMaxima, MethodOption::DiffMaxima);
    mark(counted(replicate), MethodOption::Replicate);
    return set;
  }
};

void addObjective(CLI::App* command, Objective* objective);

/// The options solve and compare share: the objective and how a method runs.
void addRunOptions(CLI::App* command, SolveOptions* options, const std::string& timeLimitHelp,
                   Given* given);

}  // namespace dnnplace::cli
