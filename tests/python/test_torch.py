"""dnnplace.torch: profile a torch model into a workload, split it along a plan (docs/python.md)."""
import json
import os
import sys

import pytest
import torch
import torchvision

import dnnplace
import dnnplace.torch as dt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt import GPT  # noqa: E402

A100 = {"peakFlops": 312e12, "memoryBandwidth": 1.555e12, "linkBandwidth": 25e9, "opOverhead": 5e-6}


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def small():
    torch.manual_seed(0)
    return Small().eval(), torch.randn(2, 3, 4, 4)


def nodes_by_name(w):
    return {n["name"]: n for n in w.to_dict()["nodes"]}


def test_small_model_flops_and_bytes_by_hand():
    model, x = small()
    ops, tensors = dt.describe(model, (x,))
    by = {op["name"]: op for op in ops}
    assert [op["name"] for op in ops] == ["x", "conv", "relu", "flatten", "fc"]
    # Conv: 2 * N*Cout*H*W * Cin * Kh*Kw; bytes: input 384 + weight 864 + bias 32 + output 1024.
    assert by["conv"]["flops"] == 2 * (2 * 8 * 4 * 4) * 3 * 3 * 3 == 13824
    assert by["conv"]["bytes"] == 384 + 864 + 32 + 1024
    assert by["conv"]["parameter_bytes"] == 896 and by["conv"]["output_bytes"] == 1024
    assert by["relu"]["flops"] == 256 and by["relu"]["bytes"] == 2048
    assert by["flatten"]["flops"] == 0
    # Linear 128 -> 10 on 2 rows: 2 * 20 * 128; bytes: input 1024 + weight 5120 + bias 40 + output 80.
    assert by["fc"]["flops"] == 5120 and by["fc"]["bytes"] == 1024 + 5120 + 40 + 80
    assert by["x"]["compute"] is False
    assert [(t["producer"], t["consumers"], t["bytes"]) for t in tensors] == [
        (0, [1], 384.0), (1, [2], 1024.0), (2, [3], 1024.0), (3, [4], 1024.0), (4, [], 80.0)]
    assert tensors[-1]["is_output"]

    w = dt.profile(model, (x,), accelerators=2, measure_cpu=False)
    assert w.node_names == ["x", "conv", "relu", "flatten", "fc"] and w.accelerators == 2
    nodes = nodes_by_name(w)
    # docs/model.md §8 by hand: 1000 * (max(FLOPs/peak, bytes/bandwidth) + overhead) ms.
    conv_ms = 1000 * (max(13824 / A100["peakFlops"], 2304 / A100["memoryBandwidth"]) + A100["opOverhead"])
    assert nodes["conv"]["fpgaLatency"] == pytest.approx(conv_ms, rel=1e-12)
    assert nodes["conv"]["fpgaLatency"] == dnnplace.operator_latency_ms(13824, 2304, "a100")
    assert nodes["conv"]["size"] == 896 and nodes["x"]["fpgaLatency"] == 0
    edges = {(e["sourceId"], e["destId"]): e["cost"] for e in w.to_dict()["edges"]}
    assert edges[(1, 2)] == pytest.approx(1000 * 1024 / A100["linkBandwidth"], rel=1e-12)
    assert edges[(0, 1)] == dnnplace.transfer_ms(384, "a100")


def test_measured_cpu_latency_and_training_twins():
    model, x = small()
    w = dt.profile(model, (x,), accelerators=2, training=True)
    nodes = nodes_by_name(w)
    assert w.num_nodes == 5 + 4  # a backward twin per compute node
    assert all(nodes[n]["cpuLatency"] > 0 for n in ("conv", "relu", "flatten", "fc"))
    back = nodes["conv (backward)"]
    assert back["isBackwardNode"] and back["colorClass"] == nodes["conv"]["colorClass"]
    assert back["cpuLatency"] == pytest.approx(2 * nodes["conv"]["cpuLatency"], rel=1e-12)
    assert back["fpgaLatency"] == dnnplace.operator_latency_ms(2 * 13824, 2 * 2304, "a100")
    # Training memory: parameters x (2 + 2 Adam states) + the kept output.
    assert nodes["conv"]["size"] == 896 * 4 + 1024


