"""Models of the dynamic-shape, mutable-state and control-flow tests.

Plain PyTorch (no torchedge import), so the upstream peer
(tests/interop/stateful_peer.py) can build the same models by name.
`build(name)` returns (module, example_args, dynamic_shapes) with weights
seeded by the name, so both processes get identical modules.
"""

from __future__ import annotations

import math
import zlib
from typing import Any, Callable

import torch
from torch import nn
from torch.export import Dim


class SmallCNN(nn.Module):
    """conv/bn/relu/maxpool, conv/bn/relu/global average pool, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.flatten(self.features(x), 1))


class TransformerBlock(nn.Module):
    """Token embedding + learned positions, pre-norm causal self-attention
    (matmul, softmax) and a GELU MLP, for tokens [batch, seq]."""

    # Tables longer than the exported bound (64): slicing a dim to its full
    # length is a special case export would have to guard against.
    def __init__(self, vocab: int = 100, dim: int = 32, heads: int = 4, max_len: int = 128) -> None:
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(max_len, dim) * 0.02)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.register_buffer("causal", torch.ones(max_len, max_len, dtype=torch.bool).tril())

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        b, s = tokens.shape
        x = self.embed(tokens) + self.pos[:s]
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=-1)
        d = x.shape[-1] // self.heads
        q, k, v = (t.reshape(b, s, self.heads, d).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        scores = scores.masked_fill(~self.causal[:s, :s], float("-inf"))
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, -1)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class SizeArithmetic(nn.Module):
    """Python arithmetic on dynamic sizes: %, -, //, +, float(), * (the
    executorch_prim kernels), feeding a pad width and a tensor size."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = x.shape[1]
        padded = nn.functional.pad(x, (0, (4 - n % 4) % 4))
        scaled = x.new_ones(x.shape[0], n // 3 + 1) * (n * 0.5)
        return padded, scaled


class Counter(nn.Module):
    """A running counter: state that eager keeps across calls."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.tensor(5, dtype=torch.int64))
        self.register_buffer("total", torch.zeros(3))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.count += 1
        self.total.add_(x)
        return self.count * 10, self.total * 1.0


class IndexPutCache(nn.Module):
    """A KV-cache-like buffer written with index_put_ at positions from an
    input, then read by attention over the whole cache."""

    def __init__(self, length: int = 8, dim: int = 4) -> None:
        super().__init__()
        self.register_buffer("cache", torch.randn(length, dim))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.cache.index_put_((pos,), x)
        attention = torch.softmax(x @ self.cache.transpose(0, 1), dim=-1)
        return attention @ self.cache, self.cache.clone()


class HeadsCache(nn.Module):
    """A llama-style cache [1, heads, length, dim] written as
    `cache[:, :, pos] = k` (index_put with leading None indices)."""

    def __init__(self, heads: int = 2, length: int = 6, dim: int = 3) -> None:
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(1, heads, length, dim))

    def forward(self, k: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.k_cache[:, :, pos] = k
        return self.k_cache.sum(dim=2)


class CopyCache(nn.Module):
    """A cache written with copy_: the row at `pos` takes x, the rest stays."""

    def __init__(self, length: int = 5, dim: int = 3) -> None:
        super().__init__()
        self.register_buffer("cache", torch.arange(length * dim, dtype=torch.float32).reshape(length, dim))
        self.register_buffer("rows", torch.arange(length).unsqueeze(-1))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.cache.copy_(torch.where(self.rows == pos, x, self.cache))
        return self.cache.mean(dim=0)


class Histogram(nn.Module):
    """index_put_ with accumulate=True and repeated positions (float and
    int64 buffers)."""

    def __init__(self, bins: int = 5) -> None:
        super().__init__()
        self.register_buffer("sums", torch.zeros(bins, 2))
        self.register_buffer("counts", torch.zeros(bins, dtype=torch.int64))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.sums.index_put_((pos,), x, accumulate=True)
        self.counts.index_put_((pos,), torch.ones_like(pos), accumulate=True)
        return self.sums * 1.0, self.counts * 1


class DataCond(nn.Module):
    """torch.cond on a predicate computed from the data."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def positive(x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.linear(x)) * 2.0

        def negative(x: torch.Tensor) -> torch.Tensor:
            return torch.tanh(x) - 1.0

        return torch.cond(x.sum() > 0, positive, negative, (x,)) + 0.5


class NestedCond(nn.Module):
    """Nested torch.cond, two results, an identity branch."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        def inner_true(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return x * y, y.clone()

        def inner_false(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return x + y, y - 1.0

        def outer_true(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return torch.cond(y.sum() > 0, inner_true, inner_false, (x, y))

        def outer_false(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return x.neg(), y * 3.0

        a, b = torch.cond(x.amax() > 0.5, outer_true, outer_false, (x, y))
        return a + 1.0, b


class ShapeCond(nn.Module):
    """torch.cond on a dynamic size (a SymBool predicate)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.shape[0] > 4, lambda x: x.sum(0, keepdim=True) * 2.0,
                          lambda x: x.amax(0, keepdim=True), (x,))


