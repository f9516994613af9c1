#!/usr/bin/python3
"""Export a small zoo of real DNN graphs to ONNX, without weights, for the dnnplace importer.

Run with Debian's Python (torch 1.13, torchvision 0.14); no network access is needed because
every model is built with random initialization (weights=None) and the parameters are left
out of the files (export_params=False), so each file holds only the graph and the shapes.

    /usr/bin/python3 scripts/export_models.py [--out DIR] [--models resnet50,bert_base,...]
    /usr/bin/python3 scripts/export_models.py --check [--batch B] [--seq S]   # verify, count

Parameters appear as graph inputs (not initializers) named after the module parameter,
e.g. `layer1.0.conv1.weight`, or `onnx::Conv_NNN` when the exporter folded BatchNormalization
into the preceding convolution. The symbolic dimensions are `batch` (all models) and `seq`
(the two language models).
"""

import argparse
import math
import os
import sys
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 14
SEQ = 128  # sequence length of the traced example input of the language models


# ---------------------------------------------------------------------------------------------
# Language models, built from torch.nn modules. The module names follow the HuggingFace
# checkpoints (BertModel, GPT2LMHeadModel) so the scopes in the exported node names read like
# the ones a user exporting those models would see.


class BertSelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def split(self, x):
        # [b, s, hidden] -> [b, heads, s, head_dim]
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2)
        b, s = ctx.shape[0], ctx.shape[1]
        return ctx.reshape(b, s, self.heads * self.head_dim)


class BertSelfOutput(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, h, residual):
        return self.LayerNorm(self.dense(h) + residual)


class BertAttention(nn.Module):
    def __init__(self, hidden, heads, eps):
        super().__init__()
        self.self = BertSelfAttention(hidden, heads)
        self.output = BertSelfOutput(hidden, eps)

    def forward(self, x):
        return self.output(self.self(x), x)


class BertIntermediate(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.dense = nn.Linear(hidden, ffn)
        self.intermediate_act_fn = nn.GELU()  # exact (erf) GELU, as BERT uses

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


class BertOutput(nn.Module):
    def __init__(self, hidden, ffn, eps):
        super().__init__()
        self.dense = nn.Linear(ffn, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, h, residual):
        return self.LayerNorm(self.dense(h) + residual)


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, ffn, eps):
        super().__init__()
        self.attention = BertAttention(hidden, heads, eps)
        self.intermediate = BertIntermediate(hidden, ffn)
        self.output = BertOutput(hidden, ffn, eps)

    def forward(self, x):
        a = self.attention(x)
        return self.output(self.intermediate(a), a)


class BertEmbeddings(nn.Module):
    def __init__(self, vocab, hidden, max_pos, eps):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_pos, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, ids):
        x = self.word_embeddings(ids) + self.position_embeddings(positions(ids)).unsqueeze(0)
        return self.LayerNorm(x)


class BertEncoder(nn.Module):
    def __init__(self, layers, hidden, heads, ffn, eps):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(hidden, heads, ffn, eps) for _ in range(layers)])

    def forward(self, x):
        for block in self.layer:
            x = block(x)
        return x