def test_replicated_stages_from_a_profile():
    # docs/model.md §9: the A100's NVLink (300 GB/s one way) is the default
    # all-reduce bandwidth, in bytes per millisecond; sync_bandwidth replaces it.
    model, x = small()
    w = dt.profile(model, (x,), accelerators=4, training=True, measure_cpu=False)
    d = w.to_dict()
    assert d["syncBandwidth"] == 3e8 and "samplesPerSync" not in d
    assert nodes_by_name(w)["conv"]["parameterSize"] == 896
    plan = dnnplace.solve(w, method="dp", replicate=True)
    assert plan.status == "optimal"
    assert sum(dev.replicas for dev in plan.devices if dev.kind == "accelerator") <= 4
    check = dnnplace.evaluate(w, plan)
    assert check.feasible and plan.objective == pytest.approx(check.objective, rel=1e-12)
    w = dt.profile(model, (x,), accelerators=4, training=True, measure_cpu=False,
                   sync_bandwidth=1e9, samples_per_sync=4)
    d = w.to_dict()
    assert d["syncBandwidth"] == 1e6 and d["samplesPerSync"] == 4
    for bad in (-1, 1e-28, float("inf")):
        with pytest.raises(ValueError, match="sync_bandwidth must be 0 \\(the device's\\) or"):
            dt.profile(model, (x,), sync_bandwidth=bad, measure_cpu=False)
    with pytest.raises(ValueError, match="samples_per_sync must be"):
        dt.profile(model, (x,), samples_per_sync=0.5, measure_cpu=False)
    # A device the catalog gives no sync figure: replication is refused, saying how to get it.
    w = dt.profile(model, (x,), device="tpu-v4", accelerators=4, training=True, measure_cpu=False)
    assert "syncBandwidth" not in w.to_dict()
    with pytest.raises(ValueError, match="--replicate needs the workload's syncBandwidth"):
        dnnplace.solve(w, method="dp", replicate=True)


def test_profile_and_split_errors():
    model, x = small()
    with pytest.raises(ValueError, match="granularity must be 'operator' or 'module'"):
        dt.profile(model, (x,), granularity="layer")
    with pytest.raises(ValueError, match="model must be a torch.nn.Module"):
        dt.profile(lambda v: v, (x,))
    with pytest.raises(ValueError, match="fails on the example inputs"):
        dt.profile(model, (torch.randn(2, 5, 4, 4),))
    with pytest.raises(ValueError, match="is neither a catalog device"):
        dt.profile(model, (x,), device="nope", measure_cpu=False)
    with pytest.raises(ValueError, match="the machine has no device"):
        dt.profile(model, (x,), accelerators=0, measure_cpu=False)
    # A plan that goes back and forth between two accelerators.
    back_and_forth = dnnplace.Plan.from_json(json.dumps(
        {"fpgas": [{"nodes": [0, 1, 3]}, {"nodes": [2, 4]}], "cpus": []}))
    with pytest.raises(ValueError, match="not contiguous"):
        dt.split(model, back_and_forth)
    missing = dnnplace.Plan.from_json(json.dumps({"fpgas": [{"nodes": [0, 1, 2]}], "cpus": []}))
    with pytest.raises(ValueError, match="the plan places no node 3 \\('flatten'\\)"):
        dt.split(model, missing)


def test_module_granularity_names_and_split():
    torch.manual_seed(0)
    model, x = GPT(layers=2).eval(), torch.randint(0, 256, (2, 16))
    w = dt.profile(model, (x,), accelerators=2, granularity="module", measure_cpu=False)
    names = w.node_names
    assert "blocks.0.attn" in names and "blocks.0.attn.qkv" in names and "blocks.1.mlp.0" in names
    assert w.num_nodes < len(dt.describe(model, (x,))[0])
    plan = dnnplace.solve(w, method="dp")
    stages = dt.split(model, plan)
    with torch.no_grad():
        assert torch.allclose(dt.run_stages(stages, x), model(x), atol=1e-5, rtol=0)


