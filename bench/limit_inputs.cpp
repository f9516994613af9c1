// The adversarial inputs of the limits table (docs/benchmarks.md, "Limits"),
// written deterministically so that every row can be re-run:
//
//   limit_inputs chain N K L OUT          a chain of N nodes, maxFPGAs K, maxCPUs L
//   limit_inputs random-dag N OUT         N nodes, each fed by 1-3 earlier nodes
//   limit_inputs dense-dag N M OUT        N nodes, about M edges i -> j (i < j)
//   limit_inputs one-per-device N OUT     N nodes (a chain, N accelerators) ...
//   limit_inputs one-per-device-plan N OUT  ... and a plan with one node per accelerator
//
// Numbers come from a fixed linear congruential generator, so a file is the
// same on every machine.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Random {
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  std::uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  }
  double uniform(double low, double high) { return low + (high - low) * (next() * 0x1.0p-53); }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

struct Writer {
  std::FILE* out;
  bool firstEdge = true, firstNode = true;
  Writer(const char* path, long accelerators, long cpus, double memory) : out(std::fopen(path, "w")) {
    if (!out) {
      std::perror(path);
      std::exit(2);
    }
    std::fprintf(out, "{\"maxFPGAs\": %ld, \"maxCPUs\": %ld, \"maxSizePerFPGA\": %.17g,\n\"nodes\": [\n",
                 accelerators, cpus, memory);
  }
  void node(long id, double fpga, double cpu, double size) {
    std::fprintf(out,
                 "%s{\"id\": %ld, \"supportedOnFpga\": 1, \"fpgaLatency\": %.6g, \"cpuLatency\": %.6g, "
                 "\"isBackwardNode\": 0, \"size\": %.6g}",
                 firstNode ? "" : ",\n", id, fpga, cpu, size);
    firstNode = false;
  }
  void beginEdges() { std::fprintf(out, "],\n\"edges\": [\n"); }
  void edge(long from, long to, double cost) {
    std::fprintf(out, "%s{\"sourceId\": %ld, \"destId\": %ld, \"cost\": %.6g}", firstEdge ? "" : ",\n",
                 from, to, cost);
    firstEdge = false;
  }
  ~Writer() {
    std::fprintf(out, "]}\n");
    std::fclose(out);
  }
};

/// n nodes with latencies of 0.1-10 (accelerator) and ten times that (CPU
/// core), sizes of 1-100 MB.
void randomNodes(Writer& w, long n, Random& random) {
  for (long v = 0; v < n; ++v) {
    const double fpga = random.uniform(0.1, 10);
    w.node(v, fpga, 10 * fpga, random.uniform(1e6, 1e8));
  }
}

long number(const char* text) { return std::strtol(text, nullptr, 10); }

void chain(long n, long accelerators, long cpus, const char* path) {
  Random random;
  Writer w(path, accelerators, cpus, 1e12);
  randomNodes(w, n, random);
  w.beginEdges();
  for (long v = 0; v + 1 < n; ++v) w.edge(v, v + 1, random.uniform(0.01, 1));  // one edge per node
}

void randomDag(long n, const char* path) {
  Random random;
  Writer w(path, 8, 2, 2e10);
  randomNodes(w, n, random);
  w.beginEdges();
  // A node's output costs the same on each of its edges (docs/model.md §1).
  std::vector<double> cost(n);
  for (double& c : cost) c = random.uniform(0.01, 1);
  for (long v = 1; v < n; ++v) {
    // 1-3 distinct producers, mostly recent ones, as in a network's layer graph.
    const long window = v < 20 ? v : 20;
    long chosen[3];
    int inputs = 0;
    for (int tries = 1 + static_cast<int>(random.below(3)); tries > 0; --tries) {
      const long from = v - 1 - static_cast<long>(random.below(static_cast<std::uint64_t>(window)));
      bool repeated = false;
      for (int i = 0; i < inputs; ++i) repeated = repeated || chosen[i] == from;
      if (!repeated) chosen[inputs++] = from;
    }
    for (int i = 0; i < inputs; ++i) w.edge(chosen[i], v, cost[chosen[i]]);
  }
}

void denseDag(long n, long edges, const char* path) {
  Random random;
  Writer w(path, 8, 2, 2e10);
  randomNodes(w, n, random);
  w.beginEdges();
  // Each pair i < j is an edge with probability edges / pairs.
  const double pairs = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
  const double p = edges >= pairs ? 1.0 : edges / pairs;
  for (long i = 0; i < n; ++i) {
    const double cost = random.uniform(0.01, 1);
    for (long j = i + 1; j < n; ++j)
      if (random.uniform(0, 1) < p) w.edge(i, j, cost);
  }
}

void onePerDevicePlan(long n, const char* path) {
  std::FILE* out = std::fopen(path, "w");
  if (!out) {
    std::perror(path);
    std::exit(2);
  }
  std::fprintf(out, "{\"fpgas\": [");
  for (long v = 0; v < n; ++v) std::fprintf(out, "%s{\"nodes\": [%ld]}", v ? ", " : "", v);
  std::fprintf(out, "], \"cpus\": []}\n");
  std::fclose(out);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "chain" && argc == 6) {
    chain(number(argv[2]), number(argv[3]), number(argv[4]), argv[5]);
  } else if (what == "random-dag" && argc == 4) {
    randomDag(number(argv[2]), argv[3]);
  } else if (what == "dense-dag" && argc == 5) {
    denseDag(number(argv[2]), number(argv[3]), argv[4]);
  } else if (what == "one-per-device" && argc == 4) {
    chain(number(argv[2]), number(argv[2]), 0, argv[3]);
  } else if (what == "one-per-device-plan" && argc == 4) {
    onePerDevicePlan(number(argv[2]), argv[3]);
  } else {
    std::fprintf(stderr,
                 "usage: limit_inputs chain N K L OUT | random-dag N OUT | dense-dag N M OUT |\n"
                 "       one-per-device N OUT | one-per-device-plan N OUT\n");
    return 2;
  }
  return 0;
}
