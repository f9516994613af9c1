"""The Python API against the CLI (docs/python.md)."""
import glob
import json
import os
import subprocess
import sys
import time

import pytest

import dnnplace

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "transformer_training.json")
CLI = os.environ.get("DNNPLACE_CLI", os.path.join(ROOT, "build", "release", "dnnplace"))
SHARED = os.environ.get("DNNPLACE_SHARED", os.path.join(ROOT, "..", "shared"))


def test_round_trip():
    w = dnnplace.Workload.load(EXAMPLE)
    assert w.num_nodes == len(w.node_ids) > 0
    again = dnnplace.Workload.from_dict(w.to_dict())
    assert again == w and again.to_dict() == w.to_dict()


def test_plan_json_evaluates_to_same_objective(tmp_path):
    w = dnnplace.Workload.load(EXAMPLE)
    plan = dnnplace.solve(w, method="dp")
    assert plan.found and plan.status == "optimal"
    path = tmp_path / "plan.json"
    path.write_text(plan.to_json())
    cli = json.loads(subprocess.run([CLI, "solve", EXAMPLE, "--method", "dp", "--quiet"],
                                    check=True, capture_output=True, text=True).stdout)
    assert plan.objective == pytest.approx(cli["objective"], rel=1e-9)
    for source in (plan, str(path), dnnplace.Plan.from_json(plan.to_json())):
        e = dnnplace.evaluate(w, source)
        assert e.feasible and e.objective == pytest.approx(plan.objective, rel=1e-9)


def test_bad_input_messages(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"maxFPGAs": 1}')
    with pytest.raises(ValueError) as python_error:
        dnnplace.Workload.load(bad)
    cli = subprocess.run([CLI, "solve", str(bad)], capture_output=True, text=True)
    assert cli.stderr.strip() == "dnnplace: " + str(python_error.value)
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        dnnplace.solve(dnnplace.Workload.load(EXAMPLE), method="nope")


def test_ctrl_c_stops_a_long_milp():
    files = sorted(glob.glob(os.path.join(SHARED, "workloads", "throughput", "OperatorGraphs", "bert_l-12_*.json")))
    assert files, f"no shared workloads in {SHARED} (set DNNPLACE_SHARED)"
    code = ("import dnnplace,sys\nw=dnnplace.Workload.load(sys.argv[1])\nprint('ready',flush=True)\n"
            "try:\n  dnnplace.solve(w, method='milp', time_limit=600)\nexcept KeyboardInterrupt:\n"
            "  print('interrupted',flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", code, files[0]], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(2)
    start = time.monotonic()
    p.send_signal(2)
    out, _ = p.communicate(timeout=30)
    assert "interrupted" in out and time.monotonic() - start < 10


def shared_workloads():
    """Every shared throughput workload (layer and operator graphs): dp takes under 0.5 s on each."""
    return sorted(glob.glob(os.path.join(SHARED, "workloads", "throughput", "*", "*.json")))


def test_dp_matches_cli_on_shared_workloads():
    files = shared_workloads()
    assert files, f"no shared workloads in {SHARED}/workloads (set DNNPLACE_SHARED)"
    expected = json.load(open(os.path.join(SHARED, "expected", "throughput.json")))["workloads"]
    for f in files:
        plan = dnnplace.solve(dnnplace.Workload.load(f), method="dp")
        cli = json.loads(subprocess.run([CLI, "solve", f, "--method", "dp", "--quiet"],
                                        check=True, capture_output=True, text=True).stdout)
        assert plan.objective == pytest.approx(cli["objective"], rel=1e-9), f
        key = os.path.relpath(f, os.path.join(SHARED, "workloads"))
        if key in expected:
            assert plan.objective == pytest.approx(expected[key]["dp_optimum"], rel=1e-6), f


def test_latency_matches_cli_on_shared_workloads():
    files = sorted(glob.glob(os.path.join(SHARED, "workloads", "latency", "*", "*.json")))
    assert len(files) == 7, f"the 7 shared latency workloads in {SHARED}/workloads/latency"
    for f in files:
        w = dnnplace.Workload.load(f)
        for method in ("dp", "greedy"):
            plan = dnnplace.solve(w, method=method, objective="latency")
            cli = json.loads(subprocess.run([CLI, "solve", f, "--method", method, "--objective", "latency",
                                             "--quiet"], check=True, capture_output=True, text=True).stdout)
            assert plan.objective_kind == "latency" and plan.found, (f, method)
            assert plan.objective == pytest.approx(cli["objective"], rel=1e-9), (f, method)
            e = dnnplace.evaluate(w, plan, objective="latency")
            assert e.feasible and e.objective == pytest.approx(plan.objective, rel=1e-9), (f, method)


