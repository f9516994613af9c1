"""Profile torchvision's ResNet-50, place it on 4 accelerators with dnnplace's
DP, cut it into pipeline stages and run them one after another on CPU,
checking the result against the unsplit model (docs/python.md).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/pipeline_resnet.py
"""
import time

import torch
import torchvision

import dnnplace
import dnnplace.torch

torch.manual_seed(0)
model = torchvision.models.resnet50().eval()
x = torch.randn(1, 3, 224, 224)

start = time.perf_counter()
workload = dnnplace.torch.profile(model, (x,), device="a100", accelerators=4)
print(f"profiled {workload} in {time.perf_counter() - start:.1f} s")

plan = dnnplace.solve(workload, method="dp")
print(plan)
for device in plan.devices:
    print(f"  {device.kind} {device.index}: {len(device.node_ids)} nodes, load {device.load:.4f} ms")

stages = dnnplace.torch.split(model, plan)
value = (x,)
with torch.no_grad():
    for i, stage in enumerate(stages):
        value = stage(*value)
        value = value if isinstance(value, tuple) else (value,)
        print(f"  stage {i}: {len(list(stage.graph.nodes))} fx nodes -> "
              + ", ".join(str(tuple(v.shape)) for v in value))
    expected = model(x)
out = value[0]
error = (out - expected).abs().max().item()
print(f"{len(stages)} stages; largest difference from the unsplit model: {error:.3g}")
assert torch.allclose(out, expected, atol=1e-5, rtol=0)
