"""The runtime's quantized kernels (kernels/quantized) against eager PyTorch.

Each test exports a tiny graph calling the reference ops
(torch.ops.quantized_decomposed.* from torch/ao/quantization/fx/_decomposed.py,
and torchedge's own 4-bit linear ops), lowers it with torchedge.to_edge ->
to_pte, runs it in the C++ runtime and compares:
  - quantize / dequantize / choose_qparams: bit-exact (torch.equal);
  - 4-bit linear: within float summation-order error of the eager reference.
Inputs include exact rounding ties (x / scale = k + 0.5) and values far
outside the quantized range.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

import torchedge
from torchedge import runtime

REPO = Path(__file__).resolve().parents[2]
Q = torch.ops.quantized_decomposed
INT_RANGES = {torch.int8: (-128, 127), torch.uint8: (0, 255), torch.int16: (-32768, 32767),
              torch.int32: (-2**31, 2**31 - 1)}


def _run(module: torch.nn.Module, *inputs: torch.Tensor):
    ep = torch.export.export(module, inputs)
    program = runtime.load(torchedge.to_edge(ep).to_pte().buffer)
    got = program.forward(*inputs)
    want = module(*inputs)
    return (got if isinstance(got, (list, tuple)) else [got],
            want if isinstance(want, (list, tuple)) else [want])


def _assert_bit_exact(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        mismatch = (g != w) & ~(torch.isnan(g.float()) & torch.isnan(w.float()))
        assert not mismatch.any(), f"{int(mismatch.sum())} of {g.numel()} differ: {g[mismatch][:5]} vs {w[mismatch][:5]}"


def _ties_and_random(shape, scale: float, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 40 * scale
    ties = (torch.randint(-300, 300, shape, generator=g).float() + 0.5) * scale
    return torch.where(torch.rand(shape, generator=g) < 0.3, ties, x)


class PerTensor(torch.nn.Module):
    def __init__(self, scale, zp, dtype, out_dtype=None):
        super().__init__()
        self.args = (scale, zp, *INT_RANGES[dtype], dtype)
        self.out_dtype = out_dtype

    def forward(self, x):
        q = Q.quantize_per_tensor.default(x, *self.args)
        return q, Q.dequantize_per_tensor.default(q, *self.args, out_dtype=self.out_dtype)


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32])
def test_per_tensor_bit_exact(dtype):
    scale, zp = 0.0375, 3 if dtype != torch.uint8 else 128
    x = _ties_and_random((6, 33), scale)
    _assert_bit_exact(*_run(PerTensor(scale, zp, dtype), x))


def test_per_tensor_bfloat16_output():
    x = _ties_and_random((5, 16), 0.1, seed=1)
    _assert_bit_exact(*_run(PerTensor(0.1, -2, torch.int8, torch.bfloat16), x))


class PerTensorTensorArgs(torch.nn.Module):
    """choose_qparams.tensor -> quantize/dequantize_per_tensor.tensor (dynamic quantization)."""

    def forward(self, x):
        scale, zp = Q.choose_qparams.tensor(x, -128, 127, 1e-5, torch.int8)
        q = Q.quantize_per_tensor.tensor(x, scale, zp, -128, 127, torch.int8)
        return scale, zp, q, Q.dequantize_per_tensor.tensor(q, scale, zp, -128, 127, torch.int8)


def test_choose_qparams_and_tensor_overloads_bit_exact():
    x = torch.randn(7, 20, generator=torch.Generator().manual_seed(2)) * 3 + 0.5
    _assert_bit_exact(*_run(PerTensorTensorArgs(), x))


class PerChannel(torch.nn.Module):
    def __init__(self, axis, channels, scales_dtype):
        super().__init__()
        g = torch.Generator().manual_seed(axis + 10)
        self.axis = axis
        self.register_buffer("scales", (torch.rand(channels, generator=g) * 0.1 + 0.01).to(scales_dtype))
        self.register_buffer("zps", torch.randint(-5, 5, (channels,), generator=g))

    def forward(self, x):
        q = Q.quantize_per_channel.default(x, self.scales, self.zps, self.axis, -128, 127, torch.int8)
        return q, Q.dequantize_per_channel.default(q, self.scales, self.zps, self.axis, -128, 127, torch.int8)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("scales_dtype", [torch.float32, torch.float64])
def test_per_channel_bit_exact(axis, scales_dtype):
    shape = (3, 5, 4)
    x = _ties_and_random(shape, 0.05, seed=3)
    _assert_bit_exact(*_run(PerChannel(axis, shape[axis], scales_dtype), x))


class PerToken(torch.nn.Module):
    def forward(self, x):
        scales, zps = Q.choose_qparams_per_token_asymmetric.default(x, torch.int8)
        q = Q.quantize_per_token.default(x, scales, zps, -128, 127, torch.int8)
        return scales, zps, q, Q.dequantize_per_token.default(q, scales, zps, -128, 127, torch.int8,
                                                              torch.float32)


def test_per_token_bit_exact():
    x = torch.randn(2, 5, 24, generator=torch.Generator().manual_seed(4)) * 2
    x[0, 1] = 0.0  # an all-zero token
    x[1, 2] = x[1, 2].abs() + 0.1  # an all-positive token
    _assert_bit_exact(*_run(PerToken(), x))


class PerGroup(torch.nn.Module):
    def __init__(self, with_zero_points):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.register_buffer("w", torch.randint(-8, 8, (6, 64), generator=g, dtype=torch.int8))
        self.register_buffer("scales", torch.rand(6, 2, generator=g) * 0.1)
        self.register_buffer("zps", torch.randint(-3, 3, (6, 2), generator=g, dtype=torch.int32)
                             if with_zero_points else None)

    def forward(self, x):
        w = Q.dequantize_per_channel_group.default(self.w, self.scales, self.zps, -8, 7, torch.int8,
                                                   32, torch.float32)
        return (w + x,)


@pytest.mark.parametrize("with_zero_points", [True, False])
def test_per_channel_group_bit_exact(with_zero_points):
    _assert_bit_exact(*_run(PerGroup(with_zero_points), torch.zeros(6, 64)))


class Int4Linear(torch.nn.Module):
    def __init__(self, op, n, k, group_size, symmetric):
        super().__init__()
        from torchedge.quantization.groupwise import pack_int4, quantize_int4_groupwise
        g = torch.Generator().manual_seed(n + k)
        q, scales, zps = quantize_int4_groupwise(torch.randn(n, k, generator=g), group_size, symmetric)
        self.op, self.group_size = op, group_size
        self.register_buffer("packed", pack_int4(q))
        self.register_buffer("scales", scales)
        self.register_buffer("zps", zps)
        self.register_buffer("bias", torch.randn(n, generator=g))

    def forward(self, x):
        return getattr(torch.ops.torchedge, self.op)(x, self.packed, self.scales, self.zps,
                                                     self.group_size, self.bias)


@pytest.mark.parametrize("op", ["linear_int4_weight_only", "linear_8da4w"])
@pytest.mark.parametrize("m,k,n,group_size,symmetric", [(1, 256, 33, 32, True), (5, 128, 17, 64, False),
                                                         (3, 512, 9, 256, True)])
def test_int4_linear_matches_eager_reference(op, m, k, n, group_size, symmetric):
    import torchedge.quantization.int4_linear_ops  # noqa: F401  (defines torch.ops.torchedge.*)
    x = torch.randn(m, k, generator=torch.Generator().manual_seed(m))
    (got,), (want,) = _run(Int4Linear(op, n, k, group_size, symmetric), x)
    # Same integers (8da4w quantizes activations exactly as the reference);
    # only float summation order differs.
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


class Int4PackedLinear(torch.nn.Module):
    """torchedge::linear_8da4w_packed on a symmetric weight in the blocked layout."""

    def __init__(self, n, k, group_size, bias):
        super().__init__()
        from torchedge.quantization.groupwise import pack_int4_blocked, quantize_int4_groupwise
        g = torch.Generator().manual_seed(n * 3 + k)
        q, scales, _ = quantize_int4_groupwise(torch.randn(n, k, generator=g), group_size, True)
        self.n, self.group_size = n, group_size
        self.register_buffer("packed", pack_int4_blocked(q, scales, group_size))
        self.register_buffer("bias", torch.randn(n, generator=g) if bias else None)

    def forward(self, x):
        return torch.ops.torchedge.linear_8da4w_packed(x, self.packed, self.n, self.group_size, self.bias)


@pytest.mark.parametrize("shape,n,group_size,bias", [
    ((1, 576), 576, 32, False),     # decode, SmolLM2's q/o projection
    ((7, 576), 192, 32, True),      # prefill rows, k/v
    ((2, 5, 1536), 33, 64, True),   # 3-d input, N not a multiple of 16
    ((3, 512), 9, 256, False),
    ((130, 128), 40, 128, True),    # many rows: every row tile
])
def test_int4_packed_linear_matches_eager_reference(shape, n, group_size, bias):
    import torchedge.quantization.int4_linear_ops  # noqa: F401  (defines torch.ops.torchedge.*)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(n)) * 2 - 0.3
    (got,), (want,) = _run(Int4PackedLinear(n, shape[-1], group_size, bias), x)
    # The same integers as the reference; only float summation order differs.
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_listing_names_exactly_the_registered_quantized_kernels():
    import tomllib
    inc = (REPO / "kernels" / "quantized" / "quantized_kernels.inc").read_text()
    registered = re.findall(r'^TE_QUANTIZED_KERNEL\("([^"]+)"', inc, re.M)
    listing = tomllib.loads((REPO / "kernels" / "quantized" / "operators.toml").read_text())
    assert [e["name"] for e in listing["operator"]] == registered
    assert set(registered) <= set(runtime.registered_kernels())


class DynamicLinear(torch.nn.Module):
    """torchedge::linear_dynamic_int8 on a random symmetric int8 weight."""

    def __init__(self, n: int, k: int, bias: bool):
        super().__init__()
        g = torch.Generator().manual_seed(n * 7 + k)
        self.register_buffer("w", torch.randint(-127, 128, (n, k), generator=g, dtype=torch.int8))
        self.register_buffer("s", torch.rand(n, generator=g) * 0.01 + 0.001)
        self.register_buffer("b", torch.randn(n, generator=g) if bias else None)

    def forward(self, x):
        return torch.ops.torchedge.linear_dynamic_int8(x, self.w, self.s, self.b)


@pytest.mark.parametrize("shape,n,bias", [((1, 64), 7, True), ((3, 5, 100), 33, False),
                                          ((128, 384), 48, True), ((7, 15), 16, True),
                                          ((2, 777), 40, False)])
def test_linear_dynamic_int8_matches_eager_reference(shape, n, bias):
    import torchedge.quantization.int8_linear_ops  # noqa: F401  (defines the op)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(n)) * 3 - 0.5
    module = DynamicLinear(n, shape[-1], bias)
    (got,), (want,) = _run(module, x)
    # The same integers (activation quantization is bit-exact, the weights
    # are the weights); the kernel sums them exactly in int32 and scales
    # once, the reference rounds every float product and partial sum.
    scale = want.abs().amax().clamp(min=1.0)
    torch.testing.assert_close(got, want, rtol=0, atol=2e-6 * shape[-1] ** 0.5 * float(scale))


def test_linear_dynamic_int8_eager_reference_is_the_five_op_composition():
    from torchedge.quantization.int8_linear_ops import FLOAT32_EPS
    module = DynamicLinear(9, 20, True)
    x = torch.randn(4, 20, generator=torch.Generator().manual_seed(3))
    scale, zp = Q.choose_qparams.tensor(x, -128, 127, FLOAT32_EPS, torch.int8)
    xq = Q.quantize_per_tensor.tensor(x, scale, zp, -128, 127, torch.int8)
    xdq = Q.dequantize_per_tensor.tensor(xq, scale, zp, -128, 127, torch.int8)
    zero_points = torch.zeros(9, dtype=torch.int64)
    wdq = Q.dequantize_per_channel(module.w, module.s, zero_points, 0, -127, 127, torch.int8)
    assert torch.equal(module(x), torch.nn.functional.linear(xdq, wdq, module.b))