def _two_layer_chain(sync_bandwidth=1e9):
    # A (8 ms, 1000 bytes of weights) -> B (2 ms, 1e9 bytes) on 4 accelerators:
    # one accelerator each gives 8; A on 3 replicas (8 + 4 * 2/3 * 1000 / bw) / 3;
    # both on 4 replicas (10 + 3 * (1e9 + 1000) / bw) / 4 = 3.25, B's weights too
    # heavy to all-reduce.
    d = {"maxFPGAs": 4, "maxCPUs": 0, "maxSizePerFPGA": 1e9, "syncBandwidth": sync_bandwidth,
         "nodes": [{"id": 1, "supportedOnFpga": True, "cpuLatency": 80, "fpgaLatency": 8,
                    "isBackwardNode": False, "parameterSize": 1000},
                   {"id": 2, "supportedOnFpga": True, "cpuLatency": 20, "fpgaLatency": 2,
                    "isBackwardNode": False, "parameterSize": 1e9}],
         "edges": [{"sourceId": 1, "destId": 2, "cost": 0}]}
    return dnnplace.Workload.from_dict(d)


def test_replicated_stages():
    w = _two_layer_chain()
    assert dnnplace.solve(w, method="dp").objective == pytest.approx(8)
    plan = dnnplace.solve(w, method="dp", replicate=True)
    expected = (8 + 4 * (2 / 3) * 1000 / 1e9) / 3
    assert plan.status == "optimal" and plan.objective == pytest.approx(expected, rel=1e-12)
    replicas = sorted(d.replicas for d in plan.devices if d.kind == "accelerator" and d.node_ids)
    assert replicas == [1, 3] and "replicas=3" in repr(plan.devices)
    e = dnnplace.evaluate(w, plan)
    assert e.feasible and e.objective == pytest.approx(expected, rel=1e-12)
    rows = dnnplace.compare(w, methods=["dp", "pipedream"], replicate=True, time_limit=10)
    assert [r.method for r in rows] == ["dp", "dp --replicate", "pipedream", "pipedream --replicate"]
    # dp's optimum (and bound) is over contiguous placements only.
    assert rows[0].bound_scope == "contiguous" and plan.bound_scope == "contiguous"
    assert dnnplace.solve(w, method="milp", time_limit=5).bound_scope == "all"
    with pytest.raises(ValueError, match="--replicate applies to --objective throughput only"):
        dnnplace.solve(w, method="dp", objective="latency", replicate=True)
    # compare with diffmaxima runs (and lists) only the methods that score it.
    assert dnnplace.default_methods(diff_maxima=True) == ["milp", "bound", "single", "cpu"]
    with pytest.raises(ValueError, match="method 'dp' does not support --diffmaxima"):
        dnnplace.compare(w, methods=["dp"], diff_maxima=True)
    with pytest.raises(ValueError, match="methods names no method"):
        dnnplace.compare(w, methods=[])
    with pytest.raises(ValueError, match="--replicate applies to --method dp, dp-linear, pipedream and milp"):
        dnnplace.solve(w, method="scotch", replicate=True)


def test_render(tmp_path):
    w = dnnplace.Workload.load(EXAMPLE)
    plan = dnnplace.solve(w, method="dp")
    report = tmp_path / "report.html"
    dnnplace.render(w, plan, report)
    html = report.read_text()
    assert html.startswith("<!DOCTYPE html>") and "http://" not in html.replace("http://www.w3.org", "")
    assert "dp" in html and f"{plan.objective:.4f}"[:5] in html
    # The same picture as the CLI draws from the plan file (the timeline is
    # hand-written SVG, so byte for byte).
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.to_json())
    ours, cli = tmp_path / "ours.svg", tmp_path / "cli.svg"
    dnnplace.render(w, str(plan_file), ours, view="timeline")
    subprocess.run([CLI, "render", EXAMPLE, str(plan_file), "--view", "timeline", "--out", str(cli)],
                   check=True, capture_output=True)
    assert ours.read_text() == cli.read_text() and "<svg" in ours.read_text()
    dnnplace.render(w, plan, tmp_path / "graph.dot")
    assert (tmp_path / "graph.dot").read_text().lstrip().startswith("digraph")
    with pytest.raises(ValueError, match="unknown extension") as bad:
        dnnplace.render(w, plan, tmp_path / "report.pdf")
    assert "\n" not in str(bad.value)
    with pytest.raises(ValueError, match="view must be"):
        dnnplace.render(w, plan, tmp_path / "x.svg", view="gantt")
    other = dnnplace.Workload.load(os.path.join(ROOT, "examples", "chain.json"))
    with pytest.raises(ValueError, match=r"^render: the plan: .*\(a plan for another workload\?\)$"):
        dnnplace.render(other, plan, tmp_path / "other.html")
    with pytest.raises(ValueError, match=r"plan\.json: .*\(a plan for another workload\?\)$"):
        dnnplace.render(other, str(plan_file), tmp_path / "other.html")