def check_split(model, inputs, k, **profile_args):
    w = dt.profile(model, inputs, accelerators=k, measure_cpu=False, **profile_args)
    plan = dnnplace.solve(w, method="dp")
    assert plan.status == "optimal"
    stages = dt.split(model, plan)
    assert len(stages) == sum(1 for d in plan.devices if d.node_ids)
    assert all(isinstance(s, torch.nn.Module) for s in stages)
    with torch.no_grad():
        out, expected = dt.run_stages(stages, *inputs), model(*inputs)
    assert out.shape == expected.shape
    assert torch.allclose(out, expected, atol=1e-5, rtol=0), (out - expected).abs().max()
    return stages


@pytest.mark.parametrize("k", [2, 4, 8])
def test_split_resnet18(k):
    torch.manual_seed(k)
    stages = check_split(torchvision.models.resnet18().eval(), (torch.randn(1, 3, 64, 64),), k)
    assert len(stages) > 1


@pytest.mark.parametrize("k", [2, 4, 8])
def test_split_gpt_decoder(k):
    torch.manual_seed(k)
    stages = check_split(GPT().eval(), (torch.randint(0, 256, (2, 16)),), k)
    assert len(stages) > 1


@pytest.mark.parametrize("name", ["resnet50", "vgg16", "mobilenet_v2"])
def test_done_when_torchvision_dp4(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()
    check_split(model, (torch.randn(1, 3, 64, 64),), 4)


def test_stage_chain_is_positional():
    torch.manual_seed(0)
    model, x = GPT(layers=2).eval(), torch.randint(0, 256, (2, 16))
    w = dt.profile(model, (x,), accelerators=4, measure_cpu=False)
    stages = dt.split(model, dnnplace.solve(w, method="dp"))
    value = (x,)
    with torch.no_grad():
        for stage in stages[:-1]:
            value = stage(*value)
            value = value if isinstance(value, tuple) else (value,)
            assert all(isinstance(v, torch.Tensor) for v in value)
        assert torch.allclose(stages[-1](*value), model(x), atol=1e-5, rtol=0)


def test_example_pipeline_resnet():
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run = subprocess.run([sys.executable, os.path.join(root, "examples", "python", "pipeline_resnet.py")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "4 stages; largest difference from the unsplit model" in run.stdout


def test_training_plan_with_cpus_splits_along_forward_nodes():
    torch.manual_seed(0)
    model, x = GPT(layers=2).eval(), torch.randint(0, 256, (2, 16))
    w = dt.profile(model, (x,), accelerators=2, cpus=2, training=True)
    assert w.num_nodes == 2 * len(dt.describe(model, (x,))[0]) - 1  # the input has no twin
    plan = dnnplace.solve(w, method="dp")
    stages = dt.split(model, plan)
    assert len(stages) == sum(1 for d in plan.devices if d.node_ids)
    with torch.no_grad():
        assert torch.allclose(dt.run_stages(stages, x), model(x), atol=1e-5, rtol=0)


def test_a_cut_after_a_tuple_node_passes_tensors():
    torch.manual_seed(0)
    model, x = GPT(layers=1).eval(), torch.randint(0, 256, (2, 16))
    ops, _ = dt.describe(model, (x,))
    cut = next(op["id"] for op in ops if op["name"] == "split")  # qkv(x).split(...): a tuple
    first = [op["id"] for op in ops if op["id"] <= cut]
    rest = [op["id"] for op in ops if op["id"] > cut]
    plan = dnnplace.Plan.from_json(json.dumps({"fpgas": [{"nodes": first}, {"nodes": rest}], "cpus": []}))
    stages = dt.split(model, plan)
    assert len(stages) == 2
    with torch.no_grad():
        middle = stages[0](x)
        assert isinstance(middle, tuple) and all(isinstance(v, torch.Tensor) for v in middle)
        # the residual stream, q, k, v, and ln1's output that x.size(0) is recomputed from
        assert len(middle) == 5
        assert torch.allclose(stages[1](*middle), model(x), atol=1e-5, rtol=0)
