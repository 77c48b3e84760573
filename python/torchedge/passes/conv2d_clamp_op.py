"""torchedge::conv2d_clamp and torchedge::conv2d_add_clamp: a float32 2-D
convolution with its activation (and residual add) fused.

    torchedge::conv2d_clamp(Tensor input, Tensor weight, Tensor? bias, int[] stride,
        int[] padding, int[] dilation, int groups, float output_min, float output_max)
        -> Tensor

is clamp(conv2d(input, weight, bias, stride, padding, dilation, groups),
output_min, output_max): relu is (0, +inf), relu6 (0, 6), hardtanh(a, b) and
clamp(a, b) are (a, b); an open end is +-inf. NaN propagates, as in relu,
hardtanh and clamp.

    torchedge::conv2d_add_clamp(Tensor input, Tensor weight, Tensor? bias,
        Tensor residual, int[] stride, int[] padding, int[] dilation, int groups,
        float output_min, float output_max) -> Tensor

is clamp(conv2d(...) + residual, output_min, output_max), residual of the
convolution's output shape (no broadcasting): a ResNet block's last
convolution, its skip connection and relu (or MobileNetV2's projection and
skip with no activation: (-inf, +inf)). The sum is rounded once per element,
as eager's add is: (conv + bias) + residual.

The `.out` overloads (same arguments, then `*, Tensor(a!) out`) are the runtime
kernels "torchedge::conv2d_clamp.out" and "torchedge::conv2d_add_clamp.out"
(kernels/portable/op_conv2d_clamp.cpp, kernels/optimized/ops/op_conv2d_clamp.cpp,
which add and clamp in the convolution's bias pass). Only activation_fusion.py
makes these calls, at to_pte time; the EdgeProgram itself stays core ATen.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch
import torch.nn.functional as F

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "conv2d_clamp"
ADD_OP_NAME = "conv2d_add_clamp"
_ARGUMENTS = ("Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
              "int[] dilation, int groups, float output_min, float output_max")
_ADD_ARGUMENTS = ("Tensor input, Tensor weight, Tensor? bias, Tensor residual, int[] stride, "
                  "int[] padding, int[] dilation, int groups, float output_min, "
                  "float output_max")

def _check(op: str, input: torch.Tensor, output_min: float, output_max: float) -> None:
    where = f"{NAMESPACE}::{op}"
    if input.dim() != 4 or not input.is_floating_point():
        raise ValueError(f"{where}: input must be a 4-d float tensor, got {input.dtype} "
                         f"{list(input.shape)}")
    if math.isnan(output_min) or math.isnan(output_max) or output_min > output_max:
        raise ValueError(f"{where}: need output_min <= output_max, got {output_min} and "
                         f"{output_max}")


def _check_residual(y: torch.Tensor, residual: torch.Tensor) -> None:
    if residual.shape != y.shape or residual.dtype != y.dtype:
        raise ValueError(f"{NAMESPACE}::{ADD_OP_NAME}: residual must be {y.dtype} "
                         f"{list(y.shape)} (the convolution's output), got {residual.dtype} "
                         f"{list(residual.shape)}")


def conv2d_clamp_reference(input: torch.Tensor, weight: torch.Tensor,
                           bias: Optional[torch.Tensor], stride: Sequence[int],
                           padding: Sequence[int], dilation: Sequence[int], groups: int,
                           output_min: float, output_max: float) -> torch.Tensor:
    _check(OP_NAME, input, output_min, output_max)
    y = F.conv2d(input, weight, bias, list(stride), list(padding), list(dilation), groups)
    return torch.clamp(y, output_min, output_max)


def conv2d_add_clamp_reference(input: torch.Tensor, weight: torch.Tensor,
                               bias: Optional[torch.Tensor], residual: torch.Tensor,
                               stride: Sequence[int], padding: Sequence[int],
                               dilation: Sequence[int], groups: int, output_min: float,
                               output_max: float) -> torch.Tensor:
    _check(ADD_OP_NAME, input, output_min, output_max)
    y = F.conv2d(input, weight, bias, list(stride), list(padding), list(dilation), groups)
    _check_residual(y, residual)
    return torch.clamp(y + residual, output_min, output_max)


def _fake(input, weight, bias, stride, padding, dilation, groups, output_min, output_max):
    _check(OP_NAME, input, output_min, output_max)
    return F.conv2d(input, weight, bias, list(stride), list(padding), list(dilation), groups)


def _fake_add(input, weight, bias, residual, stride, padding, dilation, groups, output_min,
              output_max):
    _check(ADD_OP_NAME, input, output_min, output_max)
    y = F.conv2d(input, weight, bias, list(stride), list(padding), list(dilation), groups)
    _check_residual(y, residual)
    return y


for _name, _arguments, _reference, _fake_impl in (
        (OP_NAME, _ARGUMENTS, conv2d_clamp_reference, _fake),
        (ADD_OP_NAME, _ADD_ARGUMENTS, conv2d_add_clamp_reference, _fake_add)):
    define_out_op(NAMESPACE, _name, _arguments, _reference, _fake_impl)
