"""torchedge's fused dynamic int8 linear operator (a torch custom op).

    torchedge::linear_dynamic_int8(input, weight_q, weight_scales, bias) -> Tensor

and its `.out` overload (the runtime kernel's name,
kernels/quantized/op_linear_dynamic_int8.cpp). It is the dynamic int8
linear that PT2E's dynamic flow emits as five ops, in one:

    scale, zp = choose_qparams.tensor(input, -128, 127, float32 eps, int8)   # per tensor
    x = dequantize_per_tensor(quantize_per_tensor(input, scale, zp, -128, 127, int8), ...)
    w = dequantize_per_channel(weight_q, weight_scales, None, axis=0, ...)  # symmetric int8
    out = linear(x, w, bias)

The CPU implementation below is exactly that composition (so the eager
quantized reference is unchanged by the fusion); the runtime kernel
computes the same integers and differs by float rounding only (it sums in
int32). weight_q: int8 [N, K]; weight_scales: float32 [N]; bias: float32
[N] or None; input: float32 [..., K].

    torchedge::linear_dynamic_int8_packed(input, weight_packed, weight_scales, bias)

is the same operator with the weight stored in the runtime GEMM's strip
layout (`pack_int8_strips`; kernels/quantized/support/int8_gemm_f32.h), so
the kernel does not reorder it on every call: columns in strips of 16
(the last one padded with zero columns), within a strip K in pairs (K
padded to even with zeros), within a pair the 16 columns, within a column
the pair's two k. int8 [ceil(N / 16), round_up(K, 2) * 16]; N is
weight_scales' length. Its reference unpacks (exactly) and runs the
composition above.

    torchedge::linear_dynamic_int8_packed_split(input, weight_packed, weight_scales,
                                                bias, int[] sizes) -> Tensor[]

is several such layers on one input (Q, K, V): layer j has sizes[j] output
columns and its own strips (pack_int8_strips of its weight), the layers'
strips concatenated along dim 0, scales and biases concatenated; it returns
one tensor per layer, each exactly linear_dynamic_int8_packed of that layer.
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines quantized_decomposed)
import torch.nn.functional as F

NAMESPACE = "torchedge"
OP_NAME = "linear_dynamic_int8"
_ARGUMENTS = "Tensor input, Tensor weight_q, Tensor weight_scales, Tensor? bias"
FLOAT32_EPS = torch.finfo(torch.float32).eps

PACKED_OP_NAME = "linear_dynamic_int8_packed"
_PACKED_ARGUMENTS = "Tensor input, Tensor weight_packed, Tensor weight_scales, Tensor? bias"
STRIP = 16  # columns per strip (the runtime GEMM's tile width)

SPLIT_OP_NAME = "linear_dynamic_int8_packed_split"
_SPLIT_ARGUMENTS = _PACKED_ARGUMENTS + ", int[] sizes"

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def pack_int8_strips(weight_q: torch.Tensor) -> torch.Tensor:
    """int8 [N, K] -> the strip layout, int8 [ceil(N / 16), round_up(K, 2) * 16]."""
    if weight_q.dtype != torch.int8 or weight_q.dim() != 2:
        raise ValueError(f"pack_int8_strips: weight must be int8 [N, K], got {weight_q.dtype} "
                         f"{list(weight_q.shape)}")
    n, k = weight_q.shape
    strips, kp = -(-n // STRIP), k + (k % 2)
    padded = torch.zeros(strips * STRIP, kp, dtype=torch.int8)
    padded[:n, :k] = weight_q
    return padded.reshape(strips, STRIP, kp // 2, 2).permute(0, 2, 1, 3).reshape(
        strips, kp * STRIP).contiguous()


def unpack_int8_strips(weight_packed: torch.Tensor, n: int, k: int) -> torch.Tensor:
    """The inverse of pack_int8_strips for a weight of n columns and k inputs."""
    strips, kp = -(-n // STRIP), k + (k % 2)
    if weight_packed.dtype != torch.int8 or list(weight_packed.shape) != [strips, kp * STRIP]:
        raise ValueError(f"torchedge::{PACKED_OP_NAME}: weight_packed must be int8 "
                         f"[{strips}, {kp * STRIP}] for N = {n}, K = {k}, got "
                         f"{weight_packed.dtype} {list(weight_packed.shape)}")
    full = weight_packed.reshape(strips, kp // 2, STRIP, 2).permute(0, 2, 1, 3)
    return full.reshape(strips * STRIP, kp)[:n, :k]


def _check(input: torch.Tensor, weight_q: torch.Tensor, weight_scales: torch.Tensor,
           bias: Optional[torch.Tensor]) -> None:
    where = f"torchedge::{OP_NAME}"
    if weight_q.dtype != torch.int8 or weight_q.dim() != 2:
        raise ValueError(f"{where}: weight_q must be int8 [N, K], got {weight_q.dtype} "
                         f"{list(weight_q.shape)}")
    n, k = weight_q.shape
    if input.dtype != torch.float32 or input.shape[-1] != k:
        raise ValueError(f"{where}: input must be float32 [..., {k}], got {input.dtype} "
                         f"{list(input.shape)}")
    if weight_scales.dtype != torch.float32 or list(weight_scales.shape) != [n]:
        raise ValueError(f"{where}: weight_scales must be float32 [{n}], got "
                         f"{weight_scales.dtype} {list(weight_scales.shape)}")
    if bias is not None and list(bias.shape) != [n]:
        raise ValueError(f"{where}: bias must have shape [{n}], got {list(bias.shape)}")


def linear_dynamic_int8_reference(input: torch.Tensor, weight_q: torch.Tensor,
                                  weight_scales: torch.Tensor,
                                  bias: Optional[torch.Tensor]) -> torch.Tensor:
    _check(input, weight_q, weight_scales, bias)
    qd = torch.ops.quantized_decomposed
    scale, zp = qd.choose_qparams.tensor(input, -128, 127, FLOAT32_EPS, torch.int8)
    xq = qd.quantize_per_tensor.tensor(input, scale, zp, -128, 127, torch.int8)
    x = qd.dequantize_per_tensor.tensor(xq, scale, zp, -128, 127, torch.int8)
    w = qd.dequantize_per_channel(weight_q, weight_scales, None, 0, -128, 127, torch.int8)
    return F.linear(x, w, bias)


def linear_dynamic_int8_packed_reference(input: torch.Tensor, weight_packed: torch.Tensor,
                                         weight_scales: torch.Tensor,
                                         bias: Optional[torch.Tensor]) -> torch.Tensor:
    if weight_scales.dim() != 1:
        raise ValueError(f"torchedge::{PACKED_OP_NAME}: weight_scales must be float32 [N], got "
                         f"{list(weight_scales.shape)}")
    weight_q = unpack_int8_strips(weight_packed, weight_scales.shape[0], input.shape[-1])
    return linear_dynamic_int8_reference(input, weight_q, weight_scales, bias)


def linear_dynamic_int8_packed_split_reference(input: torch.Tensor, weight_packed: torch.Tensor,
                                               weight_scales: torch.Tensor,
                                               bias: Optional[torch.Tensor],
                                               sizes: list) -> list:
    where = f"torchedge::{SPLIT_OP_NAME}"
    if not sizes or any(n < 0 for n in sizes) or weight_scales.dim() != 1 \
            or weight_scales.shape[0] != sum(sizes):
        raise ValueError(f"{where}: sizes {list(sizes)} must be non-negative and sum to "
                         f"weight_scales' length {list(weight_scales.shape)}")
    outs, col, strip = [], 0, 0
    for n in sizes:
        strips = -(-n // STRIP)
        outs.append(linear_dynamic_int8_packed_reference(
            input, weight_packed[strip:strip + strips], weight_scales[col:col + n],
            bias[col:col + n] if bias is not None else None))
        col, strip = col + n, strip + strips
    if strip != weight_packed.shape[0]:
        raise ValueError(f"{where}: weight_packed has {weight_packed.shape[0]} strips, the "
                         f"sizes {list(sizes)} need {strip}")
    return outs


def _fake_split(input, weight_packed, weight_scales, bias, sizes):
    return [input.new_empty((*input.shape[:-1], n)) for n in sizes]


def _fake_packed(input, weight_packed, weight_scales, bias):
    return input.new_empty((*input.shape[:-1], weight_scales.shape[0]))


def _fake(input, weight_q, weight_scales, bias):
    return input.new_empty((*input.shape[:-1], weight_q.shape[0]))


def _register() -> None:
    if hasattr(getattr(torch.ops, NAMESPACE), OP_NAME):  # module reloaded: already registered
        return
    _library.define(f"{OP_NAME}({_ARGUMENTS}) -> Tensor")
    _library.define(f"{OP_NAME}.out({_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
    _library.impl(OP_NAME, linear_dynamic_int8_reference, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{OP_NAME}", _fake, lib=_library)
    _library.define(f"{PACKED_OP_NAME}({_PACKED_ARGUMENTS}) -> Tensor")
    _library.define(f"{PACKED_OP_NAME}.out({_PACKED_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
    _library.impl(PACKED_OP_NAME, linear_dynamic_int8_packed_reference,
                  "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{PACKED_OP_NAME}", _fake_packed, lib=_library)
    _library.define(f"{SPLIT_OP_NAME}({_SPLIT_ARGUMENTS}) -> Tensor[]")
    _library.define(f"{SPLIT_OP_NAME}.out({_SPLIT_ARGUMENTS}, *, Tensor(a!)[] out) -> ()")
    _library.impl(SPLIT_OP_NAME, linear_dynamic_int8_packed_split_reference,
                  "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{SPLIT_OP_NAME}", _fake_split, lib=_library)


_register()
