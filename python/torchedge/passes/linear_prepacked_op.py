"""torchedge::linear_prepacked: a float32 linear layer with its weight packed ahead of time.

    torchedge::linear_prepacked(Tensor input, Tensor weight_packed, Tensor? bias,
        int out_features) -> Tensor

is F.linear(input, unpack_weight(weight_packed, out_features), bias) for
input [*, K]. weight_packed is the [N, K] weight (N = out_features) laid out
as the SGEMM's B strips: [ceil(N / 16), K, 16], weight[n, k] at
weight_packed[n // 16, k, n % 16], columns past N zero. The optimized kernel
(kernels/optimized/ops/op_linear_prepacked.cpp) hands these strips to its
micro-kernel as they are, instead of packing the weight on every call; the
portable one is kernels/portable/op_linear_prepacked.cpp. The `.out`
overload (same arguments, then `*, Tensor(a!) out`) is the runtime kernel
"torchedge::linear_prepacked.out". Only weight_prepacking.py makes these
calls, at to_pte time; the EdgeProgram itself stays core ATen.

    torchedge::linear_prepacked_fused(Tensor input, Tensor weight_packed,
        Tensor? bias, int out_features, Tensor? residual, bool gelu) -> Tensor

is the same layer with what followed it folded in by
linear_epilogue_fusion.py: y = linear_prepacked(...); y = y + residual (a
tensor of y's element count whose last dim is N, read as y's rows: the
residual stream of a transformer block, which the model adds after a view);
y = gelu(y) (exact erf form) when `gelu`. The kernels apply both to each GEMM
tile while it is in registers instead of two more passes over the output.
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn.functional as F

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "linear_prepacked"
STRIP_WIDTH = 16  # the AVX2 and scalar SGEMM micro-kernels' NR
_ARGUMENTS = "Tensor input, Tensor weight_packed, Tensor? bias, int out_features"

def packed_shape(out_features: int, in_features: int) -> tuple[int, int, int]:
    """The shape of the packed form of an [out_features, in_features] weight."""
    return (-(-out_features // STRIP_WIDTH), in_features, STRIP_WIDTH)


def pack_weight(weight: torch.Tensor) -> torch.Tensor:
    """[N, K] -> [ceil(N / 16), K, 16] (contiguous; the padding columns are zero)."""
    if weight.dim() != 2:
        raise ValueError(f"{NAMESPACE}::{OP_NAME}: weight must be 2-d, got {list(weight.shape)}")
    n, k = weight.shape
    strips = packed_shape(n, k)[0]
    padded = weight.new_zeros(strips * STRIP_WIDTH, k)
    padded[:n] = weight
    return padded.reshape(strips, STRIP_WIDTH, k).transpose(1, 2).contiguous()


def unpack_weight(weight_packed: torch.Tensor, out_features: int) -> torch.Tensor:
    """pack_weight's inverse: [ceil(N / 16), K, 16] -> [N, K]."""
    strips, k, width = weight_packed.shape
    return weight_packed.transpose(1, 2).reshape(strips * width, k)[:out_features]


def _check(input: torch.Tensor, weight_packed: torch.Tensor, bias: Optional[torch.Tensor],
           out_features: int) -> None:
    where = f"{NAMESPACE}::{OP_NAME}"
    if input.dim() < 1 or input.dtype != torch.float32:
        raise ValueError(f"{where}: input must be float32 of rank >= 1, got {input.dtype} "
                         f"{list(input.shape)}")
    expected = packed_shape(out_features, input.shape[-1])
    if out_features < 0 or weight_packed.dtype != torch.float32 \
            or tuple(weight_packed.shape) != expected:
        raise ValueError(f"{where}: weight_packed must be float32 {list(expected)} for "
                         f"out_features {out_features}, got {weight_packed.dtype} "
                         f"{list(weight_packed.shape)}")
    if bias is not None and (bias.dtype != torch.float32 or tuple(bias.shape) != (out_features,)):
        raise ValueError(f"{where}: bias must be float32 [{out_features}], got {bias.dtype} "
                         f"{list(bias.shape)}")


def linear_prepacked_reference(input: torch.Tensor, weight_packed: torch.Tensor,
                               bias: Optional[torch.Tensor], out_features: int) -> torch.Tensor:
    _check(input, weight_packed, bias, out_features)
    return F.linear(input, unpack_weight(weight_packed, out_features), bias)


def _fake(input, weight_packed, bias, out_features):
    _check(input, weight_packed, bias, out_features)
    return input.new_empty((*input.shape[:-1], out_features))


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, linear_prepacked_reference, _fake)

FUSED_OP_NAME = "linear_prepacked_fused"
_FUSED_ARGUMENTS = _ARGUMENTS + ", Tensor? residual, bool gelu"


def _check_residual(input: torch.Tensor, residual: Optional[torch.Tensor], out_features: int) -> None:
    if residual is None:
        return
    rows = math.prod(input.shape[:-1])
    if residual.dtype != torch.float32 or residual.dim() < 1 \
            or residual.shape[-1] != out_features or residual.numel() != rows * out_features:
        raise ValueError(f"{NAMESPACE}::{FUSED_OP_NAME}: residual must be float32 with "
                         f"{rows * out_features} elements in rows of {out_features}, got "
                         f"{residual.dtype} {list(residual.shape)}")


def linear_prepacked_fused_reference(input: torch.Tensor, weight_packed: torch.Tensor,
                                     bias: Optional[torch.Tensor], out_features: int,
                                     residual: Optional[torch.Tensor], gelu: bool) -> torch.Tensor:
    _check(input, weight_packed, bias, out_features)
    _check_residual(input, residual, out_features)
    y = F.linear(input, unpack_weight(weight_packed, out_features), bias)
    if residual is not None:
        y = y + residual.reshape(y.shape)
    return F.gelu(y) if gelu else y


def _fused_fake(input, weight_packed, bias, out_features, residual, gelu):
    _check(input, weight_packed, bias, out_features)
    _check_residual(input, residual, out_features)
    return input.new_empty((*input.shape[:-1], out_features))


define_out_op(NAMESPACE, FUSED_OP_NAME, _FUSED_ARGUMENTS, linear_prepacked_fused_reference,
              _fused_fake)
