#include "run_options.hpp"

#include "commands.hpp"
#include "validators.hpp"

namespace dnnplace::cli {

void addObjective(CLI::App* command, Objective* objective) {
  command
      ->add_option_function<std::string>(
          "--objective",
          [objective](const std::string& name) {
            *objective = name == "latency" ? Objective::Latency : Objective::Throughput;
          },
          "throughput (max-load, the default) or latency")
      ->check(CLI::IsMember({"throughput", "latency"}));
}

void addRunOptions(CLI::App* command, SolveOptions* options, const std::string& timeLimitHelp,
                   Given* given) {
  addObjective(command, &options->objective);
  command->add_option("--time-limit", options->timeLimitSeconds, timeLimitHelp)
      ->check(finiteNumber("a positive number of seconds", 0, 1e9, false))
      ->capture_default_str();
  options->threads = defaultThreads();
  command
      ->add_option("--threads", options->threads,
                   "worker threads for dp (joining a DP run once it has taken 5 ms) and search "
                   "(default: this machine's cores)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  command->add_option("--seed", options->seed, "random seed")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  given->q = command->add_option("--q", options->q, "latency: subgraphs per accelerator")
                 ->check(CLI::Range(1, 64))
                 ->capture_default_str();
  given->restarts = command->add_option("--restarts", options->restarts, "local-search restarts")
                        ->check(CLI::Range(1, 1000000))
                        ->capture_default_str();
  command->add_flag("--diffmaxima", options->diffMaxima,
                    "throughput: minimize max forward + max backward load");
  given->replicate = command->add_flag(
      "--replicate", options->replicate,
      "dp, dp-linear, pipedream, milp: an accelerator block may run on several accelerators (data "
      "parallelism, docs/model.md §9; needs the workload's syncBandwidth); compare: each of them "
      "also with it");
  command
      ->add_option(
          "--max-ideals", options->maxIdeals,
          "dp, dp-linear, pipedream (and the DP that milp and bound start from): stop past this "
          "many ideals and return the best plan found (0: no cap)")
      ->check(kNonNegativeInteger);
  options->memoryLimitBytes = defaultMemoryLimit();
  command
      ->add_option(
          "--memory-limit", options->memoryLimitBytes,
          "every method stays within this many bytes: the DP stops its lattice and tables there, "
          "milp builds only a model that fits (a smaller q for latency, or none), scotch, "
          "local-search and the latency bound shrink their work; inputs are read up to a quarter "
          "of it (at least 64 MiB); 0: no cap; default: half this machine's memory")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
}

}  // namespace dnnplace::cli