class BertBase(nn.Module):
    """BERT-base encoder: post-LayerNorm blocks, no token-type embeddings, no pooler."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, max_pos=512,
                 eps=1e-12):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, hidden, max_pos, eps)
        self.encoder = BertEncoder(layers, hidden, heads, ffn, eps)

    def forward(self, input_ids):
        return self.encoder(self.embeddings(input_ids))


def positions(ids):
    """Position ids 0..seq-1 of int64 token ids [batch, seq].

    A cumulative sum of ones rather than torch.arange: ONNX 1.12 shape inference cannot size
    the output of Range from a computed limit, but follows ConstantOfShape(Shape) and CumSum,
    so every tensor downstream keeps a static shape once `seq` is bound.
    """
    return torch.ones_like(ids[0]).cumsum(0) - 1


class CausalMask(nn.Module):
    """Bool [seq, seq], true where a query would attend to a later key.

    Computed in the graph from the position ids, once for all blocks, so it follows `seq` and
    is no parameter (GPT-2 checkpoints slice a stored 1024x1024 buffer instead).
    """

    def forward(self, pos):
        return pos.unsqueeze(0) > pos.unsqueeze(1)


class GPT2Attention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.c_attn = nn.Linear(hidden, 3 * hidden)  # fused q, k, v as in GPT-2
        self.c_proj = nn.Linear(hidden, hidden)

    def forward(self, x, future):
        b, s, hidden = x.shape
        q, k, v = self.c_attn(x).split(hidden, dim=2)
        q = q.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(future, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, hidden)
        return self.c_proj(ctx)


class GPT2MLP(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.c_fc = nn.Linear(hidden, ffn)
        self.act = nn.GELU(approximate="tanh")  # GPT-2's "gelu_new"
        self.c_proj = nn.Linear(ffn, hidden)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPT2Block(nn.Module):
    def __init__(self, hidden, heads, ffn, eps):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden, eps=eps)
        self.attn = GPT2Attention(hidden, heads)
        self.ln_2 = nn.LayerNorm(hidden, eps=eps)
        self.mlp = GPT2MLP(hidden, ffn)

    def forward(self, x, future):
        x = x + self.attn(self.ln_1(x), future)
        return x + self.mlp(self.ln_2(x))


class GPT2Small(nn.Module):
    """GPT-2 small decoder with an untied LM head (nn.Linear 768 -> 50257, no bias).

    Untied because the exporter folds the transpose of a tied embedding matrix into a second,
    unnamed copy anyway (`onnx::MatMul_NNN`), which hides the sharing; an explicit lm_head
    gives the same shapes and FLOPs under a readable name.
    """

    def __init__(self, vocab=50257, hidden=768, layers=12, heads=12, ffn=3072, max_pos=1024,
                 eps=1e-5):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(max_pos, hidden)
        self.mask = CausalMask()
        self.h = nn.ModuleList([GPT2Block(hidden, heads, ffn, eps) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(hidden, eps=eps)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids):
        pos = positions(input_ids)
        x = self.wte(input_ids) + self.wpe(pos).unsqueeze(0)
        future = self.mask(pos)
        for block in self.h:
            x = block(x, future)
        return self.lm_head(self.ln_f(x))


# ---------------------------------------------------------------------------------------------
# The zoo: name -> (constructor, example input, input name, output name, dynamic axes).


def _mha_forward(self, query, key, value, need_weights=False, **unused):
    """nn.MultiheadAttention self-attention (batch_first), with shape arithmetic in Python ints.

    torch 1.13's functional attention derives the head size from the runtime embedding size
    (embed_dim // heads, a Div of shape values) and splits q/k/v with chunk(3), whose size is
    another runtime Div. ONNX 1.12 data propagation follows neither, so every ViT attention
    lost its shapes. The module's own attributes give those sizes as constants; parameters,
    operators (packed in-projection, q scaled before q·kᵀ, softmax, out-projection) and FLOPs
    are the same.
    """
    assert query is key and key is value and self.batch_first
    b, s, _ = query.shape
    h, d, e = self.num_heads, self.head_dim, self.embed_dim
    q, k, v = F.linear(query, self.in_proj_weight, self.in_proj_bias).split(e, dim=-1)
    q = q.reshape(b, s, h, d).transpose(1, 2) / math.sqrt(d)
    k = k.reshape(b, s, h, d).transpose(1, 2)
    v = v.reshape(b, s, h, d).transpose(1, 2)
    probs = torch.softmax(torch.matmul(q, k.transpose(-1, -2)), dim=-1)
    ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, e)
    return F.linear(ctx, self.out_proj.weight, self.out_proj.bias), None


def _vit_b_16():
    """torchvision's ViT-B/16 with its shape computations rewritten for ONNX shape inference.

    Stock torchvision computes the patch-grid size as h // patch (a Div of runtime shape
    values) and broadcasts the class token with expand(n, -1, -1) (an Equal/Where on the size
    vector); ONNX 1.12 data propagation follows neither, so every tensor after the patch
    embedding lost its shape. The model checks that h and w equal image_size, so the grid is a
    constant, and expand_as gives Expand(Shape(...)), which shape inference follows. The
    attention is patched the same way (_mha_forward). Modules, parameters and FLOPs are
    unchanged.
    """
    model = torchvision.models.vit_b_16(weights=None)

    def process_input(self, x):
        n = x.shape[0]
        grid = self.image_size // self.patch_size
        x = self.conv_proj(x)
        return x.reshape(n, self.hidden_dim, grid * grid).permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        x = torch.cat([self.class_token.expand_as(x[:, :1, :]), x], dim=1)
        x = self.encoder(x)
        return self.heads(x[:, 0])

    model._process_input = types.MethodType(process_input, model)
    for module in model.modules():
        if isinstance(module, nn.MultiheadAttention):
            module.forward = types.MethodType(_mha_forward, module)
    model.forward = types.MethodType(forward, model)
    return model


def _image(size):
    return torch.randn(1, 3, size, size)


def _tokens(vocab):
    return torch.randint(0, vocab, (1, SEQ), dtype=torch.long)


MODELS = {
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), lambda: _image(224), "image"),
    "inception_v3": (
        lambda: torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False),
        lambda: _image(299),
        "image",
    ),
    "vgg16": (lambda: torchvision.models.vgg16(weights=None), lambda: _image(224), "image"),
    "mobilenet_v2": (
        lambda: torchvision.models.mobilenet_v2(weights=None),
        lambda: _image(224),
        "image",
    ),
    "vit_b_16": (_vit_b_16, lambda: _image(224), "image"),
    "bert_base": (BertBase, lambda: _tokens(30522), "tokens"),
    "gpt2_small": (GPT2Small, lambda: _tokens(50257), "tokens"),
}


def _break_constant_tensors(model):
    """Give every all-equal parameter and buffer random values.

    Fresh initialization leaves many tensors constant (BatchNorm/LayerNorm weights of ones,
    biases and running means of zeros). The exporter deduplicates equal parameters, which
    would make one graph input feed dozens of unrelated operators through scope-less Identity
    nodes, unlike a trained model. Random values keep one parameter per use, as trained ones
    do. Variances stay positive.
    """
    with torch.no_grad():
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            if not t.is_floating_point() or t.numel() == 0:
                continue
            flat = t.reshape(-1)
            if bool((flat == flat[0]).all()):
                if name.endswith("running_var"):
                    t.uniform_(0.5, 1.5)
                else:
                    t.normal_(0.0, 0.02)


def export(name, out_dir, keep_batchnorm=False):
    make_model, make_input, kind = MODELS[name]
    torch.manual_seed(0)
    model = make_model().eval()
    _break_constant_tensors(model)
    example = make_input()
    if kind == "image":
        input_names, output_names = ["image"], ["logits"]
        axes = {"image": {0: "batch"}, "logits": {0: "batch"}}
    else:
        input_names = ["input_ids"]
        output_names = ["logits" if name == "gpt2_small" else "last_hidden_state"]
        axes = {"input_ids": {0: "batch", 1: "seq"}, output_names[0]: {0: "batch", 1: "seq"}}
    path = os.path.join(out_dir, name + ".onnx")
    # EVAL folds BatchNormalization into the preceding Conv; PRESERVE on a model in eval mode
    # runs the same trace without that peephole pass, so BatchNormalization nodes survive.
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batchnorm else torch.onnx.TrainingMode.EVAL
    # Not under torch.no_grad(): with autograd off, nn.MultiheadAttention (ViT) takes its fused
    # fast path, aten::_native_multi_head_attention, which has no ONNX symbolic.
    torch.onnx.export(
        model,
        (example,),
        path,
        export_params=False,
        do_constant_folding=True,
        opset_version=OPSET,
        training=mode,
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=axes,
    )
    return path


# ---------------------------------------------------------------------------------------------
# Verification and measurement (--check): the ONNX checker, shape inference with data
# propagation at concrete dims, and the FLOP count of the importer's analytic cost model, so
# the C++ importer's numbers can be compared against an independent count.

# Published multiply-accumulates of the torchvision models (torchvision docs, GMACs / "GFLOPS"
# column), at their default resolution and batch 1.
PUBLISHED_GMACS = {"resnet50": 4.09, "vgg16": 15.47, "inception_v3": 5.71, "mobilenet_v2": 0.30,
                   "vit_b_16": 17.56}

NORM_OPS = {"BatchNormalization", "LayerNormalization", "InstanceNormalization",
            "GroupNormalization", "Softmax", "LogSoftmax"}
POOL_OPS = {"MaxPool", "AveragePool", "LpPool"}
GLOBAL_POOL_OPS = {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}
# Shape and data-movement operators: 0 FLOPs.
MOVE_OPS = {"Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements",
            "GatherND", "Shape", "Size", "Unsqueeze", "Squeeze", "Flatten", "Identity", "Constant",
            "ConstantOfShape", "Expand", "Cast", "Range", "Tile", "Pad", "Dropout"}


def _bind_dims(model, dims):
    for vi in list(model.graph.input) + list(model.graph.output):
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = dims[d.dim_param]


def _shapes(model):
    """name -> tuple of ints (or None where a dimension is unknown) for every typed tensor."""
    out = {}
    g = model.graph
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        t = vi.type.tensor_type
        if not t.HasField("shape"):
            out[vi.name] = None
            continue
        out[vi.name] = tuple(d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim)
    for init in g.initializer:
        out[init.name] = tuple(init.dims)
    return out


def _numel(shape):
    return math.prod(shape)


def node_flops(node, shapes):
    """FLOPs of one operator under the importer's rule; None when a shape is unknown."""
    op = node.op_type
    if op in MOVE_OPS:
        return 0
    outs = [shapes.get(o) for o in node.output if o]
    ins = [shapes.get(i) if i else () for i in node.input]
    if any(s is None or None in s for s in outs[:1]):
        return None
    out0 = outs[0]
    attrs = {a.name: a for a in node.attribute}
    if op == "Conv":
        w = ins[1]
        if w is None or None in w:
            return None
        n, c_out = out0[0], out0[1]
        return 2 * n * c_out * _numel(out0[2:]) * w[1] * _numel(w[2:])
    if op == "MatMul":
        a = ins[0]
        if a is None or None in a:
            return None
        return 2 * _numel(out0) * a[-1]
    if op == "Gemm":
        a = ins[0]
        if a is None or None in a:
            return None
        trans_a = attrs["transA"].i if "transA" in attrs else 0
        k = a[0] if trans_a else a[1]
        return 2 * _numel(out0) * k
    if op in NORM_OPS:
        return 5 * _numel(out0)
    if op in POOL_OPS:
        return _numel(out0) * math.prod(attrs["kernel_shape"].ints)
    if op in GLOBAL_POOL_OPS:
        x = ins[0]
        if x is None or None in x:
            return None
        return _numel(out0) * _numel(x[2:])
    # Everything else (elementwise arithmetic, activations, reductions, comparisons, Where):
    # 1 per output element.
    return _numel(out0)


