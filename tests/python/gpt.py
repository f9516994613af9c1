"""A small GPT-style decoder (pre-norm blocks, causal self-attention) for the
PyTorch front end's tests and examples."""
import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.heads, self.dim = heads, dim
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(context, context)).bool())

    def forward(self, x):
        b, t, c = x.size(0), x.size(1), self.dim
        parts = self.qkv(x).split(c, dim=2)
        q, k, v = parts[0], parts[1], parts[2]
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        att = att.masked_fill(~self.mask, float("-inf"))  # t == context
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, context)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=256, dim=64, heads=4, layers=4, context=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(1, context, dim) * 0.02)
        self.blocks = nn.Sequential(*[Block(dim, heads, context) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied

    def forward(self, idx):
        x = self.tok(idx) + self.pos  # sequences of the full context
        x = self.blocks(x)
        return self.head(self.ln(x))