def _seeded(name: str, make: Callable[[], nn.Module]) -> nn.Module:
    torch.manual_seed(zlib.crc32(name.encode()))
    module = make().eval()
    for bn in module.modules():
        if isinstance(bn, nn.BatchNorm2d):  # non-trivial running statistics
            with torch.no_grad():
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 1.5)
    return module


def build(name: str) -> tuple[nn.Module, tuple, Any]:
    """(module, example args, dynamic_shapes) of the named test model."""
    if name == "cnn":
        return (_seeded(name, SmallCNN), (torch.randn(2, 3, 16, 16),),
                ({0: Dim("batch", max=8)},))
    if name == "transformer":
        return (_seeded(name, TransformerBlock), (torch.randint(0, 100, (1, 8)),),
                ({1: Dim("seq", max=64)},))
    if name == "transformer_batch":
        return (_seeded(name, TransformerBlock), (torch.randint(0, 100, (2, 8)),),
                ({0: Dim("batch", max=4), 1: Dim("seq", max=64)},))
    if name == "size_arithmetic":
        return (_seeded(name, SizeArithmetic), (torch.randn(2, 6),),
                ({0: Dim("batch", max=4), 1: Dim("width", min=3, max=20)},))
    if name == "counter":
        return _seeded(name, Counter), (torch.randn(3),), None
    if name == "index_put_cache":
        return _seeded(name, IndexPutCache), (torch.randn(1, 4), torch.tensor([2])), None
    if name == "heads_cache":
        return _seeded(name, HeadsCache), (torch.randn(1, 2, 1, 3), torch.tensor([1])), None
    if name == "copy_cache":
        return _seeded(name, CopyCache), (torch.randn(3), torch.tensor(1)), None
    if name == "histogram":
        return _seeded(name, Histogram), (torch.randn(3, 2), torch.tensor([1, 1, 4])), None
    if name == "data_cond":
        return _seeded(name, DataCond), (torch.randn(2, 4),), None
    if name == "nested_cond":
        return _seeded(name, NestedCond), (torch.randn(3), torch.randn(3)), None
    if name == "shape_cond":
        return _seeded(name, ShapeCond), (torch.randn(6, 3),), ({0: Dim("rows", max=8)},)
    if name == "prefill_cache":
        rows = Dim("rows", max=4)
        return (_seeded(name, PrefillCache), (torch.randn(2, 8), torch.tensor([0, 1])),
                ({0: rows}, {0: rows}))
    raise KeyError(name)


class PrefillCache(nn.Module):
    """A cache written with a dynamic number of rows at once (prefill), at
    positions given by an input, then attended over: dynamic shapes and
    mutable state together."""

    def __init__(self, length: int = 16, dim: int = 8) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(length, dim))
        self.query = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.cache.index_put_((pos,), x)
        scores = self.query(x) @ self.cache.transpose(0, 1)
        return torch.softmax(scores, dim=-1) @ self.cache