def test_device_spec_by_short_or_full_name():
    short, full = dnnplace.device_spec("a100"), dnnplace.device_spec("A100-SXM4-40GB")
    assert short == full and full["name"] == "a100" and full["model"] == "A100-SXM4-40GB"
    assert full["peakFlops"] == 312e12 and full["memory"] == 40e9
    with pytest.raises(ValueError, match="neither a catalog device"):
        dnnplace.device_spec("A100-SXM4-80GB")


def test_import_onnx_and_replicated_stages_as_the_cli():
    # docs/python.md: import_onnx is `dnnplace import onnx`; its syncBandwidth
    # (model.md §9) is the device's NVLink figure, or sync_bandwidth (bytes/s).
    model = os.path.join(ROOT, "examples", "models", "resnet50.onnx")
    w = dnnplace.import_onnx(model, device="a100", accelerators=4, training=True, dims={"batch": 32})
    cli = subprocess.run([CLI, "import", "onnx", model, "--device", "a100", "--accelerators", "4",
                          "--training", "--dim", "batch=32", "--quiet"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert w.to_dict() == json.loads(cli.stdout)
    assert w.to_dict()["syncBandwidth"] == 3e8
    for zero in (0, None):
        assert dnnplace.import_onnx(model, device="a100", accelerators=4, training=True, dims={"batch": 32},
                                    sync_bandwidth=zero).to_dict()["syncBandwidth"] == 3e8
    slow = dnnplace.import_onnx(model, device="a100", accelerators=4, training=True, dims={"batch": 32},
                                sync_bandwidth=1e9, samples_per_sync=2)
    assert slow.to_dict()["syncBandwidth"] == 1e6 and slow.to_dict()["samplesPerSync"] == 2
    with pytest.raises(ValueError, match="sync_bandwidth must be 0"):
        dnnplace.import_onnx(model, device="a100", dims={"batch": 32}, sync_bandwidth=1e-28)
    with pytest.raises(ValueError, match="samples_per_sync must be a number >= 1"):
        dnnplace.import_onnx(model, device="a100", dims={"batch": 32}, samples_per_sync=0.5)
    # What the CLI refuses, the module refuses, with the same kind of line.
    with pytest.raises(ValueError, match="dims maps a symbolic dimension's name to a positive "
                                         "integer, got 'batch': -1"):
        dnnplace.import_onnx(model, device="a100", dims={"batch": -1})
    with pytest.raises(ValueError, match="flops and bytes must be finite numbers >= 0, got -1"):
        dnnplace.operator_latency_ms(-1, 1e9, "a100")
    with pytest.raises(ValueError, match="kind must be 'accelerator' or 'cpu'"):
        dnnplace.operator_latency_ms(1, 1, "a100", kind="gpu")
    with pytest.raises(ValueError, match="bytes must be a finite number >= 0, got nan"):
        dnnplace.transfer_ms(float("nan"), "a100")
    # README: on four A100s ResNet-50 trains fastest as plain data parallelism.
    plan = dnnplace.solve(w, method="dp", replicate=True)
    assert plan.status == "optimal" and plan.objective == pytest.approx(4.325823564881522, rel=1e-12)
    assert [d.replicas for d in plan.devices if d.kind == "accelerator"] == [4]
    # compare refuses --replicate as the CLI does: no syncBandwidth, or no method that replicates.
    tpu = dnnplace.import_onnx(model, device="tpu-v4", accelerators=4, training=True, dims={"batch": 32})
    with pytest.raises(ValueError, match="--replicate needs the syncBandwidth of"):
        dnnplace.compare(tpu, methods=["dp"], replicate=True, time_limit=5)
    with pytest.raises(ValueError, match="none of them is compared"):
        dnnplace.compare(w, methods=["scotch"], replicate=True, time_limit=5)
