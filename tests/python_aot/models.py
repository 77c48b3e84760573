"""Small models covering what the ahead-of-time compiler must handle.

Each entry of MODELS builds (model, {method: example inputs}); the parity
tests against the runtime reuse them.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in: int = 16, hidden: int = 32, d_out: int = 8) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


class CNN(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.gap(x).flatten(1)
        return self.fc(x)


class CNNMean(CNN):
    """Global pooling written as a mean over the spatial dims."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean(dim=(2, 3)))


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int, use_sdpa: bool) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.use_sdpa = use_sdpa

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if self.use_sdpa:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            scores = scores.masked_fill(~mask, float("-inf"))
            y = torch.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class TransformerBlock(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4, use_sdpa: bool = False) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.ln1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, use_sdpa)
        self.ln2 = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 4 * dim)
        self.ff2 = nn.Linear(4 * dim, dim)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        x = x + self.attn(self.ln1(x))
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


class MultiOutput(nn.Module):
    """Tuple and dict outputs, an output that is an input, a repeated output."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        h = self.fc(x)
        return h, {"sum": h + y, "max": h.max(dim=-1).values, "input": y}, h


class Encoder(nn.Module):
    """Two methods: `encode` and `forward` (= encode, then a head)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 6))
        self.head = nn.Linear(6, 3)

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encode(x))


class SharedWeights(nn.Module):
    """Both methods read the same (large) weight."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(64, 64))
        self.register_buffer("scale", torch.full((64,), 0.5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x @ self.weight) * self.scale

    def project(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x @ self.weight.t())


def _seeded(build: Callable[[], nn.Module]) -> nn.Module:
    torch.manual_seed(0)
    model = build().eval()
    for m in model.modules():  # non-trivial batch-norm statistics
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model


MODELS: dict[str, Callable[[], tuple[nn.Module, dict[str, tuple]]]] = {
    "mlp": lambda: (_seeded(MLP), {"forward": (torch.randn(4, 16),)}),
    "cnn": lambda: (_seeded(CNN), {"forward": (torch.randn(2, 3, 16, 16),)}),
    "cnn_mean": lambda: (_seeded(CNNMean), {"forward": (torch.randn(2, 3, 16, 16),)}),
    "transformer": lambda: (
        _seeded(TransformerBlock), {"forward": (torch.randint(0, 64, (2, 8)),)}
    ),
    "transformer_sdpa": lambda: (
        _seeded(lambda: TransformerBlock(use_sdpa=True)), {"forward": (torch.randint(0, 64, (2, 8)),)}
    ),
    "multi_output": lambda: (
        _seeded(MultiOutput), {"forward": (torch.randn(3, 8), torch.randn(3, 4))}
    ),
    "two_methods": lambda: (
        _seeded(Encoder), {"forward": (torch.randn(5, 12),), "encode": (torch.randn(5, 12),)}
    ),
    "shared_weights": lambda: (
        _seeded(SharedWeights), {"forward": (torch.randn(2, 64),), "project": (torch.randn(2, 64),)}
    ),
}
