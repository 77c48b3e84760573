"""torchedge's 4-bit group-wise linear operators (torch custom ops).

    torchedge::linear_int4_weight_only(input, packed_weight, scales, zero_points, group_size, bias)
    torchedge::linear_8da4w(input, packed_weight, scales, zero_points, group_size, bias)
    torchedge::linear_8da4w_packed(input, packed_weight, out_features, group_size, bias)

and their `.out` overloads (the runtime kernels' names; the emitter maps
functional -> out like any ATen op). Weight format: see groupwise.py.

The CPU implementations here are the eager reference the runtime kernels
match (the quantization contract):
  weight-only: out = input @ dequant(W)^T + bias in float32;
  8da4w: each row of `input` (over K) is quantized to asymmetric int8:
    lo = min(min(x), 0), hi = max(max(x), 0), scale = max((hi - lo) / 255, eps_f32),
    zp = clamp(-128 - round(lo / scale), -128, 127), xq = clamp(round(x / scale) + zp, -128, 127),
  then out = ((xq - zp) * scale) @ dequant(W)^T + bias.
linear_8da4w_packed is linear_8da4w for a symmetric weight stored in the
blocked layout (groupwise.pack_int4_blocked: scales inside the records, 16
rows interleaved for the SIMD loops); its reference unpacks the layout and
runs linear_8da4w's reference, so the two agree bit for bit in eager.
The fake kernels give export the output shape: input.shape[:-1] + [N].
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F

from torchedge.quantization.groupwise import (
    check_group_size,
    dequantize_int4_groupwise,
    pack_int4,
    unpack_int4_blocked,
)

NAMESPACE = "torchedge"
_ARGUMENTS = ("Tensor input, Tensor packed_weight, Tensor scales, Tensor? zero_points, "
              "int group_size, Tensor? bias")
OP_NAMES = ("linear_int4_weight_only", "linear_8da4w")
PACKED_OP_NAME = "linear_8da4w_packed"
_PACKED_ARGUMENTS = "Tensor input, Tensor packed_weight, int out_features, int group_size, Tensor? bias"
_FLOAT32_EPS = torch.finfo(torch.float32).eps

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _check(input: torch.Tensor, packed_weight: torch.Tensor, scales: torch.Tensor,
           zero_points: Optional[torch.Tensor], group_size: int, bias: Optional[torch.Tensor],
           op: str) -> int:
    """Validates shapes and dtypes; returns N."""
    where = f"torchedge::{op}"
    if packed_weight.dtype != torch.uint8 or packed_weight.dim() != 2:
        raise ValueError(f"{where}: packed_weight must be uint8 [N, K/2], got {packed_weight.dtype} "
                         f"{list(packed_weight.shape)}")
    n, k = packed_weight.shape[0], packed_weight.shape[1] * 2
    check_group_size(k, group_size, where)
    if input.shape[-1] != k:
        raise ValueError(f"{where}: input has {input.shape[-1]} features, the weight expects {k}")
    if input.dtype != torch.float32:
        raise ValueError(f"{where}: input must be float32, got {input.dtype}")
    groups = [n, k // group_size]
    if scales.dtype != torch.float32 or list(scales.shape) != groups:
        raise ValueError(f"{where}: scales must be float32 {groups}, got {scales.dtype} {list(scales.shape)}")
    if zero_points is not None and (zero_points.dtype != torch.int8 or list(zero_points.shape) != groups):
        raise ValueError(f"{where}: zero_points must be int8 {groups}, got {zero_points.dtype} "
                         f"{list(zero_points.shape)}")
    if bias is not None and list(bias.shape) != [n]:
        raise ValueError(f"{where}: bias must have shape [{n}], got {list(bias.shape)}")
    return n


def quantize_per_token_int8(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(xq int8, scale float32 [..., 1], zp float32 [..., 1]) per row over the last dim."""
    lo = x.amin(dim=-1, keepdim=True).clamp(max=0.0)
    hi = x.amax(dim=-1, keepdim=True).clamp(min=0.0)
    scale = ((hi - lo) / 255.0).clamp(min=_FLOAT32_EPS)
    zp = torch.clamp(-128.0 - torch.round(lo / scale), -128.0, 127.0)
    xq = torch.clamp(torch.round(x / scale) + zp, -128.0, 127.0)
    return xq.to(torch.int8), scale, zp


def linear_int4_weight_only_reference(input, packed_weight, scales, zero_points, group_size, bias):
    _check(input, packed_weight, scales, zero_points, group_size, bias, "linear_int4_weight_only")
    weight = dequantize_int4_groupwise(packed_weight, scales, zero_points, group_size)
    return F.linear(input, weight, bias)


def linear_8da4w_reference(input, packed_weight, scales, zero_points, group_size, bias):
    _check(input, packed_weight, scales, zero_points, group_size, bias, "linear_8da4w")
    xq, scale, zp = quantize_per_token_int8(input)
    x = (xq.to(torch.float32) - zp) * scale
    weight = dequantize_int4_groupwise(packed_weight, scales, zero_points, group_size)
    return F.linear(x, weight, bias)


def linear_8da4w_packed_reference(input, packed_weight, out_features, group_size, bias):
    where = "torchedge::linear_8da4w_packed"
    try:
        q, scales = unpack_int4_blocked(packed_weight, out_features, group_size)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return linear_8da4w_reference(input, pack_int4(q), scales, None, group_size, bias)


def _packed_fake(input, packed_weight, out_features, group_size, bias):
    return input.new_empty((*input.shape[:-1], out_features))


def _fake(input, packed_weight, scales, zero_points, group_size, bias):
    return input.new_empty((*input.shape[:-1], packed_weight.shape[0]))


def _register() -> None:
    references = {"linear_int4_weight_only": linear_int4_weight_only_reference,
                  "linear_8da4w": linear_8da4w_reference}
    for name in OP_NAMES:
        packet = getattr(torch.ops, NAMESPACE)
        if hasattr(packet, name):  # module reloaded: already registered
            continue
        _library.define(f"{name}({_ARGUMENTS}) -> Tensor")
        _library.define(f"{name}.out({_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
        _library.impl(name, references[name], "CompositeExplicitAutograd")
        torch.library.register_fake(f"{NAMESPACE}::{name}", _fake, lib=_library)
    if not hasattr(getattr(torch.ops, NAMESPACE), PACKED_OP_NAME):
        _library.define(f"{PACKED_OP_NAME}({_PACKED_ARGUMENTS}) -> Tensor")
        _library.define(f"{PACKED_OP_NAME}.out({_PACKED_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
        _library.impl(PACKED_OP_NAME, linear_8da4w_packed_reference, "CompositeExplicitAutograd")
        torch.library.register_fake(f"{NAMESPACE}::{PACKED_OP_NAME}", _packed_fake, lib=_library)


_register()
