"""PyTorch front end (docs/python.md): profile an nn.Module into a dnnplace
Workload, and split it into pipeline stages along a plan.

    import dnnplace, dnnplace.torch
    w = dnnplace.torch.profile(model, (x,), accelerators=4)
    plan = dnnplace.solve(w, method="dp")
    stages = dnnplace.torch.split(model, plan)

The model is traced with torch.fx. Each fx node that computes a tensor (or a
tuple of tensors) is a workload node whose id is its position in the traced
graph and whose name is the fx node's name. Its FLOPs and bytes are counted
here from the shapes seen on the example inputs; the latencies, transfer costs
and memory are the library's (docs/model.md §8, dnnplace._core.build_costed_workload).
"""

import operator
import statistics
import time

import torch
import torch.fx

from . import _core

__all__ = ["profile", "describe", "split", "run_stages", "trace"]


class _Tracer(torch.fx.Tracer):
    """torch.fx's tracer that records the module each node was made in
    (node.meta["dnnplace_module"]: the innermost module's qualified name)."""

    def __init__(self):
        super().__init__()
        self._stack = [""]

    def call_module(self, m, forward, args, kwargs):
        self._stack.append(self.path_of_module(m))
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self._stack.pop()

    def create_node(self, *args, **kwargs):
        node = super().create_node(*args, **kwargs)
        node.meta["dnnplace_module"] = self._stack[-1]
        return node


def trace(model):
    """The model as a torch.fx GraphModule (the tracing profile and split use)."""
    if isinstance(model, torch.fx.GraphModule):
        return model
    tracer = _Tracer()
    try:
        graph = tracer.trace(model)
    except Exception as e:  # torch.fx's own error says which construct it cannot trace
        raise ValueError(f"torch.fx cannot trace the model: {type(e).__name__}: {e}") from e
    return torch.fx.GraphModule(tracer.root, graph, type(model).__name__)


def _tensors(value):
    """The tensors in a value (a tensor, or nested tuples/lists/dicts of them)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _kind(value):
    if isinstance(value, torch.Tensor):
        return "tensor"
    if isinstance(value, (tuple, list)) and _tensors(value):
        return "tensors"
    return "other"


def _nbytes(value):
    return float(sum(t.numel() * t.element_size() for t in _tensors(value)))


class _Recorder(torch.fx.Interpreter):
    """Runs the graph, keeping each node's output (first run) and its time (every run)."""

    def __init__(self, gm, keep):
        super().__init__(gm)
        self.keep = keep
        self.values = {}
        self.seconds = {}

    def run_node(self, n):
        start = time.perf_counter()
        result = super().run_node(n)
        self.seconds[n.name] = time.perf_counter() - start
        if self.keep:
            self.values[n.name] = result
        return result


_ZERO = {  # data movement and shape operators: 0 FLOPs
    "view", "reshape", "permute", "transpose", "flatten", "contiguous", "cat", "stack", "chunk", "split",
    "getitem", "squeeze", "unsqueeze", "expand", "expand_as", "repeat", "narrow", "select", "t", "to",
    "float", "half", "type", "clone", "detach", "index_select", "gather", "embedding",
    "Embedding", "Flatten", "Identity", "Dropout", "Dropout2d", "Unflatten", "zeros", "ones", "arange",
    "full", "zeros_like", "ones_like", "triu", "tril", "dropout", "pad", "roll", "unbind", "tile", "adaptive_avg_pool",
    "bool", "long", "int", "new_zeros", "new_ones", "ChannelShuffle", "PixelShuffle", "Upsample",
}
_FIVE = {  # normalizations and softmax: about 5 per output element
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "LocalResponseNorm", "Softmax", "LogSoftmax", "softmax", "log_softmax", "layer_norm",
    "batch_norm", "group_norm", "instance_norm",
}
_ONE = {  # elementwise: 1 per output element
    "add", "sub", "mul", "div", "truediv", "floordiv", "neg", "pow", "sqrt", "rsqrt", "exp", "log", "tanh",
    "sigmoid", "relu", "relu_", "gelu", "silu", "hardswish", "hardsigmoid", "leaky_relu", "elu", "erf", "abs",
    "clamp", "clip", "where", "maximum", "minimum", "iadd", "imul", "add_", "mul_", "softplus", "mish",
    "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Hardswish", "Hardsigmoid", "LeakyReLU", "ELU",
    "PReLU", "Softplus", "Mish", "relu6", "hardtanh", "Hardtanh", "masked_fill", "invert", "eq", "ne", "lt", "gt",
}
_REDUCE = {"mean", "sum", "amax", "amin", "max", "min", "argmax", "argmin", "cumsum", "std", "var", "norm",
           "logsumexp", "prod", "topk"}
