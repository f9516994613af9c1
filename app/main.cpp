// The dnnplace command line: the option table, and dispatch to the commands
// (commands.hpp), which call the library.

#include <CLI/CLI.hpp>

#include <string_view>

#include "commands.hpp"
#include "dnnplace/report.hpp"
#include "run_options.hpp"
#include "validators.hpp"

int main(int argc, char** argv) {
  using namespace dnnplace;
  using namespace dnnplace::cli;
  CLI::App app{
      "dnnplace: optimal placement of DNN operators on accelerators and CPU cores.\n"
      "Workloads and plans are JSON (see docs/ and the README)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dnnplace 0.1.0");

  Given given;  // of the one command named
  SolveArgs solveArgs;
  auto* solveCmd = app.add_subcommand("solve", "find a placement and write its plan JSON");
  EvaluateArgs evalArgs;
  auto* evalCmd = app.add_subcommand(
      "evaluate", "check a plan against a workload and recompute its objective (exit 3 if infeasible)");
  InfoArgs infoArgs;
  auto* infoCmd = app.add_subcommand("info", "print graph statistics of a workload");
  GenerateArgs genArgs;
  auto* genCmd = app.add_subcommand("generate", "write a synthetic workload JSON");
  CompareArgs cmpArgs;
  cmpArgs.options.timeLimitSeconds = 60;
  auto* cmpCmd = app.add_subcommand("compare", "run several methods side by side");
  RenderArgs renderArgs;
  auto* renderCmd = app.add_subcommand(
      "render", "draw a plan: an HTML report, the graph (.svg, .dot) or the timeline (docs/render.md)");
  auto* importCmd = app.add_subcommand("import", "write a workload JSON from a model or a profile");
  importCmd->require_subcommand(1);
  ImportOnnxArgs onnxArgs;
  auto* onnxCmd =
      importCmd->add_subcommand("onnx", "an ONNX model, costed on a device spec (docs/cost-model.md)");
  ImportPipedreamArgs pipedreamArgs;
  auto* pipedreamCmd =
      importCmd->add_subcommand("pipedream",
                                "a PipeDream layer profile (graph.txt), as measured (docs/import.md)");
  ImportPiperArgs piperArgs;
  auto* piperCmd = importCmd->add_subcommand(
      "piper", "a Piper input (inputs/*.json), tensor-parallel degree 1 (docs/import.md)");

  // Only the command named gets its options (CLI11 builds each option's
  // names, checks and help text). It is the first argument that names one,
  // so that `--help solve` shows solve's whole help too.
  std::string_view command;
  for (int i = 1; i < argc && command.empty(); ++i)
    for (const char* name : {"solve", "evaluate", "info", "generate", "compare", "render", "import"})
      if (std::string_view(argv[i]) == name) command = name;
  if (command == "solve") {
    solveCmd->footer("Methods:" + methodTable());
    solveCmd->add_option("workload", solveArgs.workload, "workload JSON file (- for standard input)")
        ->required();
    solveCmd->add_option("--method", solveArgs.method, "placement method (see below)")
        ->capture_default_str();
    solveCmd->add_option("--out", solveArgs.out, "write the plan here instead of stdout");
    addRunOptions(solveCmd, &solveArgs.options, "seconds", &given);
    given.contiguity = solveCmd
                           ->add_option("--contiguity", solveArgs.contiguity,
                                        "milp (throughput) and search: none or convex")
                           ->check(CLI::IsMember({"none", "convex"}))
                           ->capture_default_str();
    given.gap =
        solveCmd->add_option("--gap", solveArgs.options.relativeGap, "milp: relative gap to stop at")
            ->check(finiteNumber("a relative gap >= 0", 0, 1, true))
            ->capture_default_str();
    solveCmd->add_option("--plan", solveArgs.plan, "expert: the split to evaluate")
        ->check(CLI::ExistingFile);
    solveCmd->add_option("--write-model", solveArgs.options.writeModelPath,
                         "milp: also export the model (.lp or .mps)");
    solveCmd->add_flag("--contract-layers", solveArgs.contractLayers,
                       "fuse the nodes of each layerId before solving");
    solveCmd->add_option("--report", solveArgs.report, "also write the plan's HTML report here");
    solveCmd->add_flag("--quiet", solveArgs.quiet, "no summary or progress on stderr");
    solveCmd->add_flag("--verbose", solveArgs.verbose,
                       "report the time of each phase (with --quiet: that line alone)");
  } else if (command == "evaluate") {
    evalCmd->add_option("workload", evalArgs.workload, "workload JSON file (- for standard input)")
        ->required();
    evalCmd->add_option("plan", evalArgs.plan, "plan JSON file (- for standard input)")->required();
    addObjective(evalCmd, &evalArgs.options.objective);
    given.q =
        evalCmd->add_option("--q", evalArgs.options.q, "latency: subgraphs allowed per accelerator")
            ->check(CLI::Range(1, 1 << 20))
            ->capture_default_str();
    evalCmd->add_flag("--contiguous", evalArgs.options.requireContiguous,
                      "flag plans whose blocks are not contiguous");
    evalCmd->add_flag("--diffmaxima", evalArgs.options.diffMaxima,
                      "objective: max forward + max backward load");
    evalCmd->add_option("--format", evalArgs.format, "text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
  } else if (command == "info") {
    infoCmd->add_option("workload", infoArgs.workload, "workload JSON file (- for standard input)")
        ->required();
    infoCmd
        ->add_option("--max-ideals", infoArgs.maxIdeals,
                     "stop counting ideals past this many (0: no cap)")
        ->check(kNonNegativeInteger)
        ->capture_default_str();
    infoCmd
        ->add_option("--time-limit", infoArgs.timeLimitSeconds,
                     "stop counting ideals after this many seconds")
        ->check(finiteNumber("a positive number of seconds", 0, 1e9, false))
        ->capture_default_str();
  } else if (command == "generate") {
    genCmd->add_option("shape", genArgs.shape, "chain, transformer, cnn or series-parallel")
        ->required();
    genCmd->add_option("--blocks", genArgs.options.blocks, "layers or blocks")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    genCmd->add_option("--width", genArgs.options.width, "heads or parallel branches")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    genCmd
        ->add_option("--chain-length", genArgs.options.chainLength,
                     "series-parallel: nodes per parallel chain")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    genCmd
        ->add_option("--unsupported-fraction", genArgs.options.unsupportedFraction,
                     "share of nodes that only run on CPUs")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    genCmd->add_flag("--training", genArgs.options.training, "add backward twins");
    genCmd->add_option("--seed", genArgs.options.seed, "random seed")
        ->check(kNonNegativeInteger)
        ->capture_default_str();
    genCmd->add_option("--accelerators", genArgs.options.accelerators, "maxFPGAs")
        ->check(kDeviceCount)
        ->capture_default_str();
    genCmd->add_option("--cpus", genArgs.options.cpus, "maxCPUs")
        ->check(kDeviceCount)
        ->capture_default_str();
    genCmd->add_option("--memory", genArgs.options.memoryPerAccelerator, "bytes per accelerator")
        ->check(finiteNumber("a number of bytes >= 0", 0, 1e30, true))
        ->capture_default_str();
    genCmd->add_option("--out", genArgs.out, "write here instead of stdout");
  } else if (command == "compare") {
    cmpCmd->footer("Methods:" + methodTable());
    cmpCmd->add_option("workloads", cmpArgs.workloads, "workload JSON files")->required();
    cmpCmd
        ->add_option("--methods", cmpArgs.methods,
                     "comma-separated methods (default: all for the objective)")
        ->check(kNonEmpty);
    addRunOptions(cmpCmd, &cmpArgs.options, "seconds per method run", &given);
    cmpCmd->add_option("--format", cmpArgs.format, "text, json or csv")
        ->check(CLI::IsMember({"text", "json", "csv"}))
        ->capture_default_str();
    cmpCmd->add_option("--report", cmpArgs.report, "also write an HTML report of the rows here");
    cmpCmd->add_flag("--quiet", cmpArgs.quiet, "no progress on stderr");
  } else if (command == "render") {
    renderCmd->add_option("workload", renderArgs.workload, "workload JSON file (- for standard input)")
        ->required();
    renderCmd->add_option("plan", renderArgs.plan, "plan JSON file (- for standard input)")->required();
    addObjective(renderCmd, &renderArgs.options.objective);
    given.q =
        renderCmd->add_option("--q", renderArgs.options.q, "latency: subgraphs allowed per accelerator")
            ->check(CLI::Range(1, 1 << 20))
            ->capture_default_str();
    renderCmd->add_flag("--diffmaxima", renderArgs.options.diffMaxima,
                        "objective: max forward + max backward load");
    renderCmd->add_option("--view", renderArgs.view, ".svg: graph or timeline")
        ->check(CLI::IsMember({"graph", "timeline"}))
        ->capture_default_str();
    renderCmd
        ->add_option("--detail", renderArgs.detail,
                     "graph: auto (one box per block above 300 nodes), full or contracted")
        ->check(CLI::IsMember({"auto", "full", "contracted"}))
        ->capture_default_str();
    renderCmd->add_option("--out", renderArgs.out, "FILE.html (report), FILE.svg or FILE.dot")
        ->required();
  } else if (command == "import") {
    onnxCmd->footer("Devices in the catalog (docs/cost-model.md):\n" + deviceCatalogText());
    onnxCmd->add_option("model", onnxArgs.model, "ONNX model file")->required();
    onnxCmd->add_option("--device", onnxArgs.device, "accelerator: a catalog name or a spec JSON file")
        ->required();
    onnxCmd->add_option("--cpu", onnxArgs.cpu, "CPU core: a catalog name or a spec JSON file")
        ->capture_default_str();
    onnxCmd->add_option("--accelerators", onnxArgs.options.accelerators, "k, accelerators")
        ->check(kDeviceCount)
        ->required();
    onnxCmd->add_option("--cpus", onnxArgs.options.cpus, "l, CPU cores")
        ->check(kDeviceCount)
        ->capture_default_str();
    onnxCmd->add_flag("--training", onnxArgs.options.training,
                      "add a backward twin per operator; memory for gradients and optimizer");
    onnxCmd
        ->add_option("--optimizer-states", onnxArgs.options.optimizerStates,
                     "training: optimizer copies per parameter (Adam: 2)")
        ->check(finiteNumber("a number >= 0", 0, 1e6, true))
        ->capture_default_str()
        ->each([&onnxArgs](const std::string&) { onnxArgs.optimizerStatesGiven = true; });
    onnxCmd
        ->add_option("--sync-bandwidth", onnxArgs.options.syncBandwidth,
                     "bytes per second for a replicated stage's all-reduce (default: the device's "
                     "sync GB/s below; solve --replicate needs one)")
        ->check(finiteNumber("a number of bytes per second from 1e-27 (a workload's 1e-30 per ms)",
                             1e-27, 1e30, true));
    onnxCmd
        ->add_option("--samples-per-sync", onnxArgs.options.samplesPerSync,
                     "samples between two gradient all-reduces")
        ->check(finiteNumber("a number >= 1", 1, 1e30, true))
        ->capture_default_str();
    onnxCmd->add_option("--dim", onnxArgs.dims, "NAME=VALUE: a symbolic dimension's value");
    onnxCmd->add_option("--granularity", onnxArgs.granularity, "operator or layer")
        ->check(CLI::IsMember({"operator", "layer"}))
        ->capture_default_str();
    onnxCmd
        ->add_option("--layer-depth", onnxArgs.options.layerDepth,
                     "layers: modules at most this deep (2: /layer1/layer1.0); 0: innermost")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    onnxCmd->add_option("--out", onnxArgs.out, "write here instead of stdout");
    onnxCmd->add_flag("--quiet", onnxArgs.quiet, "no summary on stderr");

    pipedreamCmd->add_option("profile", pipedreamArgs.options.profilePath, "PipeDream graph.txt")
        ->required();
    pipedreamCmd
        ->add_option("--bandwidth", pipedreamArgs.options.bandwidth,
                     "bytes per second between stages and for the all-reduce")
        ->check(finiteNumber("a positive number of bytes per second", 0, 1e30, false))
        ->required();
    pipedreamCmd->add_option("--accelerators", pipedreamArgs.options.accelerators, "k, accelerators")
        ->check(kDeviceCount)
        ->required();
    pipedreamCmd->add_option("--cpus", pipedreamArgs.options.cpus, "l, CPU cores")
        ->check(kDeviceCount)
        ->capture_default_str();
    pipedreamCmd->add_option("--memory", pipedreamArgs.options.memory, "bytes per accelerator")
        ->check(finiteNumber("a number of bytes >= 0", 0, 1e30, true))
        ->required();
    pipedreamCmd->add_flag("--training", pipedreamArgs.options.training,
                           "backward nodes from backward_compute_time");
    pipedreamCmd
        ->add_option("--activations", pipedreamArgs.activations,
                     "charged (activation bytes / bandwidth) or free")
        ->check(CLI::IsMember({"charged", "free"}))
        ->capture_default_str();
    pipedreamCmd->add_option("--out", pipedreamArgs.out, "write here instead of stdout");
    pipedreamCmd->add_flag("--quiet", pipedreamArgs.quiet, "no summary on stderr");

    piperCmd->add_option("input", piperArgs.options.inputPath, "Piper input JSON")->required();
    piperCmd
        ->add_option("--accelerators", piperArgs.accelerators, "k, accelerators (default: maxDevices)")
        ->check(kDeviceCount);
    piperCmd->add_option("--cpus", piperArgs.options.cpus, "l, CPU cores")
        ->check(kDeviceCount)
        ->capture_default_str();
    piperCmd
        ->add_option("--memory", piperArgs.memory,
                     "bytes per accelerator (default: maxMemoryPerDevice)")
        ->check(finiteNumber("a number of bytes >= 0", 0, 1e30, true));
    piperCmd
        ->add_option("--bandwidth", piperArgs.bandwidth,
                     "bytes per second between stages and for the all-reduce (default: the file's)")
        ->check(finiteNumber("a positive number of bytes per second", 0, 1e30, false));
    piperCmd
        ->add_option("--activations", piperArgs.activations,
                     "charged (2 x communicationCost / bandwidth) or free")
        ->check(CLI::IsMember({"charged", "free"}))
        ->capture_default_str();
    piperCmd
        ->add_option("--in-flight", piperArgs.options.inFlight,
                     "microbatches whose activations a replica holds: size = b + Y x a")
        ->check(finiteNumber("a number >= 0", 0, 1e9, true))
        ->capture_default_str();
    piperCmd
        ->add_option("--samples-per-sync", piperArgs.samplesPerSync,
                     "samples between two all-reduces (default: the file's mbsInBatch)")
        ->check(finiteNumber("a positive number", 0, 1e30, false));
    piperCmd->add_option("--out", piperArgs.out, "write here instead of stdout");
    piperCmd->add_flag("--quiet", piperArgs.quiet, "no summary on stderr");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {  // help and the version are results too
    return afterOutput(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return afterOutput(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return afterOutput(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // A mistyped command reads better named than as "a subcommand is required".
    if (argc > 1 && argv[1][0] != '-') {
      std::string names;
      bool known = false;
      for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
        names += (names.empty() ? "" : ", ") + command->get_name();
        known = known || command->get_name() == argv[1];
      }
      if (!known)
        return fail("unknown command '" + std::string(argv[1]) + "' (expected one of: " + names + ")");
    }
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    return fail(what + " (see --help)");
  }

  int code = kInvalid;
  try {
    if (*solveCmd)
      code = runSolve(solveArgs,
                      given.read(!solveArgs.plan.empty(), !solveArgs.options.writeModelPath.empty(),
                                 solveArgs.options.diffMaxima));
    else if (*evalCmd)
      code = runEvaluate(evalArgs, given.read(false, false, evalArgs.options.diffMaxima));
    else if (*infoCmd)
      code = runInfo(infoArgs);
    else if (*genCmd)
      code = runGenerate(genArgs);
    else if (*cmpCmd)
      code = runCompare(cmpArgs, given.read(false, false, cmpArgs.options.diffMaxima));
    else if (*renderCmd)
      code = runRender(renderArgs, given.read(false, false, renderArgs.options.diffMaxima));
    else if (*onnxCmd)
      code = runImportOnnx(onnxArgs);
    else if (*pipedreamCmd)
      code = runImportPipedream(pipedreamArgs);
    else if (*piperCmd)
      code = runImportPiper(piperArgs);
  } catch (const std::bad_alloc&) {
    return fail("out of memory", kLimit);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), kInternal);
  }
  return afterOutput(code);
}
