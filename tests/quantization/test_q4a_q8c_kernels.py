"""torchedge::linear_q4a / linear_q8c: the runtime kernels against eager.

Each test exports a tiny module calling the op (Affine4Linear /
Int8ChannelLinear, or the op directly for bad arguments), lowers it with
torchedge.to_edge -> to_pte, runs it in the C++ runtime and compares with
the eager reference (affine4_linear.linear_q4a_reference /
int8_channel_linear.linear_q8c_reference). Tolerance: the integer sums are
exact and the activation codes bit-identical, so outputs differ by float
summation order only: |got - want| <= 1e-5 * sum |x * w| + 1e-6, with x the
reference's (dequantized) activations and w its dequantized weight.
Shapes cover decode (1 row, the GEMV loops), a few rows and prefill (the
GEMM loops), ranks 2 and 3, N not a multiple of the SIMD width, K = 32 ..
1536, group sizes 32 / 128, bias or not, activation_bits 8 and 32.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import torchedge
from torchedge import runtime
from torchedge.quantization import affine4_linear, int8_channel_linear
from torchedge.quantization.affine4_linear import (Affine4Linear, dequantize_affine4,
                                                   quantize_activations_per_group)
from torchedge.quantization.int8_channel_linear import Int8ChannelLinear


def _run(module: nn.Module, x: torch.Tensor) -> torch.Tensor:
    ep = torch.export.export(module, (x,))
    program = runtime.load(torchedge.to_edge(ep).to_pte().buffer)
    got = program.forward(x)
    return got[0] if isinstance(got, (list, tuple)) else got


def _linear(n: int, k: int, bias: bool, seed: int) -> nn.Linear:
    torch.manual_seed(seed)
    linear = nn.Linear(k, n, bias=bias)
    with torch.no_grad():
        linear.weight.mul_(3.0).add_(0.02)  # groups that do not straddle 0 evenly
    return linear


def _assert_close(module: nn.Module, weight: torch.Tensor, x: torch.Tensor, bits: int) -> None:
    got = _run(module, x)
    want = module(x)
    assert got.shape == want.shape
    xe = x if bits == 32 else quantize_activations_per_group(x, module.group_size)
    magnitude = xe.abs() @ weight.abs().T
    tolerance = 1e-5 * magnitude + 1e-6
    if module.bias is not None:
        tolerance = tolerance + 1e-6 * module.bias.abs()
    excess = (got - want).abs() - tolerance
    assert excess.max() <= 0, f"max error {(got - want).abs().max():.3g}, worst excess {excess.max():.3g}"


SHAPES = [
    ((1, 576), 576, 32),       # decode, SmolLM2's q / o projection
    ((1, 1536), 67, 32),       # decode, down projection's K, odd N
    ((2, 3, 96), 19, 32),      # rank 3, a few rows
    ((37, 576), 40, 32),       # prefill rows, partial strips
    ((5, 256), 33, 128),
    ((1, 1, 32), 9, 32),       # K = one group
]


@pytest.mark.parametrize("bits", [8, 32])
@pytest.mark.parametrize("shape,n,g", SHAPES)
def test_linear_q4a_matches_eager(shape, n, g, bits):
    linear = _linear(n, shape[-1], bias=len(shape) == 3 or n % 2 == 1, seed=n)
    module = Affine4Linear(linear, g, bits)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(n + 1)) * 2 - 0.3
    weight = dequantize_affine4(module.packed_weight, module.scales, module.mins, g)
    _assert_close(module, weight, x, bits)


@pytest.mark.parametrize("bits", [8, 32])
@pytest.mark.parametrize("shape,n,g", SHAPES)
def test_linear_q8c_matches_eager(shape, n, g, bits):
    linear = _linear(n, shape[-1], bias=n % 2 == 0, seed=n + 7)
    module = Int8ChannelLinear(linear, g, bits)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(n + 2)) * 3
    weight = module.weight_q.float() * module.scales.unsqueeze(1)
    _assert_close(module, weight, x, bits)


def test_outlier_channels_and_zero_rows():
    """A decoder's residual stream: a few huge channels, a zero row."""
    linear = _linear(48, 128, bias=True, seed=3)
    x = torch.randn(4, 128, generator=torch.Generator().manual_seed(4))
    x[:, 5] *= 300.0
    x[2] = 0.0
    for module, weight in ((lambda m: (m, dequantize_affine4(m.packed_weight, m.scales, m.mins, 32)))(
                               Affine4Linear(linear, 32, 8)),
                           (lambda m: (m, m.weight_q.float() * m.scales.unsqueeze(1)))(
                               Int8ChannelLinear(linear, 32, 8))):
        _assert_close(module, weight, x, 8)