_POOL = {"MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "max_pool2d",
         "avg_pool2d", "max_pool1d", "avg_pool1d"}
_ADAPTIVE = {"AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool2d",
             "adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_avg_pool1d"}


def _prod(values):
    p = 1
    for v in values:
        p *= int(v)
    return p


def _op_name(node, gm):
    """The operator's name for the FLOP rules: the module's class, the
    function's or method's name."""
    if node.op == "call_module":
        return type(gm.get_submodule(node.target)).__name__
    if node.op == "call_method":
        return node.target
    return getattr(node.target, "__name__", str(node.target)).lstrip("_")


def _flops(node, gm, name, args, out):
    """FLOPs of one forward execution (docs/cost-model.md §2), or None if no rule."""
    outs = _tensors(out)
    numel = sum(t.numel() for t in outs)
    first = next((a for a in args if isinstance(a, torch.Tensor)), None)
    if name in ("Conv1d", "Conv2d", "Conv3d"):
        m = gm.get_submodule(node.target)
        return 2.0 * numel * (m.in_channels // m.groups) * _prod(m.kernel_size)
    if name in ("conv1d", "conv2d", "conv3d"):
        weight = args[1] if len(args) > 1 else node.kwargs.get("weight")
        return 2.0 * numel * weight.shape[1] * _prod(weight.shape[2:])
    if name in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
        m = gm.get_submodule(node.target)
        return 2.0 * first.numel() * (m.out_channels // m.groups) * _prod(m.kernel_size)
    if name == "Linear":
        return 2.0 * numel * gm.get_submodule(node.target).in_features
    if name == "linear":
        return 2.0 * numel * args[1].shape[-1]
    if name in ("matmul", "bmm", "mm", "baddbmm_", "einsum_mm"):
        return 2.0 * numel * args[0].shape[-1]
    if name == "addmm":
        return 2.0 * numel * args[1].shape[-1]
    if name in _FIVE:
        return 5.0 * numel
    if name in _POOL:
        if node.op == "call_module":
            k = gm.get_submodule(node.target).kernel_size
        else:
            k = args[1] if len(args) > 1 else node.kwargs["kernel_size"]
        k = (k,) * int(name[-2]) if isinstance(k, int) else k
        return float(numel * _prod(k))
    if name in _ADAPTIVE or name in _REDUCE:
        return float(first.numel()) if first is not None else None
    if name in _ONE:
        return float(numel)
    if name in _ZERO:
        return 0.0
    return None


def _measure(gm, inputs, runs):
    """Median seconds per node over `runs` timed runs (after one warm-up), on one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        samples = {}
        with torch.no_grad():
            for r in range(runs + 1):
                rec = _Recorder(gm, keep=False)
                rec.run(*inputs)
                if r == 0:
                    continue
                for name, s in rec.seconds.items():
                    samples.setdefault(name, []).append(s)
    finally:
        torch.set_num_threads(threads)
    return {name: statistics.median(s) for name, s in samples.items()}


class _Analysis:
    """The traced graph's nodes sorted into workload nodes and folded ones.

    role: "input", "compute" (a workload node), "param" (get_attr), "attached"
    (a getitem of a tuple-valued node: part of it), "recompute" (makes no
    tensor: recomputed in each stage that reads it), "output". `kind_of(n)`
    says what a node makes ("tensor", "tensors", "other"), or None when the
    node is not a workload node of the plan (split)."""

    def __init__(self, gm, kind_of):
        self.gm = gm
        self.nodes = list(gm.graph.nodes)
        self.index = {n.name: i for i, n in enumerate(self.nodes)}
        self.role = {}
        self.owner = {}  # attached node -> its tuple node
        for n in self.nodes:
            if n.op == "output":
                role = "output"
            elif n.op == "placeholder":
                role = "input"
            elif n.op == "get_attr":
                role = "param"
            else:
                role = self._role(n, kind_of(n))
            self.role[n.name] = role
            if role == "attached":
                self.owner[n.name] = self._root(n.args[0])

    def _root(self, n):
        return self.owner.get(n.name, n.name)

    def _role(self, n, kind):
        n.meta["dnnplace_kind"] = kind
        src = n.args[0] if n.args and isinstance(n.args[0], torch.fx.Node) else None
        if n.op == "call_function" and n.target is operator.getitem and src is not None \
                and self.role.get(src.name) in ("compute", "attached") \
                and (kind is None or (kind != "other" and src.meta.get("dnnplace_kind") == "tensors")):
            return "attached"
        if kind == "other" or (kind is None and _no_tensor(n, self.role)):
            return "recompute"
        return "compute"

    def values_read(self, n):
        """The values `n` reads from other nodes, through recomputed nodes: a
        getitem of a tuple node is a value of its own (what crosses a stage
        boundary is the tensor, not the tuple)."""
        found = []
        for a in self._through_recompute((n.args, n.kwargs)):
            if a.name not in found:
                found.append(a.name)
        return found

    def _through_recompute(self, arg, seen=None):
        seen = set() if seen is None else seen
        for a in _flat_nodes(arg):
            if a.name in seen:
                continue
            seen.add(a.name)
            role = self.role[a.name]
            if role == "recompute":
                yield from self._through_recompute((a.args, a.kwargs), seen)
            elif role in ("input", "compute", "attached"):
                yield a

    def node_of(self, name):
        """The workload node standing for fx node `name` (itself or its tuple node)."""
        return self.owner.get(name, name)

    def sources(self, n):
        """The workload nodes whose values `n` reads, through recomputed nodes."""
        found = []
        for a in self._through_recompute((n.args, n.kwargs)):
            w = self.node_of(a.name)
            if w not in found:
                found.append(w)
        return found

    def params(self, n):
        """get_attr nodes `n` reads (through recomputed nodes)."""
        found = []
        for a in _flat_nodes((n.args, n.kwargs)):
            if self.role[a.name] == "param":
                found.append(a)
        return found


def _no_tensor(n, role):
    """Statically: does n surely make no tensor (a size, a shape, arithmetic on them)?"""
    if n.op == "call_method" and n.target in ("size", "dim", "numel"):
        return True
    if n.op == "call_function" and getattr(n.target, "__name__", "") == "getattr" \
            and len(n.args) > 1 and n.args[1] in ("shape", "dtype", "device", "ndim"):
        return True
    deps = _flat_nodes((n.args, n.kwargs))
    return n.op == "call_function" and getattr(n.target, "__module__", "") in ("_operator", "builtins") \
        and bool(deps) and all(role.get(d.name) == "recompute" for d in deps)


def _flat_nodes(arg):
    out = []
    torch.fx.node.map_arg(arg, lambda x: out.append(x) or x)
    return out


def _module_params(module):
    return list(module.parameters()) + list(module.buffers())


def profile(model, example_inputs, device="A100-SXM4-40GB", accelerators=8, cpus=0, training=False,
            granularity="operator", measure_cpu=True, cpu="xeon-8380-core", runs=3, optimizer_states=2.0,
            sync_bandwidth=0.0, samples_per_sync=1.0):
    """A dnnplace.Workload for `model` on `accelerators` x `device` and `cpus` CPU cores.

    example_inputs: a tensor or a tuple of the model's positional inputs.
    granularity: "operator" (a node per fx node) or "module" (the fx nodes of
    each innermost nn.Module fused into one node, named by its qualified name).
    measure_cpu: each node's cpuLatency is the median of `runs` timed runs on
    one thread of this machine instead of the `cpu` core's roofline.
    training: a backward twin per node (docs/model.md §8).
    sync_bandwidth: bytes per second for a replicated stage's gradient
    all-reduce (docs/model.md §9); 0: the device's catalog figure, if any.
    samples_per_sync: samples between two all-reduces.
    """
    if granularity not in ("operator", "module"):
        raise ValueError(f"profile: granularity must be 'operator' or 'module', not {granularity!r}")
    ops, tensors, first_backward_id = _describe(model, example_inputs, granularity, measure_cpu, runs)
    return _core.build_costed_workload(type(model).__name__, ops, tensors, device=device, cpu=cpu,
                                       accelerators=accelerators, cpus=cpus, training=training,
                                       optimizer_states=optimizer_states, first_backward_id=first_backward_id,
                                       contract_layers=granularity == "module",
                                       sync_bandwidth=sync_bandwidth, samples_per_sync=samples_per_sync)


def describe(model, example_inputs, granularity="operator", measure_cpu=False, runs=3):
    """What profile hands the library: (operators, tensors), lists of dicts
    (docs/python.md) with each fx node's FLOPs, bytes, parameter and output
    bytes, measured CPU milliseconds, and the values between them."""
    ops, tensors, _ = _describe(model, example_inputs, granularity, measure_cpu, runs)
    return ops, tensors


def _describe(model, example_inputs, granularity, measure_cpu, runs):
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"profile: model must be a torch.nn.Module, not {type(model).__name__}")
    if runs < 1:
        raise ValueError("profile: runs must be at least 1")
    inputs = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    gm = trace(model)
    rec = _Recorder(gm, keep=True)
    with torch.no_grad():
        try:
            rec.run(*inputs)
        except Exception as e:
            raise ValueError(f"profile: the model fails on the example inputs: {type(e).__name__}: {e}") from e
    values = rec.values
    seconds = _measure(gm, inputs, runs) if measure_cpu else None
    a = _Analysis(gm, lambda n: _kind(values[n.name]))

    # Workload nodes in graph order; an attached getitem's time goes to its tuple node.
    ops, position = [], {}
    for n in a.nodes:
        if a.role[n.name] in ("input", "compute"):
            position[n.name] = len(ops)
            ops.append({"name": n.name, "id": a.index[n.name], "compute": a.role[n.name] == "compute",
                        "layer": n.meta.get("dnnplace_module", "") if a.role[n.name] == "compute" else ""})
    counted_params = set()
    consumers = {name: [] for name in position}
    outputs = set()
    for n in a.nodes:
        role = a.role[n.name]
        if role == "output":
            for s in a.sources(n):
                outputs.add(s)
            continue
        if role not in ("compute", "attached"):
            continue
        me = a.node_of(n.name)
        op = ops[position[me]]
        for s in a.sources(n):
            if s != me and position[me] not in consumers[s]:
                consumers[s].append(position[me])
        if role == "attached":
            if seconds is not None:
                op["cpu_latency_ms"] = op.get("cpu_latency_ms", 0.0) + 1000 * seconds[n.name]
            continue
        args = torch.fx.node.map_aggregate(n.args, lambda x: values[x.name] if isinstance(x, torch.fx.Node) else x)
        flat_args = [values[x.name] for x in _flat_nodes((n.args, n.kwargs))]
        name = _op_name(n, gm)
        flops = _flops(n, gm, name, list(args), values[n.name])
        params = []
        if n.op == "call_module":
            params = _module_params(gm.get_submodule(n.target))
        params += [values[p.name] for p in a.params(n) if isinstance(values[p.name], torch.Tensor)]
        param_ids = {id(p) for p in params}
        data = [t for t in _tensors(flat_args) if id(t) not in param_ids]
        out_bytes = _nbytes(values[n.name])
        param_bytes = 0.0
        for p in params:
            if id(p) not in counted_params:  # a shared weight's memory is its first reader's
                counted_params.add(id(p))
                param_bytes += p.numel() * p.element_size()
        op.update({
            "flops": flops,
            "bytes": _nbytes(data) + sum(float(p.numel() * p.element_size()) for p in params) + out_bytes,
            "parameter_bytes": param_bytes,
            "output_bytes": out_bytes,
        })
        if seconds is not None:
            op["cpu_latency_ms"] = op.get("cpu_latency_ms", 0.0) + 1000 * seconds[n.name]
    tensors = [{"producer": position[name], "consumers": consumers[name],
                "bytes": _nbytes(values[name]), "is_output": name in outputs} for name in position]

    if granularity == "module":
        # A layer is a run of consecutive workload nodes made in one module:
        # intervals of a topological order, so fusing them makes no cycle.
        runs, seen = [], {}
        for op in ops:
            if op["layer"] and runs and runs[-1][0] == op["layer"] and runs[-1][1][-1] is ops[ops.index(op) - 1]:
                runs[-1][1].append(op)
            elif op["layer"]:
                runs.append((op["layer"], [op]))
        for module, group in runs:
            seen[module] = seen.get(module, 0) + 1
            key = module if seen[module] == 1 else f"{module}#{seen[module]}"
            for op in group:
                op["layer"] = key
                op["name"] = key if len(group) == 1 else f"{key}/{op['name']}"
    else:
        for op in ops:
            op["layer"] = ""
    return ops, tensors, len(a.nodes)



def _device_of_plan(plan):
    """fx node index -> (kind, index) of the device the plan puts it on."""
    where = {}
    for d in plan.devices:
        for v in d.node_ids:
            where[v] = (d.kind, d.index)
    return where


def split(model, plan):
    """The model cut into pipeline stages along `plan` (a Plan of a workload
    made by profile): a list of nn.Module (torch.fx GraphModules) in pipeline
    order. The first stage takes the model's inputs; each next one takes the
    previous stage's outputs as positional arguments (a tensor, or a tuple of
    them unpacked); the last returns the model's output. Values a later stage
    needs pass through the stages between. Raises ValueError for a plan that
    is not contiguous or does not belong to this model."""
    if not getattr(plan, "found", True):
        raise ValueError(f"split: the plan has none: {plan.method} ended {plan.status}")
    gm = trace(model)
    where = _device_of_plan(plan)
    nodes = list(gm.graph.nodes)
    index = {n.name: i for i, n in enumerate(nodes)}
    # A node the plan places is a workload node; one it does not is folded,
    # or (module granularity) a member of a fused module after the first.
    a = _Analysis(gm, lambda n: "tensor" if index[n.name] in where else None)
    device, previous = {}, None
    for n in nodes:
        if a.role[n.name] != "compute":
            continue
        i = index[n.name]
        if i in where:
            device[n.name] = where[i]
        elif previous is not None and previous.meta.get("dnnplace_module") == n.meta.get("dnnplace_module") \
                and n.meta.get("dnnplace_module"):
            device[n.name] = device[previous.name]  # a fused module's later member
        else:
            raise ValueError(f"split: the plan places no node {i} ('{n.name}'): is it a plan of "
                             f"a workload that dnnplace.torch.profile made of this model?")
        previous = n
    for n in nodes:
        if a.role[n.name] == "attached":
            device[n.name] = device[a.owner[n.name]]
    for v in where:
        if v < 0:
            raise ValueError(f"split: plan node {v} is not an fx node of this model")

    # Pipeline order: a topological order of the devices' quotient graph.
    used = sorted(set(device.values()), key=lambda d: min(a.index[k] for k, v in device.items() if v == d))
    succ = {d: set() for d in used}
    for n in nodes:
        if n.name not in device:
            continue
        for s in a.sources(n):
            if s in device and device[s] != device[n.name]:
                succ[device[s]].add(device[n.name])
    indeg = {d: 0 for d in used}
    for d in used:
        for e in succ[d]:
            indeg[e] += 1
    order, ready = [], [d for d in used if indeg[d] == 0]
    while ready:
        d = ready.pop(0)
        order.append(d)
        for e in sorted(succ[d], key=used.index):
            indeg[e] -= 1
            if indeg[e] == 0:
                ready.append(e)
        ready.sort(key=used.index)
    if len(order) != len(used):
        cyc = [f"{k}{i}" for k, i in used if (k, i) not in order]
        raise ValueError("split: the plan is not contiguous: devices " + ", ".join(cyc) +
                         " send values to each other both ways; split needs a pipeline (a contiguous plan)")
    stage_of = {d: s for s, d in enumerate(order)}
    if not order:
        order, stage_of = [None], {}
    stage = {name: stage_of[d] for name, d in device.items()}  # attached nodes included
    for n in nodes:
        if a.role[n.name] == "input":
            stage[n.name] = 0
    last = len(order) - 1

    # Values (fx nodes' outputs) each stage reads, and the last stage reading each.
    reads = {s: [] for s in range(len(order))}

    def need(s, value):
        if value not in reads[s]:
            reads[s].append(value)

    for n in nodes:
        role = a.role[n.name]
        if role in ("compute", "attached"):
            s = stage[n.name]
            for v in a.values_read(n):
                if stage[v] != s:
                    need(s, v)
                    if stage[v] > s:
                        raise ValueError(f"split: the plan is not contiguous: '{n.name}' on stage {s} reads "
                                         f"'{v}' of the later stage {stage[v]}")
        elif role == "output":
            for v in a.values_read(n):
                if stage[v] != last:
                    need(last, v)
    last_use = {}
    for s in range(len(order)):
        for v in reads[s]:
            last_use[v] = max(last_use.get(v, -1), s)

    # Each stage: its inputs are the previous stage's outputs; it outputs every
    # value made so far that a later stage reads.
    stages, carried = [], [n.name for n in nodes if a.role[n.name] == "input"]
    for s in range(len(order)):
        g = torch.fx.Graph()
        env = {}
        for v in carried:
            env[v] = g.placeholder(v)

        def copy(n):
            if n.name in env:
                return env[n.name]
            for dep in _flat_nodes((n.args, n.kwargs)):
                copy(dep)
            role = a.role[n.name]
            if role == "attached" and n.name not in env and stage[n.name] != s:
                raise ValueError(f"split: '{n.name}' is needed on stage {s} but made on stage {stage[n.name]}")
            env[n.name] = g.node_copy(n, lambda x: env[x.name])
            return env[n.name]

        for n in nodes:
            if a.role[n.name] in ("compute", "attached") and stage[n.name] == s:
                copy(n)
        made = carried + [n.name for n in nodes if a.role[n.name] in ("compute", "attached") and stage[n.name] == s]
        if s == last:
            out = next(n for n in nodes if n.op == "output")
            for dep in _flat_nodes(out.args):
                copy(dep)
            g.output(torch.fx.node.map_arg(out.args[0], lambda x: env[x.name]))
        else:
            carried = [v for v in made if last_use.get(v, -1) > s]
            outs = [env[v] for v in carried]
            g.output(outs[0] if len(outs) == 1 else tuple(outs))
        g.lint()
        stages.append(torch.fx.GraphModule(gm, g, f"stage{s}"))
    return stages


def run_stages(stages, *inputs):
    """Runs the stages one after another (each next takes the previous outputs)."""
    value = inputs
    for i, stage in enumerate(stages):
        value = stage(*value) if i == 0 or isinstance(value, tuple) else stage(value)
        if i + 1 < len(stages) and not isinstance(value, tuple):
            value = (value,)
    return value
