"""to_pte turns x * sigmoid(x) into one aten::silu (passes/silu_fusion.py):
either operand order, after a convolution or on an input; a sigmoid read
elsewhere, or a product with another tensor's sigmoid, stays as it is, and so
does everything with fuse_activations=False. Results match eager on both
kernel libraries (float32: 1e-6 absolute and relative, the SiLU kernels
compute x / (1 + exp(-x)) in one pass), inf, -inf and NaN included.
"""

from __future__ import annotations

import math

import pytest
import torch

import torchedge
from torchedge import runtime

SILU, SIGMOID, MUL = "aten::silu.out", "aten::sigmoid.out", "aten::mul.out"


class Swish(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.conv(x)
        return y * torch.sigmoid(y), torch.sigmoid(x) * x


class NotSwish(torch.nn.Module):
    def forward(self, x: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s = torch.sigmoid(x)
        return x * s + s, x * torch.sigmoid(z)


def _lower(module: torch.nn.Module, inputs: tuple, **options):
    return torchedge.to_edge(torch.export.export(module, inputs)).to_pte(**options)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_x_times_its_sigmoid_becomes_one_silu_and_matches_eager(kernels):
    torch.manual_seed(0)
    module = Swish().eval()
    x = torch.randn(2, 3, 9, 20) * 6
    x[0, 0, 0, :4] = torch.tensor([math.inf, -math.inf, math.nan, -0.0])
    pte = _lower(module, (x,))
    ops = pte.operators["forward"]
    assert SILU in ops and SIGMOID not in ops and MUL not in ops
    got = runtime.load(pte.buffer, kernels=kernels).forward(x)
    with torch.no_grad():
        want = module(x)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6, equal_nan=True)
    plain = _lower(module, (x,), fuse_activations=False).operators["forward"]
    assert SIGMOID in plain and MUL in plain and SILU not in plain


def test_other_products_keep_their_sigmoid():
    x, z = torch.randn(4, 5), torch.randn(4, 5)
    ops = _lower(NotSwish(), (x, z)).operators["forward"]
    assert SILU not in ops and SIGMOID in ops and MUL in ops