class _RawQ4a(nn.Module):
    """linear_q4a with arbitrary (possibly wrong) arguments."""

    def __init__(self, packed, scales, mins, group_size, bits, bias=None):
        super().__init__()
        self.register_buffer("packed", packed)
        self.register_buffer("scales", scales)
        self.register_buffer("mins", mins)
        self.register_buffer("bias", bias)
        self.group_size, self.bits = group_size, bits

    def forward(self, x):
        return torch.ops.torchedge.linear_q4a(x, self.packed, self.scales, self.mins, self.group_size,
                                              self.bits, self.bias)


class _RawQ8c(nn.Module):
    def __init__(self, weight_q, scales, group_size, bits):
        super().__init__()
        self.register_buffer("weight_q", weight_q)
        self.register_buffer("scales", scales)
        self.group_size, self.bits = group_size, bits

    def forward(self, x):
        return torch.ops.torchedge.linear_q8c(x, self.weight_q, self.scales, self.group_size,
                                              self.bits, None)


def test_bad_arguments_are_errors_not_crashes():
    """The fake kernels only compute shapes, so a module with wrong buffers
    exports; the runtime kernel rejects it with a message naming the argument."""
    x = torch.randn(2, 64)
    packed = torch.zeros(3, 32, dtype=torch.uint8)
    half = torch.ones(3, 2, dtype=torch.float16)
    cases = [
        (_RawQ4a(packed, half.float(), half, 32, 8), "scales must be float16"),
        (_RawQ4a(packed, half, half[:, :1].contiguous(), 32, 8), "mins must be float16"),
        (_RawQ4a(packed, half, half, 48, 8), "group_size must be 32, 64, 128 or 256"),
        (_RawQ4a(packed, half, half, 32, 4), "activation_bits must be 8 or 32"),
        (_RawQ4a(packed, half, half, 32, 8, torch.zeros(4)), "bias must be float32 \\[3\\]"),
        (_RawQ8c(torch.zeros(3, 64, dtype=torch.int8), torch.ones(3, 1), 32, 8), "scales must be float32 \\[3\\]"),
        (_RawQ8c(torch.zeros(3, 64, dtype=torch.uint8), torch.ones(3), 32, 8), "weight_q must be int8"),
    ]
    for module, message in cases:
        ep = torch.export.export(module, (x,))
        program = runtime.load(torchedge.to_edge(ep).to_pte().buffer)
        with pytest.raises(runtime.TorchEdgeRuntimeError, match=message):
            program.forward(x)
    # Eager rejects the same modules in its own words.
    with pytest.raises(ValueError, match="scales must be float16"):
        cases[0][0](x)


def test_ops_are_registered_with_out_variants():
    for op in (torch.ops.torchedge.linear_q4a, torch.ops.torchedge.linear_q8c):
        assert "out" in op.overloads()
    registered = set(runtime.registered_kernels())
    assert {"torchedge::linear_q4a.out", "torchedge::linear_q8c.out"} <= registered
    assert affine4_linear.OP_NAME == "linear_q4a" and int8_channel_linear.OP_NAME == "linear_q8c"
