"""Small models covering the foundation's operator set and program shapes."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.models.registry import ModelSpec, register


class MLP(nn.Module):
    def __init__(self, d_in: int = 64, hidden: int = 128, d_out: int = 10) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        x = torch.sigmoid(self.fc2(x)) * x
        return self.fc3(x)


class SmallCNN(nn.Module):
    """Conv + batch norm + ReLU/Hardtanh + max/avg pooling + mean + linear."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=1, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.dw = nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.fc = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.hardtanh(self.bn2(self.conv2(x))), 2)
        x = torch.relu(self.dw(x)) + x
        return self.fc(x.mean(dim=(2, 3)))


class TransformerBlock(nn.Module):
    """Pre-norm encoder block over token ids: embedding, MHA, GELU MLP."""

    def __init__(self, vocab: int = 100, d: int = 64, heads: int = 4, seq: int = 16) -> None:
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def attention(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, s, d))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.pos
        x = x + self.attention(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class MultiOutput(nn.Module):
    """Returns a tuple of three tensors of different shapes and dtypes."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x: torch.Tensor):
        y = self.fc(x)
        probs = torch.log_softmax(y, dim=-1)
        positive = y > 0
        return y, probs, torch.where(positive, y, torch.zeros_like(y)).sum(dim=-1)


class TwoMethods(nn.Module):
    """An encoder with `forward` (classify) and `encode` (features) methods."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(32, 16)
        self.head = nn.Linear(16, 4)
        self.other = nn.Linear(8, 8)

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.encoder(x))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.head(self.encode(x)) - self.other(y).mean(dim=-1, keepdim=True)


class SharedConstants(nn.Module):
    """Both methods use the same weight matrix: it must be stored once."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(64, 64))
        self.bias = nn.Parameter(torch.randn(64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias).relu()

    def project(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight) * 0.5


@register("mlp", "3-layer MLP with ReLU and sigmoid gating")
def _mlp() -> ModelSpec:
    return ModelSpec("mlp", "MLP", MLP(), {"forward": (torch.randn(4, 64),)})


@register("small_cnn", "CNN with batch norm, pooling, depthwise conv, mean and linear")
def _small_cnn() -> ModelSpec:
    return ModelSpec("small_cnn", "small CNN", SmallCNN(), {"forward": (torch.randn(2, 3, 32, 32),)})


@register("transformer_block", "transformer encoder block with embedding and causal attention")
def _transformer_block() -> ModelSpec:
    return ModelSpec("transformer_block", "transformer block", TransformerBlock(),
                     {"forward": (torch.randint(0, 100, (2, 16)),)})


@register("multi_output", "module returning a tuple of three outputs")
def _multi_output() -> ModelSpec:
    return ModelSpec("multi_output", "several outputs", MultiOutput(),
                     {"forward": (torch.randn(3, 16),)})


@register("two_methods", "module exporting forward and encode")
def _two_methods() -> ModelSpec:
    return ModelSpec("two_methods", "two methods", TwoMethods(),
                     {"forward": (torch.randn(2, 32), torch.randn(2, 8)),
                      "encode": (torch.randn(5, 32),)},
                     methods=("forward", "encode"))


@register("shared_constants", "two methods sharing one weight matrix")
def _shared_constants() -> ModelSpec:
    return ModelSpec("shared_constants", "shared constants", SharedConstants(),
                     {"forward": (torch.randn(2, 64),), "project": (torch.randn(3, 64),)},
                     methods=("forward", "project"))
