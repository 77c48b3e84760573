"""Group-wise int4 packing and the eager reference of torchedge's 4-bit linear ops."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from torchedge import quantization as tq
from torchedge.quantization.groupwise import (
    dequantize_int4_groupwise,
    pack_int4,
    quantize_int4_groupwise,
    quantize_int8_per_channel,
    unpack_int4,
)


def test_pack_int4_layout_and_round_trip():
    q = torch.tensor([[-8, 7, 1, -1, 0, 3]], dtype=torch.int8)
    packed = pack_int4(q)
    # byte j = low nibble q[2j] | high nibble q[2j+1] (two's complement nibbles)
    assert packed.dtype == torch.uint8
    assert packed.tolist() == [[0x8 | (0x7 << 4), 0x1 | (0xF << 4), 0x0 | (0x3 << 4)]]
    full = torch.randint(-8, 8, (5, 64), dtype=torch.int8)
    assert torch.equal(unpack_int4(pack_int4(full)), full)


@pytest.mark.parametrize("group_size", [32, 64, 128, 256])
@pytest.mark.parametrize("symmetric", [True, False])
def test_groupwise_quantization_error_is_within_half_a_step(group_size, symmetric):
    torch.manual_seed(0)
    w = torch.randn(8, 512)
    q, scales, zp = quantize_int4_groupwise(w, group_size, symmetric)
    assert scales.shape == (8, 512 // group_size) and int(q.min()) >= -8 and int(q.max()) <= 7
    assert (zp is None) == symmetric
    w_hat = dequantize_int4_groupwise(pack_int4(q), scales, zp, group_size)
    step = scales.repeat_interleave(group_size, dim=1)
    assert ((w - w_hat).abs() <= step * 0.5 + 1e-6).all()


def test_int8_weight_per_channel_is_symmetric_127():
    w = torch.tensor([[1.0, -2.0, 0.5], [0.0, 0.0, 0.0]])
    q, scales = quantize_int8_per_channel(w)
    assert q.dtype == torch.int8 and q[0].tolist() == [64, -127, 32] and q[1].tolist() == [0, 0, 0]
    assert scales[0].item() == pytest.approx(2.0 / 127)


def _reference_8da4w(x, w_hat, bias):
    """The contract's per-token formula, written out row by row."""
    rows = []
    for row in x.reshape(-1, x.shape[-1]):
        lo, hi = min(row.min().item(), 0.0), max(row.max().item(), 0.0)
        scale = torch.tensor(max((hi - lo) / 255.0, torch.finfo(torch.float32).eps), dtype=torch.float32)
        zp = torch.clamp(-128 - torch.round(torch.tensor(lo, dtype=torch.float32) / scale), -128, 127)
        xq = torch.clamp(torch.round(row / scale) + zp, -128, 127)
        rows.append((xq - zp) * scale)
    return torch.nn.functional.linear(torch.stack(rows).reshape(x.shape), w_hat, bias)


@pytest.mark.parametrize("symmetric", [True, False])
def test_linear_ops_match_their_formulas(symmetric):
    torch.manual_seed(0)
    linear = nn.Linear(64, 24)
    x = torch.randn(2, 3, 64)
    q, scales, zp = quantize_int4_groupwise(linear.weight, 32, symmetric)
    packed = pack_int4(q)
    w_hat = dequantize_int4_groupwise(packed, scales, zp, 32)
    y = torch.ops.torchedge.linear_int4_weight_only(x, packed, scales, zp, 32, linear.bias)
    torch.testing.assert_close(y, torch.nn.functional.linear(x, w_hat, linear.bias))
    y = torch.ops.torchedge.linear_8da4w(x, packed, scales, zp, 32, linear.bias)
    torch.testing.assert_close(y, _reference_8da4w(x, w_hat, linear.bias.detach()), rtol=1e-5, atol=1e-5)
    assert y.shape == (2, 3, 24)


@pytest.mark.parametrize("scheme", tq.LINEAR_SCHEMES)
def test_linear_source_transform_stays_close_to_float(scheme):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 32))
    x = torch.randn(4, 128)
    expected = model(x)
    quantized = tq.quantize_linear_weights(model, scheme, group_size=32)
    assert not any(type(m) is nn.Linear for m in quantized.modules())
    got = quantized(x)
    sqnr = tq.sqnr_db(expected, got)
    assert sqnr > (35.0 if scheme == "int8_weight_only" else 15.0), sqnr
    exported = torch.export.export(quantized, (x,))
    torch.testing.assert_close(exported.module()(x), got)


def test_8da4w_blocked_layout_round_trips_and_matches_the_plain_op():
    from torchedge.quantization.groupwise import (pack_int4, pack_int4_blocked, quantize_int4_groupwise,
                                                  unpack_int4_blocked)
    torch.manual_seed(1)
    for n, k, g in [(1, 32, 32), (17, 64, 32), (40, 256, 64), (5, 512, 256)]:
        q, scales, _ = quantize_int4_groupwise(torch.randn(n, k), g)
        blocked = pack_int4_blocked(q, scales, g)
        assert list(blocked.shape) == [(n + 15) // 16, k // g, 64 + 8 * g]
        q2, scales2 = unpack_int4_blocked(blocked, n, g)
        assert torch.equal(q2, q) and torch.equal(scales2, scales)
        x = torch.randn(3, k)
        plain = torch.ops.torchedge.linear_8da4w(x, pack_int4(q), scales, None, g, None)
        assert torch.equal(torch.ops.torchedge.linear_8da4w_packed(x, blocked, n, g, None), plain)


def test_8da4w_packs_symmetric_weights_unless_asked_not_to():
    def layers(**options):
        model = tq.quantize_linear_weights(nn.Sequential(nn.Linear(64, 8)), "8da4w", **options)
        return {type(m).__name__ for m in model.modules()} - {"Sequential"}
    assert layers() == {"Int8DynActInt4WeightPackedLinear"}
    assert layers(packed=False) == {"Int8DynActInt4WeightLinear"}
    assert layers(symmetric=False) == {"Int8DynActInt4WeightLinear"}  # zero points: plain layout


def test_custom_op_names_its_bad_arguments():
    packed = torch.zeros(4, 16, dtype=torch.uint8)  # K = 32
    with pytest.raises(ValueError, match="input has 30 features, the weight expects 32"):
        torch.ops.torchedge.linear_8da4w(torch.randn(1, 30), packed, torch.ones(4, 1), None, 32, None)
    with pytest.raises(ValueError, match="scales must be float32"):
        torch.ops.torchedge.linear_int4_weight_only(torch.randn(1, 32), packed, torch.ones(4, 2), None, 32, None)
