"""Times dnnplace.torch.profile on torchvision's ResNet-50 (1 x 3 x 224 x 224),
with the CPU measurements (median of 3 timed runs per node, one thread), and
prints a Markdown section for docs/benchmarks.md.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/profile_resnet50.py
"""
import statistics
import subprocess
import time

import torch
import torchvision

import dnnplace
import dnnplace.torch


def main(repeats=3):
    torch.manual_seed(0)
    model = torchvision.models.resnet50().eval()
    x = torch.randn(1, 3, 224, 224)
    rows = []
    for measure in (True, False):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            w = dnnplace.torch.profile(model, (x,), accelerators=4, measure_cpu=measure, runs=3)
            times.append(time.perf_counter() - start)
        rows.append((measure, times, w))
    start = time.perf_counter()
    plan = dnnplace.solve(w, method="dp")
    solve_s = time.perf_counter() - start
    start = time.perf_counter()
    stages = dnnplace.torch.split(model, plan)
    split_s = time.perf_counter() - start
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print("## PyTorch front end (dnnplace.torch)\n")
    print(f"Commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 2 cores shared with other "
          f"work; torch {torch.__version__}, torchvision {torchvision.__version__}; "
          f"`bench/profile_resnet50.py`. ResNet-50, input 1 x 3 x 224 x 224, {w.num_nodes} nodes, "
          f"4 x a100; {repeats} calls of each.\n")
    print("| call | median s | runs (s) |")
    print("|---|---|---|")
    for measure, times, _ in rows:
        what = "profile, CPU measured (median of 3 timed runs + 1 warm-up, one thread)" if measure \
            else "profile, CPU roofline (measure_cpu=False)"
        print(f"| {what} | {statistics.median(times):.2f} | " + ", ".join(f"{t:.2f}" for t in times) + " |")
    print(f"| solve(dp), 4 accelerators | {solve_s:.3f} | |")
    print(f"| split into {len(stages)} stages | {split_s:.3f} | |")


if __name__ == "__main__":
    main()
