#!/usr/bin/python3
"""Export a small zoo of real DNN graphs to ONNX, without weights, for the dnnplace importer.

Run with Debian's Python (torch 1.13, torchvision 0.14); no network access is needed because
every model is built with random initialization (weights=None) and the parameters are left
out of the files (export_params=False), so each file holds only the graph and the shapes.

    /usr/bin/python3 scripts/export_models.py [--out DIR] [--models resnet50,bert_base,...]
    /usr/bin/python3 scripts/export_models.py --check [--batch B] [--seq S]   # verify, count
                                                # (with dnnplace import onnx: build it first)

Parameters appear as graph inputs (not initializers) named after the module parameter,
e.g. `layer1.0.conv1.weight`, or `onnx::Conv_NNN` when the exporter folded BatchNormalization
into the preceding convolution. The symbolic dimensions are `batch` (all models) and `seq`
(the two language models).
"""

import argparse
import math
import os
import sys

import torch
import torch.nn as nn
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


def _vit_b_16():
    """torchvision's ViT-B/16 as it is. Its shape arithmetic (the patch grid h // patch, the
    class token's expand(n, -1, -1), the attention's head size embed_dim // heads) is computed
    at run time from shapes; ONNX 1.12's data propagation does not follow it, dnnplace's
    importer evaluates it (src/import/shape_values.cpp)."""
    return torchvision.models.vit_b_16(weights=None)


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

# A device on which dnnplace's fpgaLatency is FLOPs / 1e9 ms: its import summary counts them.
FLOP_COUNTER = ('{"name": "flop-counter", "peakFlops": 1e12, "memoryBandwidth": 1e30, '
                '"memory": 1e15, "linkBandwidth": 1e12, "opOverhead": 0}')


def check(path, name, dnnplace, batch=1, seq=SEQ):
    """ONNX's checker, the operator and parameter counts, and dnnplace's own import of the
    file (its FLOP count: the cost model lives in the C++ importer, not here)."""
    import collections
    import subprocess
    import tempfile

    import onnx

    model = onnx.load(path)
    onnx.checker.check_model(model)
    g = model.graph
    data_inputs = [i.name for i in g.input
                   if any(d.HasField("dim_param") for d in i.type.tensor_type.shape.dim)]
    params = [i for i in g.input if i.name not in data_inputs]
    param_elems = sum(math.prod(d.dim_value for d in i.type.tensor_type.shape.dim) for i in params)
    ops = collections.Counter(n.op_type for n in g.node)
    print(f"== {name}: {path}")
    print(f"  size {os.path.getsize(path)} bytes, {len(g.node)} nodes, "
          f"{len(g.initializer)} initializers, {len(g.input)} graph inputs "
          f"({len(data_inputs)} data: {', '.join(data_inputs)}; {len(params)} parameters, "
          f"{param_elems} elements)")
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1])))
    print(f"  names: {[n.name for n in g.node if n.op_type != 'Constant'][3:6]}")
    with tempfile.NamedTemporaryFile("w", suffix=".json") as spec:
        spec.write(FLOP_COUNTER)
        spec.flush()
        dims = ["--dim", f"batch={batch}"]
        if name in ("bert_base", "gpt2_small"):
            dims += ["--dim", f"seq={seq}"]
        run = subprocess.run([dnnplace, "import", "onnx", path, "--device", spec.name,
                              "--accelerators", "1", "--out", os.devnull] + dims,
                             capture_output=True, text=True, check=False)
    print("  dnnplace: " + run.stderr.strip().replace("\n", "\n  dnnplace: "))
    flops = None
    for part in run.stderr.split(","):
        if part.strip().startswith("forward "):
            flops = float(part.split()[1]) * 1e9
    if flops and name in PUBLISHED_GMACS:
        ref = 2e9 * PUBLISHED_GMACS[name] * batch
        print(f"  vs 2 x published MACs {ref:.4g}: ratio {flops / ref:.4f}")
    return run.returncode == 0


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
    parser.add_argument("--dnnplace", default=os.path.normpath(os.path.join(here, "..", "build",
                                                                            "release", "dnnplace")),
                        help="--check: the dnnplace binary (default: build/release/dnnplace)")
    parser.add_argument("--batch", type=int, default=1, help="--check: value of `batch`")
    parser.add_argument("--seq", type=int, default=SEQ, help="--check: value of `seq`")
    args = parser.parse_args(argv)
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown))
    os.makedirs(args.out, exist_ok=True)
    ok = True
    for n in names:
        if args.check:
            ok = check(os.path.join(args.out, n + ".onnx"), n, args.dnnplace, args.batch,
                       args.seq) and ok
            continue
        path = export(n, args.out, args.keep_batchnorm)
        print(f"{path}: {os.path.getsize(path)} bytes")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