def check(path, name, batch=1, seq=SEQ):
    import collections

    import onnx
    import onnx.shape_inference

    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    # The data inputs are the ones with a symbolic dimension; every other graph input is a
    # parameter (export_params=False leaves them as inputs without initializers).
    data_inputs = [i.name for i in model.graph.input
                   if any(d.HasField("dim_param") for d in i.type.tensor_type.shape.dim)]
    dims = {"batch": batch, "seq": seq}
    _bind_dims(model, dims)
    inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True,
                                                 data_prop=True)
    g = inferred.graph
    shapes = _shapes(inferred)
    produced = [o for n in g.node for o in n.output if o]
    unknown = [t for t in produced if shapes.get(t) is None or None in shapes[t]]
    ops = collections.Counter(n.op_type for n in g.node)
    params = [i for i in g.input if i.name not in data_inputs]
    param_elems = sum(_numel(shapes[i.name]) for i in params)
    flops_by_op = collections.Counter()
    missing = []
    for n in g.node:
        f = node_flops(n, shapes)
        if f is None:
            missing.append(n.name)
        else:
            flops_by_op[n.op_type] += f
    total = sum(flops_by_op.values())
    print(f"== {name}: {path}")
    print(f"  size {os.path.getsize(path)} bytes, {len(g.node)} nodes, "
          f"{len(g.initializer)} initializers, {len(g.input)} graph inputs "
          f"({len(data_inputs)} data: {', '.join(data_inputs)}; {len(params)} parameters, "
          f"{param_elems} elements)")
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])))
    renamed = [i.name for i in params if i.name.startswith("onnx::")]
    print(f"  parameters: {len(params) - len(renamed)} named after the module, e.g. "
          f"{[i.name for i in params if not i.name.startswith('onnx::')][:3]}; {len(renamed)} "
          f"renamed by folding, e.g. {renamed[:2]}")
    zero = sum(1 for n in g.node if node_flops(n, shapes) == 0)
    print(f"  BatchNormalization {ops.get('BatchNormalization', 0)}, Constant {ops.get('Constant', 0)}"
          f", zero-FLOP (shape/data movement) nodes {zero}, names without a '/' scope "
          f"{sum(1 for n in g.node if '/' not in n.name)} (all Constant: "
          f"{all(n.op_type == 'Constant' for n in g.node if '/' not in n.name)})")
    print(f"  names: {[n.name for n in g.node if n.op_type != 'Constant'][3:6]}")
    print(f"  tensors without a static shape after inference: {len(unknown)}"
          + (f" e.g. {unknown[:5]}" if unknown else ""))
    print(f"  nodes whose FLOPs could not be computed: {len(missing)}"
          + (f" e.g. {missing[:5]}" if missing else ""))
    print(f"  FLOPs (batch {batch}" + (f", seq {seq}" if name in ("bert_base", "gpt2_small") else "")
          + f"): {total:.6e} = "
          + ", ".join(f"{k} {v:.4g}" for k, v in flops_by_op.most_common() if v))
    if name in PUBLISHED_GMACS:
        ref = 2e9 * PUBLISHED_GMACS[name] * batch
        print(f"  vs 2 x published MACs {ref:.4g}: ratio {total / ref:.4f}")
    return total


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "examples",
                                                                       "models")),
                        help="output directory (default: examples/models)")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--keep-batchnorm", action="store_true",
                        help="do not fold BatchNormalization into Conv (TrainingMode.PRESERVE)")
    parser.add_argument("--check", action="store_true",
                        help="only verify and measure existing files (needs the onnx package)")
    parser.add_argument("--batch", type=int, default=1, help="--check: value of `batch`")
    parser.add_argument("--seq", type=int, default=SEQ, help="--check: value of `seq`")
    args = parser.parse_args(argv)
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown))
    os.makedirs(args.out, exist_ok=True)
    for n in names:
        if args.check:
            check(os.path.join(args.out, n + ".onnx"), n, args.batch, args.seq)
            continue
        path = export(n, args.out, args.keep_batchnorm)
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
