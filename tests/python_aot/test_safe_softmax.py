"""to_pte folds scaled_dot_product_attention's seven-op safe softmax
(_softmax, eq, logical_not, any, logical_not, full_like, where) into
torchedge::safe_softmax (passes/safe_softmax.py). Results match eager on both
kernel libraries at 1 and 2 threads, fully masked queries (zeros) and NaN
scores included; fuse_activations=False keeps the core ATen ops, and a plain
softmax is left alone.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import torchedge
from torchedge import _C, runtime

SAFE = "torchedge::safe_softmax.out"
PATTERN = ("aten::_softmax.out", "aten::eq.Scalar_out", "aten::logical_not.out", "aten::any.out",
           "aten::full_like.out", "aten::where.self_out")
RELATIVE_TOLERANCE = 1e-5


class Attention(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask) + 1


class PlainSoftmax(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, -1)


def _inputs() -> tuple[torch.Tensor, ...]:
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 9, 8) for _ in range(3))
    mask = torch.zeros(2, 3, 9, 9)
    mask[0, 1, 4, :] = -math.inf    # a query that may attend to nothing: zeros
    mask[1, 2, :, :5] = -math.inf   # partly masked rows
    mask[1, 0, 2, 3] = math.nan     # a NaN score: that row is NaN in eager too
    return q, k, v, mask


def _lower(module: torch.nn.Module, inputs: tuple, **options):
    return torchedge.to_edge(torch.export.export(module, inputs)).to_pte(**options)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
@pytest.mark.parametrize("threads", [1, 2])
def test_attention_softmax_is_one_op_and_matches_eager(kernels, threads):
    inputs = _inputs()
    pte = _lower(Attention(), inputs)
    ops = pte.operators["forward"]
    assert SAFE in ops
    assert not set(PATTERN) & set(ops), ops
    _C.set_num_threads(threads)
    try:
        got = runtime.load(pte.buffer, kernels=kernels).forward(*inputs)
    finally:
        _C.set_num_threads(1)
    want = Attention()(*inputs)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    finite = ~torch.isnan(want)
    scale = max(1.0, want[finite].abs().max().item())
    assert (got[finite] - want[finite]).abs().max().item() <= RELATIVE_TOLERANCE * scale
    assert torch.equal(got[0, 1, 4], torch.ones(8))  # attended to nothing: 0 + 1


def test_fuse_activations_false_keeps_core_aten_and_plain_softmax_is_kept():
    inputs = _inputs()
    plain_attention = _lower(Attention(), inputs, fuse_activations=False).operators["forward"]
    assert SAFE not in plain_attention and set(PATTERN) <= set(plain_attention)
    plain = _lower(PlainSoftmax(), (torch.randn(3, 5),)).operators["forward"]
    assert SAFE not in plain and "aten::_softmax.out" in plain
