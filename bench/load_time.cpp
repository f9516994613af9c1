// Time to load a workload file (read and parse it, check and index the
// graph): the median of several loadWorkload calls per file, in ms of CPU
// time (user and system) of the process, which other processes sharing the
// machine inflate less than wall time.
// Built by bench/run_load_benchmark.sh against two source trees, so it uses
// only what both declare in dnnplace/workload.hpp.
//
//   load_time [--repeats N] FILE...

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "dnnplace/workload.hpp"

static double cpuMilliseconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

int main(int argc, char** argv) {
  int repeats = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--repeats" && i + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++i]));
    else
      files.push_back(argument);
  }
  for (const std::string& file : files) {
    std::vector<double> ms;
    int nodes = 0;
    for (int r = 0; r < repeats; ++r) {
      const double start = cpuMilliseconds();
      std::string error;
      const auto workload = dnnplace::loadWorkload(file, &error);
      const double end = cpuMilliseconds();
      if (!workload) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 2;
      }
      nodes = workload->numNodes();
      ms.push_back(end - start);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s\t%d nodes\t%.3f ms\n", file.c_str(), nodes, ms[ms.size() / 2]);
  }
  return 0;
}
